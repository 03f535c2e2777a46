package store

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseWhen reads a point in time as people type it: a date, a date and
// time (local time unless a zone is given), or an age counted back from now
// in Go durations plus days ("36h", "7d"). Empty is the zero time.
func ParseWhen(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n >= 0 && n <= 36500 {
			return now.AddDate(0, 0, -n), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return time.Time{}, fmt.Errorf("%q: an age is not negative", s)
		}
		return now.Add(-d), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"} {
		if err == nil {
			break
		}
		t, err = time.ParseInLocation(layout, s, time.Local)
	}
	if err == nil {
		// The store keeps nanoseconds since 1970 in 64 bits.
		if t.Year() < 1970 || t.Year() > 2200 {
			return time.Time{}, fmt.Errorf("%q: a year from 1970 to 2200", s)
		}
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q: use a date (2026-11-21), a date and time (2026-11-21T13:00), or an age (24h, 7d)", s)
}
