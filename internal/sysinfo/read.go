package sysinfo

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/thruput/thruput/internal/kfile"
)

// maxValue bounds what is read of a one-value file, and the length of a line
// of a table file. Files under /proc and /sys report a size of 0 or 4096
// whatever they hold, so their size cannot say when to stop.
const maxValue = 64 << 10

// maxTable bounds a table file kept whole for a capture.
const maxTable = 16 << 20

// readValue returns a one-value file's content without surrounding space and
// NULs (device-tree strings end in one), or "" when it cannot be read: every
// fact is optional, and the caller cannot do better than leave it out.
//
// It and eachLine read through kfile, whose raw system calls keep the P:
// the files are the kernel's, and the few that are not (os-release) are
// read before and after a measurement, never during one.
func readValue(path string) string {
	b, err := kfile.ReadFile(path, maxValue)
	if err != nil {
		return ""
	}
	tap.file(path, b)
	return strings.TrimFunc(string(b), func(r rune) bool { return r == 0 || unicode.IsSpace(r) })
}

// eachLine calls fn with every line of a table file (mountinfo, cpuinfo,
// meminfo) and stops at fn's first error. Tables are streamed rather than
// read whole: on big machines they outgrow any bound worth setting (hundreds
// of mounts, hundreds of CPUs), and a table cut short would be read wrong.
// A capture keeps them whole, up to maxTable.
func eachLine(path string, fn func(line string) error) error {
	f, err := kfile.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader = f
	if tap.on() {
		b, err := io.ReadAll(io.LimitReader(f, maxTable))
		if err != nil {
			return err
		}
		tap.file(path, b)
		r = bytes.NewReader(b)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxValue)
	for sc.Scan() {
		if err := fn(sc.Text()); err != nil {
			return err
		}
	}
	return sc.Err()
}

// readDir lists a directory (a capture keeps its subdirectories and links;
// its files only when read).
func readDir(dir string) ([]os.DirEntry, error) {
	entries, err := os.ReadDir(dir)
	if err == nil && tap.on() {
		for _, e := range entries {
			if e.Type()&(fs.ModeSymlink|fs.ModeDir) != 0 {
				tap.exists(filepath.Join(dir, e.Name()))
			}
		}
	}
	return entries, err
}

// glob is filepath.Glob, with what it finds kept by a capture.
func glob(pattern string) []string {
	m, _ := filepath.Glob(pattern)
	for _, p := range m {
		tap.exists(p)
	}
	return m
}

// exists reports whether path is there, without following a last symlink.
func exists(path string) bool {
	_, err := os.Lstat(path)
	if err == nil {
		tap.exists(path)
	}
	return err == nil
}

// readlink is os.Readlink, kept by a capture.
func readlink(link string) (string, error) {
	t, err := os.Readlink(link)
	if err == nil {
		tap.link(link, t)
	}
	return t, err
}

var errLinkLoop = errors.New("too many symlinks")

// resolve follows the symlinks of a sysfs path as filepath.EvalSymlinks
// does, one part at a time so that a capture keeps each link it crossed;
// "" when it leads nowhere.
func resolve(path string) string {
	p, err := walk(path, tap.link)
	if err != nil {
		return ""
	}
	return p
}

// walk resolves every symlink in the absolute path, calling onLink with
// each link crossed and its target.
func walk(path string, onLink func(link, target string)) (string, error) {
	if !filepath.IsAbs(path) {
		abs, err := filepath.Abs(path)
		if err != nil {
			return "", err
		}
		path = abs
	}
	rest := strings.Split(filepath.Clean(path), "/")
	cur := "/"
	for links := 0; len(rest) > 0; {
		part := rest[0]
		rest = rest[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, part)
		fi, err := os.Lstat(next)
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links++; links > 64 {
			return "", errLinkLoop
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if onLink != nil {
			onLink(next, target)
		}
		if filepath.IsAbs(target) {
			cur = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return cur, nil
}
