package store

import (
	"cmp"
	"slices"
	"strings"

	"github.com/thruput/thruput/internal/compare"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/usage"
)

// Selection narrows what a label query picks, for compare, report and
// serve's pages.
type Selection struct {
	Method, Host string
	// All also takes runs that did not end ok.
	All bool
}

// Groups turns compare's and report's arguments into groups of
// stored documents, one group per argument. A part device_id=ID of a
// label query selects by hardware id (Filter.Device) rather than by a
// label; a group whose runs measured different hardware (a card swapped
// under the same path) is split into a group per device, never averaged.
func Groups(s Store, args []string, sel Selection) ([]compare.Group, error) {
	var groups []compare.Group
	for _, arg := range args {
		if !strings.Contains(arg, "=") {
			doc, err := s.Get(arg)
			if err != nil {
				return nil, usage.Wrap(err)
			}
			groups = append(groups, compare.Group{Name: arg, Docs: []*result.Document{doc}})
			continue
		}
		flt := Filter{Method: sel.Method, Host: sel.Host, Status: result.StatusOK}
		if sel.All {
			flt.Status = ""
		}
		for _, part := range strings.Split(arg, ",") {
			if v, ok := strings.CutPrefix(part, "device_id="); ok {
				id, err := result.ParseDeviceID(v)
				if err != nil {
					return nil, usage.Wrap(err)
				}
				flt.Device = id
				continue
			}
			q, err := ParseLabelQuery(part)
			if err != nil {
				return nil, usage.Wrap(err)
			}
			flt.Labels = append(flt.Labels, q)
		}
		docs, err := s.Documents(flt)
		if err != nil {
			return nil, err
		}
		if len(docs) == 0 {
			return nil, usage.Errorf("%s: no stored run matches", arg)
		}
		var methods []result.Method
		for _, d := range docs {
			if !slices.Contains(methods, d.Method) {
				methods = append(methods, d.Method)
			}
		}
		for _, m := range methods[1:] {
			if compare.Kind(m) != compare.Kind(methods[0]) {
				return nil, usage.Errorf("%s matches runs of %s; choose one with --method", arg, joinMethods(methods))
			}
		}
		groups = append(groups, byDevice(arg, docs)...)
	}
	nameRuns(groups)
	return groups, nil
}

// byDevice splits the runs an argument selected by the hardware they
// measured, when they measured more than one piece: each group is named
// by the argument and its device ids ("no device id" for runs that
// recorded none, such as those stored before ids were kept).
func byDevice(arg string, docs []*result.Document) []compare.Group {
	var keys []string
	by := map[string][]*result.Document{}
	for _, d := range docs {
		k := strings.Join(d.DeviceIDs(), " ")
		if _, ok := by[k]; !ok {
			keys = append(keys, k)
		}
		by[k] = append(by[k], d)
	}
	if len(keys) == 1 {
		return []compare.Group{{Name: arg, Docs: docs}}
	}
	groups := make([]compare.Group, len(keys))
	for i, k := range keys {
		groups[i] = compare.Group{Name: arg + " " + cmp.Or(k, "no device id"), Docs: by[k]}
	}
	return groups
}

// nameRuns names the groups of a single run given by id by what tells
// those runs apart, rather than by ids a reader cannot tell apart: the
// labels that differ between them, else the host, else the time each
// started. Names stay ids when these do not set every run apart; the
// column's description still gives the id.
func nameRuns(groups []compare.Group) {
	var picked []int
	for i, g := range groups {
		if len(g.Docs) == 1 && g.Name == g.Docs[0].ID {
			picked = append(picked, i)
		}
	}
	if len(picked) < 2 {
		return
	}
	var keys []string
	for _, i := range picked {
		for k, v := range groups[i].Docs[0].Labels {
			for _, j := range picked {
				if w, ok := groups[j].Docs[0].Labels[k]; (!ok || w != v) && !slices.Contains(keys, k) {
					keys = append(keys, k)
				}
			}
		}
	}
	slices.Sort(keys)
	ways := []func(*result.Document) string{
		func(d *result.Document) string {
			var l []string
			for _, k := range keys {
				if v, ok := d.Labels[k]; ok {
					l = append(l, k+"="+v)
				}
			}
			return strings.Join(l, ",")
		},
		func(d *result.Document) string { return d.Host.Hostname },
		func(d *result.Document) string { return d.StartedAt.UTC().Format("2006-01-02 15:04:05") },
	}
	for _, way := range ways {
		names := map[string]bool{}
		for _, i := range picked {
			names[way(groups[i].Docs[0])] = true
		}
		if len(names) != len(picked) || names[""] {
			continue
		}
		for _, i := range picked {
			groups[i].Name = way(groups[i].Docs[0])
		}
		return
	}
}

// Select picks the runs of a report: the newest with no argument,
// one run with one id, else a comparison of the arguments.
func Select(s Store, args []string, sel Selection) ([]*result.Document, *compare.Comparison, error) {
	if len(args) == 0 {
		latest, err := s.List(Filter{Method: sel.Method, Host: sel.Host, Limit: 1})
		if err != nil {
			return nil, nil, err
		}
		if len(latest) == 0 {
			return nil, nil, usage.Errorf("the store %s holds no run yet; run one, or give ids", s.Path())
		}
		args = []string{latest[0].ID}
	}
	// suite=ID or fleet=ID alone is that suite's or fleet run's page
	// again: its runs one after another, of whatever methods, not a
	// comparison.
	if key, id, ok := strings.Cut(args[0], "="); ok && (key == "suite" || key == "fleet") && len(args) == 1 && !strings.Contains(id, ",") {
		docs, err := s.Documents(Filter{Labels: []LabelQuery{{Key: key, Value: id}}})
		if err != nil {
			return nil, nil, err
		}
		if len(docs) == 0 {
			return nil, nil, usage.Errorf("no stored run belongs to %s %s", key, id)
		}
		slices.SortFunc(docs, func(x, y *result.Document) int { return x.StartedAt.Compare(y.StartedAt) })
		return docs, nil, nil
	}
	groups, err := Groups(s, args, sel)
	if err != nil {
		return nil, nil, err
	}
	var docs []*result.Document
	for _, g := range groups {
		docs = append(docs, g.Docs...)
	}
	if len(groups) == 1 && len(docs) == 1 {
		return docs, nil, nil
	}
	cmp, err := compare.New(groups, 0)
	if err != nil {
		return nil, nil, usage.Wrap(err)
	}
	return docs, cmp, nil
}

// joinMethods lists methods for a message.
func joinMethods(methods []result.Method) string {
	s := make([]string, len(methods))
	for i, m := range methods {
		s[i] = string(m)
	}
	return strings.Join(s, ", ")
}
