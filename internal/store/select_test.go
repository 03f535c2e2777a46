package store

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/compare"
	"github.com/thruput/thruput/internal/result"
)

// labelled is a run of id on host, started hour hours after noon on
// 2026-03-01, with labels.
func labelled(id, host string, hour int, labels map[string]string) *result.Document {
	d := &result.Document{ID: id, Method: result.MethodSweep, Status: result.StatusOK, Labels: labels,
		StartedAt: time.Date(2026, 3, 1, 12+hour, 0, 0, 0, time.UTC)}
	d.Host.Hostname = host
	return d
}

// TestNameRuns: runs compared by id are named by what tells them apart,
// the labels that differ, else the host, else the time each started, and
// keep their ids only when nothing does; a group a label query picked
// keeps the query as its name. Comparison tables and legends were once
// headed by ids a reader could not tell apart. The groups are the ones
// Groups makes of ids, before it names them (a store in this package's
// tests would register a backend, which TestOpenUnregistered forbids).
func TestNameRuns(t *testing.T) {
	cases := []struct {
		name string
		docs []*result.Document
		want []string
	}{
		{"labels", []*result.Document{
			labelled("20260301T120000Z-aaaa01", "pi4", 0, map[string]string{"fs": "ext4", "board": "pi4"}),
			labelled("20260301T130000Z-aaaa02", "pi5", 1, map[string]string{"fs": "xfs", "board": "pi4"}),
		}, []string{"fs=ext4", "fs=xfs"}},
		{"host", []*result.Document{
			labelled("20260301T120000Z-bbbb01", "pi4", 0, map[string]string{"fs": "ext4"}),
			labelled("20260301T130000Z-bbbb02", "pi5", 1, map[string]string{"fs": "ext4"}),
		}, []string{"pi4", "pi5"}},
		{"time", []*result.Document{
			labelled("20260301T120000Z-cccc01", "pi4", 0, nil),
			labelled("20260301T130000Z-cccc02", "pi4", 1, nil),
		}, []string{"2026-03-01 12:00:00", "2026-03-01 13:00:00"}},
		{"nothing", []*result.Document{
			labelled("20260301T120000Z-dddd01", "pi4", 0, nil),
			labelled("20260301T120000Z-dddd02", "pi4", 0, nil),
		}, []string{"20260301T120000Z-dddd01", "20260301T120000Z-dddd02"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var groups []compare.Group
			for _, d := range c.docs {
				groups = append(groups, compare.Group{Name: d.ID, Docs: []*result.Document{d}})
			}
			// A label query's group beside them keeps its name and does
			// not count among the runs to tell apart.
			groups = append(groups, compare.Group{Name: "fs=btrfs", Docs: []*result.Document{
				labelled("20260302T120000Z-eeee01", "pi4", 24, map[string]string{"fs": "btrfs"})}})
			nameRuns(groups)
			var names []string
			for _, g := range groups {
				names = append(names, g.Name)
			}
			if want := append(slices.Clone(c.want), "fs=btrfs"); !slices.Equal(names, want) {
				t.Errorf("columns named %q, want %q", names, want)
			}
		})
	}
}

// TestByDevice: the runs of one label query that measured card A, then
// card B under the same mount path, then nothing known, are three groups,
// in the order their first runs came; runs of one card stay one group.
func TestByDevice(t *testing.T) {
	on := func(id string, hour int, device string) *result.Document {
		d := labelled(id, "pi4", hour, map[string]string{"fs": "ext4"})
		d.Targets = []result.Target{{Path: "/media/card", DeviceID: device}}
		return d
	}
	a1, a2 := on("20260301T120000Z-ffff01", 0, "sd:03-5344-sr64g-aaaa-2018-08"), on("20260301T130000Z-ffff02", 1, "sd:03-5344-sr64g-aaaa-2018-08")
	b1, none := on("20260301T140000Z-ffff03", 2, "sd:03-5344-sr64g-bbbb-2019-01"), on("20260301T150000Z-ffff04", 3, "")
	groups := byDevice("fs=ext4", []*result.Document{a1, b1, a2, none})
	var got []string
	for _, g := range groups {
		var ids []string
		for _, d := range g.Docs {
			ids = append(ids, d.ID[len(d.ID)-2:])
		}
		got = append(got, g.Name+": "+strings.Join(ids, " "))
	}
	want := []string{"fs=ext4 sd:03-5344-sr64g-aaaa-2018-08: 01 02", "fs=ext4 sd:03-5344-sr64g-bbbb-2019-01: 03", "fs=ext4 no device id: 04"}
	if !slices.Equal(got, want) {
		t.Errorf("groups %q; want %q", got, want)
	}
	if g := byDevice("fs=ext4", []*result.Document{a1, a2}); len(g) != 1 || g[0].Name != "fs=ext4" || len(g[0].Docs) != 2 {
		t.Errorf("one card's runs: %+v", g)
	}
}
