package mock

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// The steady-state formulas derived in analysis.go.

// analysis holds a model and a workload in float seconds.
type analysis struct {
	m          *CapacityModel
	w          Workload
	M, B       int
	I, S, O    int
	t0, ts, tp float64
}

func newAnalysis(m *CapacityModel, w Workload) (*analysis, error) {
	if err := m.validate(); err != nil {
		return nil, err
	}
	if w.PromptTokens < 0 || w.PromptTokens > 1<<24 {
		return nil, fmt.Errorf("mock: Workload.PromptTokens must be in 0..16777216, got %d", w.PromptTokens)
	}
	if w.OutputTokens < 1 || w.OutputTokens > 1<<24 {
		return nil, fmt.Errorf("mock: Workload.OutputTokens must be in 1..16777216, got %d", w.OutputTokens)
	}
	if w.CachedTokens < 0 || w.CachedTokens > w.PromptTokens {
		return nil, fmt.Errorf("mock: Workload.CachedTokens must be in 0..PromptTokens (0..%d), got %d", w.PromptTokens, w.CachedTokens)
	}
	if w.TokensPerChunk < 0 {
		return nil, fmt.Errorf("mock: Workload.TokensPerChunk must be >= 0 (0 means 1), got %d", w.TokensPerChunk)
	}
	c := max(w.TokensPerChunk, 1)
	return &analysis{
		m: m, w: w, M: m.MaxNumSeqs, B: m.MaxNumBatchedTokens,
		I: max(w.PromptTokens-w.CachedTokens, 1), S: (w.OutputTokens + c - 1) / c, O: w.OutputTokens,
		t0: m.StepBase.Seconds(), ts: m.StepPerSeq.Seconds(), tp: m.PrefillPerToken.Seconds(),
	}, nil
}

// chunks splits the prompt into prefill chunks when avail budget tokens are
// free per step: k chunks, the first k−1 of avail tokens, the last of last.
func (a *analysis) chunks(avail int) (k, last int) {
	avail = max(avail, 1)
	k = (a.I + avail - 1) / avail
	return k, a.I - (k-1)*avail
}

// step is T(D, P) in seconds.
func (a *analysis) step(d, p float64) float64 { return a.t0 + a.ts*d + a.tp*p }

// gapMix is a discrete distribution of gap durations (seconds) with weights.
type gapMix struct{ v, w []float64 }

func (g *gapMix) add(v, w float64) {
	if w > 0 {
		g.v, g.w = append(g.v, v), append(g.w, w)
	}
}

// quantile is the nearest-rank q-quantile: the smallest value whose
// cumulative weight reaches q of the total.
func (g *gapMix) quantile(q float64) float64 {
	idx := make([]int, len(g.v))
	total := 0.0
	for i := range idx {
		idx[i] = i
		total += g.w[i]
	}
	slices.SortFunc(idx, func(x, y int) int {
		switch {
		case g.v[x] < g.v[y]:
			return -1
		case g.v[x] > g.v[y]:
			return 1
		}
		return 0
	})
	cum := 0.0
	for _, i := range idx {
		cum += g.w[i]
		if cum >= q*total*(1-1e-12) {
			return g.v[i]
		}
	}
	return g.v[idx[len(idx)-1]]
}

func (g *gapMix) mean() float64 {
	s, w := 0.0, 0.0
	for i := range g.v {
		s += g.v[i] * g.w[i]
		w += g.w[i]
	}
	return s / w
}

func seconds(s float64) time.Duration {
	if math.IsInf(s, 1) || s >= float64(math.MaxInt64)/1e9 {
		return Unbounded
	}
	return time.Duration(math.Round(s * 1e9))
}

// ClosedLoop predicts the steady state of n evenly staggered closed-loop
// streams (see the derivation above).
func (m CapacityModel) ClosedLoop(w Workload, n int) (OperatingPoint, error) {
	a, err := newAnalysis(&m, w)
	if err != nil {
		return OperatingPoint{}, err
	}
	if n < 1 {
		return OperatingPoint{}, fmt.Errorf("mock: closed-loop concurrency must be >= 1, got %d", n)
	}
	return a.closed(n), nil
}

