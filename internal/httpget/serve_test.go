package httpget

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/progress"
	"github.com/thruput/thruput/internal/result"
)

func TestHandler(t *testing.T) {
	data := Content(1 << 20)
	srv := httptest.NewServer(Handler(data, func(string, ...any) {}))
	defer srv.Close()
	get := func(method, path, rng string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, nil)
		if rng != "" {
			req.Header.Set("Range", rng)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, b
	}
	if resp, b := get("GET", "/any/path.iso", ""); resp.StatusCode != 200 || !bytes.Equal(b, data) || resp.ContentLength != int64(len(data)) {
		t.Errorf("GET: %d, %d bytes, length %d", resp.StatusCode, len(b), resp.ContentLength)
	}
	if resp, b := get("GET", "/", "bytes=1000-1999"); resp.StatusCode != 206 || !bytes.Equal(b, data[1000:2000]) ||
		resp.Header.Get("Content-Range") != "bytes 1000-1999/1048576" {
		t.Errorf("Range: %d, %d bytes, %q", resp.StatusCode, len(b), resp.Header.Get("Content-Range"))
	}
	if resp, _ := get("GET", "/", "bytes=2000000-"); resp.StatusCode != http.StatusRequestedRangeNotSatisfiable {
		t.Errorf("Range past the end: %d", resp.StatusCode)
	}
	if resp, b := get("HEAD", "/", ""); resp.StatusCode != 200 || len(b) != 0 || resp.ContentLength != int64(len(data)) {
		t.Errorf("HEAD: %d, %d bytes, length %d", resp.StatusCode, len(b), resp.ContentLength)
	}
	if resp, _ := get("POST", "/", ""); resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: %d", resp.StatusCode)
	}
	// Incompressible: no run of the data repeats.
	if bytes.Contains(data[4096:], data[:64]) {
		t.Error("the data repeats")
	}
}

func config(u string) Config {
	return Config{HTTPParameters: result.HTTPParameters{URL: u, WindowNs: int64(time.Second), TimeoutNs: int64(5 * time.Second), Repeat: 1}, UserAgent: "test"}
}

func TestGetRedirectAndChunked(t *testing.T) {
	body := strings.Repeat("x", 300<<10)
	mux := http.NewServeMux()
	mux.HandleFunc("/chunked", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept-Encoding") != "identity" {
			t.Errorf("Accept-Encoding %q", r.Header.Get("Accept-Encoding"))
		}
		w.(http.Flusher).Flush() // no Content-Length: chunked
		_, _ = io.WriteString(w, body)
	})
	mux.Handle("/old", http.RedirectHandler("/chunked", http.StatusFound))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	var out result.HTTP
	if err := Get(context.Background(), config(srv.URL+"/old"), &out, progress.Hooks{}); err != nil {
		t.Fatal(err)
	}
	r := out.Runs[0]
	if r.Bytes != int64(len(body)) || r.ContentLength != nil || r.Redirects != 1 || r.FinalURL != srv.URL+"/chunked" || r.StatusCode != 200 {
		t.Errorf("got %+v", r)
	}
	if r.TTFBNs <= 0 || r.TotalNs < r.TTFBNs || r.MiBPerSec <= 0 || r.PeakMiBPerSec <= 0 {
		t.Errorf("times or rates missing: %+v", r)
	}
}

func TestGetTLS(t *testing.T) {
	data := Content(1 << 20)
	srv := httptest.NewTLSServer(Handler(data, func(string, ...any) {}))
	defer srv.Close()
	var out result.HTTP
	err := Get(context.Background(), config(srv.URL), &out, progress.Hooks{})
	if err == nil || !strings.Contains(err.Error(), "--insecure") {
		t.Errorf("self-signed certificate: %v", err)
	}
	c := config(srv.URL)
	c.Insecure, c.Repeat = true, 3
	out = result.HTTP{}
	if err := Get(context.Background(), c, &out, progress.Hooks{}); err != nil {
		t.Fatal(err)
	}
	if len(out.Runs) != 3 || out.Runs[2].Bytes != 1<<20 || out.Summary == nil || out.Summary.MiBPerSec.N != 3 {
		t.Errorf("3 runs over TLS: %+v", out)
	}
}

// TestGetAllocations: the read loop takes nothing from the heap per read.
// Setting up a request allocates, and so does the server in this process,
// so what counts is the difference between a small and a large download.
func TestGetAllocations(t *testing.T) {
	measure := func(size int) float64 {
		srv := httptest.NewServer(Handler(Content(size), func(string, ...any) {}))
		defer srv.Close()
		return testing.AllocsPerRun(3, func() {
			var out result.HTTP
			if err := Get(context.Background(), config(srv.URL), &out, progress.Hooks{}); err != nil {
				t.Fatal(err)
			}
		})
	}
	small, large := measure(1<<20), measure(64<<20)
	// 64 MiB is 256 reads of the buffer at least, and 63 chunks the
	// server writes; allocations per read would add hundreds.
	if large-small > 64 {
		t.Errorf("%.0f allocations for a 1 MiB download, %.0f for 64 MiB", small, large)
	}
}
