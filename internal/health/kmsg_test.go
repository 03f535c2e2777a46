package health

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/fstest"
)

// TestKmsgLive writes two lines to the kernel log during a run: one that
// matches a pattern marks the run suspect with that line, one that
// matches nothing is only counted.
func TestKmsgLive(t *testing.T) {
	fstest.RequireRoot(t)
	cfg := Default()
	cfg.Interval = 50 * time.Millisecond
	s := Start(context.Background(), cfg)
	tag := "thruput-test " + time.Now().Format("150405.000")
	write := func(line string) {
		t.Helper()
		f, err := os.OpenFile("/dev/kmsg", os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(line); err != nil {
			t.Fatal(err)
		}
	}
	write(tag + ": an unremarkable line\n")
	time.Sleep(120 * time.Millisecond)
	write(tag + ": blk_update_request: I/O error, dev loop99, sector 8\n")
	// Another device's error: a note, not a reason.
	write(tag + ": blk_update_request: I/O error, dev loop98, sector 8\n")
	time.Sleep(120 * time.Millisecond)
	s.UnderTest("loop99")
	h := s.Stop()
	if h.Kernel == nil {
		t.Fatalf("kernel log unknown as root: %v", h.Unknown)
	}
	if h.Kernel.New < 2 {
		t.Errorf("%d new lines, want at least the 2 written", h.Kernel.New)
	}
	scopes := map[string]string{}
	for _, m := range h.Kernel.Matched {
		if strings.Contains(m.Line, tag) {
			scopes[m.Line[strings.Index(m.Line, "dev ")+4:][:6]] = m.Scope
			if m.Pattern != "i/o error" || m.Kind != "storage" || m.AtS < 0.1 {
				t.Errorf("matched %+v", m)
			}
		}
	}
	if len(scopes) != 2 || scopes["loop99"] != "device under test" || scopes["loop98"] != "other device" {
		t.Errorf("matched lines of this test by device %v, want loop99 under test and loop98 another device", scopes)
	}
	var reasons []string
	for _, x := range h.Suspect {
		if x.Reason == "kernel error" && strings.Contains(x.Detail, tag) {
			reasons = append(reasons, x.Detail)
		}
	}
	if len(reasons) != 1 || !strings.Contains(reasons[0], "loop99") {
		t.Errorf("suspect for %q, want the loop99 line alone", reasons)
	}
}

// TestKmsgUnreadable: a kernel log that cannot be opened is unknown.
func TestKmsgUnreadable(t *testing.T) {
	cfg := Config{Proc: t.TempDir(), Sys: t.TempDir(), Kmsg: "/nonexistent/kmsg"}
	s := newSampler(cfg)
	s.begin(time.Now())
	s.finish(time.Now())
	if s.outcome.Kernel != nil || !strings.Contains(strings.Join(s.outcome.Unknown, " "), "kernel") {
		t.Errorf("kernel %+v unknown %v", s.outcome.Kernel, s.outcome.Unknown)
	}
}
