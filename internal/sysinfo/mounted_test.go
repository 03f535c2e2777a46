package sysinfo

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestMounts(t *testing.T) {
	proc := t.TempDir()
	if err := os.MkdirAll(filepath.Join(proc, "self"), 0o755); err != nil {
		t.Fatal(err)
	}
	table := "22 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n" +
		"30 22 8:17 / /media/pi/my\\040card rw,nosuid shared:1 - vfat /dev/sdb1 rw\n"
	if err := os.WriteFile(filepath.Join(proc, "self/mountinfo"), []byte(table), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := FS{Proc: proc}.Mounts()
	want := []Mount{{254, 0, "/", "/dev/vda"}, {8, 17, "/media/pi/my card", "/dev/sdb1"}}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("got %+v, %v; want %+v", got, err, want)
	}
	if err := os.WriteFile(filepath.Join(proc, "self/mountinfo"), []byte("22 1 254:0 / /\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := (FS{Proc: proc}).Mounts(); err == nil || !strings.Contains(err.Error(), "line 1: malformed mountinfo line") {
		t.Errorf("a cut line: %v", err)
	}
}
