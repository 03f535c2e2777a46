package pilab

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// Guest is what the guest's init printed between its markers: the files
// it read, by path (or by command for the command outputs), and the
// symbolic links it resolved, by path to target.
type Guest struct {
	Files map[string]string
	Links map[string]string
	// Status holds the text after "@@E " of a section that had one: the
	// exit status of a command ("rc=0").
	Status map[string]string
	// Failed are the modules insmod could not load.
	Failed []string
}

// ErrNoMarkers says the console output has no complete dump: the guest
// did not boot, or died before it finished.
var ErrNoMarkers = errors.New("console output holds no @@PILAB-BEGIN ... @@PILAB-END dump")

// ParseConsole reads the init script's dump out of everything the serial
// console carried (the kernel's messages, busybox's, the dump). Lines end
// in "\r\n" on a serial tty; the "\r" is dropped. A line outside any
// file is a kernel message that slipped in, and is skipped.
func ParseConsole(out []byte) (Guest, error) {
	g := Guest{Files: map[string]string{}, Links: map[string]string{}, Status: map[string]string{}}
	out = bytes.ReplaceAll(out, []byte("\r"), nil)
	lines := strings.Split(string(out), "\n")
	begin, end := -1, -1
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "@@MODULE-FAILED "):
			g.Failed = append(g.Failed, strings.TrimPrefix(l, "@@MODULE-FAILED "))
		// A stray byte from the UART can precede the marker.
		case strings.HasSuffix(l, "@@PILAB-BEGIN") && begin < 0:
			begin = i
		case l == "@@PILAB-END" && begin >= 0 && end < 0:
			end = i
		}
	}
	if begin < 0 || end < 0 {
		return g, ErrNoMarkers
	}
	var name string
	var body []string
	inFile := false
	for i := begin + 1; i < end; i++ {
		l := lines[i]
		if inFile {
			if l == "@@E" || strings.HasPrefix(l, "@@E ") {
				// dump adds a newline after the file; a file's own last
				// newline is kept.
				g.Files[name] = strings.Join(body, "\n")
				if st, ok := strings.CutPrefix(l, "@@E "); ok {
					g.Status[name] = st
				}
				inFile, body = false, nil
				continue
			}
			body = append(body, l)
			continue
		}
		switch {
		case strings.HasPrefix(l, "@@F "):
			name, inFile = strings.TrimPrefix(l, "@@F "), true
		case strings.HasPrefix(l, "@@L "):
			rest := strings.TrimPrefix(l, "@@L ")
			path, target, ok := strings.Cut(rest, " ")
			if !ok {
				return g, fmt.Errorf("line %d: link without target: %q", i+1, l)
			}
			g.Links[path] = target
		}
	}
	if inFile {
		return g, fmt.Errorf("file %s has no @@E before @@PILAB-END", name)
	}
	return g, nil
}

// Value is a file's content with surrounding white space trimmed, as
// sysfs attributes are read.
func (g Guest) Value(path string) string {
	return strings.TrimSpace(g.Files[path])
}
