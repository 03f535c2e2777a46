package pilab

import (
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/result"
)

// arm32Runs is what the guest runs with a 32-bit thruput, each command's
// JSON document a section of the dump. The sizes are small: the emulator
// runs the guest some hundred times slower than a Pi, and everything
// behind QEMU's full-speed USB hub moves about a megabyte a second.
// disk io and disk mark ask for io_uring, which a 32-bit process on the
// arm64 kernel reaches through its compat system calls. The network test
// runs over the guest's loopback: QEMU's user-mode network behind the
// USB adapter reaches no peer the guest could serve or dial (restrict=on),
// and a peer outside would measure QEMU's slirp, not the guest.
const arm32Runs = `T="--json --no-save --no-compare -q"
run "disk io sd" /bin/thruput disk io /mnt/sd $T --engine io_uring --rw randrw --bs 4k --size 1M --iodepth 8
run "disk io usb" /bin/thruput disk io /mnt/usb $T --engine io_uring --rw read --bs 64k --size 1M --iodepth 4
run "disk random usb" /bin/thruput disk random /mnt/usb $T --files 4 --size 1M --bs 4k --requests 200 -t 60s
run "disk sweep" /bin/thruput disk sweep $T --target /mnt/sd --target /mnt/usb --bs 4k,1M --file-size 1M
run "disk mark sd" /bin/thruput disk mark /mnt/sd $T --size 1M -t 1s
/bin/thruput net server -1 $T >/tmp/server.json 2>/tmp/server.err &
i=0
while [ $i -lt 100 ] && ! netstat -ltn | grep -q ':5201 '; do
	sleep 0.1
	i=$((i + 1))
done
run "net client" /bin/thruput net client 127.0.0.1 $T -n 4M --no-latency -i 0
wait $!
echo "@@F net server"
cat /tmp/server.json
echo "@@E rc=$?"
echo "@@F net server (stderr)"
cat /tmp/server.err
echo "@@E"
`

const mib = 1 << 20