func (a *analysis) closed(n int) OperatingPoint {
	S, I := float64(a.S), float64(a.I)
	op := OperatingPoint{Concurrency: n}
	var (
		gaps                         gapMix
		ttft, cycle, period, stepSum float64
		queue, spread                float64
	)
	switch {
	case n == 1:
		k, _ := a.chunks(a.B)
		ttft = float64(k)*a.t0 + a.tp*I
		gaps.add(a.step(1, 0), S-1)
		cycle = ttft + (S-1)*a.step(1, 0)
		period, stepSum = float64(k)+S-1, cycle
		op.Running, op.Decoding = 1, (S-1)/period
	case float64(n) <= a.unsaturatedMax():
		N := float64(n)
		k, last := a.chunks(a.B - (min(n, a.M) - 1))
		K := float64(k)
		period = S + K
		cycle = period*a.t0 + N*((S-1)*a.ts+I*a.tp)
		stepSum = cycle
		op.Decoding = N * (S - 1) / period
		op.Running = N * (S - 1 + K) / period // the waiting step is spent between steps, not in the queue
		if (N-1)*(K+1) <= S-1 {
			full := float64(a.B - (min(n, a.M) - 1))
			ttft = a.step(N-1, 0) + K*a.step(N-1, 0) + a.tp*I
			gaps.add(a.step(N-1, full), (N-1)*(K-1))
			gaps.add(a.step(N-1, float64(last)), N-1)
			gaps.add(a.step(N-1, 0), N-1)
			gaps.add(a.step(N, 0), S-1-(N-1)*(K+1))
		} else {
			gaps, ttft = a.dense(op.Decoding, N*K/period, k, true)
		}
	default:
		k, last := a.chunks(a.B - (a.M - 1))
		M, K := float64(a.M), float64(k)+S-1
		stepSum = K*a.t0 + M*((S-1)*a.ts+I*a.tp)
		period = K
		cycle = float64(n) * stepSum / M
		queue = (float64(n) - M) * stepSum / M // mean queueing time, Little's law
		spread = stepSum / M                   // one slot turnover
		ttft = queue
		op.Decoding = M * (S - 1) / K
		op.Running, op.Waiting = M, float64(n)-M
		if (M-1)*float64(k) <= S-1 {
			full := float64(a.B - (a.M - 1))
			ttft += float64(k)*a.step(M-1, 0) + a.tp*I
			gaps.add(a.step(M-1, full), (M-1)*float64(k-1))
			gaps.add(a.step(M-1, float64(last)), M-1)
			gaps.add(a.step(M, 0), S-1-(M-1)*float64(k))
		} else {
			g, pre := a.dense(op.Decoding, M*float64(k)/K, k, false)
			gaps, ttft = g, ttft+pre
		}
	}
	op.Rate = float64(n) / cycle
	op.OutputTokensPerSec = op.Rate * float64(a.O)
	op.StepTime = seconds(stepSum / period)
	op.TTFTMean = seconds(ttft)
	op.TTFTP99 = seconds(ttft + spread)
	op.E2EP99 = seconds(cycle + spread)
	if len(gaps.v) > 0 {
		op.ITLP95 = seconds(gaps.quantile(0.95))
		op.ITLMean = seconds(gaps.mean())
		op.TPOT = op.ITLMean
	}
	return op
}

// unsaturatedMax is N* = M·(K+1)/K, K = k + S − 1 the steps a request
// holds its slot: up to N* closed-loop streams, each request waits only for
// the step in progress at its arrival (its cycle is K + 1 steps and
// N·K/(K+1) ≤ M slots are busy); beyond, every slot is busy all the time
// and requests queue.
func (a *analysis) unsaturatedMax() float64 {
	k, _ := a.chunks(a.B - (a.M - 1))
	K := float64(k) + float64(a.S) - 1
	return float64(a.M) * (K + 1) / K
}

// dense approximates loads whose prefills share steps: q chunks per step
// on average (each of at most I/k tokens, within the budget left by d
// decodes), so steps carry floor(q) or ceil(q) chunks, ceil(q) in a
// fraction frac(q) of them. It returns the gap mixture and the TTFT's steps:
// a waiting step (when wait) and the k prefill steps, each with ceil(q)
// chunks (floor(q) when steps with ceil(q) chunks are under 1%).
func (a *analysis) dense(d, q float64, k int, wait bool) (gapMix, float64) {
	chunk := float64(a.I) / float64(k)
	room := math.Max(float64(a.B)-d, 1)
	at := func(j float64) float64 { return a.step(d, math.Min(room, j*chunk)) }
	lo, hi := math.Floor(q), math.Ceil(q)
	fr := q - lo
	var g gapMix
	g.add(at(lo), 1-fr)
	g.add(at(hi), fr)
	worst := at(hi)
	if fr < 0.01 {
		worst = at(math.Max(lo, 1))
	}
	ttft := float64(k) * worst
	if wait {
		ttft += worst
	}
	return g, ttft
}

