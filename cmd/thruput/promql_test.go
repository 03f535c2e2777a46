package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/thruput/thruput/internal/nettest"
	"github.com/thruput/thruput/internal/promtest"
	"github.com/thruput/thruput/internal/realdata"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/result/resulttest"
	"github.com/thruput/thruput/internal/store/sqlite"
)

// scrapeLabels reads a /metrics page: each series name with the label
// names its samples carry.
func scrapeLabels(page string) map[string]map[string]bool {
	m := map[string]map[string]bool{}
	label := regexp.MustCompile(`(\w+)="`)
	for _, l := range strings.Split(page, "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		name, rest, _ := strings.Cut(l, "{")
		if m[name] == nil {
			m[name] = map[string]bool{}
		}
		labels, _, _ := strings.Cut(rest, "}")
		for _, s := range label.FindAllStringSubmatch(labels, -1) {
			m[name][s[1]] = true
		}
	}
	return m
}

// selector finds a series name in PromQL and the label names its
// matchers, if any, use.
var (
	selector = regexp.MustCompile(`\b(thruput[_:][A-Za-z0-9_:]*)(\{[^}]*\})?`)
	matcher  = regexp.MustCompile(`(\w+)\s*(=~|!~|!=|=)`)
)

// checkSeries fails t for each series name expr selects that neither the
// scrape has nor a rule records, and each label name a matcher uses that
// the scrape's series lack.
func checkSeries(t *testing.T, where, expr string, scrape map[string]map[string]bool, recorded map[string]bool) {
	t.Helper()
	found := selector.FindAllStringSubmatch(expr, -1)
	if len(found) == 0 {
		t.Errorf("%s: %q selects no thruput series", where, expr)
	}
	for _, s := range found {
		labels, exported := scrape[s[1]]
		if !exported && !recorded[s[1]] {
			t.Errorf("%s: %q: /metrics exports no %s, and no rule records it", where, expr, s[1])
			continue
		}
		for _, m := range matcher.FindAllStringSubmatch(s[2], -1) {
			if exported && !labels[m[1]] {
				t.Errorf("%s: %q: %s has no label %s on /metrics", where, expr, s[1], m[1])
			}
		}
	}
}

// TestShippedPromQL: every expression of the Prometheus rules and the
// Grafana dashboard in packaging/ selects series and labels a real
// /metrics page has: thruput serve's, over a store holding a frozen run
// of every method and a network test against Debian's iperf3 -s (its
// latency under load too). promtool checks the rules and runs their
// tests, and checks the dashboard's expressions, each put in a recording
// rule of a temporary file, as it checks rules.
func TestShippedPromQL(t *testing.T) {
	promtool := promtest.Promtool(t)
	needIperf3(t)
	db := filepath.Join(t.TempDir(), "results.db")
	s, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	var docs []*result.Document
	for _, d := range resulttest.Frozen(t) {
		docs = append(docs, d)
	}
	if _, _, err := s.SaveAll(docs); err != nil {
		t.Fatal(err)
	}
	s.Close()
	port := nettest.FreePort(t)
	startBackground(t, exec.Command("iperf3", "-s", "-1", "-B", "127.0.0.1", "-p", strconv.Itoa(port)))
	waitListening(t, port)
	if o := thruput(t, "net", "client", "127.0.0.1", "-p", strconv.Itoa(port), "-t", "1", "--db", db, "-q"); o.code != exitOK {
		t.Fatalf("net client: exit %d\n%s", o.code, o.stderr)
	}
	code, page := get(t, startDashboard(t, "--db", db)+"/metrics")
	if code != 200 {
		t.Fatalf("/metrics: %d\n%s", code, page)
	}
	scrape := scrapeLabels(page)
	if !scrape["thruput_net_latency_rtt_seconds"]["phase"] || !scrape["thruput_disk_mark_bytes_per_second"]["preset"] {
		t.Fatalf("the scrape lacks the network test's latency or disk mark's presets:\n%s", page)
	}

	dir := filepath.Join(realdata.ModuleRoot(t), "packaging")
	rulesFile := filepath.Join(dir, "prometheus", "thruput-rules.yml")
	b, err := os.ReadFile(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	var rules struct {
		Groups []struct {
			Rules []struct{ Record, Alert, Expr string }
		}
	}
	if err := yaml.Unmarshal(b, &rules); err != nil {
		t.Fatal(err)
	}
	recorded := map[string]bool{}
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			if r.Record != "" {
				recorded[r.Record] = true
			}
		}
	}
	n := 0
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			checkSeries(t, "thruput-rules.yml "+r.Record+r.Alert, r.Expr, scrape, recorded)
			n++
		}
	}

	b, err = os.ReadFile(filepath.Join(dir, "grafana", "thruput-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Inputs []struct{ Name, Type, PluginID string } `json:"__inputs"`
		Panels []struct {
			Title      string
			Type       string
			Datasource struct{ UID string }
			Targets    []struct{ Expr, LegendFormat string }
		}
		Templating struct {
			List []struct {
				Name       string
				Datasource struct{ UID string }
				Definition string
			}
		}
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatal(err)
	}
	if len(dash.Inputs) != 1 || dash.Inputs[0].Type != "datasource" || dash.Inputs[0].PluginID != "prometheus" {
		t.Errorf("the dashboard's inputs: %+v, want one Prometheus datasource", dash.Inputs)
	}
	ds := "${" + dash.Inputs[0].Name + "}"
	// $host and $target stand for any value in a check of the syntax.
	vars := strings.NewReplacer("$host", ".*", "$target", ".*")
	var exprs []string
	legend := regexp.MustCompile(`\{\{\s*(\w+)\s*\}\}`)
	for _, p := range dash.Panels {
		if p.Type == "row" {
			continue
		}
		if p.Datasource.UID != ds || len(p.Targets) == 0 {
			t.Errorf("panel %q: datasource %q, %d queries", p.Title, p.Datasource.UID, len(p.Targets))
		}
		for _, q := range p.Targets {
			checkSeries(t, "panel "+p.Title, q.Expr, scrape, nil)
			exprs = append(exprs, vars.Replace(q.Expr))
			// A legend names labels the query's series keep.
			for _, l := range legend.FindAllStringSubmatch(q.LegendFormat, -1) {
				name := selector.FindStringSubmatch(q.Expr)[1]
				if !scrape[name][l[1]] {
					t.Errorf("panel %q: legend %q names %s, which %s lacks", p.Title, q.LegendFormat, l[1], name)
				}
			}
		}
	}
	for _, v := range dash.Templating.List {
		if v.Datasource.UID != ds {
			t.Errorf("variable %s: datasource %q", v.Name, v.Datasource.UID)
		}
		def := regexp.MustCompile(`^label_values\((.+), (\w+)\)$`).FindStringSubmatch(v.Definition)
		if def == nil {
			t.Errorf("variable %s: %q is not label_values(SELECTOR, LABEL)", v.Name, v.Definition)
			continue
		}
		checkSeries(t, "variable "+v.Name, def[1], scrape, nil)
		if name := selector.FindStringSubmatch(def[1])[1]; !scrape[name][def[2]] {
			t.Errorf("variable %s: %s has no label %s", v.Name, name, def[2])
		}
		exprs = append(exprs, vars.Replace(def[1]))
	}

	var tmp strings.Builder
	tmp.WriteString("groups:\n  - name: dashboard\n    rules:\n")
	for i, e := range exprs {
		q, _ := json.Marshal(e)
		fmt.Fprintf(&tmp, "      - record: dashboard_expr_%d\n        expr: %s\n", i, q)
	}
	dashRules := filepath.Join(t.TempDir(), "dashboard-rules.yml")
	if err := os.WriteFile(dashRules, []byte(tmp.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"check", "rules", rulesFile},
		{"test", "rules", filepath.Join(dir, "prometheus", "thruput-rules.test.yml")},
		{"check", "rules", dashRules},
	} {
		out, err := exec.Command(promtool, args...).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "SUCCESS") {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	if n < 10 || len(exprs) < 10 || !slices.Contains(exprs, "time() - thruput_last_run_timestamp_seconds{host=~\".*\"}") {
		t.Errorf("%d rules, %d dashboard expressions: %q", n, len(exprs), exprs)
	}
}
