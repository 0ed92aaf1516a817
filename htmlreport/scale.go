package htmlreport

import (
	"math"
)

// tick is one axis tick: a value, its label ("" for an unlabelled minor
// tick) and whether it carries a grid line.
type tick struct {
	v     float64
	label string
	major bool
}

// scale maps a data domain [d0, d1] onto a pixel range [r0, r1] (r1 < r0
// for a y axis, whose pixels grow downwards), linearly or by log10.
type scale struct {
	log    bool
	d0, d1 float64
	r0, r1 float64
	ticks  []tick
}

// maxAbs bounds the magnitude of data values a chart accepts, so that
// spans and pixel positions stay finite (larger values are dropped).
const maxAbs = 1e150

// px returns the pixel position of v, and false when v cannot be placed
// (not finite, beyond maxAbs, or not positive on a log scale). Values
// outside the domain map outside the range, clamped to a few range widths
// so that SVG coordinates stay short.
func (s *scale) px(v float64) (float64, bool) {
	if !usable(v) || (s.log && v <= 0) {
		return 0, false
	}
	var t float64
	if s.log {
		t = (math.Log10(v) - math.Log10(s.d0)) / (math.Log10(s.d1) - math.Log10(s.d0))
	} else {
		t = (v - s.d0) / (s.d1 - s.d0)
	}
	if math.IsNaN(t) {
		return 0, false
	}
	t = math.Max(-2, math.Min(3, t))
	return s.r0 + t*(s.r1-s.r0), true
}

// usable reports whether a data value can be drawn at all.
func usable(v float64) bool {
	return !math.IsNaN(v) && math.Abs(v) <= maxAbs
}

// linearScale fits a linear scale with "nice" ticks (1, 2 or 5 × 10^k)
// to the data range [lo, hi], with at most maxIntervals intervals between
// the first and last tick; the domain is widened to whole ticks.
func linearScale(lo, hi float64, maxIntervals int, r0, r1 float64) *scale {
	lo, hi = fixRange(lo, hi)
	if maxIntervals < 1 {
		maxIntervals = 1
	}
	step := niceStep(lo, hi, maxIntervals)
	k0 := math.Floor(lo/step + 1e-9)
	k1 := math.Ceil(hi/step - 1e-9)
	if k1 <= k0 {
		k1 = k0 + 1
	}
	if k1-k0 > float64(maxIntervals)+1 { // float precision at extreme offsets
		return &scale{d0: lo, d1: hi, r0: r0, r1: r1, ticks: []tick{{v: lo, label: fmtTick(lo, hi-lo, hi), major: true}, {v: hi, label: fmtTick(hi, hi-lo, hi), major: true}}}
	}
	s := &scale{d0: k0 * step, d1: k1 * step, r0: r0, r1: r1}
	for k := k0; k <= k1; k++ {
		v := k * step
		if v == 0 {
			v = 0 // no "-0"
		}
		s.ticks = append(s.ticks, tick{v: v, label: fmtTick(v, step, math.Max(math.Abs(s.d0), math.Abs(s.d1))), major: true})
	}
	return s
}

// fixRange makes [lo, hi] a usable non-empty range: no data gives [0, 1],
// a single value v gives v ± 10% (0 ± 1 for zero).
func fixRange(lo, hi float64) (float64, float64) {
	if !usable(lo) || !usable(hi) || lo > hi {
		return 0, 1
	}
	if hi-lo <= math.Max(math.Abs(lo), math.Abs(hi))*1e-9 {
		d := math.Abs(lo) * 0.1
		if d == 0 {
			return lo - 1, hi + 1
		}
		return lo - d, hi + d
	}
	return lo, hi
}

// niceStep is the smallest step of the form {1, 2, 5} × 10^k whose whole
// ticks cover [lo, hi] in at most maxIntervals intervals.
func niceStep(lo, hi float64, maxIntervals int) float64 {
	e := math.Floor(math.Log10((hi-lo)/float64(maxIntervals))) - 1
	for range 8 {
		p := math.Pow(10, e)
		for _, m := range [...]float64{1, 2, 5} {
			step := m * p
			n := math.Ceil(hi/step-1e-9) - math.Floor(lo/step+1e-9)
			if n <= float64(maxIntervals) {
				return step
			}
		}
		e++
	}
	return math.Pow(10, e)
}

// logScale fits a log10 scale to the positive data range [lo, hi]: the
// domain is widened to the enclosing 1-2-5 values; every power of ten in
// it is a labelled major tick and the 2s and 5s are minor ticks, labelled
// too when fewer than three powers of ten fall in the domain. Wide
// domains (more than 12 decades) keep only every few decades.
func logScale(lo, hi float64, r0, r1 float64) *scale {
	if !(lo > 0) || !usable(hi) || hi < lo {
		lo, hi = 1, 10
	}
	d0, d1 := floor125(lo), ceil125(hi)
	if d0 >= d1 {
		d0, d1 = floor125(d0*0.99), ceil125(d1*1.01)
	}
	s := &scale{log: true, d0: d0, d1: d1, r0: r0, r1: r1}
	e0 := int(math.Floor(math.Log10(d0) + 1e-9))
	e1 := int(math.Ceil(math.Log10(d1) - 1e-9))
	stride := 1
	if e1-e0 > 12 {
		stride = (e1 - e0 + 7) / 8
	}
	var majors int
	for e := e0; e <= e1; e++ {
		if v := math.Pow(10, float64(e)); inDomain(v, d0, d1) && e%stride == 0 {
			majors++
		}
	}
	for e := e0; e <= e1; e++ {
		p := math.Pow(10, float64(e))
		for _, m := range [...]float64{1, 2, 5} {
			v := m * p
			if !inDomain(v, d0, d1) {
				continue
			}
			if m == 1 {
				if e%stride == 0 {
					s.ticks = append(s.ticks, tick{v: v, label: fmtTick(v, v, v), major: true})
				}
				continue
			}
			if stride > 1 {
				continue
			}
			t := tick{v: v}
			if majors < 3 {
				t.label = fmtTick(v, v, v)
			}
			s.ticks = append(s.ticks, t)
		}
	}
	return s
}

func inDomain(v, d0, d1 float64) bool {
	return v >= d0*(1-1e-9) && v <= d1*(1+1e-9)
}

// floor125 is the largest value of the form {1, 2, 5} × 10^k ≤ v (v > 0).
func floor125(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range [...]float64{5, 2, 1} {
		if m*p <= v*(1+1e-9) {
			return m * p
		}
	}
	return p / 2
}

// ceil125 is the smallest value of the form {1, 2, 5} × 10^k ≥ v (v > 0).
func ceil125(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range [...]float64{1, 2, 5, 10} {
		if m*p >= v*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}
