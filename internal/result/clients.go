package result

// GroupClient is one client's test of a ClientGroup (JSON field names
// documented in docs/result-json.md, "Clients at once").
type GroupClient struct {
	// Client names the client: a fleet host, or its number with --clients.
	Client string `json:"client"`
	// MbitPerSecond is the senders' rate of the client's test, all
	// directions added (see GroupClientOf); absent when the test measured
	// nothing.
	MbitPerSecond *float64 `json:"mbit_per_second,omitempty"`
	Run           string   `json:"run,omitempty"`
	Error         string   `json:"error,omitempty"`
}

// ReceiverMbits is the figure a network test is shown by: the receiver's
// rate of the run's sums (all directions added), in Mbit/s.
func (d *Document) ReceiverMbits() (float64, bool) {
	if d == nil || d.Net == nil || len(d.Net.Sums) == 0 {
		return 0, false
	}
	var bps float64
	for _, s := range d.Net.Sums {
		bps += s.Receiver.BitsPerSecond
	}
	return bps / 1e6, true
}

// GroupClientOf is a client's entry for its run d and error. Its figure is
// the senders' rate (all directions added): a sender counts over exactly
// the test's time, so the windows of clients started together coincide; a
// receiver's count goes on while the data still queued when the others
// ended drains, at a rate the link only had once they stopped, and the
// receivers' figures then add up to more than the link carries.
func GroupClientOf(name string, d *Document, err error) GroupClient {
	c := GroupClient{Client: name}
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

// ClientGroup is the outcome of network tests run at once into one
// server, as `net client --clients N` and `fleet net --concurrent` report
// it: each client's figure, their sum and Jain's fairness index.
type ClientGroup struct {
	Server  string        `json:"server"`
	Clients []GroupClient `json:"clients"`
	// AggregateMbitPerSecond is the clients' figures added.
	AggregateMbitPerSecond float64 `json:"aggregate_mbit_per_second"`
	// Jain is Jain's fairness index of the figures: 1 when all clients got
	// the same, 1/n when one got everything; absent with no figure.
	Jain *float64 `json:"jain_fairness_index,omitempty"`
	// LoadLatency is the latency under the clients' load together (net
	// client --clients: one probe stream beside the first client's test).
	LoadLatency *LoadLatency `json:"latency_under_load,omitempty"`
}

// NewClientGroup sums the clients' figures and rates their fairness.
// Clients that measured nothing count in neither.
func NewClientGroup(server string, clients []GroupClient) ClientGroup {
	g := ClientGroup{Server: server, Clients: clients}
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
func (g ClientGroup) Failed() int {
	n := 0
	for _, c := range g.Clients {
		if c.Error != "" {
			n++
		}
	}
	return n
}
