package result

// A Gauge is a metric series as Prometheus reads it (thruput serve's
// /metrics, the textfile export): its name, whose unit is a base unit as
// Prometheus asks (bytes per second, seconds, a ratio), and its help line,
// which says what it measures. The section whose figures carry a series
// names it, beside those figures, with how a trend over runs draws it.
type Gauge struct {
	Name, Help string
	Trend      Trend
}

// Trend is how report --trend and serve's trend page draw a gauge over
// runs: a chart titled Title (none without one), in bytes per second
// shown in MiB/s, or in Mbit/s with Bits (a link's rate), unless the
// page names another unit; or, with Count, a count drawn as it is in
// that unit ("IOPS").
type Trend struct {
	Title, Count string
	Bits         bool
}

// Series is a figure as a sample of a gauge. A figure's repeats (disk io
// --repeat, net http --repeat) are one series, whose sample is their mean.
type Series struct {
	Gauge
	// Labels name the figure within its run, a name then its value
	// ("phase", "write", "block_size", "4k"). The run's host and what it
	// measured (Document.SeriesLabels) join them; none names a run, so
	// that a series is followed from run to run.
	Labels []string
	// Value is the figure in the gauge's unit, from the measurement
	// itself: Figure.Value is in a unit people read (MiB/s, Mbit/s, ms),
	// which would not convert back to the same float.
	Value float64
}

// Sample is v, in g's unit, as a sample of g with labels.
func (g Gauge) Sample(v float64, labels ...string) *Series {
	return &Series{Gauge: g, Labels: labels, Value: v}
}

// bytesPerMiB turns the documents' MiB/s into the bytes per second gauges
// are in.
const bytesPerMiB = 1 << 20

// SeriesLabels name what the run measured, for the series of its figure
// f: f's target for a disk method, the role and the other end for a
// network test, the URL for a download; the method's section says which,
// for every section of the run (latency under load is a network test's).
// The hardware's id (device_id) joins them where the run recorded one, so
// a card swapped under the same path is a series of its own.
func (d *Document) SeriesLabels(f Figure) []string {
	return d.SectionMethod().entry().labels(d, f)
}

// targetLabel names a disk figure's target by its path, "" when the run
// has no such target.
func targetLabel(d *Document, f Figure) []string {
	if f.Target >= len(d.Targets) {
		return []string{"target", ""}
	}
	return deviceLabel([]string{"target", d.Targets[f.Target].Path}, d.Targets[f.Target].DeviceID)
}

// netLabels name a network test by this end's role and the other end.
func netLabels(d *Document, _ Figure) []string {
	return deviceLabel([]string{"role", d.Net.Parameters.Role, "peer", d.Net.Parameters.Peer()}, d.interfaceID(d.Net.Parameters.Interface))
}

// urlLabel names a download by its URL.
func urlLabel(d *Document, _ Figure) []string {
	return deviceLabel([]string{"url", d.HTTP.Parameters.URL}, d.interfaceID(d.HTTP.Interface))
}

// deviceLabel adds the device_id label when there is an id.
func deviceLabel(labels []string, id string) []string {
	if id == "" {
		return labels
	}
	return append(labels, "device_id", id)
}
