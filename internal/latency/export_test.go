package latency

// Sent says how many probes the data path sent through Poll and how many
// the prober's own timer sent, for the tests outside the package.
func (p *Prober) Sent() (polled, timed int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.polled, p.timed
}
