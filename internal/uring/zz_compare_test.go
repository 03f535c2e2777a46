package uring

import (
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Throwaway: compared against fio, removed afterwards.
func TestZZCompare(t *testing.T) {
	path := os.Getenv("URING_BENCH_FILE")
	if path == "" {
		t.Skip()
	}
	mode := os.Getenv("URING_MODE")
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
	var done, rounds, enters int
	var bad int32
	start := time.Now()
	deadline := start.Add(5 * time.Second)
	sub := func(w uint32) {
		enters++
		if _, err := r.Submit(w); err != nil {
			panic(err)
		}
	}
	fn := func(ud uint64, res int32) {
		if res != bs {
			bad = res
		}
		r.PrepRead(fd, buf[ud*bs:(ud+1)*bs], rng.Int64N(blocks)*bs, ud)
		if mode == "each" {
			sub(0)
		}
	}
	for {
		switch mode {
		case "batch":
			sub(1)
		case "each":
			if r.Ready() == 0 {
				sub(0)
				if r.Ready() == 0 {
					sub(1)
				}
			}
		case "poll":
			sub(0)
			for spin := 0; spin < 32 && r.Ready() == 0; spin++ {
				sub(0)
			}
			if r.Ready() == 0 {
				sub(1)
			}
		default:
			t.Fatal("URING_MODE?")
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
	if bad != 0 {
		t.Fatal(bad)
	}
	t.Logf("IOPS %.0f cpu %.0f%% enters/op %.2f ops/round %.1f", float64(done)/el.Seconds(),
		100*(time.Duration(ru.Utime.Nano()+ru.Stime.Nano())).Seconds()/el.Seconds(), float64(enters)/float64(done), float64(done)/float64(rounds))
}
