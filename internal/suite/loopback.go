package suite

import (
	"context"
	"io"
	"net"
	"time"

	"github.com/thruput/thruput/internal/httpget"
	"github.com/thruput/thruput/internal/iperf3"
	"github.com/thruput/thruput/internal/sysinfo"
)

// Loopback starts the iperf3 server and the HTTP server the local suite
// measures against, on 127.0.0.1 and ports the kernel picks, so nothing
// else on the machine is reached and no port is fixed; stop ends both.
func Loopback(ctx context.Context) (stop func(), netAddr, httpURL string, err error) {
	// The HTTP listener first: it can be closed if the iperf3 server
	// cannot listen, which has no Close before it serves.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", "", err
	}
	srv, err := iperf3.Listen(iperf3.ServerConfig{Addr: "127.0.0.1:0", IdleTimeout: 10 * time.Second})
	if err != nil {
		ln.Close()
		return nil, "", "", err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{}, 2)
	go func() { _ = srv.Serve(ctx); done <- struct{}{} }()
	// 256 MiB downloads long enough to see a rate, but a 512 MiB Pi
	// cannot spare it: an eighth of the memory at most.
	size := 256 << 20
	if mem := sysinfo.Default().Host().MemoryBytes; mem > 0 {
		size = int(min(int64(size), mem/8))
	}
	data := httpget.Content(size)
	go func() {
		_ = httpget.Serve(ctx, ln, httpget.Handler(data, func(string, ...any) {}), io.Discard)
		done <- struct{}{}
	}()
	stop = func() {
		cancel()
		<-done
		<-done
	}
	return stop, srv.Addr().String(), "http://" + ln.Addr().String() + "/", nil
}
