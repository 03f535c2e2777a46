package pilab

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/nettest"
	"github.com/thruput/thruput/internal/result"
)

// arm32Runs is what the guest runs with a 32-bit thruput, each command's
// JSON document a section of the dump. The sizes are small: the emulator
// runs the guest some hundred times slower than a Pi. disk io and disk
// mark ask for io_uring, which a 32-bit process on the arm64 kernel
// reaches through its compat system calls. The network test runs twice:
// the guest's client against its server over the loopback, then the
// guest's server behind the USB network adapter, which QEMU's user-mode
// network connects to no peer the guest could dial (restrict=on), taking
// a client from the host through QEMU's forward once the guest prints
// @@NET-SERVER-READY.
const arm32Runs = `T="--json --no-save --no-compare -q"
run "disk io sd" /bin/thruput disk io /mnt/sd $T --engine io_uring --rw randrw --bs 4k --size 1M --iodepth 8
run "disk io usb" /bin/thruput disk io /mnt/usb $T --engine io_uring --rw read --bs 64k --size 1M --iodepth 4
run "disk random usb" /bin/thruput disk random /mnt/usb $T --files 4 --size 1M --bs 4k --requests 200 -t 60s
run "disk sweep" /bin/thruput disk sweep $T --target /mnt/sd --target /mnt/usb --bs 4k,1M --file-size 1M
run "disk sweep direct" /bin/thruput disk sweep $T --target /mnt/sd --target /mnt/usb --direct --bs 4k,1M --file-size 2M
run "disk mark sd" /bin/thruput disk mark /mnt/sd $T --size 1M -t 1s
# serve starts a server for one test and returns once it listens; served
# waits for its test to end and prints its document as the file NAME.
serve() {
	timeout 120 /bin/thruput net server -1 $T >/tmp/server.json 2>/tmp/server.err &
	server=$!
	i=0
	while [ $i -lt 100 ] && ! netstat -ltn | grep -q ':5201 '; do
		sleep 0.1
		i=$((i + 1))
	done
}
served() {
	wait $server
	rc=$?
	echo "@@F $1"
	cat /tmp/server.json
	echo "@@E rc=$rc"
	echo "@@F $1 (stderr)"
	cat /tmp/server.err
	echo "@@E"
}
serve
run "net client" /bin/thruput net client 127.0.0.1 $T -n 4M --no-latency -i 0
served "net server"
for n in /sys/class/net/*; do
	[ "${n##*/}" = lo ] || usb=${n##*/}
done
ip addr add 10.0.2.15/24 dev "$usb"
serve
echo "@@NET-SERVER-READY"
served "net server usb"
`

const mib = 1 << 20

