package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/thruput/thruput/internal/stable"
	"github.com/thruput/thruput/internal/units"
)

// oldNames keeps the flag names of earlier releases working, hidden from
// help: pflag looks every name up through the normalizer, so --total-size
// finds --size. One name per idea is shown; the old one is never refused.
func oldNames(fl *pflag.FlagSet, old map[string]string) {
	fl.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if n, ok := old[name]; ok {
			name = n
		}
		return pflag.NormalizedName(name)
	})
}

// stableFlags are --until-stable[=PCT] and --sustained, on every method
// that measures a rate.
type stableFlags struct {
	pct       stablePct
	sustained bool
}

func (s *stableFlags) add(fl *pflag.FlagSet) {
	f := fl.VarPF(&s.pct, "until-stable", "", "end each step once the 95 % interval of its rate is within ±`PCT` % of it (2 when given alone), or at its time bound; warm-up cut off")
	f.NoOptDefVal = "2"
	fl.BoolVar(&s.sustained, "sustained", false, "when the rate drops and stays down (an SD card's SLC cache or the page cache filling), the figure is the rate after the drop")
}

func (s stableFlags) options() stable.Options {
	return stable.Options{Target: float64(s.pct) / 100, Sustained: s.sustained}
}

// stablePct is --until-stable's percentage: "2", "2%", "0.5".
type stablePct float64

func (p *stablePct) String() string {
	if *p == 0 {
		return ""
	}
	return strconv.FormatFloat(float64(*p), 'g', -1, 64)
}

func (p *stablePct) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || !(v > 0 && v <= 50) {
		return fmt.Errorf("want a percentage above 0 and at most 50, such as 2 or 0.5")
	}
	*p = stablePct(v)
	return nil
}

func (p *stablePct) Type() string { return "PCT" }

// blockCount is -k: a count of blocks as iperf3 reads it (1K is 1024), its
// error naming the flag and the value given.
type blockCount struct{ p *int64 }

func (b blockCount) Set(v string) error {
	n, err := units.ParseSize(v)
	if err != nil {
		return fmt.Errorf("-k %s: a count of blocks such as 1000 or 1K (1024), more than 0", v)
	}
	*b.p = n
	return nil
}

func (b blockCount) String() string { return strconv.FormatInt(*b.p, 10) }

func (blockCount) Type() string { return "count" }
