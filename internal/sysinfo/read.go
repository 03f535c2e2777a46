package sysinfo

import (
	"bufio"
	"io"
	"os"
	"strings"
	"unicode"
)

// maxValue bounds what is read of a one-value file, and the length of a line
// of a table file. Files under /proc and /sys report a size of 0 or 4096
// whatever they hold, so their size cannot say when to stop.
const maxValue = 64 << 10

// readValue returns a one-value file's content without surrounding space and
// NULs (device-tree strings end in one), or "" when it cannot be read: every
// fact is optional, and the caller cannot do better than leave it out.
func readValue(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxValue))
	if err != nil {
		return ""
	}
	return strings.TrimFunc(string(b), func(r rune) bool { return r == 0 || unicode.IsSpace(r) })
}

// eachLine calls fn with every line of a table file (mountinfo, cpuinfo,
// meminfo) and stops at fn's first error. Tables are streamed rather than
// read whole: on big machines they outgrow any bound worth setting (hundreds
// of mounts, hundreds of CPUs), and a table cut short would be read wrong.
func eachLine(path string, fn func(line string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), maxValue)
	for sc.Scan() {
		if err := fn(sc.Text()); err != nil {
			return err
		}
	}
	return sc.Err()
}
