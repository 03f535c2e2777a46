package sysinfo

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/thruput/thruput/internal/pattern"
)

// A capture is every /proc, /sys and /etc file, directory and symlink the
// reader looked at, in one text archive: a comment, then entries that each
// start at a "-- name --" line. "-- a -> b --" is a symlink, "-- a/ --" a
// directory, and anything else a file holding the lines up to the next
// entry (plus a final newline). Names are relative to the machine's root.
// Entries sit at their resolved place: a file read through a link is kept
// under the directory the link leads to, beside the link itself, so the
// tree it unpacks to is walked the way the machine's was.

// recorder collects what the reader looks at while a capture is on.
type recorder struct {
	// root is the machine's /, which entry names are relative to.
	root  string
	mu    sync.Mutex
	files map[string][]byte
	links map[string]string
	dirs  map[string]bool
}

// taps is the recorder of the capture in progress, nil outside one. The
// reader's functions are package functions of paths, so the recorder is
// package state; Capture holds captureMu for the whole read.
var (
	taps      atomic.Pointer[recorder]
	captureMu sync.Mutex
	tap       tapper
)

// tapper forwards to the recorder when a capture is on; its zero value is
// the one every reader function calls.
type tapper struct{}

func (tapper) on() bool { return taps.Load() != nil }

func (tapper) file(path string, b []byte) {
	if r := taps.Load(); r != nil {
		if p, ok := r.place(path); ok {
			r.mu.Lock()
			r.files[p] = slices.Clone(b)
			r.mu.Unlock()
		}
	}
}

// fact keeps a live fact (live.go) as the pseudo-file name under factsDir.
func (tapper) fact(name string, b []byte) {
	if r := taps.Load(); r != nil {
		r.mu.Lock()
		r.files[filepath.Join(factsDir, name)] = b
		r.mu.Unlock()
	}
}

func (tapper) link(link, target string) {
	if r := taps.Load(); r != nil {
		r.addLink(link, target)
	}
}

// exists keeps a path the reader checked or listed: a link as a link, a
// directory as one; a plain file only by its content, when read.
func (tapper) exists(path string) {
	r := taps.Load()
	if r == nil {
		return
	}
	fi, err := os.Lstat(path)
	switch {
	case err != nil:
	case fi.Mode()&os.ModeSymlink != 0:
		if t, err := os.Readlink(path); err == nil {
			r.addLink(path, t)
		}
	case fi.IsDir():
		if p, ok := r.place(path); ok {
			r.mu.Lock()
			r.dirs[p] = true
			r.mu.Unlock()
		}
	default:
		if p, ok := r.place(path); ok {
			r.mu.Lock()
			if _, seen := r.files[p]; !seen {
				r.files[p] = nil
			}
			r.mu.Unlock()
		}
	}
}

// place is where path sits with its directory's links resolved (and
// kept), relative to the root; ok is false outside the root.
func (r *recorder) place(path string) (string, bool) {
	dir, err := walk(filepath.Dir(path), r.addLink)
	if err != nil {
		return "", false
	}
	rel, err := filepath.Rel(r.root, filepath.Join(dir, filepath.Base(path)))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return rel, true
}

// addLink keeps a link at its resolved place, with an absolute target
// (/proc/device-tree -> /sys/firmware/devicetree/base) made relative so
// that the unpacked tree points into itself.
func (r *recorder) addLink(link, target string) {
	p, ok := r.place(link)
	if !ok {
		return
	}
	if filepath.IsAbs(target) {
		rel, err := filepath.Rel(filepath.Dir(filepath.Join(r.root, p)), target)
		if err != nil {
			return
		}
		target = rel
	}
	r.mu.Lock()
	r.links[p] = target
	r.mu.Unlock()
}

// Capture runs read, which reads the machine through fs (as thruput
// sysinfo does), and writes every file, directory and symlink it read to
// w as a capture archive, with the live facts (live.go) it asked.
// Serial numbers, world wide names and MAC addresses are replaced unless keepIDs. Captures
// run one at a time.
func (fs FS) Capture(w io.Writer, keepIDs bool, read func() error) error {
	if !fs.Live || fs.Root == "" {
		return errors.New("a capture reads the running machine only")
	}
	captureMu.Lock()
	defer captureMu.Unlock()
	r := &recorder{root: fs.Root, files: map[string][]byte{}, links: map[string]string{}, dirs: map[string]bool{}}
	taps.Store(r)
	err := read()
	taps.Store(nil)
	if err != nil {
		return err
	}
	return r.write(w, keepIDs)
}

// captureHeader opens every capture; OpenCapture requires it.
const captureHeader = "thruput sysinfo capture"

