package iperf3

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestServerAffinityParam: the key and range iperf3 3.21 uses
// (send_parameters and get_parameters in src/iperf_api.c), a round trip
// through our client's encoding, and iperf3's error 132 for a bad one.
func TestServerAffinityParam(t *testing.T) {
	p, err := ParseParams([]byte(`{"tcp":true,"omit":0,"server_affinity":1,"time":2}`))
	if err != nil || p.ServerAffinity == nil || *p.ServerAffinity != 1 {
		t.Fatalf("server_affinity 1: %+v %v", p, err)
	}
	b, _ := json.Marshal(p.wire())
	if !strings.Contains(string(b), `"server_affinity":1`) {
		t.Errorf("sent %s", b)
	}
	if p, _ := ParseParams([]byte(`{"tcp":true,"time":2}`)); p.ServerAffinity != nil {
		t.Errorf("no server_affinity read as CPU %d", *p.ServerAffinity)
	}
	for _, in := range []string{`{"tcp":true,"time":1,"server_affinity":2000}`, `{"tcp":true,"time":1,"server_affinity":"1"}`} {
		_, err := ParseParams([]byte(in))
		var pe *paramError
		if !errors.As(err, &pe) || pe.code != ieAffinity {
			t.Errorf("%s: %v, want i_errno %d", in, err, ieAffinity)
		} else if msg := (&PeerError{Code: pe.code}).Error(); !strings.Contains(msg, "unable to set CPU affinity") {
			t.Errorf("%s: the client would print %q", in, msg)
		}
	}
}

// threadCPUs is the Cpus_allowed_list of each thread of this process.
func threadCPUs(t *testing.T) map[string]int {
	t.Helper()
	files, _ := filepath.Glob("/proc/self/task/*/status")
	seen := map[string]int{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "Cpus_allowed_list:"); ok {
				seen[strings.TrimSpace(v)]++
			}
		}
	}
	return seen
}

// TestPin binds every thread of this test process, threads the runtime
// starts afterwards too; the process runs on the CPU of the latest holder
// still holding, and gets back the CPUs it had when the last lets go.
func TestPin(t *testing.T) {
	var before unix.CPUSet
	if err := unix.SchedGetaffinity(0, &before); err != nil {
		t.Fatal(err)
	}
	was := cpuList(&before)
	on := func(what, want string) {
		t.Helper()
		if got := threadCPUs(t); len(got) != 1 || got[want] == 0 {
			t.Errorf("%s: the threads may run on %v, want %s", what, got, want)
		}
	}
	unpin0, err := Pin(0)
	if err != nil {
		t.Fatal(err)
	}
	// Goroutines locked to their threads make the runtime start more.
	done := make(chan struct{})
	for range 8 {
		go func() {
			runtime.LockOSThread()
			time.Sleep(50 * time.Millisecond)
			done <- struct{}{}
			time.Sleep(50 * time.Millisecond)
			runtime.UnlockOSThread()
		}()
	}
	for range 8 {
		<-done
	}
	on("pinned to CPU 0", "0")
	if before.IsSet(1) {
		unpin1, err := Pin(1)
		if err != nil {
			t.Fatal(err)
		}
		on("pinned to 0, then 1", "1")
		unpin1()
		on("1 let go, 0 still held", "0")
		if unpin1, err = Pin(1); err != nil {
			t.Fatal(err)
		}
		unpin0()
		unpin0() // twice is once
		on("0 let go, 1 still held", "1")
		unpin1()
	} else {
		unpin0()
	}
	on("all let go", was)
	var pe *paramError
	if _, err := Pin(MaxCPU); !errors.As(err, &pe) || pe.code != ieAffinity {
		t.Errorf("CPU %d: %v", MaxCPU, err)
	}
	on("after a refused pin", was)
}

// TestServerAffinityRefused: a server_affinity the server may not run on
// is refused with iperf3's error 132, and the server serves the next test.
func TestServerAffinityRefused(t *testing.T) {
	t.Parallel() // waits on timeouts and a server of its own, beside the others that do
	ts := startServer(t, ServerConfig{})
	cfg := quickTest(ts.port)
	cpu := MaxCPU
	cfg.ServerAffinity = &cpu
	_, err := runTest(context.Background(), cfg)
	var pe *PeerError
	if !errors.As(err, &pe) || pe.Code != ieAffinity || !strings.Contains(err.Error(), "unable to set CPU affinity") {
		t.Fatalf("server_affinity %d: %v, want iperf3's error %d", cpu, err, ieAffinity)
	}
	ts.idle(t)
	if _, err := runTest(context.Background(), quickTest(ts.port)); err != nil {
		t.Fatalf("the next test: %v", err)
	}
}
