package result

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzRead feeds arbitrary bytes to the document reader, which later reads
// files imported from other machines: it must reject or accept, never panic,
// and what it accepts must encode again.
func FuzzRead(f *testing.F) {
	f.Add(`{"format_version":1,"method":"disk.sweep","sweep":{"steps":[{"target":0,"phase":"read","cached_fraction":0.5}]}}`)
	f.Add(`{"format_version":1,"targets":[{"path":"/","rotational":true}]}`)
	f.Add(`{"format_version":2}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, in string) {
		d, err := Read(strings.NewReader(in))
		if err != nil {
			return
		}
		if d.FormatVersion < 1 || d.FormatVersion > FormatVersion {
			t.Fatalf("accepted version %d", d.FormatVersion)
		}
		var buf bytes.Buffer
		if err := d.Write(&buf); err != nil {
			t.Fatal(err)
		}
	})
}

func TestMiBPerSec(t *testing.T) {
	if got := MiBPerSec(1<<20, 1e9); got != 1 {
		t.Errorf("1 MiB in 1 s = %v MiB/s", got)
	}
	if got := MiBPerSec(1<<20, 0); got != 0 {
		t.Errorf("zero time gave %v", got)
	}
}

func TestStacked(t *testing.T) {
	for tg, want := range map[Target]bool{
		{FSType: "ext4"}:                        false,
		{FSType: "ext4", LoopBackingFile: "/x"}: true,
		{FSType: "fuseblk"}:                     true,
		{FSType: "fuse.fusefat"}:                true,
		{FSType: "fusectl"}:                     false,
		{FSType: "tmpfs"}:                       false,
	} {
		if got := tg.Stacked(); got != want {
			t.Errorf("%+v.Stacked() = %v", tg, got)
		}
	}
}

func FuzzParseLabel(f *testing.F) {
	for _, s := range []string{"device=sandisk", "fs=ext4", "=x", "k", "a b=c", "site=lan=2", "k=\x01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		k, v, err := ParseLabel(in)
		if err != nil {
			return
		}
		if k+"="+v != in {
			t.Fatalf("ParseLabel(%q) = %q, %q: does not rebuild the input", in, k, v)
		}
		if _, _, err := ParseLabel(k + "=" + v); err != nil {
			t.Fatalf("accepted label %q fails when parsed again: %v", in, err)
		}
	})
}

func TestParseLabels(t *testing.T) {
	m, err := ParseLabels([]string{"device=sandisk-extreme", "fs=ext4", "note=a b=c"})
	if err != nil || m["device"] != "sandisk-extreme" || m["fs"] != "ext4" || m["note"] != "a b=c" {
		t.Fatalf("got %v, %v", m, err)
	}
	for _, bad := range [][]string{{"nokey"}, {"=v"}, {"a b=c"}, {"k=1", "k=2"}, {"k=\n"}} {
		if _, err := ParseLabels(bad); err == nil {
			t.Errorf("ParseLabels(%q) accepted", bad)
		}
	}
}
