package notify

import (
	"encoding/json"
	"testing"
)

// The spool's files are read back by later runs: whatever is in them, the
// parsers refuse clearly or give an entry that checks.
func FuzzParseEntry(f *testing.F) {
	n := sample()
	b, _ := json.Marshal(entry{Notification: n, Attempts: 2})
	f.Add("00000000000000000001-"+n.ID()+".json", b)
	f.Add("1-x.json", []byte(`{"notification":{"status":"firing"}}`))
	f.Add("x.json", []byte(`[]`))
	f.Fuzz(func(t *testing.T, name string, b []byte) {
		e, err := parseEntry(name, b)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if checkNotification(e.Notification) != nil || e.Attempts < 0 {
			t.Fatalf("accepted %+v", e)
		}
	})
}

func FuzzParseLedger(f *testing.F) {
	f.Add([]byte(sample().ID() + " 1764334805\n"))
	f.Add([]byte("x 1\n"))
	f.Add([]byte("\n\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		sent, err := parseLedger(b)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		for id := range sent {
			if len(id) != 32 {
				t.Fatalf("accepted id %q", id)
			}
		}
	})
}

func FuzzParseActive(f *testing.F) {
	n := sample()
	b, _ := json.Marshal(map[string]activeAlert{n.Key: {Notification: n}})
	f.Add(b)
	f.Add([]byte(`{"k":{"notification":{"status":"resolved","key":"k"}}}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseActive(b)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		for k, a := range m {
			if a.Notification.Key != k || a.Notification.Status != "firing" {
				t.Fatalf("accepted %q: %+v", k, a)
			}
		}
	})
}
