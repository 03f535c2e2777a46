package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

// TestInterruptedWords: a run ended by an interrupt says "interrupted"
// in every format, not the "context canceled" its document records (as
// documents written before this did too); another error keeps its words.
func TestInterruptedWords(t *testing.T) {
	d := *frozenDocs(t)["net.client.json"]
	d.Status, d.Error = result.StatusInterrupted, "context canceled"
	pages := map[string]string{}
	for _, f := range []string{"table", "markdown"} {
		var b bytes.Buffer
		if err := Write(&b, &d, Options{Format: f}); err != nil {
			t.Fatal(err)
		}
		pages[f] = b.String()
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, []*result.Document{&d}, nil, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	pages["html"] = b.String()
	for f, p := range pages {
		if strings.Contains(p, "context canceled") || !strings.Contains(p, "Run interrupted.") {
			t.Errorf("%s: want \"Run interrupted.\" without context canceled:\n%s", f, p)
		}
	}
	d.Status, d.Error = result.StatusPartial, "iperf3: the server stopped answering"
	var p bytes.Buffer
	if err := Write(&p, &d, Options{Format: "table"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.String(), "Run partial: iperf3: the server stopped answering.") {
		t.Errorf("a partial run's error is lost:\n%s", p.String())
	}
}
