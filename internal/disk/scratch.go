package disk

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/pattern"
	"github.com/thruput/thruput/internal/progress"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/usage"
)

// ScratchPrefix starts the name of every directory thruput creates in a
// target. Nothing else is ever created, written or removed.
const ScratchPrefix = ".thruput-"

const ownerFile = "owner.json"

// owner identifies the process that made a scratch directory, so a later run
// can tell a directory left by a killed process from one still in use.
type owner struct {
	Hostname  string `json:"hostname"`
	BootID    string `json:"boot_id"`
	PID       int    `json:"pid"`
	StartTime string `json:"start_time"` // field 22 of /proc/PID/stat
}

// Scratch is a run's own directory inside a target.
type Scratch struct {
	Dir string
}

// NewScratch creates .thruput-<runID> inside target. Mkdir fails if the name
// exists, so the directory is always fresh and always ours.
func NewScratch(target, runID string) (*Scratch, error) {
	dir := filepath.Join(target, ScratchPrefix+runID)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create scratch directory in %s: %w", target, err)
	}
	s := &Scratch{Dir: dir}
	me, err := self()
	if err == nil {
		var b []byte
		b, err = json.Marshal(me)
		if err == nil {
			err = createFile(filepath.Join(dir, ownerFile), b)
		}
	}
	if err != nil {
		s.Remove()
		return nil, fmt.Errorf("create scratch directory in %s: %w", target, err)
	}
	return s, nil
}

// Path names a file inside the scratch directory.
func (s *Scratch) Path(name string) string { return filepath.Join(s.Dir, name) }

// Remove deletes the scratch directory and everything in it.
func (s *Scratch) Remove() error { return os.RemoveAll(s.Dir) }

func createFile(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func self() (owner, error) {
	host, _ := os.Hostname()
	start, err := StartTime(os.Getpid())
	if err != nil {
		return owner{}, err
	}
	return owner{Hostname: host, BootID: bootID(), PID: os.Getpid(), StartTime: start}, nil
}

// readProc reads name, relative to /proc, through a descriptor of /proc.
func readProc(name string) ([]byte, error) {
	dir, err := unix.Open("/proc", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: "/proc", Err: err}
	}
	defer unix.Close(dir)
	fd, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: "/proc/" + name, Err: err}
	}
	f := os.NewFile(uintptr(fd), "/proc/"+name)
	defer f.Close()
	return io.ReadAll(f)
}

func bootID() string {
	b, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return strings.TrimSpace(string(b))
}

// StartTime is field 22 of /proc/PID/stat, the process's start in clock
// ticks since boot: what tells a live process from a later one that
// reused its PID.
//
// It reads the file through a descriptor of /proc, not by its full name:
// qemu-user answers a process's reads of its own /proc/PID/stat by name
// with a start time of its own making, a tick off the kernel's, which
// every other process reads. A 32-bit thruput under qemu-arm would then
// record a start that no later run sees, and take its live run for a
// dead one.
func StartTime(pid int) (string, error) {
	b, err := readProc(strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", err
	}
	// The command name (field 2) may hold spaces and parentheses: count
	// fields from the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "", fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return "", fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	return f[19], nil // field 22 overall
}

// Leftover is a scratch directory found in a target.
type Leftover struct {
	Dir string
	// Stale is true when the process that made it is gone.
	Stale bool
	// Why explains the verdict.
	Why string
}

// orphanAge is how old a scratch directory without an owner file must be
// before it counts as left behind: the owner file is written right after the
// directory is made.
const orphanAge = time.Minute

// FindLeftovers lists the scratch directories directly inside target.
func FindLeftovers(target string) ([]Leftover, error) {
	entries, err := os.ReadDir(target)
	if err != nil {
		return nil, err
	}
	me, _ := self()
	var out []Leftover
	for _, e := range entries {
		if !runDirName().MatchString(e.Name()) || e.Type()&fs.ModeType != fs.ModeDir {
			continue
		}
		dir := filepath.Join(target, e.Name())
		stale, why := judge(dir, me)
		out = append(out, Leftover{Dir: dir, Stale: stale, Why: why})
	}
	return out, nil
}

// runDirName is the shape of the directories thruput makes; a directory
// that merely starts with .thruput- is someone else's and never touched.
var runDirName = pattern.Lazy(`^\.thruput-[0-9]{8}T[0-9]{6}Z-[0-9a-f]{6}$`)

