package suite

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/thruput/thruput/internal/fstest"
)

// TestLoopback: both servers listen on 127.0.0.1, the HTTP one serves
// its download, and stop ends them: their ports refuse afterwards.
func TestLoopback(t *testing.T) {
	fstest.Long(t, "starts servers and makes a download of up to 256 MiB")
	stop, netAddr, httpURL, err := Loopback(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// Stopped once, by the test or when it fails.
	stop = sync.OnceFunc(stop)
	t.Cleanup(stop)
	if !strings.HasPrefix(netAddr, "127.0.0.1:") || !strings.HasPrefix(httpURL, "http://127.0.0.1:") {
		t.Fatalf("listening on %s and %s", netAddr, httpURL)
	}
	c, err := net.Dial("tcp", netAddr)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	resp, err := http.Head(httpURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.ContentLength <= 0 {
		t.Errorf("HEAD %s: %s, %d bytes", httpURL, resp.Status, resp.ContentLength)
	}
	stop()
	for _, addr := range []string{netAddr, strings.TrimSuffix(strings.TrimPrefix(httpURL, "http://"), "/")} {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			t.Errorf("%s still listens after stop", addr)
		}
	}
}
