package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/result"
)

// readDoc is testdata/docs/NAME.json, a document the golden tests print:
// the report's inputs are result documents, as a stored run is.
func readDoc(name string) *result.Document {
	f, err := os.Open(filepath.Join("testdata", "docs", name+".json"))
	if err != nil {
		panic(err)
	}
	defer f.Close()
	d, err := result.Read(f)
	if err != nil {
		panic(fmt.Sprintf("testdata/docs/%s.json: %v", name, err))
	}
	return d
}

func baseDoc(method result.Method) *result.Document {
	t0 := time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)
	return &result.Document{
		FormatVersion: result.FormatVersion, ID: "20261121T060000Z-123456", Method: method,
		Tool:      result.Tool{Name: "thruput", Version: "test", GoVersion: "go1.26", Platform: "linux/arm64"},
		StartedAt: t0, EndedAt: t0.Add(time.Minute), Status: result.StatusOK,
		Host:    result.Host{Hostname: "pi4", Kernel: "6.6.51", Board: "Raspberry Pi 4 Model B Rev 1.4", CPUGovernor: "ondemand"},
		Targets: []result.Target{{Path: "/mnt/ssd", FSType: "ext4", MountPoint: "/mnt/ssd", Device: "sda", Partition: "sda1", DeviceModel: "Samsung SSD 870"}},
	}
}

// methodDocs are a sysbench-style random run on a USB 2.0 disk with its
// bottleneck, two repeats of an io run that fell back to the sync engine,
// the four mark presets, and the two network documents below.
func methodDocs() map[string]*result.Document {
	return map[string]*result.Document{"random": readDoc("random"), "io": readDoc("io"), "mark": readDoc("mark"), "net": netDoc(), "net-udp": netUDPDoc()}
}

func i64(v int64) *int64 { return &v }

// netDoc is a client's TCP test both ways with two streams each.
func netDoc() *result.Document { return readDoc("net") }

// netUDPDoc is a server's view of a UDP upload that lost datagrams and
// failed before the results exchange.
func netUDPDoc() *result.Document { return readDoc("net-udp") }

func TestMethodGolden(t *testing.T) {
	for name, doc := range methodDocs() {
		for _, format := range []string{"table", "csv", "markdown"} {
			// The markdown goldens show the other unit systems.
			units := ""
			if format == "markdown" && name == "mark" {
				units = UnitsMB
			} else if format == "markdown" && name == "net" {
				units = UnitsBoth
			}
			checkGolden(t, name, doc, Options{Format: format, Units: units})
		}
	}
}

// TestOneProcessCPU: the suite's loopback test shows the CPU of its one
// process once, not as two ends that agree.
func TestOneProcessCPU(t *testing.T) {
	doc := methodDocs()["net"]
	doc.Net.CPU.OneProcess = true
	var buf bytes.Buffer
	if err := Write(&buf, doc, Options{Format: "table"}); err != nil {
		t.Fatal(err)
	}
	if s := buf.String(); !strings.Contains(s, "CPU of both ends") || !strings.Contains(s, "one process") || strings.Contains(s, "at the other end") {
		t.Errorf("one process, two CPU figures:\n%s", s)
	}
}
