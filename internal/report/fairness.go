package report

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/thruput/thruput/internal/result"
)

// WriteFairness prints groups of clients run at once into one server
// (net client --clients, fleet net --concurrent): a table (or markdown)
// per group with a line per client, then the aggregate and the fairness
// index, and the latency block under their load; or JSON.
func WriteFairness(w io.Writer, groups []result.ClientGroup, format string) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(groups)
	}
	for i, g := range groups {
		if i > 0 {
			fmt.Fprintln(w)
		}
		t := Table{Header: []string{"client", "server", "Mbit/s", "status"}, Left: true}
		for _, c := range g.Clients {
			mbit, status := "-", "ok"
			if c.MbitPerSecond != nil {
				mbit = fmt.Sprintf("%.2f", *c.MbitPerSecond)
			}
			if c.Error != "" {
				status = "failed: " + c.Error
				if c.MbitPerSecond != nil {
					status = "partial: " + c.Error
				}
			}
			t.Rows = append(t.Rows, []string{c.Client, g.Server, mbit, status})
		}
		jain := "-"
		if g.Jain != nil {
			jain = fmt.Sprintf("%.3f", *g.Jain)
		}
		t.Rows = append(t.Rows, []string{"aggregate", g.Server, fmt.Sprintf("%.2f", g.AggregateMbitPerSecond), "Jain's fairness index " + jain})
		if err := t.Print(w, format == "markdown"); err != nil {
			return err
		}
		// The latency under the clients' load, below their table.
		if lt := latencyTable(g.LoadLatency); lt != nil {
			fmt.Fprintln(w)
			if err := lt.Print(w, format == "markdown"); err != nil {
				return err
			}
		}
	}
	return nil
}
