package htmlreport

import (
	"math"
	"slices"
	"testing"
)

func tickValues(s *scale, labelled bool) []float64 {
	var out []float64
	for _, t := range s.ticks {
		if !labelled || t.label != "" {
			out = append(out, t.v)
		}
	}
	return out
}

func tickLabels(s *scale) []string {
	var out []string
	for _, t := range s.ticks {
		if t.label != "" {
			out = append(out, t.label)
		}
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func nearAll(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !near(a[i], b[i]) {
			return false
		}
	}
	return true
}

// The tick choice for the ranges a report meets: whole 1-2-5 steps, the
// domain widened to whole ticks, labels with grouped thousands.
func TestLinearTicks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		lo, hi float64
		max    int
		d0, d1 float64
		ticks  []float64
		labels []string
	}{
		// 3400/6 = 567 per interval: 500 needs 7 intervals, so 1000.
		{"0-3400 y", 0, 3400, 6, 0, 4000, []float64{0, 1000, 2000, 3000, 4000}, []string{"0", "1,000", "2,000", "3,000", "4,000"}},
		// With 8 intervals allowed, 500 fits: 0..3500.
		{"0-3400 x", 0, 3400, 8, 0, 3500, []float64{0, 500, 1000, 1500, 2000, 2500, 3000, 3500}, []string{"0", "500", "1,000", "1,500", "2,000", "2,500", "3,000", "3,500"}},
		// 0.4..721 linearly: 200-steps give 0..800.
		{"0.4-721", 0.4, 721, 6, 0, 800, []float64{0, 200, 400, 600, 800}, []string{"0", "200", "400", "600", "800"}},
		{"0-1", 0, 1, 6, 0, 1, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}, []string{"0", "0.2", "0.4", "0.6", "0.8", "1.0"}},
		// Negative values keep a "0" (not "-0") tick.
		{"-3-7", -3, 7, 6, -4, 8, []float64{-4, -2, 0, 2, 4, 6, 8}, []string{"-4", "-2", "0", "2", "4", "6", "8"}},
		// Ten thousands and up take one suffix for the whole axis.
		{"0-45000", 0, 45000, 6, 0, 50000, []float64{0, 10000, 20000, 30000, 40000, 50000}, []string{"0", "10k", "20k", "30k", "40k", "50k"}},
		// 2.5M/6 = 417k per interval: 500k fits in 5 intervals exactly.
		{"0-2.5M", 0, 2.5e6, 6, 0, 2.5e6, []float64{0, 5e5, 1e6, 1.5e6, 2e6, 2.5e6}, []string{"0", "0.5M", "1.0M", "1.5M", "2.0M", "2.5M"}},
		// Small figures (Wh per token).
		{"0-0.00067", 0, 0.00067, 6, 0, 0.0008, []float64{0, 0.0002, 0.0004, 0.0006, 0.0008}, []string{"0", "0.0002", "0.0004", "0.0006", "0.0008"}},
		// One value v: v ± 10%, then whole ticks.
		{"single 5", 5, 5, 6, 4.4, 5.6, []float64{4.4, 4.6, 4.8, 5, 5.2, 5.4, 5.6}, []string{"4.4", "4.6", "4.8", "5.0", "5.2", "5.4", "5.6"}},
		// Only zero: -1..1.
		{"zero", 0, 0, 6, -1, 1, []float64{-1, -0.5, 0, 0.5, 1}, []string{"-1.0", "-0.5", "0", "0.5", "1.0"}},
		// No data (NaN or reversed range): 0..1.
		{"NaN", math.NaN(), math.NaN(), 6, 0, 1, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}, nil},
		{"reversed", 5, 1, 6, 0, 1, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := linearScale(tc.lo, tc.hi, tc.max, 0, 100)
			if !near(s.d0, tc.d0) || !near(s.d1, tc.d1) {
				t.Errorf("domain [%v, %v], want [%v, %v]", s.d0, s.d1, tc.d0, tc.d1)
			}
			if got := tickValues(s, false); !nearAll(got, tc.ticks) {
				t.Errorf("ticks %v, want %v", got, tc.ticks)
			}
			if tc.labels != nil {
				if got := tickLabels(s); !slices.Equal(got, tc.labels) {
					t.Errorf("labels %q, want %q", got, tc.labels)
				}
			}
		})
	}
}

