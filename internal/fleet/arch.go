package fleet

import (
	"fmt"
	"strconv"
	"strings"
)

// Platform is a Go build target a static thruput runs on.
type Platform struct {
	GOARCH string
	// GOARM is 6 or 7 for 32-bit ARM, else 0.
	GOARM int
}

func (p Platform) String() string {
	if p.GOARCH == "arm" {
		return "armv" + strconv.Itoa(p.GOARM)
	}
	return p.GOARCH
}

// distName is the file name `make dist` gives this platform's binary.
func (p Platform) distName() string { return "thruput-linux-" + p.String() }

// probeScript prints what platform detection reads, one fact per line:
// the kernel's machine, the userland's word size (getconf's, else the
// ELF class of /bin/sh), and /proc/cpuinfo's model and architecture
// lines.
const probeScript = `uname -m; getconf LONG_BIT 2>/dev/null || case $(od -An -tu1 -j4 -N1 /bin/sh 2>/dev/null) in *1) echo 32;; *2) echo 64;; *) echo ?;; esac
grep -m 4 -E '^(model name|Processor|CPU architecture)' /proc/cpuinfo 2>/dev/null; true`

// cacheScript lists the binaries in the host's cache, a line each:
// "sha256 path", the sum from the file written beside the binary once the
// copy was checked and in place (hashing 30 MB on every run would cost a
// Pi more than the run). Only shell builtins: a fork is a host's dearest
// step on a warm run.
const cacheScript = `for f in ` + cacheDir + `/*/thruput; do s=; [ -x "$f" ] && read -r s < "$f.sha256"; [ -n "$s" ] && echo "$s $f"; done 2>/dev/null; true`

// cacheMark separates the probe's lines from the cache listing.
const cacheMark = "#thruput-cache"

// cached finds bin in a cache listing: a file in its directory whose
// recorded sum is its own. (The sum file has no newline, so read fails
// on it yet sets s.)
func cached(listing string, bin *binary) (string, bool) {
	for _, l := range strings.Split(listing, "\n") {
		sum, path, ok := strings.Cut(l, " ")
		if ok && sum == bin.sum && strings.Contains(path, bin.sum[:16]) {
			return path, true
		}
	}
	return "", false
}

// DetectPlatform reads probeScript's output. The userland decides, not the
// kernel: a 32-bit Raspberry Pi OS often runs a 64-bit kernel (uname
// says aarch64, LONG_BIT says 32), and a Pi 1 or Zero is ARMv6, which a
// GOARM=7 binary would crash on with an illegal instruction.
func DetectPlatform(out string) (Platform, error) {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 2 {
		return Platform{}, fmt.Errorf("cannot tell the platform from %q", out)
	}
	machine, bits := strings.TrimSpace(lines[0]), strings.TrimSpace(lines[1])
	var model string
	cpuArch := 0
	for _, l := range lines[2:] {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "model name", "Processor":
			model = v
		case "CPU architecture":
			cpuArch, _ = strconv.Atoi(strings.TrimPrefix(v, "AArch"))
		}
	}
	armv6 := strings.Contains(model, "ARMv6") || strings.HasSuffix(model, "(v6l)") || machine == "armv6l" ||
		(cpuArch != 0 && cpuArch < 7 && !strings.Contains(model, "v7"))
	switch machine {
	case "x86_64", "amd64":
		if bits == "32" {
			return Platform{}, fmt.Errorf("a 32-bit x86 userland (%s kernel) has no thruput build", machine)
		}
		return Platform{GOARCH: "amd64"}, nil
	case "aarch64", "arm64", "armv8l", "armv8b":
		if bits == "64" {
			return Platform{GOARCH: "arm64"}, nil
		}
		return Platform{GOARCH: "arm", GOARM: 7}, nil
	case "armv6l", "armv7l", "armv7":
		if armv6 {
			return Platform{GOARCH: "arm", GOARM: 6}, nil
		}
		return Platform{GOARCH: "arm", GOARM: 7}, nil
	case "riscv64":
		return Platform{GOARCH: "riscv64"}, nil
	}
	return Platform{}, fmt.Errorf("no thruput build for machine %q (%s-bit userland)", machine, bits)
}
