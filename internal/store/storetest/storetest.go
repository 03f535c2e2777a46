// Package storetest is the one test suite every result store backend
// passes: the contract of store.Store, checked the same way on SQLite and
// on PostgreSQL.
package storetest

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/result/resulttest"
	"github.com/thruput/thruput/internal/store"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// Doc is a small document of a method, host and start hour.
func Doc(id string, method result.Method, host string, hour int, labels map[string]string) *result.Document {
	d := &result.Document{ID: id, Method: method, StartedAt: t0.Add(time.Duration(hour) * time.Hour), Status: result.StatusOK, Labels: labels}
	d.Host.Hostname = host
	d.Targets = []result.Target{{Path: "/mnt/" + host, FSType: "ext4"}}
	return d
}

func pointIDs(ps []result.Point) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.ID)
	}
	return out
}

func ids(es []store.Entry) []string {
	out := []string{}
	for _, e := range es {
		out = append(out, e.ID)
	}
	return out
}

// Run checks the contract on fresh, empty stores that open makes.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	docs := []*result.Document{
		Doc("20260301T120000Z-aaaa01", result.MethodSweep, "pi4", 0, map[string]string{"device": "sandisk", "fs": "ext4"}),
		Doc("20260301T130000Z-aaaa02", result.MethodRandom, "pi4", 1, map[string]string{"device": "evo"}),
		Doc("20260301T140000Z-bbbb03", result.MethodIO, "pi5", 2, nil),
		Doc("20260301T150000Z-bbbb04", result.MethodNetClient, "pi5", 3, map[string]string{"site": "lab"}),
		Doc("20260301T160000Z-cccc05", result.MethodHTTP, "zero2", 4, map[string]string{"device": "sandisk"}),
	}
	docs[2].Status, docs[2].Error = result.StatusFailed, "device vanished"
	fill := func(t *testing.T) store.Store {
		s := open(t)
		if n, skipped, err := s.SaveAll(docs); n != len(docs) || skipped != 0 || err != nil {
			t.Fatalf("SaveAll: %d %d %v", n, skipped, err)
		}
		return s
	}
	t.Run("round trip", func(t *testing.T) {
		s := fill(t)
		for _, d := range docs {
			got, err := s.Get(d.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, d) {
				t.Errorf("Get(%s) = %+v, want %+v", d.ID, got, d)
			}
		}
		if err := s.Save(docs[0]); !errors.Is(err, store.ErrExists) {
			t.Errorf("saving an id again: %v, want ErrExists", err)
		}
		if n, skipped, err := s.SaveAll(docs[:2]); n != 0 || skipped != 2 || err != nil {
			t.Errorf("SaveAll of stored runs: %d saved %d skipped %v", n, skipped, err)
		}
	})
	t.Run("brief", func(t *testing.T) {
		// Brief serves setting a run against the previous one: every
		// method's figures, series point and parameters as Get gives
		// them, without the machine context and the samples.
		s := open(t)
		frozen := FrozenRuns(t)
		if _, _, err := s.SaveAll(frozen); err != nil {
			t.Fatal(err)
		}
		for _, d := range frozen {
			b, err := s.Brief(d.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := b.Point(), d.Point(); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: Brief's point %+v, want %+v", d.Method, got, want)
			}
			if got, want := b.Section().Params(), d.Section().Params(); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: Brief's parameters %+v, want %+v", d.Method, got, want)
			}
			if b.Argv != nil || b.System != nil {
				t.Errorf("%s: Brief kept the argv %q or the machine context", d.Method, b.Argv)
			}
		}
		if _, err := s.Brief("20990101T000000Z-zzzz99"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Brief of no run: %v, want ErrNotFound", err)
		}
	})
	t.Run("list and filters", func(t *testing.T) {
		s := fill(t)
		cases := []struct {
			f    store.Filter
			want []string
		}{
			{store.Filter{}, []string{"20260301T160000Z-cccc05", "20260301T150000Z-bbbb04", "20260301T140000Z-bbbb03", "20260301T130000Z-aaaa02", "20260301T120000Z-aaaa01"}},
			{store.Filter{Method: "disk."}, []string{"20260301T140000Z-bbbb03", "20260301T130000Z-aaaa02", "20260301T120000Z-aaaa01"}},
			{store.Filter{Method: string(result.MethodHTTP)}, []string{"20260301T160000Z-cccc05"}},
			{store.Filter{Host: "pi5"}, []string{"20260301T150000Z-bbbb04", "20260301T140000Z-bbbb03"}},
			{store.Filter{Labels: []store.LabelQuery{{Key: "device", Value: "sandisk"}}}, []string{"20260301T160000Z-cccc05", "20260301T120000Z-aaaa01"}},
			{store.Filter{Labels: []store.LabelQuery{{Key: "device", Any: true}, {Key: "fs", Value: "ext4"}}}, []string{"20260301T120000Z-aaaa01"}},
			{store.Filter{Since: t0.Add(time.Hour), Until: t0.Add(3 * time.Hour)}, []string{"20260301T140000Z-bbbb03", "20260301T130000Z-aaaa02"}},
			{store.Filter{Status: result.StatusFailed}, []string{"20260301T140000Z-bbbb03"}},
			{store.Filter{IDs: []string{"20260301T12", "20260301T150000Z-bbbb04"}}, []string{"20260301T150000Z-bbbb04", "20260301T120000Z-aaaa01"}},
			{store.Filter{Limit: 2}, []string{"20260301T160000Z-cccc05", "20260301T150000Z-bbbb04"}},
			{store.Filter{Host: "nobody"}, []string{}},
		}
		for _, c := range cases {
			es, err := s.List(c.f)
			if err != nil {
				t.Fatalf("%+v: %v", c.f, err)
			}
			if got := ids(es); !reflect.DeepEqual(got, c.want) {
				t.Errorf("List(%+v) = %v, want %v", c.f, got, c.want)
			}
		}
		es, _ := s.List(store.Filter{IDs: []string{"20260301T120000Z-aaaa01"}})
		e := es[0]
		if e.Method != result.MethodSweep || e.Host != "pi4" || !e.StartedAt.Equal(t0) || e.Target != "/mnt/pi4" || e.FSType != "ext4" ||
			!reflect.DeepEqual(e.Labels, map[string]string{"device": "sandisk", "fs": "ext4"}) || e.Status != result.StatusOK {
			t.Errorf("entry %+v", e)
		}
		ds, err := s.Documents(store.Filter{Method: "disk.", Limit: 2})
		if err != nil || len(ds) != 2 || ds[0].ID != "20260301T130000Z-aaaa02" || ds[1].ID != "20260301T140000Z-bbbb03" {
			t.Errorf("Documents (the newest two, oldest first): %v %v", ds, err)
		}
	})
	t.Run("latest", func(t *testing.T) {
		s := fill(t)
		newer := Doc("20260301T170000Z-aaaa06", result.MethodSweep, "pi4", 5, nil)
		failed := Doc("20260301T180000Z-aaaa07", result.MethodSweep, "pi4", 6, nil)
		failed.Status = result.StatusFailed
		s.SaveAll([]*result.Document{newer, failed})
		ds, err := s.Latest(store.Filter{})
		var got []string
		for _, d := range ds {
			got = append(got, d.ID)
		}
		// pi4's sweep: the newer run that ended ok; pi5's failed io run
		// is no figure.
		want := []string{"20260301T130000Z-aaaa02", "20260301T150000Z-bbbb04", "20260301T160000Z-cccc05", "20260301T170000Z-aaaa06"}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Latest = %v %v, want %v", got, err, want)
		}
		if ds, _ := s.Latest(store.Filter{Host: "pi5"}); len(ds) != 1 {
			t.Errorf("Latest of pi5: %d runs", len(ds))
		}
		// The newest two of each series, the failed run left out.
		ps, err := s.Recent(store.Filter{Host: "pi4"}, 2)
		got = pointIDs(ps)
		if want := []string{"20260301T120000Z-aaaa01", "20260301T130000Z-aaaa02", "20260301T170000Z-aaaa06"}; err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Recent(pi4, 2) = %v %v, want %v", got, err, want)
		}
		if _, err := s.Recent(store.Filter{}, 0); err == nil {
			t.Error("Recent(0) was not refused")
		}
		// A series short of n in the window is read further back; one
		// whose newest run is over 30 days older than the newest selected
		// has stopped and is left out; labels select.
		old := Doc("20260115T120000Z-aaaa00", result.MethodSweep, "pi4", -45*24, map[string]string{"device": "sandisk"})
		stopped := Doc("20260116T120000Z-dddd00", result.MethodIO, "pi9", -44*24, nil)
		if _, _, err := s.SaveAll([]*result.Document{old, stopped}); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			f    store.Filter
			n    int
			want []string
		}{
			{store.Filter{Method: "disk.sweep"}, 3, []string{old.ID, "20260301T120000Z-aaaa01", "20260301T170000Z-aaaa06"}},
			{store.Filter{Method: "disk.sweep"}, 1, []string{"20260301T170000Z-aaaa06"}},
			{store.Filter{Labels: []store.LabelQuery{{Key: "device", Value: "sandisk"}}}, 2, []string{old.ID, "20260301T120000Z-aaaa01", "20260301T160000Z-cccc05"}},
			{store.Filter{Host: "pi9"}, 2, []string{stopped.ID}},
			{store.Filter{}, 1, []string{"20260301T130000Z-aaaa02", "20260301T150000Z-bbbb04", "20260301T160000Z-cccc05", "20260301T170000Z-aaaa06"}},
		} {
			ps, err := s.Recent(c.f, c.n)
			got = pointIDs(ps)
			if err != nil || !reflect.DeepEqual(got, c.want) {
				t.Errorf("Recent(%+v, %d) = %v %v, want %v", c.f, c.n, got, err, c.want)
			}
		}
		// A server's runs name no target but the client that tested
		// against it: the newest of each client counts, whatever port it
		// came from.
		var servers []*result.Document
		for i, client := range []string{"10.0.0.2:40001", "10.0.0.3:40002", "10.0.0.2:40003", "[fe80::1]:40004"} {
			d := Doc(fmt.Sprintf("20260302T0%d0000Z-ssss0%d", i, i), result.MethodNetServer, "srv", 24+i, nil)
			d.Targets = nil
			d.Net = &result.Net{Parameters: result.NetParameters{Role: "server", Server: ":5201", Client: client}}
			servers = append(servers, d)
		}
		if _, _, err := s.SaveAll(servers); err != nil {
			t.Fatal(err)
		}
		ds, err = s.Latest(store.Filter{Method: string(result.MethodNetServer)})
		got = nil
		for _, d := range ds {
			got = append(got, d.ID)
		}
		if want := []string{"20260302T010000Z-ssss01", "20260302T020000Z-ssss02", "20260302T030000Z-ssss03"}; err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Latest of a server's runs = %v %v, want the newest of each client %v", got, err, want)
		}
		// A client tested one server up, then down (-R), then up again:
		// the newest of each direction counts, as /metrics labels them.
		var clients []*result.Document
		for i, dir := range []string{result.DirUp, result.DirDown, result.DirUp, result.DirDown, result.DirDown} {
			d := Doc(fmt.Sprintf("20260303T0%d0000Z-cccc0%d", i, i), result.MethodNetClient, "pi4", 40+i, nil)
			d.Targets = []result.Target{{Path: "10.0.0.9"}}
			d.Net = &result.Net{Parameters: result.NetParameters{Role: "client", Server: "10.0.0.9:5201", Direction: dir}}
			clients = append(clients, d)
		}
		if _, _, err := s.SaveAll(clients); err != nil {
			t.Fatal(err)
		}
		ds, err = s.Latest(store.Filter{Method: string(result.MethodNetClient), Host: "pi4"})
		got = nil
		for _, d := range ds {
			got = append(got, d.ID)
		}
		if want := []string{"20260303T020000Z-cccc02", "20260303T040000Z-cccc04"}; err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Latest of a client's runs = %v %v, want the newest up and the newest down %v", got, err, want)
		}
		// Then both ways at once (--bidir), and up over another
		// interface: series of their own, for Latest (/metrics) and for
		// Recent (the alerts) alike, each point keyed as its document.
		bidir := Doc("20260303T050000Z-cccc05", result.MethodNetClient, "pi4", 45, nil)
		bidir.Targets = clients[0].Targets
		bidir.Net = &result.Net{Parameters: result.NetParameters{Role: "client", Server: "10.0.0.9:5201", Direction: "bidir"}}
		wlan := Doc("20260303T060000Z-cccc06", result.MethodNetClient, "pi4", 46, nil)
		wlan.Targets = clients[0].Targets
		wlan.Net = &result.Net{Parameters: result.NetParameters{Role: "client", Server: "10.0.0.9:5201", Direction: result.DirUp, Interface: "wlan0"}}
		if _, _, err := s.SaveAll([]*result.Document{bidir, wlan}); err != nil {
			t.Fatal(err)
		}
		ds, err = s.Latest(store.Filter{Method: string(result.MethodNetClient), Host: "pi4"})
		got = nil
		for _, d := range ds {
			got = append(got, d.ID)
		}
		if want := []string{"20260303T020000Z-cccc02", "20260303T040000Z-cccc04", bidir.ID, wlan.ID}; err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Latest of a client's runs = %v %v, want the newest of up, down, bidir and up over wlan0 %v", got, err, want)
		}
		ps, err = s.Recent(store.Filter{Method: string(result.MethodNetClient), Host: "pi4"}, 2)
		if want := []string{"20260303T000000Z-cccc00", "20260303T020000Z-cccc02", "20260303T030000Z-cccc03", "20260303T040000Z-cccc04", bidir.ID, wlan.ID}; err != nil || !reflect.DeepEqual(pointIDs(ps), want) {
			t.Errorf("Recent of a client's runs = %v %v, want the newest two of each series %v", pointIDs(ps), err, want)
		}
		all := append(clients, bidir, wlan)
		for _, p := range ps {
			for _, d := range all {
				if d.ID == p.ID && (p.Series != d.SeriesKey() || !p.StartedAt.Equal(d.StartedAt)) {
					t.Errorf("Recent's point %s: series %+v at %v, want %+v at %v", p.ID, p.Series, p.StartedAt, d.SeriesKey(), d.StartedAt)
				}
			}
		}
	})
	t.Run("pages", func(t *testing.T) {
		// Seven runs, five of them started at the same instant: pages of
		// two, each continuing after the last run of the one before, give
		// every run once.
		s := open(t)
		var all []*result.Document
		for i := range 7 {
			all = append(all, Doc(fmt.Sprintf("20260303T120000Z-pppp%02d", i), result.MethodIO, "pi4", min(i, 2), nil))
		}
		if _, _, err := s.SaveAll(all); err != nil {
			t.Fatal(err)
		}
		var seen []string
		f := store.Filter{Limit: 2}
		for range 10 {
			es, err := s.List(f)
			if err != nil {
				t.Fatal(err)
			}
			seen = append(seen, ids(es)...)
			if len(es) < f.Limit {
				break
			}
			f.Before, f.BeforeID = es[len(es)-1].StartedAt, es[len(es)-1].ID
		}
		want := []string{"20260303T120000Z-pppp06", "20260303T120000Z-pppp05", "20260303T120000Z-pppp04", "20260303T120000Z-pppp03",
			"20260303T120000Z-pppp02", "20260303T120000Z-pppp01", "20260303T120000Z-pppp00"}
		if !reflect.DeepEqual(seen, want) {
			t.Errorf("pages gave %v, want %v", seen, want)
		}
	})
	t.Run("ids and delete", func(t *testing.T) {
		s := fill(t)
		if id, err := s.Resolve("20260301T16"); err != nil || id != "20260301T160000Z-cccc05" {
			t.Errorf("Resolve prefix: %q %v", id, err)
		}
		if _, err := s.Resolve("20260301T1"); !errors.Is(err, store.ErrAmbiguous) {
			t.Errorf("an ambiguous prefix: %v", err)
		}
		if _, err := s.Resolve("2026" + "9999"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("an unknown id: %v", err)
		}
		if _, err := s.Resolve("\xff\xff\xff\xff"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a prefix of 0xff bytes: %v", err)
		}
		if _, err := s.Resolve("20260301T16\x7f"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a prefix whose successor is not UTF-8: %v", err)
		}
		if _, err := s.Resolve("2026\x00"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a prefix with a NUL byte: %v", err)
		}
		if n, err := s.Delete("20260301T120000Z-aaaa01", "nope-nope"); n != 0 || err == nil {
			t.Errorf("Delete with an unknown id deletes nothing: %d %v", n, err)
		}
		if n, err := s.Delete("20260301T120000Z-aaaa01", "20260301T13"); n != 2 || err != nil {
			t.Errorf("Delete: %d %v", n, err)
		}
		es, _ := s.List(store.Filter{Labels: []store.LabelQuery{{Key: "device", Any: true}}})
		if got := ids(es); !reflect.DeepEqual(got, []string{"20260301T160000Z-cccc05"}) {
			t.Errorf("labels of deleted runs remain: %v", got)
		}
		if _, err := s.Get("20260301T120000Z-aaaa01"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Get of a deleted run: %v", err)
		}
	})
	t.Run("labels", func(t *testing.T) {
		s := fill(t)
		l, ok := s.(store.Labeler)
		if !ok {
			t.Fatal("the store cannot change labels")
		}
		id, labels, err := l.Label("20260301T12", map[string]string{"fs": "xfs", "card": "b"}, []string{"device"})
		if err != nil || id != "20260301T120000Z-aaaa01" || !reflect.DeepEqual(labels, map[string]string{"fs": "xfs", "card": "b"}) {
			t.Fatalf("Label: %q %v %v", id, labels, err)
		}
		if d, err := s.Get(id); err != nil || !reflect.DeepEqual(d.Labels, labels) {
			t.Errorf("the document's labels: %v %v", d.Labels, err)
		}
		es, _ := s.List(store.Filter{Labels: []store.LabelQuery{{Key: "fs", Value: "xfs"}}})
		if got := ids(es); !reflect.DeepEqual(got, []string{id}) || !reflect.DeepEqual(es[0].Labels, labels) {
			t.Errorf("a filter on the new label: %v", es)
		}
		if es, _ := s.List(store.Filter{Labels: []store.LabelQuery{{Key: "device", Value: "sandisk"}}}); !reflect.DeepEqual(ids(es), []string{"20260301T160000Z-cccc05"}) {
			t.Errorf("a removed label still matches: %v", ids(es))
		}
		if _, labels, err := l.Label(id, nil, []string{"fs", "card"}); err != nil || labels != nil {
			t.Errorf("removing every label: %v %v", labels, err)
		}
		if d, _ := s.Get(id); d.Labels != nil {
			t.Errorf("labels left: %v", d.Labels)
		}
		if _, _, err := l.Label(id, map[string]string{"bad key": "x"}, nil); err == nil {
			t.Error("a label key with a space was set")
		}
		if _, _, err := l.Label("nope-nope", map[string]string{"a": "b"}, nil); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("labelling an unknown run: %v", err)
		}
	})
	t.Run("device ids", func(t *testing.T) {
		// Card A, then card B in the same slot and mount path, then
		// card A again in another machine; a network run by its NIC; a
		// run over two targets, one of them on card B.
		s := open(t)
		cardA, cardB := "sd:03-5344-sr64g-1a2b3c4d-2018-08", "sd:03-5344-sr64g-5e6f7a8b-2019-01"
		at := func(id, host string, hour int, devices ...string) *result.Document {
			d := Doc(id, result.MethodSweep, host, hour, nil)
			d.Targets = nil
			for i, dev := range devices {
				d.Targets = append(d.Targets, result.Target{Path: fmt.Sprintf("/mnt/card%d", i), DeviceID: dev})
			}
			return d
		}
		net := Doc("20260304T130000Z-dddd05", result.MethodNetClient, "pi4", 3, nil)
		net.Targets = nil
		net.Net = &result.Net{Parameters: result.NetParameters{Role: "client", Server: "srv", Interface: "eth0"}}
		net.System = &result.System{NetInterfaces: []result.NetInterface{{Name: "eth0", DeviceID: "mac:dc:a6:32:01:02:03"}}}
		runs := []*result.Document{
			at("20260304T100000Z-dddd01", "pi4", 0, cardA),
			at("20260304T110000Z-dddd02", "pi4", 1, cardB),
			at("20260304T120000Z-dddd03", "pi5", 2, cardA),
			at("20260304T123000Z-dddd04", "pi5", 2, "usb:152d:0578:x_y", cardB),
			net,
			at("20260304T140000Z-dddd06", "pi5", 4),
		}
		if _, _, err := s.SaveAll(runs); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			device string
			want   []string
		}{
			{cardA, []string{"20260304T120000Z-dddd03", "20260304T100000Z-dddd01"}},
			{strings.ToUpper(cardB), []string{"20260304T123000Z-dddd04", "20260304T110000Z-dddd02"}},
			{"sd:03-5344", []string{"20260304T123000Z-dddd04", "20260304T120000Z-dddd03", "20260304T110000Z-dddd02", "20260304T100000Z-dddd01"}},
			// '_' is no wildcard: x_y, not xzy.
			{"usb:152d:0578:x_", []string{"20260304T123000Z-dddd04"}},
			{"usb:152d:0578:xz", []string{}},
			{"mac:", []string{"20260304T130000Z-dddd05"}},
			// A prefix starts an id; the middle of one matches nothing.
			{"sd:5344", []string{}},
		} {
			es, err := s.List(store.Filter{Device: c.device})
			if err != nil {
				t.Fatalf("List(device %s): %v", c.device, err)
			}
			if got := ids(es); !reflect.DeepEqual(got, c.want) {
				t.Errorf("List(device %s) = %v, want %v", c.device, got, c.want)
			}
		}
		es, _ := s.List(store.Filter{IDs: []string{"20260304T123000Z-dddd04"}})
		if len(es) != 1 || !reflect.DeepEqual(es[0].DeviceIDs, []string{"usb:152d:0578:x_y", cardB}) {
			t.Errorf("entry's device ids: %+v", es)
		}
		if ds, err := s.Documents(store.Filter{Device: cardA, Host: "pi5"}); err != nil || len(ds) != 1 || ds[0].ID != "20260304T120000Z-dddd03" {
			t.Errorf("Documents of card A on pi5: %v %v", ds, err)
		}
		if _, err := s.List(store.Filter{Device: "card-a"}); err == nil || !strings.Contains(err.Error(), "want KIND:") {
			t.Errorf("a malformed device id: %v", err)
		}
	})
	t.Run("all or nothing", func(t *testing.T) {
		s := open(t)
		bad := Doc("20260301T170000Z-dddd06", "", "pi4", 5, nil)
		if _, _, err := s.SaveAll([]*result.Document{docs[0], bad}); err == nil {
			t.Fatal("a document without a method was saved")
		}
		if es, _ := s.List(store.Filter{}); len(es) != 0 {
			t.Errorf("a failed SaveAll kept %v", ids(es))
		}
	})
	t.Run("concurrent savers", func(t *testing.T) {
		s := open(t)
		var wg sync.WaitGroup
		errs := make(chan error, 20)
		for i := range 20 {
			wg.Go(func() {
				errs <- s.Save(Doc(fmt.Sprintf("20260302T%02d0000Z-eeee%02d", i, i), result.MethodSweep, "pi4", i, map[string]string{"n": fmt.Sprint(i)}))
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
		if es, _ := s.List(store.Filter{}); len(es) != 20 {
			t.Errorf("%d of 20 runs saved at once were kept", len(es))
		}
	})
}

// FrozenRuns are every method's frozen document (resulttest) as runs of
// one host's store an hour apart, each with a label: what a migration
// test stores the way an older thruput did.
func FrozenRuns(t *testing.T) []*result.Document {
	frozen := resulttest.Frozen(t)
	var docs []*result.Document
	for i, name := range slices.Sorted(maps.Keys(frozen)) {
		d := frozen[name]
		d.StartedAt = t0.Add(time.Duration(i) * time.Hour)
		d.ID = d.StartedAt.Format("20060102T150405Z") + fmt.Sprintf("-f%05d", i)
		d.Status = result.StatusOK
		d.Labels = map[string]string{"n": fmt.Sprint(i)}
		docs = append(docs, d)
	}
	return docs
}

// CheckPoints checks that Recent gives the point of each of docs (stored
// by FrozenRuns) as the document makes it, and that a run saved now gets
// the same point.
func CheckPoints(t *testing.T, s store.Store, docs []*result.Document) {
	t.Helper()
	// Two of the frozen runs are one series (the sweeps, with and
	// without health): the newest two of each are all.
	ps, err := s.Recent(store.Filter{}, 2)
	if err != nil || len(ps) != len(docs) {
		t.Fatalf("Recent: %d points, %v; want %d", len(ps), err, len(docs))
	}
	for i, d := range docs {
		if got, want := ps[i], d.Point(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s's point:\n%+v\nwant\n%+v", d.Method, got, want)
		}
	}
	if len(ps[0].Figures) == 0 {
		t.Errorf("%s's point has no figures", docs[0].Method)
	}
	d := *docs[0]
	d.StartedAt = d.StartedAt.AddDate(0, 1, 0)
	d.ID = d.StartedAt.Format("20060102T150405Z") + "-f99999"
	if err := s.Save(&d); err != nil {
		t.Fatal(err)
	}
	ps, err = s.Recent(store.Filter{IDs: []string{d.ID}}, 1)
	if want := d.Point(); err != nil || len(ps) != 1 || !reflect.DeepEqual(ps[0], want) {
		t.Errorf("a run saved now: %+v %v, want %+v", ps, err, want)
	}
}
