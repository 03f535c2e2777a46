package fairness

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestJain(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
		ok   bool
	}{
		{[]float64{10, 10, 10, 10}, 1, true},
		{[]float64{40, 0, 0, 0}, 0.25, true},
		// (1+2+3)^2 / (3 * (1+4+9)) = 36/42
		{[]float64{1, 2, 3}, 36.0 / 42, true},
		{nil, 0, false},
		{[]float64{0, 0}, 0, false},
	} {
		got, ok := Jain(c.xs)
		if ok != c.ok || math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Jain(%v) = %v, %v; want %v, %v", c.xs, got, ok, c.want, c.ok)
		}
	}
}

func TestGroupOutputs(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	g := NewGroup("srv", []Client{
		{Client: "a", MbitPerSecond: f(30), Run: "r1"},
		{Client: "b", MbitPerSecond: f(10), Run: "r2"},
		{Client: "c", Error: "the server is busy running a test; try again later"},
	})
	if g.AggregateMbitPerSecond != 40 || g.Jain == nil || math.Abs(*g.Jain-0.8) > 1e-12 || g.Failed() != 1 {
		t.Fatalf("group: %+v", g)
	}
	var tbl, md, js bytes.Buffer
	if err := Write(&tbl, []Group{g}, "table"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"30.00", "failed: the server is busy", "aggregate", "40.00", "Jain's fairness index 0.800"} {
		if !strings.Contains(tbl.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, tbl.String())
		}
	}
	if err := Write(&md, []Group{g}, "markdown"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(md.String(), "| client | server | Mbit/s | status |\n|---|---|---|---|\n") {
		t.Errorf("markdown:\n%s", md.String())
	}
	if err := Write(&js, []Group{g}, "json"); err != nil {
		t.Fatal(err)
	}
	var back []map[string]any
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back[0]["jain_fairness_index"] != 0.8 || back[0]["aggregate_mbit_per_second"] != 40.0 {
		t.Errorf("json: %s", js.String())
	}
}
