package sysinfo

import (
	"encoding/json"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/throttle"
)

// Live facts are the few the reader asks the running kernel or build for
// rather than reads from a file: uname(2)'s machine, nl80211's WiFi link,
// the firmware mailbox's throttling word and the width of the thruput
// build reading them. A capture keeps each as a
// pseudo-file under factsDir, which no machine has, and a reader of that
// capture reads them back there, so that --root of a capture prints what
// sysinfo printed on the machine.
const factsDir = "thruput"

// liveFacts asks the running kernel; tests give a machine of their own.
type liveFacts struct {
	machine func() string
	wifi    func() map[string]result.WiFiLink
	mailbox func() (uint32, bool)
}

var kernelFacts = &liveFacts{machine: unameMachine, wifi: liveWiFi, mailbox: throttle.Mailbox}

func unameMachine() string {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return ""
	}
	return unix.ByteSliceToString(u.Machine[:])
}

func (fs FS) live() *liveFacts {
	if fs.facts != nil {
		return fs.facts
	}
	return kernelFacts
}

// recorded is the pseudo-file name of a capture read under Root, "" when
// it is not there (a capture made before these were kept, a tree copied
// by hand).
func (fs FS) recorded(name string) string {
	if fs.Live || fs.Root == "" {
		return ""
	}
	return readValue(filepath.Join(fs.Root, factsDir, name))
}

// machine is uname -m.
func (fs FS) machine() string {
	if !fs.Live {
		return fs.recorded("uname-machine")
	}
	m := fs.live().machine()
	if m != "" {
		tap.fact("uname-machine", []byte(m+"\n"))
	}
	return m
}

// processBits is the width of the running thruput build (32 for GOARCH
// arm): beside a 64-bit kernel, what says its system calls go through
// the kernel's compat layer.
func (fs FS) processBits() int {
	if !fs.Live {
		n, _ := strconv.Atoi(fs.recorded("process-bits"))
		return n
	}
	tap.fact("process-bits", []byte(strconv.Itoa(strconv.IntSize)+"\n"))
	return strconv.IntSize
}

// wifiLinks is nl80211's link of each named wireless interface.
func (fs FS) wifiLinks(names []string) map[string]result.WiFiLink {
	out := map[string]result.WiFiLink{}
	if !fs.Live {
		for _, name := range names {
			var w result.WiFiLink
			if v := fs.recorded(filepath.Join("nl80211", name)); v != "" && json.Unmarshal([]byte(v), &w) == nil {
				out[name] = w
			}
		}
		return out
	}
	all := fs.live().wifi()
	for _, name := range names {
		w, ok := all[name]
		if !ok {
			continue
		}
		out[name] = w
		if b, err := json.Marshal(w); err == nil {
			tap.fact(filepath.Join("nl80211", name), append(b, '\n'))
		}
	}
	return out
}

// mailbox asks the firmware for its throttling word (nil where there is
// no mailbox to ask, or no answer kept).
func (fs FS) mailbox() func() (uint32, bool) {
	if !fs.Live {
		if fs.recorded("vcio-get_throttled") == "" {
			return nil
		}
		return func() (uint32, bool) { return throttle.Parse(fs.recorded("vcio-get_throttled")) }
	}
	ask := fs.live().mailbox
	return func() (uint32, bool) {
		v, ok := ask()
		if ok {
			tap.fact("vcio-get_throttled", []byte(strconv.FormatUint(uint64(v), 16)+"\n"))
		}
		return v, ok
	}
}