// Log axes: the domain widens to 1-2-5 values, powers of ten are labelled
// major ticks, 2s and 5s minor ticks (labelled when fewer than three
// powers of ten show).
func TestLogTicks(t *testing.T) {
	for _, tc := range []struct {
		name          string
		lo, hi        float64
		d0, d1        float64
		labelled, all []float64
		labels        []string
	}{
		{"0.4-721", 0.4, 721, 0.2, 1000, []float64{1, 10, 100, 1000}, []float64{0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000},
			[]string{"1", "10", "100", "1,000"}},
		{"3-40", 3, 40, 2, 50, []float64{2, 5, 10, 20, 50}, []float64{2, 5, 10, 20, 50}, []string{"2", "5", "10", "20", "50"}},
		{"75-24804 ms", 75, 24804, 50, 50000, []float64{100, 1000, 10000}, []float64{50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000},
			[]string{"100", "1,000", "10k"}},
		// A value on a 1-2-5 step alone: one step either side.
		{"single 10", 10, 10, 5, 20, []float64{5, 10, 20}, []float64{5, 10, 20}, []string{"5", "10", "20"}},
		{"no data", math.NaN(), 0, 1, 10, []float64{1, 2, 5, 10}, []float64{1, 2, 5, 10}, []string{"1", "2", "5", "10"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := logScale(tc.lo, tc.hi, 0, 100)
			if !near(s.d0, tc.d0) || !near(s.d1, tc.d1) {
				t.Errorf("domain [%v, %v], want [%v, %v]", s.d0, s.d1, tc.d0, tc.d1)
			}
			if got := tickValues(s, true); !nearAll(got, tc.labelled) {
				t.Errorf("labelled ticks %v, want %v", got, tc.labelled)
			}
			all := tickValues(s, false)
			slices.Sort(all)
			if !nearAll(all, tc.all) {
				t.Errorf("ticks %v, want %v", all, tc.all)
			}
			if got := tickLabels(s); !slices.Equal(got, tc.labels) {
				t.Errorf("labels %q, want %q", got, tc.labels)
			}
		})
	}
	// 1e-300 .. 1e300 keeps a bounded number of ticks.
	s := logScale(1e-140, 1e140, 0, 100)
	if n := len(s.ticks); n == 0 || n > 12 {
		t.Errorf("280 decades: %d ticks, want 1..12", n)
	}
}

// Value to pixel: linear and log mappings, y axes growing upwards,
// unplaceable values refused.
func TestScalePixels(t *testing.T) {
	// A y axis 0..4000 drawn from pixel 254 (bottom) to 14 (top).
	y := linearScale(0, 3400, 6, 254, 14)
	for _, tc := range []struct{ v, px float64 }{{0, 254}, {1000, 194}, {2000, 134}, {4000, 14}, {3400, 50}} {
		if got, ok := y.px(tc.v); !ok || !near(got, tc.px) {
			t.Errorf("y.px(%v) = %v, %v; want %v", tc.v, got, ok, tc.px)
		}
	}
	// Log x 0.2..1000 over 66..700: 1 sits log10(5)/log10(5000) of the way.
	x := logScale(0.4, 721, 66, 700)
	want := 66 + math.Log10(5)/math.Log10(5000)*634
	if got, ok := x.px(1); !ok || !near(got, want) {
		t.Errorf("x.px(1) = %v, want %v", got, want)
	}
	if got, ok := x.px(1000); !ok || !near(got, 700) {
		t.Errorf("x.px(1000) = %v, want 700", got)
	}
	for _, v := range []float64{0, -1, math.NaN(), math.Inf(1), 1e200} {
		if _, ok := x.px(v); ok {
			t.Errorf("log x.px(%v) accepted", v)
		}
	}
	if _, ok := y.px(math.NaN()); ok {
		t.Error("y.px(NaN) accepted")
	}
	// Far outside the domain: clamped to a few plot heights, finite.
	if got, ok := y.px(1e100); !ok || got != 254+3*(14-254) {
		t.Errorf("y.px(1e100) = %v, %v; want clamped %v", got, ok, 254+3*(14-254))
	}
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0, "0"}, {3400, "3,400"}, {717.3, "717"}, {25.04, "25.0"}, {1.904, "1.90"}, {0.4, "0.400"},
		{0.000194, "0.000194"}, {9.64e-5, "0.0000964"}, {1234567, "1,234,567"}, {-12.5, "-12.5"}, {math.NaN(), "–"}, {math.Inf(1), "–"},
	} {
		if got := fmtNum(tc.v); got != tc.want {
			t.Errorf("fmtNum(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
	for _, tc := range []struct {
		f    float64
		want string
	}{{0, "0%"}, {0.005, "0.50%"}, {0.212, "21.2%"}, {1, "100.0%"}, {math.NaN(), "–"}} {
		if got := fmtPct(tc.f); got != tc.want {
			t.Errorf("fmtPct(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
	for _, tc := range []struct {
		n    int64
		want string
	}{{0, "0"}, {999, "999"}, {1000, "1,000"}, {-1234567, "-1,234,567"}, {math.MinInt64, "-9,223,372,036,854,775,808"}} {
		if got := fmtInt(tc.n); got != tc.want {
			t.Errorf("fmtInt(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	for _, tc := range []struct {
		v    float64
		want string
	}{{12, "12"}, {12.34, "12.3"}, {-0.04, "0"}, {0.05, "0.1"}} {
		if got := fmtCoord(tc.v); got != tc.want {
			t.Errorf("fmtCoord(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}