// TestRaspi3bArm32 boots the emulated Pi 3 B with a 32-bit thruput, the
// armv7 and the armv6 build, in a 32-bit userland (Debian's armhf
// busybox, init included) on Debian's arm64 kernel, as Raspberry Pi OS
// 32-bit runs on a Pi 3 or 4: the SD card formatted ext4, the USB disk
// vfat. Each disk method and two network tests run in the guest,
// and their documents must show a 32-bit process in a 32-bit userland
// on an aarch64 kernel, the filesystem measured, io_uring as the engine (not the sync
// fallback) and the bytes that were asked for; the guest's server also
// takes a client from this machine over the emulated USB adapter.
func TestRaspi3bArm32(t *testing.T) {
	for _, goarm := range []string{"7", "6"} {
		t.Run("armv"+goarm, func(t *testing.T) {
			m := newMachine(t, goarm, []byte(arm32Runs))
			m.ServerPort = nettest.FreePort(t)
			host := buildThruput(t, t.TempDir())
			var hostClient []byte
			// A bound against a hung guest, not a timing: a build's
			// run takes 40-75 s on one host core, and an armv6 run took
			// 348 s once with both cores taken by other jobs.
			g := boot(t, m, 12*time.Minute, func(ctx context.Context) {
				if err := m.WaitFor(ctx, "@@NET-SERVER-READY"); err != nil {
					t.Error(err)
					return
				}
				c := exec.CommandContext(ctx, host, "net", "client", fmt.Sprintf("127.0.0.1:%d", m.ServerPort),
					"-t", "2", "--no-latency", "-i", "0", "--json", "--no-save", "--no-compare", "-q")
				var stderr bytes.Buffer
				c.Stderr = &stderr
				out, err := c.Output()
				if err != nil {
					t.Errorf("net client on this machine through QEMU's forward: %v\n%s", err, stderr.Bytes())
				}
				hostClient = out
			})
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
				if h := d.Host; d.Tool.Platform != platform || h.ProcessBits != 32 || h.Arch != "aarch64" || h.UserlandArch != "arm" || h.UserlandBits != 32 {
					t.Errorf("%s: tool.platform %q, host.process_bits %d, arch %q, userland %q %d-bit; want %s, a 32-bit process in a 32-bit arm userland on aarch64",
						name, d.Tool.Platform, h.ProcessBits, h.Arch, h.UserlandArch, h.UserlandBits, platform)
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

			// O_DIRECT: the 1 MiB blocks go through native AIO (ext4,
			// allocated ahead) and the compat layer's io_submit and
			// io_getevents; the vfat writes through plain calls (its
			// fallocate writes zeros, so none is asked for), its reads
			// through AIO.
			d = doc("disk sweep direct", result.MethodSweep)
			target("disk sweep direct", d, 0, "ext4", "mmcblk0")
			target("disk sweep direct", d, 1, "vfat", "sda")
			steps = map[string]int{}
			for _, s := range d.Sweep.Steps {
				steps[s.Phase]++
				if s.Bytes != 2*mib || s.Ops != 2*mib/s.BlockSize || s.Truncated || s.ElapsedNs <= 0 {
					t.Errorf("disk sweep --direct: %s of %d bytes on target %d moved %d bytes in %d calls, %d ns, truncated %v; want 2 MiB in %d calls",
						s.Phase, s.BlockSize, s.Target, s.Bytes, s.Ops, s.ElapsedNs, s.Truncated, 2*mib/s.BlockSize)
				}
			}
			if steps["write"] != 4 || steps["read"] != 4 || !d.Sweep.Parameters.Direct {
				t.Errorf("disk sweep --direct: steps %v, direct %v; want 4 writes and 4 reads with O_DIRECT", steps, d.Sweep.Parameters.Direct)
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
			checkNet(t, "net over lo", client.Net, server.Net, 4*mib)
			if client.Net.Parameters.Interface != "lo" || server.Net.Parameters.Interface != "lo" {
				t.Errorf("net: interfaces %q and %q, want the guest's loopback", client.Net.Parameters.Interface, server.Net.Parameters.Interface)
			}
			// Over the USB adapter the guest's 32-bit server takes the
			// host's client for 2 s, through QEMU's user-mode network,
			// which takes what the client writes into buffers of its own
			// (a count of bytes would end the test with much of it still
			// there); the interface must be the USB one sysinfo sees.
			server = doc("net server usb", result.MethodNetServer)
			hc, err := result.Read(bytes.NewReader(hostClient))
			if err != nil {
				t.Fatalf("the host's net client: %v\n%s", err, hostClient)
			}
			checkNet(t, "net over the USB adapter", hc.Net, server.Net, 0)
			iface := server.Net.Parameters.Interface
			i := slices.IndexFunc(server.System.NetInterfaces, func(n result.NetInterface) bool { return n.Name == iface })
			if i < 0 || server.System.NetInterfaces[i].Bus != "usb" || server.System.NetInterfaces[i].Driver != "cdc_ether" {
				t.Errorf("net server usb: the data crossed %q, want the USB adapter (cdc_ether); the document's interfaces: %+v", iface, server.System.NetInterfaces)
			}
			if !t.Failed() {
				t.Logf("in the guest: disk io randrw on ext4 %.2f + %.2f MiB/s, read on vfat %.2f MiB/s (io_uring); disk random %.0f requests/s; disk mark RND4K Q32T1 read %.0f IOPS; net over lo %.0f Mbit/s, over the USB adapter %.1f Mbit/s",
					ioSD.IO.Runs[0].Read.MiBPerSec, ioSD.IO.Runs[0].Write.MiBPerSec, ioUSB.IO.Runs[0].Read.MiBPerSec,
					r.RequestsPerSec, markIOPS(mark, "RND4K Q32T1", "read"), client.Net.Sums[0].Receiver.BitsPerSecond/1e6,
					server.Net.Sums[0].Receiver.BitsPerSecond/1e6)
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

// checkNet checks an upload seen from both ends: each end's figures
// for the direction are the ones the other end reported to it, the
// receiver got data and no more than was sent, and with a byte count
// (want, 0 for a timed test) the sender sent it and the receiver got all
// of it.
func checkNet(t *testing.T, name string, client, server *result.Net, want int64) {
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
		t.Fatalf("%s: no up sum (client %v, server %v)", name, client.Sums, server.Sums)
	}
	if c.Sender.Bytes != s.Sender.Bytes || c.Receiver.Bytes != s.Receiver.Bytes ||
		s.Receiver.Bytes <= 0 || s.Receiver.Bytes > c.Sender.Bytes ||
		want > 0 && (c.Sender.Bytes != want || s.Receiver.Bytes != want) {
		t.Errorf("%s: the client sent %d and was told %d arrived; the server received %d and was told %d were sent; want %d",
			name, c.Sender.Bytes, c.Receiver.Bytes, s.Receiver.Bytes, s.Sender.Bytes, want)
	}
	if c.Sender.BitsPerSecond <= 0 || s.Receiver.BitsPerSecond <= 0 {
		t.Errorf("%s: client sent at %.0f bit/s, server received at %.0f bit/s", name, c.Sender.BitsPerSecond, s.Receiver.BitsPerSecond)
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
