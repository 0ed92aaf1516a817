package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestTQuantile(t *testing.T) {
	for _, c := range []struct{ q, df, want float64 }{
		{0.975, 1, 12.706204736},
		{0.975, 10, 2.228138852},
		{0.975, 19, 2.093024054},
		{0.995, 30, 2.749995654},
		{0.95, 5, 2.015048373},
		{0.975, 1000, 1.962339081},
		{0.025, 10, -2.228138852},
	} {
		if got := TQuantile(c.q, c.df); math.Abs(got-c.want) > 1e-6 {
			t.Errorf("TQuantile(%g, %g) = %.9f, want %.9f", c.q, c.df, got, c.want)
		}
	}
}

func TestBinomCDFMatchesSum(t *testing.T) {
	for _, n := range []int64{1, 5, 20, 73} {
		for _, p := range []float64{0.01, 0.3, 0.5, 0.95} {
			sum := 0.0
			for k := int64(0); k < n; k++ {
				lc := lchoose(n, k)
				sum += math.Exp(lc + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
				if got := BinomCDF(k, n, p); math.Abs(got-sum) > 1e-10 {
					t.Fatalf("BinomCDF(%d, %d, %g) = %g, want %g", k, n, p, got, sum)
				}
			}
		}
	}
}

func lchoose(n, k int64) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// The smallest samples that bound p95 and p99 from above at 95 % are 72
// and 368 (GuideLLM's target_moe guide says the same).
func TestOrderStatRanksMinimumSamples(t *testing.T) {
	for _, c := range []struct {
		p    float64
		need int64
	}{{0.95, 72}, {0.99, 368}, {0.999, 3688}} {
		if _, hi := OrderStatRanks(c.need-1, c.p, 0.95); hi != c.need {
			t.Errorf("p%g with n=%d: upper rank %d, want unbounded (%d)", c.p*100, c.need-1, hi, c.need)
		}
		if _, hi := OrderStatRanks(c.need, c.p, 0.95); hi != c.need {
			t.Errorf("p%g with n=%d: upper rank %d, want the maximum", c.p*100, c.need, hi)
		}
	}
	// The median of 20 at 95 %: ranks 6 and 15 (coverage 95.9 %).
	if lo, hi := OrderStatRanks(20, 0.5, 0.95); lo != 6 || hi != 15 {
		t.Errorf("median of 20: ranks %d, %d, want 6, 15", lo, hi)
	}
}

func TestPercentileCIUnbounded(t *testing.T) {
	v := make([]float64, 20)
	for i := range v {
		v[i] = float64(i + 1)
	}
	iv := PercentileCI(v, 0.99, 0.95)
	if iv.Bounded() || !math.IsInf(iv.Upper, 1) || iv.Lower != 19 {
		t.Errorf("p99 of 20 = %+v, want [19, +Inf) (P(Bin(20,.99) ≤ 18) = 0.017)", iv)
	}
	if iv := PercentileCI(v, 0.5, 0.95); iv.Lower != 6 || iv.Upper != 15 {
		t.Errorf("median of 1..20 = %+v, want [6, 15]", iv)
	}
}

func TestPercentileCIHistWidensOnly(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	h := NewHistogram()
	var v []float64
	for range 2000 {
		x := int64(1e6 + r.ExpFloat64()*5e7)
		v = append(v, float64(x))
		_ = h.RecordValue(x)
	}
	slices.Sort(v)
	for _, p := range []float64{0.5, 0.95, 0.99} {
		exact := PercentileCI(v, p, 0.95)
		hist := PercentileCIHist(h, 1, p, 0.95)
		if hist.Lower > exact.Lower || hist.Upper < exact.Upper ||
			hist.Lower < exact.Lower*0.998 || hist.Upper > exact.Upper*1.002 {
			t.Errorf("p%g: histogram %+v, exact %+v: want the exact one widened by ≤ 0.2 %%", p*100, hist, exact)
		}
	}
}

func TestProportionCI(t *testing.T) {
	iv := ProportionCI(0, 10, 0.95)
	if iv.Lower != 0 || math.Abs(iv.Upper-(1-math.Pow(0.025, 0.1))) > 1e-9 {
		t.Errorf("0 of 10 = %+v, want [0, 0.3085]", iv)
	}
	iv = ProportionCI(10, 10, 0.95)
	if iv.Upper != 1 || math.Abs(iv.Lower-math.Pow(0.025, 0.1)) > 1e-9 {
		t.Errorf("10 of 10 = %+v, want [0.6915, 1]", iv)
	}
	h, b := ProportionConfidence(100, 100, 0.97)
	if math.Abs(h-(1-math.Pow(0.97, 100))) > 1e-9 || b != 0 {
		t.Errorf("100 of 100 against 97 %%: holds %g breaks %g, want %g and 0", h, b, 1-math.Pow(0.97, 100))
	}
}

func TestMeanCI(t *testing.T) {
	// 1..10: mean 5.5, sample sd 3.02765, t(0.975, 9) = 2.262157.
	popSD := math.Sqrt(8.25)
	iv := MeanCI(5.5, popSD, 10, 0.95)
	h := 2.262157163 * 3.027650354 / math.Sqrt(10)
	if math.Abs(iv.Lower-(5.5-h)) > 1e-6 || math.Abs(iv.Upper-(5.5+h)) > 1e-6 {
		t.Errorf("MeanCI = %+v, want 5.5 ± %g", iv, h)
	}
	if MeanCI(1, 0, 1, 0.95).Bounded() {
		t.Error("a mean of one observation has a bounded interval")
	}
}

// TestCoverageBySimulation draws repeated samples of 20, 100 and 1,000
// from a normal, a lognormal and a bimodal (fast requests plus a queued
// fifth) distribution and checks that the intervals cover the true mean
// and p50/p95/p99 at the nominal rate, within three binomial standard
// errors of the repetitions (order-statistic intervals are conservative,
// so only falling short fails); a percentile the sample cannot bound must
// be reported unbounded.
func TestCoverageBySimulation(t *testing.T) {
	const conf = 0.95
	const reps = 400
	type dist struct {
		name string
		draw func(*rand.Rand) float64
		mean float64
		q    func(p float64) float64
	}
	normQ := func(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }
	const mu, sigma = 5.0, 0.5
	bimodalCDF := func(x float64) float64 {
		phi := func(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }
		return 0.8*phi((x-100)/10) + 0.2*phi((x-300)/30)
	}
	dists := []dist{
		{"normal", func(r *rand.Rand) float64 { return 100 + 15*r.NormFloat64() }, 100,
			func(p float64) float64 { return 100 + 15*normQ(p) }},
		{"lognormal", func(r *rand.Rand) float64 { return math.Exp(mu + sigma*r.NormFloat64()) },
			math.Exp(mu + sigma*sigma/2), func(p float64) float64 { return math.Exp(mu + sigma*normQ(p)) }},
		{"bimodal", func(r *rand.Rand) float64 {
			if r.Float64() < 0.8 {
				return 100 + 10*r.NormFloat64()
			}
			return 300 + 30*r.NormFloat64()
		}, 140, func(p float64) float64 {
			lo, hi := 0.0, 1000.0
			for range 100 {
				m := (lo + hi) / 2
				if bimodalCDF(m) < p {
					lo = m
				} else {
					hi = m
				}
			}
			return (lo + hi) / 2
		}},
	}
	ps := []float64{0.5, 0.95, 0.99}
	r := rand.New(rand.NewPCG(20, 26))
	for _, d := range dists {
		for _, n := range []int{20, 100, 1000} {
			meanHits := 0
			hits := make([]int, len(ps))
			unb := make([]int, len(ps))
			v := make([]float64, n)
			for range reps {
				sum := 0.0
				for i := range v {
					v[i] = d.draw(r)
					sum += v[i]
				}
				m := sum / float64(n)
				ss := 0.0
				for _, x := range v {
					ss += (x - m) * (x - m)
				}
				if MeanCI(m, math.Sqrt(ss/float64(n)), int64(n), conf).Contains(d.mean) {
					meanHits++
				}
				slices.Sort(v)
				for j, p := range ps {
					iv := PercentileCI(v, p, conf)
					if !iv.Bounded() {
						unb[j]++
					}
					if iv.Contains(d.q(p)) {
						hits[j]++
					}
				}
			}
			floor := conf - 3*math.Sqrt(conf*(1-conf)/reps)
			if c := float64(meanHits) / reps; c < floor {
				t.Errorf("%s n=%d: mean covered %.3f, want ≥ %.3f", d.name, n, c, floor)
			}
			for j, p := range ps {
				if c := float64(hits[j]) / reps; c < floor {
					t.Errorf("%s n=%d: p%g covered %.3f, want ≥ %.3f", d.name, n, p*100, c, floor)
				}
				_, hi := OrderStatRanks(int64(n), p, conf)
				if wantUnb := hi > int64(n); wantUnb != (unb[j] == reps) || (!wantUnb && unb[j] > 0) {
					t.Errorf("%s n=%d: p%g unbounded %d of %d times, want all or none (bounded needs n ≥ its minimum)", d.name, n, p*100, unb[j], reps)
				}
			}
		}
	}
}

func TestTCDFInvertsTQuantile(t *testing.T) {
	for _, df := range []float64{1, 4, 23, 500} {
		for _, q := range []float64{0.025, 0.3, 0.9, 0.995} {
			if got := TCDF(TQuantile(q, df), df); math.Abs(got-q) > 1e-9 {
				t.Errorf("TCDF(TQuantile(%g, %g)) = %g", q, df, got)
			}
		}
	}
	h, b := MeanConfidence(10, 2, 25, 10)
	if math.Abs(h-0.5) > 1e-12 || math.Abs(b-0.5) > 1e-12 {
		t.Errorf("a mean on its threshold: holds %g breaks %g, want 0.5 each", h, b)
	}
}
