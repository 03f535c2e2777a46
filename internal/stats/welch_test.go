package stats

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// TestTPublished: quantiles against the printed table of Student's t
// (NIST/SEMATECH e-Handbook of Statistical Methods, section 1.3.6.7.2,
// to three decimals) at whole degrees of freedom, and between them the
// values SciPy 1.10.1 gives (scipy.stats.t.ppf), which the table cannot.
func TestTPublished(t *testing.T) {
	for _, c := range []struct{ p, df, want, tol float64 }{
		{0.975, 1, 12.706, 0.0005}, {0.975, 2, 4.303, 0.0005}, {0.975, 5, 2.571, 0.0005},
		{0.975, 10, 2.228, 0.0005}, {0.975, 30, 2.042, 0.0005}, {0.975, 100, 1.984, 0.0005},
		{0.995, 1, 63.657, 0.0005}, {0.995, 3, 5.841, 0.0005}, {0.995, 20, 2.845, 0.0005},
		{0.95, 4, 2.132, 0.0005}, {0.99, 8, 2.896, 0.0005},
		// Fractional, from SciPy.
		{0.975, 1.9, 4.527118077402538, 1e-9}, {0.975, 2.5, 3.5746548420118773, 1e-9},
		{0.975, 4.3, 2.7016948982822235, 1e-9}, {0.975, 9.7, 2.237515123671708, 1e-9},
		{0.995, 1.9, 10.851379126309055, 1e-8},
	} {
		if got := TQuantile(c.p, c.df); math.Abs(got-c.want) > c.tol {
			t.Errorf("t(%v, %v) = %.9f, want %.9f", c.p, c.df, got, c.want)
		}
	}
	// Two-sided p of t = 3, SciPy's 2*t.sf(3, df).
	for _, c := range []struct{ df, p float64 }{{1, 0.20483276469913345}, {1.9, 0.10152063747372829}, {9.7, 0.01378518618729021}, {100, 0.0034079153433294513}} {
		if got := 2 * TCDF(-3, c.df); math.Abs(got-c.p) > 1e-10 {
			t.Errorf("p(3, %v) = %.12f, want %.12f", c.df, got, c.p)
		}
	}
}

// TestWelchScipy: Welch's test on 40 random pairs of samples of 2 to 8
// runs each against SciPy's ttest_ind(equal_var=False); testdata/welch.py
// made testdata/welch.json and says how.
func TestWelchScipy(t *testing.T) {
	b, err := os.ReadFile("testdata/welch.json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Cases []struct {
			A, B                 []float64
			T, DF, P, T975, T995 float64
		}
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Cases) != 40 {
		t.Fatalf("%d cases", len(v.Cases))
	}
	near := func(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want)+1e-12 }
	for i, c := range v.Cases {
		w := WelchTest(Summarize(c.A), Summarize(c.B))
		if !near(w.T, c.T, 1e-9) || !near(w.DF, c.DF, 1e-9) || !near(w.P, c.P, 1e-7) {
			t.Errorf("case %d: t %v df %v p %v, scipy t %v df %v p %v", i, w.T, w.DF, w.P, c.T, c.DF, c.P)
		}
		if got := T975(c.DF); !near(got, c.T975, 1e-8) {
			t.Errorf("case %d: t975(%v) = %v, scipy %v", i, c.DF, got, c.T975)
		}
		if got := T995(c.DF); !near(got, c.T995, 1e-8) {
			t.Errorf("case %d: t995(%v) = %v, scipy %v", i, c.DF, got, c.T995)
		}
		// The threshold is where the test turns significant.
		if th := w.Threshold(0.05); (math.Abs(w.T)*w.SE > th) != w.Significant(0.05) {
			t.Errorf("case %d: |diff| %v, threshold %v, p %v", i, math.Abs(w.T)*w.SE, th, w.P)
		}
	}
}

// TestWelchTwoAgainstTwo is the case the issue found: two runs a side, a
// 1.82x gap with p about 0.009, which rounding df 1.9 down to 1 called
// noise.
func TestWelchTwoAgainstTwo(t *testing.T) {
	w := WelchTest(Summarize([]float64{100, 101}), Summarize([]float64{181, 183}))
	if w.DF < 1 || w.DF > 2 || !w.Significant(0.05) {
		t.Errorf("%+v: want df between 1 and 2 and significant", w)
	}
	if same := WelchTest(Summarize([]float64{5, 5}), Summarize([]float64{5, 5})); same.Significant(0.05) {
		t.Errorf("equal constant sides significant: %+v", same)
	}
	if diff := WelchTest(Summarize([]float64{5, 5}), Summarize([]float64{6, 6})); !diff.Significant(0.05) {
		t.Errorf("different constant sides not significant: %+v", diff)
	}
}
