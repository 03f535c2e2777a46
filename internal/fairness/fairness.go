// Package fairness holds the outcome of network tests run at once into one
// server: each client's figure, their sum and Jain's fairness index, as
// `net client --clients N` and `fleet net --concurrent` report them.
package fairness

import "github.com/thruput/thruput/internal/result"

// Client is one client's test of a group (JSON field names documented in
// docs/result-json.md).
type Client struct {
	// Client names the client: a fleet host, or its number with --clients.
	Client string `json:"client"`
	// MbitPerSecond is the senders' rate of the client's test, all
	// directions added (see Of); absent when the test measured nothing.
	MbitPerSecond *float64 `json:"mbit_per_second,omitempty"`
	Run           string   `json:"run,omitempty"`
	Error         string   `json:"error,omitempty"`
}

// Mbits is the figure a test is shown by: the receiver's rate of the
// run's sums (all directions added), in Mbit/s.
func Mbits(d *result.Document) (float64, bool) {
	if d == nil || d.Net == nil || len(d.Net.Sums) == 0 {
		return 0, false
	}
	var bps float64
	for _, s := range d.Net.Sums {
		bps += s.Receiver.BitsPerSecond
	}
	return bps / 1e6, true
}

// Of is a client's entry for its run doc and error. Its figure is the
// senders' rate (all directions added): a sender counts over exactly the
// test's time, so the windows of clients started together coincide; a
// receiver's count goes on while the data still queued when the others
// ended drains, at a rate the link only had once they stopped, and the
// receivers' figures then add up to more than the link carries.
func Of(name string, d *result.Document, err error) Client {
	c := Client{Client: name}
	if d != nil && d.Net != nil && len(d.Net.Sums) > 0 {
		var bps float64
		for _, s := range d.Net.Sums {
			bps += s.Sender.BitsPerSecond
		}
		v := bps / 1e6
		c.MbitPerSecond, c.Run = &v, d.ID
	}
	if err != nil {
		c.Error = err.Error()
	}
	return c
}

// Group is clients that ran at once into one server.
type Group struct {
	Server  string   `json:"server"`
	Clients []Client `json:"clients"`
	// AggregateMbitPerSecond is the clients' figures added.
	AggregateMbitPerSecond float64 `json:"aggregate_mbit_per_second"`
	// Jain is Jain's fairness index of the figures: 1 when all clients got
	// the same, 1/n when one got everything; absent with no figure.
	Jain *float64 `json:"jain_fairness_index,omitempty"`
	// LoadLatency is the latency under the clients' load together (net
	// client --clients: one probe stream beside the first client's test).
	LoadLatency *result.LoadLatency `json:"latency_under_load,omitempty"`
}

// NewGroup sums the clients' figures and rates their fairness. Clients
// that measured nothing count in neither.
func NewGroup(server string, clients []Client) Group {
	g := Group{Server: server, Clients: clients}
	var xs []float64
	for _, c := range clients {
		if c.MbitPerSecond != nil {
			xs = append(xs, *c.MbitPerSecond)
			g.AggregateMbitPerSecond += *c.MbitPerSecond
		}
	}
	if j, ok := Jain(xs); ok {
		g.Jain = &j
	}
	return g
}

// Jain is Jain's fairness index, (Σx)² / (n·Σx²) (Jain, Chiu and Hawe,
// DEC-TR-301, 1984); ok is false with no figures or all zero.
func Jain(xs []float64) (float64, bool) {
	var sum, sq float64
	for _, x := range xs {
		sum += x
		sq += x * x
	}
	if len(xs) == 0 || sq == 0 {
		return 0, false
	}
	return sum * sum / (float64(len(xs)) * sq), true
}

// Failed counts the clients whose test failed.
func (g Group) Failed() int {
	n := 0
	for _, c := range g.Clients {
		if c.Error != "" {
			n++
		}
	}
	return n
}
