package iperf3

import "testing"

func TestParseServer(t *testing.T) {
	for in, want := range map[string]struct {
		host string
		port int
	}{
		"pi":             {"pi", 0},
		"127.0.0.1:5201": {"127.0.0.1", 5201},
		"pi.lan:9000":    {"pi.lan", 9000},
		"::1":            {"::1", 0},
		"fe80::1%eth0":   {"fe80::1%eth0", 0},
		"[::1]:5202":     {"::1", 5202},
		"[::1]":          {"::1", 0},
	} {
		h, p, err := ParseServer(in)
		if err != nil || h != want.host || p != want.port {
			t.Errorf("%q: %q %d %v, want %v", in, h, p, err, want)
		}
	}
	for _, bad := range []string{"", "pi:", "pi:0", "pi:http", "pi:70000", "[::1]:", "[]:1", ":5201", "a b", "[::1"} {
		if h, p, err := ParseServer(bad); err == nil {
			t.Errorf("%q: %q %d, want an error", bad, h, p)
		}
	}
}

func FuzzParseServer(f *testing.F) {
	for _, s := range []string{"pi", "[::1]:5202", "1.2.3.4:1", "x:y:z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, p, err := ParseServer(s)
		if err == nil && (h == "" || p < 0 || p > 65535) {
			t.Errorf("%q: %q %d", s, h, p)
		}
	})
}
