package importer

import (
	"regexp"
	"sync"
)

// lazyRegexp is a pattern compiled on its first use. The importer's several
// dozen patterns, compiled when the package started, cost every run of the
// binary 1.5-2.7 ms, importing or not: on a single-core board that is
// taken from the test a disk or network command measures (issue 36). A bad
// pattern panics at first use, which the parsers' tests reach.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
