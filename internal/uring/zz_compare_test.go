package uring

import (
	"math/rand/v2"
	"os"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestZZCompare(t *testing.T) {
	path := os.Getenv("URING_BENCH_FILE")
	if path == "" {
		t.Skip()
	}
	if os.Getenv("URING_LOCK") != "" {
		runtime.LockOSThread()
	}
	const qd, bs = 32, 4096
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECT, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	unix.Fstat(fd, &st)
	blocks := st.Size / bs
	r := newRing(t, qd)
	buf := mmapBuf(t, qd*bs)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 2))
	for i := range qd {
		r.PrepRead(fd, buf[i*bs:(i+1)*bs], rng.Int64N(blocks)*bs, uint64(i))
	}
	var done, rounds int
	var bad int32
	start := time.Now()
	deadline := start.Add(5 * time.Second)
	fn := func(ud uint64, res int32) {
		if res != bs {
			bad = res
		}
		r.PrepRead(fd, buf[ud*bs:(ud+1)*bs], rng.Int64N(blocks)*bs, ud)
	}
	for {
		if _, err := r.Submit(1); err != nil {
			t.Fatal(err)
		}
		done += r.Reap(fn)
		rounds++
		if rounds&63 == 0 && time.Now().After(deadline) {
			break
		}
	}
	el := time.Since(start)
	var ru unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &ru)
	t.Logf("usr %.2fs sys %.2fs", time.Duration(ru.Utime.Nano()).Seconds(), time.Duration(ru.Stime.Nano()).Seconds())
	if bad != 0 {
		t.Fatal(bad)
	}
	t.Logf("IOPS %.0f (%d ops, %d rounds, %.2f ops/round)", float64(done)/el.Seconds(), done, rounds, float64(done)/float64(rounds))
}
