package units

import (
	"errors"
	"testing"
	"time"
)

func TestParseBitrate(t *testing.T) {
	for in, want := range map[string]int64{
		"40M": 40e6, "40mbit": 40e6, "100k": 1e5, "1.5G": 1.5e9, "1000": 1000, "0": 0,
		"10 Mbit/s": 10e6, "2gbps": 2e9,
	} {
		got, err := ParseBitrate(in)
		if err != nil || got != want {
			t.Errorf("ParseBitrate(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "M", "-1M", "fast", "1e9", "NaN", "9999999T"} {
		if _, err := ParseBitrate(in); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseBitrate(%q) = %v; want a syntax error", in, err)
		}
	}
}

func TestParseSeconds(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"10": 10 * time.Second, "0.5": 500 * time.Millisecond, "90s": 90 * time.Second, "1m": time.Minute, "0": 0,
	} {
		got, err := ParseSeconds(in)
		if err != nil || got != want {
			t.Errorf("ParseSeconds(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "ten", "1e3", "-5s", "NaN"} {
		if _, err := ParseSeconds(in); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseSeconds(%q) = %v; want a syntax error", in, err)
		}
	}
}

func FuzzParseBitrate(f *testing.F) {
	for _, s := range []string{"40M", "100mbit", "1.5G", "-1", "1e9", "0.0000001k"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseBitrate(s)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("error %v does not wrap ErrSyntax", err)
			}
			return
		}
		if v < 0 || v > 1e15 {
			t.Fatalf("%q gave %d", s, v)
		}
	})
}

func FuzzParseSeconds(f *testing.F) {
	for _, s := range []string{"10", "0.5", "90s", "-1", "1e3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseSeconds(s)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("error %v does not wrap ErrSyntax", err)
			}
			return
		}
		if d < 0 || d > 1e6*time.Second {
			t.Fatalf("%q gave %v", s, d)
		}
	})
}