// ourFile names the files a run creates in its directory.
var ourFile = pattern.Lazy(`^(owner\.json|direct-probe|sweep-[0-9]+\.dat|sweep-read\.dat|test_file\.[0-9]+|job\.[0-9]+)$`)

// onlyOurs reports whether dir holds nothing but files a run creates, so
// that a directory without a readable owner record is removed only when
// it cannot be anything else.
func onlyOurs(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !ourFile().MatchString(e.Name()) {
			return false
		}
	}
	return true
}

func judge(dir string, me owner) (bool, string) {
	b, err := os.ReadFile(filepath.Join(dir, ownerFile))
	var o owner
	if err == nil {
		err = json.Unmarshal(b, &o)
	}
	if err != nil {
		info, serr := os.Lstat(dir)
		switch {
		case serr != nil || time.Since(info.ModTime()) < orphanAge:
			return false, "no owner record yet; made under a minute ago"
		case !onlyOurs(dir):
			return false, "no owner record, and it holds files thruput does not make; remove it yourself"
		}
		return true, "no owner record"
	}
	switch {
	case o.Hostname != me.Hostname:
		return false, fmt.Sprintf("made on host %q; clean it there", o.Hostname)
	case o.BootID != me.BootID:
		return true, "made before the last reboot"
	}
	st, err := StartTime(o.PID)
	if err != nil || st != o.StartTime {
		return true, fmt.Sprintf("process %d is gone", o.PID)
	}
	return false, fmt.Sprintf("in use by running process %d", o.PID)
}

// CleanLeftovers removes the stale scratch directories in target and returns
// what it found, removed or not.
func CleanLeftovers(target string) ([]Leftover, error) {
	found, err := FindLeftovers(target)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, l := range found {
		if l.Stale {
			if err := os.RemoveAll(l.Dir); err != nil {
				errs = append(errs, fmt.Errorf("remove %s: %w", l.Dir, err))
			}
		}
	}
	return found, errors.Join(errs...)
}

// prepareScratch removes what killed runs left in the target and makes
// this run's directory.
func prepareScratch(t result.Target, runID string, h progress.Hooks) (*Scratch, error) {
	found, err := CleanLeftovers(t.Path)
	for _, l := range found {
		if l.Stale {
			h.Notef("removed %s left by an earlier run (%s)", l.Dir, l.Why)
		} else {
			h.Notef("left %s alone: %s", l.Dir, l.Why)
		}
	}
	if err != nil {
		h.Notef("%v", err)
	}
	return NewScratch(t.Path, runID)
}

// directCheck names block sizes that O_DIRECT must accept, and what they
// are, in usage.Invalidf's words ("{BlockSize}").
type directCheck struct {
	what  string
	sizes []int64
}

// inScratch runs f in a fresh scratch directory in t: it checks first that
// need bytes fit (needWhat is the parameter that sets them, as checkSpace
// takes it), and with direct that the filesystem takes those block sizes
// with O_DIRECT, and removes the directory on every return.
func inScratch(t result.Target, runID string, need int64, needWhat string, h progress.Hooks, direct *directCheck, f func(*Scratch) error) (err error) {
	if err := checkSpace(t, need, needWhat); err != nil {
		return err
	}
	s, err := prepareScratch(t, runID, h)
	if err != nil {
		return err
	}
	defer func() {
		if rerr := s.Remove(); rerr != nil && err == nil {
			err = fmt.Errorf("remove %s: %w", s.Dir, rerr)
		}
	}()
	if direct != nil {
		if err := checkDirect(s, t, direct.what, direct.sizes...); err != nil {
			return err
		}
	}
	return f(s)
}

// checkDirect refuses block sizes the filesystem's O_DIRECT would reject,
// saying what they are (what, in usage.Invalidf's words).
func checkDirect(s *Scratch, t result.Target, what string, sizes ...int64) error {
	if t.FSType == "tmpfs" || t.FSType == "ramfs" {
		// Newer kernels accept O_DIRECT on tmpfs, but there is no device
		// behind it to reach: the figures would be memory copies.
		return usage.Invalidf("{Direct}: %s is %s, which keeps files in memory; O_DIRECT cannot reach a device there ({Direct}=false measures the memory)", t.Path, t.FSType)
	}
	align, err := directAlign(s, t)
	if err != nil {
		return err
	}
	for _, bs := range sizes {
		if bs%align != 0 {
			return usage.Invalidf("{Direct}: "+what+" %d B is not a multiple of %d B, the O_DIRECT alignment of %s (the device's logical block size)", bs, align, t.Path)
		}
	}
	return nil
}