// TestRaspi3bArm32 boots the emulated Pi 3 B with a 32-bit thruput, the
// armv7 and the armv6 build, on Debian's arm64 kernel, as Raspberry Pi
// OS 32-bit runs on a Pi 3 or 4: the SD card formatted ext4, the USB
// disk vfat. Each disk method and a network test run in the guest, and
// their documents must show a 32-bit process on an aarch64 kernel, the
// filesystem measured, io_uring as the engine (not the sync fallback)
// and the bytes that were asked for.
func TestRaspi3bArm32(t *testing.T) {
	for _, goarm := range []string{"7", "6"} {
		t.Run("armv"+goarm, func(t *testing.T) {
			m := newMachine(t, goarm, []byte(arm32Runs))
			g := boot(t, m, 5*time.Minute)
			checkSysinfo(t, g)
			for _, c := range []string{"mount sd", "mkdosfs usb", "mount usb"} {
				if st := g.Status[c]; st != "rc=0" {
					t.Fatalf("%s in the guest: %q: %s", c, st, g.Files[c+" (stderr)"])
				}
			}
			platform := "linux/arm/v" + goarm
			doc := func(name string, method result.Method) *result.Document {
				t.Helper()
				if st := g.Status[name]; st != "rc=0" {
					t.Fatalf("%s in the guest: %q; stderr:\n%s\noutput:\n%s", name, st, g.Files[name+" (stderr)"], g.Files[name])
				}
				d, err := result.Read(strings.NewReader(g.Files[name]))
				if err != nil {
					t.Fatalf("%s: %v\n%s", name, err, g.Files[name])
				}
				if d.Method != method || d.Status != "ok" {
					t.Errorf("%s: method %q status %q %s, want %q ok", name, d.Method, d.Status, d.Error, method)
				}
				if d.Tool.Platform != platform || d.Host.ProcessBits != 32 || d.Host.Arch != "aarch64" {
					t.Errorf("%s: tool.platform %q, host.process_bits %d, host.arch %q; want %s, a 32-bit process on aarch64",
						name, d.Tool.Platform, d.Host.ProcessBits, d.Host.Arch, platform)
				}
				return d
			}
			target := func(name string, d *result.Document, i int, fs, device string) {
				t.Helper()
				if i >= len(d.Targets) {
					t.Errorf("%s: no target %d", name, i)
					return
				}
				if tg := d.Targets[i]; tg.FSType != fs || tg.Device != device {
					t.Errorf("%s: target %d (%s) is %s on %s, want %s on %s", name, i, tg.Path, tg.FSType, tg.Device, fs, device)
				}
			}
			uring := func(name, engine, note string) {
				t.Helper()
				if engine != "io_uring" || note != "" {
					t.Errorf("%s: engine %q (%s), want io_uring through the compat layer", name, engine, note)
				}
			}

			ioSD := doc("disk io sd", result.MethodIO)
			target("disk io sd", ioSD, 0, "ext4", "mmcblk0")
			uring("disk io sd", ioSD.IO.Engine, ioSD.IO.EngineNote)
			checkIORun(t, "disk io sd", ioSD.IO, 4096, true, true)

			ioUSB := doc("disk io usb", result.MethodIO)
			target("disk io usb", ioUSB, 0, "vfat", "sda")
			uring("disk io usb", ioUSB.IO.Engine, ioUSB.IO.EngineNote)
			checkIORun(t, "disk io usb", ioUSB.IO, 64<<10, true, false)

			d := doc("disk random usb", result.MethodRandom)
			target("disk random usb", d, 0, "vfat", "sda")
			r := d.Random
			if r.Reads+r.Writes != 200 || r.Reads == 0 || r.Writes == 0 || r.ReadBytes != r.Reads*4096 || r.WrittenBytes != r.Writes*4096 || r.ElapsedNs <= 0 {
				t.Errorf("disk random: %d reads (%d bytes), %d writes (%d bytes) in %d ns; want 200 requests of 4 KiB, both kinds",
					r.Reads, r.ReadBytes, r.Writes, r.WrittenBytes, r.ElapsedNs)
			}

			d = doc("disk sweep", result.MethodSweep)
			target("disk sweep", d, 0, "ext4", "mmcblk0")
			target("disk sweep", d, 1, "vfat", "sda")
			steps := map[string]int{}
			for _, s := range d.Sweep.Steps {
				steps[s.Phase]++
				if s.Bytes != mib || s.Ops != mib/s.BlockSize || s.Truncated || s.ElapsedNs <= 0 || s.MiBPerSec <= 0 {
					t.Errorf("disk sweep: %s of %d bytes on target %d moved %d bytes in %d calls, %d ns, truncated %v; want 1 MiB in %d calls",
						s.Phase, s.BlockSize, s.Target, s.Bytes, s.Ops, s.ElapsedNs, s.Truncated, mib/s.BlockSize)
				}
			}
			if steps["write"] != 4 || steps["read"] != 4 {
				t.Errorf("disk sweep: steps %v, want 4 writes and 4 reads (two targets, two block sizes)", steps)
			}

			d = doc("disk mark sd", result.MethodMark)
			target("disk mark sd", d, 0, "ext4", "mmcblk0")
			mark := d.Mark
			uring("disk mark sd", mark.Engine, mark.EngineNote)
			if len(mark.Results) != 8 {
				t.Errorf("disk mark: %d results, want 8 (four presets, read and write)", len(mark.Results))
			}
			for _, res := range mark.Results {
				// IOPS, MiB/s and MB/s are one count over one span.
				if res.IOPS <= 0 || res.ElapsedNs <= 0 || !near(res.MiBPerSec*mib, res.MBPerSec*1e6) {
					t.Errorf("disk mark: %s %s: %.1f IOPS, %.3f MiB/s, %.3f MB/s over %d ns", res.Preset, res.Phase, res.IOPS, res.MiBPerSec, res.MBPerSec, res.ElapsedNs)
				}
			}

			client := doc("net client", result.MethodNetClient)
			server := doc("net server", result.MethodNetServer)
			checkNet(t, client.Net, server.Net, 4*mib)
			if !t.Failed() {
				t.Logf("in the guest: disk io randrw on ext4 %.2f + %.2f MiB/s, read on vfat %.2f MiB/s (io_uring); disk random %.0f requests/s; disk mark RND4K Q32T1 read %.0f IOPS; net over lo %.0f Mbit/s",
					ioSD.IO.Runs[0].Read.MiBPerSec, ioSD.IO.Runs[0].Write.MiBPerSec, ioUSB.IO.Runs[0].Read.MiBPerSec,
					r.RequestsPerSec, markIOPS(mark, "RND4K Q32T1", "read"), client.Net.Sums[0].Receiver.BitsPerSecond/1e6)
			}
		})
	}
}

