package main

import (
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/fstest"
	"github.com/thruput/thruput/internal/result"
)

// TestPageCacheShare: a buffered random read of a file set far smaller
// than memory is served by the page cache; the run says how little the
// device served, warns with the remedy and marks the result. With
// --direct the device serves it all and nothing is said against it.
func TestPageCacheShare(t *testing.T) {
	dir := fstest.Mount(t, "ext4", 64<<20)
	args := []string{dir, "--mode", "rndrd", "--size", "8M", "--files", "2", "-t", "1", "--no-save"}
	doc := randomJSON(t, args...)
	d := doc.Random.ReadDevice
	if d == nil || !d.Cached || d.Share >= result.CachedBelow || d.ReadBytes <= 0 {
		t.Fatalf("buffered: device share %+v, want cached", d)
	}
	o := thruput(t, append([]string{"disk", "random", "-q"}, args...)...)
	if !strings.Contains(o.stdout, "the page cache served the rest") || !strings.Contains(o.stdout, "--direct") {
		t.Errorf("buffered: no warning with the remedy:\n%s", o.stdout)
	}
	doc = randomJSON(t, append(args, "--direct")...)
	if d := doc.Random.ReadDevice; d == nil || d.Cached || d.Share < 0.95 {
		t.Errorf("--direct: device share %+v, want all of it", d)
	}
	// The sweep evicts before each read; its steps carry the share too.
	sw := sweepJSON(t, dir, "--bs", "64k", "--file-size", "4M", "--no-save")
	for _, s := range sw.Sweep.Steps {
		if s.Phase == result.PhaseRead && (s.Device == nil || s.Device.Cached) {
			t.Errorf("sweep read step: device share %+v, want the device's", s.Device)
		}
	}
}
