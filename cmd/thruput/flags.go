package main

import "github.com/spf13/pflag"

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
