package importer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/realdata"
)

// TestSharedOutputs imports every real tool output kept in
// ../shared/data (real-outputs and real-outputs-2, their sources in each
// folder's SOURCES.md): each is recognised as the tool its folder names,
// and read into runs that measured something, or refused for the reason
// listed here, which a reading of the file bears out.
func TestSharedOutputs(t *testing.T) {
	refused := map[string]string{
		// sysbench's cpu test, five times: no fileio run in it.
		"coen241-daniellu-1.0.20-cpu-only.txt": "none of its 5 outputs is of `sysbench fileio ... run`",
		// Committed cut at 8192 bytes, inside an interval's sum.
		"cloudpilot-iperf-3.9-reverse-bytes10k.json": "truncated: the input ends inside the JSON",
	}
	tools := map[string]string{"fio": FIO, "iperf3": IPerf3, "sysbench": Sysbench, "dd": DD, "wget": Wget}
	for _, set := range []string{"real-outputs", "real-outputs-2"} {
		for _, path := range realdata.Files(t, realdata.Dir(t, set)) {
			name := filepath.Base(path)
			t.Run(set+"/"+name, func(t *testing.T) {
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				folder := filepath.Base(filepath.Dir(path))
				if got := Detect(b); got != tools[folder] {
					t.Errorf("detected as %q, its folder says %s", got, folder)
				}
				docs, err := Import(b, path)
				if why, ok := refused[name]; ok {
					if err == nil || !strings.Contains(err.Error(), why) {
						t.Errorf("imported %d runs (%v), want it refused: %s", len(docs), err, why)
					}
					return
				}
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				for _, d := range docs {
					if s := d.Section(); s == nil || !s.Measured() {
						t.Errorf("run %s of %s measured nothing", d.ID, d.Method)
					}
				}
				t.Logf("%d runs of %s", len(docs), docs[0].Method)
			})
		}
	}
}
