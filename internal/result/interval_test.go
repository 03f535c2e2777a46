package result

import (
	"reflect"
	"testing"
)

// TestIntervals: every figure a table shows is listed, with a nil
// interval where it has none; a failed download shows no figure.
func TestIntervals(t *testing.T) {
	iv := &Interval{Mean: 1, HalfWidth: 0.01}
	d := &Document{HTTP: &HTTP{Runs: []HTTPRun{{Interval: iv}, {}, {Error: "refused"}}}}
	var got []string
	for _, f := range d.Intervals() {
		got = append(got, f.Name)
		if (f.Name == "run 1") != (f.Interval == iv) {
			t.Errorf("%s: interval %v", f.Name, f.Interval)
		}
	}
	if want := []string{"run 1", "run 2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("figures %v, want %v", got, want)
	}
}
