package result

import (
	"math"
	"testing"
)

func TestJain(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
		ok   bool
	}{
		{[]float64{10, 10, 10, 10}, 1, true},
		{[]float64{40, 0, 0, 0}, 0.25, true},
		// (1+2+3)^2 / (3 * (1+4+9)) = 36/42
		{[]float64{1, 2, 3}, 36.0 / 42, true},
		{nil, 0, false},
		{[]float64{0, 0}, 0, false},
	} {
		got, ok := Jain(c.xs)
		if ok != c.ok || math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Jain(%v) = %v, %v; want %v, %v", c.xs, got, ok, c.want, c.ok)
		}
	}
}
