package sysinfo

import "testing"

// Fixture lets tests outside the package (the bottleneck verdicts) read
// the same fixture machines.
func Fixture(t *testing.T, name string) FS { return fixture(t, name) }
