package stats

import (
	"math"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// DefaultConfidence is the confidence of goodput's intervals when the run
// does not set one (--confidence).
const DefaultConfidence = 0.95

// CI is a two-sided confidence interval. A side the sample cannot
// bound at the confidence asked is infinite (Lower −Inf, Upper +Inf):
// p99 of 20 requests has no upper bound at 95 %.
type CI struct {
	Lower, Upper float64
	Confidence   float64
}

// Bounded reports whether both sides are finite.
func (iv CI) Bounded() bool {
	return !math.IsInf(iv.Lower, 0) && !math.IsInf(iv.Upper, 0) && !math.IsNaN(iv.Lower) && !math.IsNaN(iv.Upper)
}

// Contains reports whether v lies in [Lower, Upper].
func (iv CI) Contains(v float64) bool { return v >= iv.Lower && v <= iv.Upper }

func unbounded(confidence float64) CI {
	return CI{Lower: math.Inf(-1), Upper: math.Inf(1), Confidence: confidence}
}

// MeanCI is the Student's t interval of a mean: mean ± t(1−α/2, n−1)·s/√n,
// where s is the sample standard deviation. stdev is the POPULATION
// standard deviation (divisor n, what DistributionSummary.StdDev holds);
// MeanCI converts it. n < 2 is unbounded. The interval assumes n
// independent observations; requests under load are not quite that.
func MeanCI(mean, stdev float64, n int64, confidence float64) CI {
	if n < 2 || math.IsNaN(mean) || math.IsNaN(stdev) || !validConfidence(confidence) {
		return unbounded(confidence)
	}
	s := stdev * math.Sqrt(float64(n)/float64(n-1))
	h := TQuantile(1-(1-confidence)/2, float64(n-1)) * s / math.Sqrt(float64(n))
	return CI{Lower: mean - h, Upper: mean + h, Confidence: confidence}
}

func validConfidence(c float64) bool { return c > 0 && c < 1 }

// OrderStatRanks are the 1-based ranks of the order statistics that bound
// quantile p of a sample of n at the confidence asked, by the exact
// binomial (distribution-free): lo is the largest rank with
// P(Bin(n,p) ≤ lo−1) ≤ α/2 and hi the smallest with P(Bin(n,p) ≤ hi−1) ≥
// 1−α/2, so each side misses with probability at most α/2. lo = 0 means
// no lower bound and hi = n+1 no upper bound (the sample is too small:
// p99 at 95 % needs 368 observations for an upper bound).
func OrderStatRanks(n int64, p, confidence float64) (lo, hi int64) {
	if n <= 0 || !validConfidence(confidence) || p <= 0 || p >= 1 {
		return 0, n + 1
	}
	a2 := (1 - confidence) / 2
	// Largest l in [1, n] with F(l−1) ≤ α/2: F is increasing in its
	// argument, so search k = l−1 in [0, n−1].
	if BinomCDF(0, n, p) <= a2 {
		k0, k1 := int64(0), n-1 // F(k0) ≤ a2; find the last such k
		for k0 < k1 {
			m := k0 + (k1-k0+1)/2
			if BinomCDF(m, n, p) <= a2 {
				k0 = m
			} else {
				k1 = m - 1
			}
		}
		lo = k0 + 1
	}
	hi = n + 1
	if BinomCDF(n-1, n, p) >= 1-a2 {
		k0, k1 := int64(0), n-1 // smallest k with F(k) ≥ 1−a2
		for k0 < k1 {
			m := k0 + (k1-k0)/2
			if BinomCDF(m, n, p) >= 1-a2 {
				k1 = m
			} else {
				k0 = m + 1
			}
		}
		hi = k0 + 1
	}
	return lo, hi
}

// PercentileCI is the distribution-free interval of quantile p (0..1) of
// the population a sample came from, from the sample's values sorted
// ascending: its bounds are order statistics (OrderStatRanks). A side the
// sample is too small to bound is infinite.
func PercentileCI(sorted []float64, p, confidence float64) CI {
	n := int64(len(sorted))
	lo, hi := OrderStatRanks(n, p, confidence)
	return rankInterval(lo, hi, n, confidence, func(r int64) (float64, float64) {
		v := sorted[r-1]
		return v, v
	})
}

// PercentileCIWeighted is PercentileCI over samples with integer
// multiplicities (a token-weighted metric counts each token): ranks run
// over the total weight. sorted must be ascending by value.
func PercentileCIWeighted(sorted []Sample, p, confidence float64) CI {
	var n int64
	for _, s := range sorted {
		n += int64(math.Round(s.Weight))
	}
	lo, hi := OrderStatRanks(n, p, confidence)
	return rankInterval(lo, hi, n, confidence, func(r int64) (float64, float64) {
		var cum int64
		for _, s := range sorted {
			cum += int64(math.Round(s.Weight))
			if cum >= r {
				return s.Value, s.Value
			}
		}
		v := sorted[len(sorted)-1].Value
		return v, v
	})
}

// PercentileCIHist is PercentileCI from an HDR histogram, values divided
// by scale: a lower bound is its bucket's lowest equivalent value and an
// upper bound its highest, so the interval is widened by at most the
// histogram's precision (0.1 %), never narrowed.
func PercentileCIHist(h *hdrhistogram.Histogram, scale, p, confidence float64) CI {
	if h == nil {
		return unbounded(confidence)
	}
	n := h.TotalCount()
	lo, hi := OrderStatRanks(n, p, confidence)
	bars := h.Distribution()
	return rankInterval(lo, hi, n, confidence, func(r int64) (float64, float64) {
		var cum int64
		for _, b := range bars {
			cum += b.Count
			if b.Count > 0 && cum >= r {
				from, to := max(b.From, h.Min()), min(b.To, h.Max())
				return float64(from) / scale, float64(to) / scale
			}
		}
		return float64(h.Max()) / scale, float64(h.Max()) / scale
	})
}

// rankInterval turns ranks into an interval; at(r) returns the lowest and
// highest value the r-th order statistic can be (equal for exact values).
func rankInterval(lo, hi, n int64, confidence float64, at func(r int64) (low, high float64)) CI {
	iv := unbounded(confidence)
	if lo >= 1 && lo <= n {
		iv.Lower, _ = at(lo)
	}
	if hi >= 1 && hi <= n {
		_, iv.Upper = at(hi)
	}
	return iv
}

// PercentileConfidence is how sure n observations, k of which are at
// most t, make the claims "quantile p is at most t" (holds) and "quantile
// p is above t" (breaks): one-sided exact binomial confidences,
// holds = P(Bin(n,p) ≤ k−1) and breaks = 1 − P(Bin(n,p) ≤ k). Neither
// reaches the confidence asked when the data cannot tell.
func PercentileConfidence(n, k int64, p float64) (holds, breaks float64) {
	if n <= 0 {
		return 0, 0
	}
	return BinomCDF(k-1, n, p), 1 - BinomCDF(k, n, p)
}

// ProportionConfidence is how sure good successes out of n trials make
// the claims "the true share is at least floor" (holds) and "below
// floor" (breaks): exact binomial (Clopper–Pearson) one-sided
// confidences, holds = P(Bin(n,floor) ≤ good−1), breaks =
// 1 − P(Bin(n,floor) ≤ good). For an attainment objective.
func ProportionConfidence(good, n int64, floor float64) (holds, breaks float64) {
	if n <= 0 {
		return 0, 0
	}
	if floor <= 0 {
		return 1, 0
	}
	if floor >= 1 {
		if good >= n {
			return 0, 0
		}
		return 0, 1
	}
	return BinomCDF(good-1, n, floor), 1 - BinomCDF(good, n, floor)
}

// ProportionCI is the Clopper–Pearson (exact binomial) interval of a
// share from good successes out of n trials.
func ProportionCI(good, n int64, confidence float64) CI {
	if n <= 0 || !validConfidence(confidence) {
		return CI{Lower: 0, Upper: 1, Confidence: confidence}
	}
	a2 := (1 - confidence) / 2
	iv := CI{Lower: 0, Upper: 1, Confidence: confidence}
	if good > 0 {
		iv.Lower = BetaQuantile(a2, float64(good), float64(n-good+1))
	}
	if good < n {
		iv.Upper = BetaQuantile(1-a2, float64(good+1), float64(n-good))
	}
	return iv
}

// BinomCDF is P(Bin(n,p) ≤ k), exactly (through the regularized
// incomplete beta function).
func BinomCDF(k, n int64, p float64) float64 {
	switch {
	case k < 0:
		return 0
	case k >= n:
		return 1
	case p <= 0:
		return 1
	case p >= 1:
		return 0
	}
	return RegIncBeta(float64(n-k), float64(k+1), 1-p)
}

// TQuantile is the q-quantile of Student's t distribution with df degrees
// of freedom.
func TQuantile(q, df float64) float64 {
	if q == 0.5 {
		return 0
	}
	if q < 0.5 {
		return -TQuantile(1-q, df)
	}
	// For t > 0, P(T > t) = I_{df/(df+t²)}(df/2, 1/2)/2; solve for x.
	x := BetaQuantile(2*(1-q), df/2, 0.5)
	if x <= 0 {
		return math.Inf(1)
	}
	return math.Sqrt(df * (1 - x) / x)
}

// BetaQuantile is the q-quantile of the Beta(a, b) distribution, by
// bisection on RegIncBeta (to about 1e-15).
func BetaQuantile(q, a, b float64) float64 {
	if q <= 0 {
		return 0
	}
	if q >= 1 {
		return 1
	}
	lo, hi := 0.0, 1.0
	for range 200 {
		m := (lo + hi) / 2
		if m == lo || m == hi {
			break
		}
		if RegIncBeta(a, b, m) < q {
			lo = m
		} else {
			hi = m
		}
	}
	return (lo + hi) / 2
}

// RegIncBeta is the regularized incomplete beta function I_x(a, b)
// (continued fraction, modified Lentz).
func RegIncBeta(a, b, x float64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

func betaCF(a, b, x float64) float64 {
	const tiny = 1e-300
	const eps = 1e-15
	maxIter := 300 + int(10*math.Sqrt(a+b))
	qab, qap, qam := a+b, a+1, a-1
	c := 1.0
	d := 1 - qab*x/qap
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= maxIter; m++ {
		fm := float64(m)
		m2 := 2 * fm
		aa := fm * (b - fm) * x / ((qam + m2) * (a + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		h *= d * c
		aa = -(a + fm) * (qab + fm) * x / ((a + m2) * (qap + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}

// TCDF is P(T ≤ t) for Student's t distribution with df degrees of
// freedom.
func TCDF(t, df float64) float64 {
	if math.IsNaN(t) {
		return math.NaN()
	}
	tail := 0.5 * RegIncBeta(df/2, 0.5, df/(df+t*t))
	if t > 0 {
		return 1 - tail
	}
	return tail
}

// MeanConfidence is how sure a sample (mean, population stdev, n) makes
// the claims "the true mean is at most t" (holds) and "above t" (breaks):
// one-sided Student's t confidences, summing to 1. n < 2 gives 0, 0.
func MeanConfidence(mean, stdev float64, n int64, t float64) (holds, breaks float64) {
	if n < 2 {
		return 0, 0
	}
	s := stdev * math.Sqrt(float64(n)/float64(n-1))
	if s == 0 {
		if mean <= t {
			return 1, 0
		}
		return 0, 1
	}
	h := TCDF((t-mean)/(s/math.Sqrt(float64(n))), float64(n-1))
	return h, 1 - h
}
