package importer

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/fstest"
)

// transcript runs a command as a person would in a terminal and returns
// what they would copy: the prompt line, then what it printed on both
// streams (dd, wget and curl report on standard error).
func transcript(t *testing.T, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, tool(t, name), args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out.Bytes())
	}
	return "$ " + name + " " + strings.Join(args, " ") + "\n" + out.String()
}

// TestDDTranscriptReal: the installed GNU dd's block-size loop, written
// then read back, as a transcript; each step's bytes and seconds are
// dd's own, read back from its lines independently of the importer.
func TestDDTranscriptReal(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "t")
	var log strings.Builder
	sizes := map[string]int64{"4k": 4096, "64k": 65536, "1M": 1 << 20}
	for _, bs := range []string{"4k", "64k", "1M"} {
		count := strconv.FormatInt((4<<20)/sizes[bs], 10)
		log.WriteString(transcript(t, "dd", "if=/dev/zero", "of="+f, "bs="+bs, "count="+count, "conv=fsync"))
		log.WriteString(transcript(t, "dd", "if="+f, "of=/dev/null", "bs="+bs))
	}
	docs := importOne(t, log.String(), 1)
	steps := docs[0].Sweep.Steps
	line := regexp.MustCompile(`(\d+) bytes \(.*\) copied, ([0-9.]+) s`)
	printed := line.FindAllStringSubmatch(log.String(), -1)
	if len(steps) != 6 || len(printed) != 6 {
		t.Fatalf("%d steps, %d summary lines, want 6", len(steps), len(printed))
	}
	for i, s := range steps {
		bytes, _ := strconv.ParseInt(printed[i][1], 10, 64)
		secs, _ := strconv.ParseFloat(printed[i][2], 64)
		wantPhase, wantBS := "write", sizes[[]string{"4k", "64k", "1M"}[i/2]]
		if i%2 == 1 {
			wantPhase = "read"
		}
		if s.Bytes != bytes || s.Bytes != 4<<20 || !close1(float64(s.ElapsedNs)/1e9, secs) || s.Phase != wantPhase || s.BlockSize != wantBS || s.Ops != (4<<20)/wantBS {
			t.Errorf("step %d %+v: dd printed %d bytes in %v s; want a %s of %d-byte blocks", i+1, s, bytes, secs, wantPhase, wantBS)
		}
	}
}

// TestDownloadTranscriptReal: the installed wget and curl fetching 8 MiB
// from a server on loopback, their terminal output imported.
func TestDownloadTranscriptReal(t *testing.T) {
	body := bytes.Repeat([]byte("x"), 8<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}))
	defer srv.Close()
	url := srv.URL + "/8M.bin"

	wget := transcript(t, "wget", "-O", "/dev/null", url)
	d := importOne(t, wget, 1)[0]
	r := d.HTTP.Runs[0]
	if d.Imported.Tool != Wget || r.Bytes != int64(len(body)) || r.StatusCode != 200 || r.ContentLength == nil || *r.ContentLength != int64(len(body)) || d.HTTP.Parameters.URL != url {
		t.Errorf("wget: %+v, url %q\n%s", r, d.HTTP.Parameters.URL, wget)
	}
	rate := regexp.MustCompile(`\(([0-9.]+) ([KMG]B)/s\) - `).FindStringSubmatch(wget)
	if rate == nil {
		t.Fatalf("no rate in\n%s", wget)
	}
	// wget prints three significant digits, and whole numbers from 1000
	// up to 1023, where it moves to the next unit ("1010 MB/s").
	v := r.MiBPerSec * map[string]float64{"KB": 1024, "MB": 1, "GB": 1.0 / 1024}[rate[2]]
	same := strings.HasPrefix(rate[1], strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3g", v), "0"), "."))
	if v >= 999.5 {
		same = rate[1] == fmt.Sprintf("%.0f", v)
	}
	if !same {
		t.Errorf("wget printed %s %s/s, imported %v MiB/s", rate[1], rate[2], r.MiBPerSec)
	}

	curl := transcript(t, "curl", "-o", "/dev/null", url)
	c := importOne(t, curl, 1)[0]
	if rc := c.HTTP.Runs[0]; c.Imported.Tool != Curl || rc.Bytes != int64(len(body)) || rc.MiBPerSec <= 0 || c.HTTP.Parameters.URL != url {
		t.Errorf("curl: %+v, url %q\n%q", rc, c.HTTP.Parameters.URL, curl)
	}
}

// TestFioClientReal: the installed fio as a server on loopback and as
// its client; the client's JSON holds the job under client_stats with the
// server's address as its hostname.
func TestFioClientReal(t *testing.T) {
	fstest.Long(t, "runs fio as a server and its client")
	bin := tool(t, "fio")
	dir := t.TempDir()
	port := freePort(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	srv := exec.CommandContext(ctx, bin, "--server=ip:127.0.0.1,"+port)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		srv.Process.Kill()
		srv.Wait()
	}()
	job := filepath.Join(dir, "job.fio")
	os.WriteFile(job, []byte("[r]\nrw=randread\nbs=4k\nsize=4M\nioengine=psync\nruntime=1\ndirectory="+dir+"\n"), 0o644)
	var out []byte
	var err error
	// The server needs a moment to listen.
	for try := 0; try < 50; try++ {
		out, err = exec.CommandContext(ctx, bin, "--client=ip:127.0.0.1,"+port, "--output-format=json", job).Output()
		if err == nil && bytes.Contains(out, []byte("client_stats")) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("fio --client: %v\n%s", err, out)
	}
	d := importOne(t, string(out), 1)[0]
	r := d.IO.Runs[0].Read
	if d.Host.Hostname != "127.0.0.1" || d.Labels["host"] != "127.0.0.1" || r == nil || r.Bytes != 4<<20 || r.IOs != 1024 || r.Latency == nil {
		t.Errorf("host %q, labels %v, read %+v", d.Host.Hostname, d.Labels, r)
	}
}

// TestFioJSONPlusReal: json+ adds latency bins to every direction; they
// are read past, and the percentiles kept.
func TestFioJSONPlusReal(t *testing.T) {
	fstest.Long(t, "runs fio")
	dir := t.TempDir()
	out := run(t, dir, "fio", "--output-format=json+", "--name=w", "--rw=randwrite", "--bs=4k", "--size=4M",
		"--ioengine=psync", "--directory="+dir)
	if !bytes.Contains(out, []byte(`"bins"`)) {
		t.Fatalf("no latency bins in fio's json+:\n%.400s", out)
	}
	w := importOne(t, string(out), 1)[0].IO.Runs[0].Write
	if w == nil || w.IOs != 1024 || w.Latency == nil || w.Latency.Count != 1024 || w.Latency.P99Ns == 0 {
		t.Errorf("write %+v", w)
	}
}
