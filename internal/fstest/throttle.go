package fstest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Throttle is a cgroup (v1 blkio) that caps the bytes per second its
// processes may read from and write to one block device: a slow SD card
// or USB stick stood in for by a loop device, at rates the test knows.
// Buffered writes are written back by the kernel outside the cgroup, so
// only reads and O_DIRECT writes are capped.
type Throttle struct {
	dir string
	dev string // major:minor
}

const blkio = "/sys/fs/cgroup/blkio"

// NewThrottle makes a cgroup capping the device under mount dir, removed
// when t ends (after the processes in it have).
func NewThrottle(t testing.TB, dir string) *Throttle {
	t.Helper()
	RequireRoot(t)
	if _, err := os.Stat(filepath.Join(blkio, "blkio.throttle.read_bps_device")); err != nil {
		t.Fatalf("fstest: no cgroup v1 blkio throttle at %s: %v", blkio, err)
	}
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		t.Fatal(err)
	}
	th := &Throttle{
		dir: filepath.Join(blkio, fmt.Sprintf("thruput-fstest-%d-%d", os.Getpid(), time.Now().UnixNano())),
		dev: fmt.Sprintf("%d:%d", unix.Major(uint64(st.Dev)), unix.Minor(uint64(st.Dev))),
	}
	if err := os.Mkdir(th.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The cgroup goes once empty; its last process may take a moment.
		for try := 0; ; try++ {
			err := os.Remove(th.dir)
			if err == nil || os.IsNotExist(err) {
				return
			}
			if try == 50 {
				t.Errorf("fstest: removing %s: %v", th.dir, err)
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	return th
}

// Set caps reads and writes at these bytes per second (0: no cap).
func (th *Throttle) Set(t testing.TB, read, write int64) {
	t.Helper()
	th.set(t, map[string]int64{"blkio.throttle.read_bps_device": read, "blkio.throttle.write_bps_device": write})
}

// SetIOPS caps reads and writes at these requests per second (0: no
// cap), as the block layer counts them: a large request split to the
// device's limits counts as several.
func (th *Throttle) SetIOPS(t testing.TB, read, write int64) {
	t.Helper()
	th.set(t, map[string]int64{"blkio.throttle.read_iops_device": read, "blkio.throttle.write_iops_device": write})
}

func (th *Throttle) set(t testing.TB, caps map[string]int64) {
	t.Helper()
	for file, v := range caps {
		if err := os.WriteFile(filepath.Join(th.dir, file), []byte(th.dev+" "+strconv.FormatInt(v, 10)), 0o644); err != nil {
			t.Fatalf("fstest: %s: %v", file, err)
		}
	}
}

// Command is name with args, run inside the cgroup from its first
// instruction: a shell joins the cgroup, then becomes the command.
func (th *Throttle) Command(name string, args ...string) *exec.Cmd {
	return exec.Command("/bin/sh", append([]string{"-c", `echo $$ > "$0/cgroup.procs" && exec "$@"`, th.dir, name}, args...)...)
}

// Join moves the test's own process into the cgroup, for a test whose
// I/O is not a command of its own, and back out to the root cgroup when t
// ends (before the cgroup is removed).
func (th *Throttle) Join(t testing.TB) {
	t.Helper()
	pid := []byte(strconv.Itoa(os.Getpid()))
	if err := os.WriteFile(filepath.Join(th.dir, "cgroup.procs"), pid, 0o644); err != nil {
		t.Fatalf("fstest: joining %s: %v", th.dir, err)
	}
	t.Cleanup(func() {
		if err := os.WriteFile(filepath.Join(blkio, "cgroup.procs"), pid, 0o644); err != nil {
			t.Errorf("fstest: leaving %s: %v", th.dir, err)
		}
	})
}

// Served is the bytes the throttle has let through to its device for the
// cgroup's processes so far, read and written, as the kernel counts them
// (blkio.throttle.io_service_bytes): the limit's own measure, which a test
// holds a rate measured through it to.
func (th *Throttle) Served() (read, write int64, err error) {
	return th.counters("blkio.throttle.io_service_bytes")
}

// ServedIOs is the requests the throttle has let through to its device
// for the cgroup's processes so far, reads and writes
// (blkio.throttle.io_serviced), which a test holds IOPS measured through
// it to.
func (th *Throttle) ServedIOs() (read, write int64, err error) {
	return th.counters("blkio.throttle.io_serviced")
}

// counters reads a blkio file's Read and Write lines for the device.
func (th *Throttle) counters(file string) (read, write int64, err error) {
	b, err := os.ReadFile(filepath.Join(th.dir, file))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[0] != th.dev {
			continue
		}
		n, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("fstest: %s: %q", file, line)
		}
		switch f[1] {
		case "Read":
			read = n
		case "Write":
			write = n
		}
	}
	return read, write, nil
}
