package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseBitrate reads a rate in bits per second as iperf3's -b takes it,
// with decimal suffixes (40M = 40,000,000 bit/s) and, for people who write
// it out, an optional "bit", "bit/s" or "bps": "40mbit", "1.5G", "100k".
func ParseBitrate(s string) (int64, error) {
	in := strings.TrimSpace(s)
	low := strings.ToLower(in)
	for _, unit := range []string{"bit/s", "bits/s", "bps", "bits", "bit"} {
		if strings.HasSuffix(low, unit) {
			low = strings.TrimSuffix(low, unit)
			break
		}
	}
	low = strings.TrimSpace(low)
	mult := 1.0
	if n := len(low); n > 0 {
		switch low[n-1] {
		case 'k':
			mult = 1e3
		case 'm':
			mult = 1e6
		case 'g':
			mult = 1e9
		case 't':
			mult = 1e12
		}
		if mult != 1 {
			low = strings.TrimSpace(low[:n-1])
		}
	}
	v, err := strconv.ParseFloat(low, 64)
	if err != nil || low == "" || strings.ContainsAny(low, "eEnNxX_+") {
		return 0, syntaxError(fmt.Sprintf("invalid rate %q: want bits per second such as 40M, 100mbit or 1.5G (1000-based)", s))
	}
	bps := v * mult
	if math.IsNaN(bps) || bps < 0 || bps > 1e15 {
		return 0, syntaxError(fmt.Sprintf("invalid rate %q: a rate from 0 to 1000 Tbit/s", s))
	}
	return int64(math.Round(bps)), nil
}

// ParseSeconds reads a time as iperf3 takes it, whole or fractional
// seconds ("10", "0.5"), or as a Go duration ("90s", "1m30s").
func ParseSeconds(s string) (time.Duration, error) {
	in := strings.TrimSpace(s)
	if v, err := strconv.ParseFloat(in, 64); err == nil && !strings.ContainsAny(in, "eEnNxX_+") {
		if v < 0 || v > 1e6 {
			return 0, syntaxError(fmt.Sprintf("invalid time %q: seconds from 0 to 1000000", s))
		}
		return time.Duration(v * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(in)
	if err != nil || d < 0 || d > 1e6*time.Second {
		return 0, syntaxError(fmt.Sprintf("invalid time %q: want seconds (10, 0.5) or a duration (90s, 1m)", s))
	}
	return d, nil
}

// syntaxError is bad input that is not a size; it still matches ErrSyntax.
type syntaxError string

func (e syntaxError) Error() string   { return string(e) }
func (e syntaxError) Is(t error) bool { return t == ErrSyntax }

// Duration is a flag value for a time, read as ParseSeconds reads it, so
// that every duration flag takes 10, 0.5, 10s and 2m alike.
type Duration struct{ p *time.Duration }

// NewDuration sets *p to def and returns the flag value that sets it.
func NewDuration(p *time.Duration, def time.Duration) Duration {
	*p = def
	return Duration{p}
}

func (d Duration) Set(s string) error {
	v, err := ParseSeconds(s)
	if err != nil {
		return err
	}
	*d.p = v
	return nil
}

func (d Duration) String() string {
	if d.p == nil {
		return ""
	}
	return d.p.String()
}

func (Duration) Type() string { return "duration" }
