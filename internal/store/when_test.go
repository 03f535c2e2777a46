package store

import (
	"testing"
	"time"
)

func TestParseWhen(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"":                     {},
		"7d":                   now.AddDate(0, 0, -7),
		"36h":                  now.Add(-36 * time.Hour),
		"2026-11-21T13:00:00Z": time.Date(2026, 11, 21, 13, 0, 0, 0, time.UTC),
		"2026-11-21":           time.Date(2026, 11, 21, 0, 0, 0, 0, time.Local),
	} {
		got, err := ParseWhen(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("%q: %v %v, want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"yesterday", "-5h", "2300-01-01", "1900-01-01", "7x"} {
		if got, err := ParseWhen(bad, now); err == nil {
			t.Errorf("%q: %v, want an error", bad, got)
		}
	}
}

func FuzzParseWhen(f *testing.F) {
	for _, s := range []string{"7d", "2026-11-21T13:00", "24h", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseWhen(s, time.Now())
		if err == nil && s != "" && (got.Year() < 1900 || got.Year() > 2200) {
			t.Errorf("%q: %v", s, got)
		}
	})
}