// OpenLoop predicts the steady state under constant arrivals at rate
// requests/s (see the derivation above).
func (m CapacityModel) OpenLoop(w Workload, rate float64) (OperatingPoint, error) {
	a, err := newAnalysis(&m, w)
	if err != nil {
		return OperatingPoint{}, err
	}
	if !(rate > 0) || math.IsInf(rate, 1) {
		return OperatingPoint{}, fmt.Errorf("mock: open-loop rate must be a finite number of requests/s > 0, got %v", rate)
	}
	return a.open(rate), nil
}

// saturationRate is λ_sat.
func (a *analysis) saturationRate() float64 {
	S, I, M, B := float64(a.S), float64(a.I), float64(a.M), float64(a.B)
	k, _ := a.chunks(a.B - (a.M - 1))
	cs := (float64(k)+S-1)*a.t0 + M*((S-1)*a.ts+I*a.tp)
	slotRate := M / cs
	budgetRate := B / (a.t0*(S-1+I) + B*((S-1)*a.ts+I*a.tp))
	return math.Min(slotRate, budgetRate)
}

func (a *analysis) open(rate float64) OperatingPoint {
	S, I := float64(a.S), float64(a.I)
	op := OperatingPoint{Rate: rate, OutputTokensPerSec: rate * float64(a.O)}
	if rate >= a.saturationRate() {
		op.Saturated = true
		op.TTFTP99, op.TTFTMean, op.E2EP99 = Unbounded, Unbounded, Unbounded
		op.ITLP95, op.ITLMean, op.TPOT = Unbounded, Unbounded, Unbounded
		op.Running, op.Waiting = float64(a.M), math.Inf(1)
		op.StepTime = Unbounded
		return op
	}
	k1, _ := a.chunks(a.B)
	single := float64(k1)*a.t0 + a.tp*I + (S-1)*a.step(1, 0)
	if rate*single < 1 {
		// Requests never overlap.
		op.TTFTP99 = seconds(float64(k1)*a.t0 + a.tp*I)
		op.TTFTMean = op.TTFTP99
		if a.S > 1 {
			op.ITLP95, op.ITLMean, op.TPOT = seconds(a.step(1, 0)), seconds(a.step(1, 0)), seconds(a.step(1, 0))
		}
		op.E2EP99 = seconds(single)
		op.Running = rate * single
		op.Decoding = (S - 1) / (float64(k1) + S - 1) // per step of a lone request
		op.StepTime = seconds(single / (float64(k1) + S - 1))
		return op
	}
	tbar := a.t0 / (1 - rate*((S-1)*a.ts+I*a.tp))
	d := rate * tbar * (S - 1)
	k, last := a.chunks(a.B - int(math.Ceil(d)))
	q := rate * tbar * float64(k) // prefill chunks per step
	prefill := float64(k)*a.step(d, 0) + a.tp*I
	var (
		gaps gapMix
		ttft float64
	)
	if q <= 1 {
		chunk := float64(last)
		if k > 1 {
			chunk = float64(a.B - int(math.Ceil(d)))
		}
		tp := a.step(d, chunk)
		lo := math.Floor(d)
		fr := d - lo
		gaps.add(tp, q)
		gaps.add(a.step(lo, 0), (1-q)*(1-fr))
		gaps.add(a.step(lo+1, 0), (1-q)*fr)
		ta := a.step(lo+1, 0)
		if fr < 0.01 {
			ta = a.step(lo, 0)
		}
		// The arrival waits for the step in progress: a decode step, or the
		// end of the previous arrival's prefill, which started at most a
		// decode step after that arrival, 1/λ earlier.
		ttft = math.Max(0.99*ta, ta+float64(k)*tp-1/rate) + prefill
	} else {
		var pre float64
		gaps, pre = a.dense(d, q, k, true)
		ttft = pre
	}
	if a.S > 1 {
		op.ITLP95 = seconds(gaps.quantile(0.95))
		op.ITLMean = seconds(tbar)
		op.TPOT = seconds(tbar)
	}
	op.TTFTP99 = seconds(ttft)
	op.TTFTMean = seconds(tbar/2 + prefill) // mean residual of the step in progress
	op.E2EP99 = seconds(ttft + (S-1)*tbar)
	op.Decoding = d
	op.Running = rate * (prefill + (S-1)*tbar)
	op.StepTime = seconds(tbar)
	return op
}
