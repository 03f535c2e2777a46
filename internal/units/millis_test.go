package units

import "testing"

func TestMillis(t *testing.T) {
	for _, c := range []struct {
		ns            int64
		plain, signed string
	}{
		{0, "0.000", "0.000"},
		{-400, "0.000", "0.000"}, // -0.0004 ms: no negative zero
		{400, "0.000", "0.000"},
		{84_000, "0.084", "+0.084"},
		{-84_000, "-0.084", "-0.084"},
		{1_234_000, "1.23", "+1.23"},
		{-1_234_000, "-1.23", "-1.23"},
		{96_149_000, "96.1", "+96.1"},
		{-9_999_000, "-10.00", "-10.00"},
	} {
		if got := Millis(c.ns); got != c.plain {
			t.Errorf("Millis(%d) = %q, want %q", c.ns, got, c.plain)
		}
		if got := SignedMillis(c.ns); got != c.signed {
			t.Errorf("SignedMillis(%d) = %q, want %q", c.ns, got, c.signed)
		}
	}
}
