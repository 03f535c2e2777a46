// Package pattern holds regular expressions compiled on their first use
// rather than when the program starts.
//
// Every run of the binary pays for the patterns its packages compile at
// start, whatever the command: several dozen, across the kernel log's
// matchers, the machine's sysfs names, the importer's parsers and the
// store's locations, were a tenth of `thruput version`'s CPU (issue 36).
// On a single-core board that is taken from the test a disk or network
// command measures.
package pattern

import (
	"regexp"
	"sync"
)

// Lazy is expr compiled on the first call. A bad expression panics at
// that call, which the parsers' tests reach, as regexp.MustCompile would
// at start.
func Lazy(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
