package main

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/store"
	"github.com/thruput/thruput/internal/usage"
)

// filterFlags select runs the way every history command does.
type filterFlags struct {
	method, host, status string
	labels               []string
	device               string
	since, until         string
	limit                int
	// all is --all where the command hides runs that did not end ok.
	all *bool
}

func (f *filterFlags) add(fl *pflag.FlagSet, limit int) {
	fl.StringVar(&f.method, "method", "", "only this method (disk.sweep), or a family ending in a dot (disk.)")
	fl.StringVar(&f.host, "host", "", "only runs made on this hostname")
	fl.StringArrayVar(&f.labels, "label", nil, "only runs with this `key=value` label, or with the key at all; repeatable (all must match)")
	fl.StringVar(&f.device, "device", "", "only runs that measured this hardware: an `ID` as thruput sysinfo shows it (sd:03-5344-…, wwn:…, usb:…, mac:…) or its start")
	fl.StringVar(&f.since, "since", "", "only runs started at or after this time: 2026-11-21, 2026-11-21T13:00, or an age such as 24h or 7d")
	fl.StringVar(&f.until, "until", "", "only runs started before this time (same forms as --since)")
	fl.StringVar(&f.status, "status", "", "only runs that ended ok, partial (failed part-way), failed or interrupted")
	fl.IntVar(&f.limit, "limit", limit, "at most this many runs, the newest (0: all)")
}

func (f *filterFlags) filter(now time.Time) (store.Filter, error) {
	flt := store.Filter{Method: f.method, Host: f.host, Limit: f.limit}
	// A store holds text only (PostgreSQL refuses to even compare
	// invalid UTF-8), so such a filter is the user's to fix.
	for _, v := range append([]string{f.method, f.host}, f.labels...) {
		if !utf8.ValidString(v) || strings.ContainsRune(v, 0) {
			return flt, usage.Errorf("the filter %q is not text (invalid UTF-8 or a NUL byte)", v)
		}
	}
	if f.limit < 0 {
		return flt, usage.Errorf("--limit %d: use 0 for all, or a positive count", f.limit)
	}
	switch f.status {
	case "", result.StatusOK, result.StatusPartial, result.StatusFailed, result.StatusInterrupted:
		flt.Status = f.status
	default:
		return flt, usage.Errorf("--status %q: use ok, partial, failed or interrupted", f.status)
	}
	if f.all != nil && !*f.all && flt.Status == "" {
		flt.Status = result.StatusOK
	}
	for _, l := range f.labels {
		q, err := store.ParseLabelQuery(l)
		if err != nil {
			return flt, usage.Errorf("--label: %w", err)
		}
		flt.Labels = append(flt.Labels, q)
	}
	var err error
	if f.device != "" {
		if flt.Device, err = result.ParseDeviceID(f.device); err != nil {
			return flt, usage.Errorf("--device: %w", err)
		}
	}
	if flt.Since, err = store.ParseWhen(f.since, now); err != nil {
		return flt, usage.Errorf("--since: %w", err)
	}
	if flt.Until, err = store.ParseWhen(f.until, now); err != nil {
		return flt, usage.Errorf("--until: %w", err)
	}
	return flt, nil
}