func (r *recorder) write(w io.Writer, keepIDs bool) error {
	bw := bufio.NewWriter(w)
	redacted := "Serial numbers, world wide names and MAC addresses are replaced by zeros (a card's serial keeps its leading zeros, the rest made f)."
	if keepIDs {
		redacted = "Serial numbers, world wide names and MAC addresses are kept (--no-redact)."
	}
	fmt.Fprintf(bw, "%s: the files, directories and symlinks thruput sysinfo read.\n%s\n", captureHeader, redacted)
	type entry struct {
		name string
		body []byte
	}
	var entries []entry
	for p := range r.dirs {
		entries = append(entries, entry{name: p + "/"})
	}
	for p, t := range r.links {
		entries = append(entries, entry{name: p + " -> " + t})
	}
	for p, b := range r.files {
		if !keepIDs {
			b = redact(p, b)
		}
		entries = append(entries, entry{name: p, body: b})
	}
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	for _, e := range entries {
		fmt.Fprintf(bw, "-- %s --\n", e.name)
		bw.Write(e.body)
		if len(e.body) > 0 && e.body[len(e.body)-1] != '\n' {
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}

var (
	// cpuinfoSerial is a Raspberry Pi kernel's "Serial : 00000000abcdef".
	cpuinfoSerial = pattern.Lazy(`(?m)^(Serial\s*:\s*)([0-9a-fA-F]+)`)
	macAddress    = pattern.Lazy(`^([0-9a-f]{2}:){5}[0-9a-f]{2}$`)
	// cardSerial is an SD card's or eMMC's serial as sysfs prints it.
	cardSerial = pattern.Lazy(`^0x[0-9a-fA-F]{8}$`)
)

// lowness keeps a hex number's leading zeros and makes its other digits f.
func lowness(digits string) string {
	zeros := len(digits) - len(strings.TrimLeft(digits, "0"))
	return digits[:zeros] + strings.Repeat("f", len(digits)-zeros)
}

// redact zeroes the identifiers in a file: a USB device's or card's serial,
// a disk's world wide name, the card's CID (whose serial is its bytes 9 to 12), cpuinfo's Serial and
// a MAC address. A card's serial keeps its leading zeros and has its other
// digits made f, so that a low serial, which marks a counterfeit, reads as
// low from the capture and a genuine card's does not.
func redact(name string, b []byte) []byte {
	base := filepath.Base(name)
	v := strings.TrimSpace(string(b))
	switch {
	case (base == "serial" || base == "serial-number") && cardSerial().MatchString(v):
		return []byte("0x" + lowness(v[2:]) + "\n")
	case base == "serial" || base == "serial-number":
		return []byte(strings.Repeat("0", len(v)) + "\n")
	case base == "wwid":
		// naa.5002538f…: the kind of name stays, the name itself goes.
		kind, name, _ := strings.Cut(v, ".")
		return []byte(kind + "." + strings.Repeat("0", len(name)) + "\n")
	case base == "cid" && len(v) == 32:
		return []byte(v[:18] + lowness(v[18:26]) + v[26:] + "\n")
	case base == "cpuinfo":
		return cpuinfoSerial().ReplaceAllFunc(b, func(m []byte) []byte {
			i := bytes.LastIndexAny(m, ": \t") + 1
			return append(slices.Clone(m[:i]), bytes.Repeat([]byte("0"), len(m)-i)...)
		})
	case macAddress().MatchString(v):
		return []byte("00:00:00:00:00:00\n")
	}
	return b
}

// ErrNotCapture is returned by OpenCapture for a file that is not one.
var ErrNotCapture = errors.New("not a thruput sysinfo capture")

// Unpack writes a capture's (or a test fixture's) entries under dir. Names
// and link targets must stay inside dir: a capture comes from another
// machine, and reading it must not lead the reader out into this one.
func Unpack(archive []byte, dir string) error {
	var name string
	var body []byte
	flush := func() error {
		if name == "" {
			return nil
		}
		return unpackEntry(dir, name, body)
	}
	for line := range strings.Lines(string(archive)) {
		header := strings.TrimSuffix(line, "\n")
		if strings.HasPrefix(header, "-- ") && strings.HasSuffix(header, " --") && len(header) > 6 {
			if err := flush(); err != nil {
				return err
			}
			name, body = header[3:len(header)-3], nil
		} else if name != "" {
			body = append(body, line...)
		}
	}
	return flush()
}

func unpackEntry(dir, name string, body []byte) error {
	rel, target, isLink := strings.Cut(name, " -> ")
	inside := func(p string) bool {
		return p != ".." && !strings.HasPrefix(p, "../") && !filepath.IsAbs(p)
	}
	clean := filepath.Clean(rel)
	if !inside(clean) || clean == "." {
		return fmt.Errorf("%w: entry %q is outside the root", ErrNotCapture, name)
	}
	path := filepath.Join(dir, clean)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	switch {
	case isLink:
		if !inside(filepath.Clean(filepath.Join(filepath.Dir(clean), target))) || filepath.IsAbs(target) {
			return fmt.Errorf("%w: link %q leads outside the root", ErrNotCapture, name)
		}
		return os.Symlink(target, path)
	case strings.HasSuffix(rel, "/"):
		return os.MkdirAll(path, 0o755)
	}
	return os.WriteFile(path, body, 0o644)
}

// OpenCapture unpacks a capture file into a new directory under tmp and
// returns the roots to read it by; remove the directory when done.
func OpenCapture(file, tmp string) (FS, string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return FS{}, "", err
	}
	if !bytes.HasPrefix(b, []byte(captureHeader)) {
		return FS{}, "", fmt.Errorf("%s: %w (it does not start with %q)", file, ErrNotCapture, captureHeader)
	}
	dir, err := os.MkdirTemp(tmp, "thruput-capture-")
	if err != nil {
		return FS{}, "", err
	}
	if err := Unpack(b, dir); err != nil {
		os.RemoveAll(dir)
		return FS{}, "", fmt.Errorf("%s: %w", file, err)
	}
	return AtRoot(dir), dir, nil
}

// AtRoot reads the machine whose /proc, /sys and /etc are under dir.
func AtRoot(dir string) FS {
	return FS{Root: dir, Proc: filepath.Join(dir, "proc"), Sys: filepath.Join(dir, "sys"), Etc: filepath.Join(dir, "etc")}
}