// checkIORun checks a one-pass disk io run: every request moved one
// block, the directions asked for moved data, the reads reached the
// device, and together they moved the whole 1 MiB file.
func checkIORun(t *testing.T, name string, io *result.IO, bs int64, read, write bool) {
	t.Helper()
	if len(io.Runs) != 1 {
		t.Errorf("%s: %d runs, want 1", name, len(io.Runs))
		return
	}
	run := io.Runs[0]
	var total int64
	for _, dir := range []struct {
		name  string
		d     *result.IODirection
		asked bool
	}{{"read", run.Read, read}, {"write", run.Write, write}} {
		if dir.d == nil || dir.d.Bytes == 0 {
			if dir.asked {
				t.Errorf("%s: no %s", name, dir.name)
			}
			continue
		}
		if !dir.asked {
			t.Errorf("%s: %d bytes of %s, not asked for", name, dir.d.Bytes, dir.name)
		}
		if dir.d.Bytes != dir.d.IOs*bs || dir.d.IOPS <= 0 {
			t.Errorf("%s: %s %d bytes in %d requests of %d (%.1f IOPS)", name, dir.name, dir.d.Bytes, dir.d.IOs, bs, dir.d.IOPS)
		}
		// O_DIRECT reads come from the device: the kernel's own sector
		// count for the disk over the run must hold them.
		if dir.name == "read" && (dir.d.Device == nil || dir.d.Device.ReadBytes < dir.d.Bytes) {
			t.Errorf("%s: %d bytes read, the device's counters say %+v", name, dir.d.Bytes, dir.d.Device)
		}
		total += dir.d.Bytes
	}
	if total != mib || run.ElapsedNs <= 0 {
		t.Errorf("%s: %d bytes in %d ns, want the 1 MiB file once", name, total, run.ElapsedNs)
	}
}

// checkNet checks a byte-counted upload seen from both ends: the client
// sent the count, the server received all of it, and each end's figures
// for the direction match what the other end reported to it.
func checkNet(t *testing.T, client, server *result.Net, bytes int64) {
	t.Helper()
	up := func(n *result.Net) *result.NetSum {
		for i := range n.Sums {
			if n.Sums[i].Direction == "up" {
				return &n.Sums[i]
			}
		}
		return nil
	}
	c, s := up(client), up(server)
	if c == nil || s == nil {
		t.Fatalf("net: no up sum (client %v, server %v)", client.Sums, server.Sums)
	}
	if c.Sender.Bytes != bytes || c.Receiver.Bytes != bytes || s.Receiver.Bytes != bytes || s.Sender.Bytes != bytes {
		t.Errorf("net: the client sent %d and was told %d arrived; the server received %d and was told %d were sent; want %d",
			c.Sender.Bytes, c.Receiver.Bytes, s.Receiver.Bytes, s.Sender.Bytes, bytes)
	}
	if c.Sender.BitsPerSecond <= 0 || s.Receiver.BitsPerSecond <= 0 {
		t.Errorf("net: client sent at %.0f bit/s, server received at %.0f bit/s", c.Sender.BitsPerSecond, s.Receiver.BitsPerSecond)
	}
	if client.Parameters.Interface != "lo" || server.Parameters.Interface != "lo" {
		t.Errorf("net: interfaces %q and %q, want the guest's loopback", client.Parameters.Interface, server.Parameters.Interface)
	}
}

// near says two figures of one measurement agree within 0.1 %.
func near(a, b float64) bool {
	return a > 0 && b > 0 && a/b > 0.999 && a/b < 1.001
}

// markIOPS is one disk mark result's IOPS.
func markIOPS(m *result.Mark, preset, phase string) float64 {
	for _, r := range m.Results {
		if r.Preset == preset && r.Phase == phase {
			return r.IOPS
		}
	}
	return 0
}
