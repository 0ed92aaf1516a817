package mock

import (
	"math"
	"time"

	"github.com/goodput-dev/goodput/slo"
)

// Workload is a fixed request shape for the analytic capacity: every request
// has the same prompt and output lengths (as a benchmark with ignore_eos and
// max_tokens sends).
type Workload struct {
	// PromptTokens is the prompt length; 0 is prefilled as one token, as
	// the engine does. Range 0..16777216.
	PromptTokens int
	// OutputTokens is the output length. Range 1..16777216.
	OutputTokens int
	// TokensPerChunk is the tokens each decoding sequence gets per engine
	// step; it must equal Config.TokensPerChunk. 0 means 1.
	TokensPerChunk int
	// CachedTokens is the part of the prompt found in the prefix cache
	// (usage's cached tokens): the engine prefills PromptTokens minus
	// CachedTokens, at least one token. Range 0..PromptTokens.
	CachedTokens int
}

// SLO holds latency thresholds; a zero field is no constraint.
type SLO struct {
	TTFTP99 time.Duration // time to first token, 99th percentile over requests
	ITLP95  time.Duration // inter-token latency, 95th percentile over every gap between chunks
	TPOTP95 time.Duration // per-request mean gap between chunks, 95th percentile over requests
	E2EP99  time.Duration // request latency, 99th percentile over requests
}

// InteractiveSLO is the interactive-chat SLO the presets are tuned for:
// slo.Default's latencies, TTFT P99 < 500 ms and ITL P95 < 50 ms.
func InteractiveSLO() SLO { return SLOOf(slo.Default()) }

// SLOOf is the part of spec the capacity model predicts: its TTFT P99,
// ITL P95, TPOT P95 and request latency P99 thresholds (others are no
// constraint).
func SLOOf(spec slo.Spec) SLO {
	at := func(m slo.Metric, p float64) time.Duration {
		if o, ok := spec.Find(m, slo.Percentile, p); ok {
			return time.Duration(o.Threshold * float64(time.Millisecond))
		}
		return 0
	}
	return SLO{TTFTP99: at(slo.TTFT, 99), ITLP95: at(slo.ITL, 95), TPOTP95: at(slo.TPOT, 95), E2EP99: at(slo.E2E, 99)}
}

// Unbounded is the latency predicted for a load beyond the service capacity,
// where the waiting queue grows without limit.
const Unbounded = time.Duration(math.MaxInt64)

// OperatingPoint is the analytic steady state of the engine at one load.
type OperatingPoint struct {
	// Concurrency is the closed loop's number of streams; 0 for an open
	// loop.
	Concurrency int
	// Rate is the request rate in requests/s: the arrival rate of an open
	// loop, the completion rate of a closed loop.
	Rate float64
	// OutputTokensPerSec is Rate × Workload.OutputTokens.
	OutputTokensPerSec float64
	// Running is the mean number of sequences in the batch, Waiting the
	// mean number in the waiting queue, Decoding the mean number of
	// sequences emitting a token per step.
	Running, Waiting, Decoding float64
	// StepTime is the mean engine step time.
	StepTime time.Duration
	// TTFTP99, TTFTMean, ITLP95, ITLMean, TPOT (the per-request mean gap)
	// and E2EP99 are the predicted latencies; Unbounded when Saturated.
	TTFTP99, TTFTMean, ITLP95, ITLMean, TPOT, E2EP99 time.Duration
	// Saturated is true for an open-loop rate at or beyond the service
	// capacity: the queue grows without limit.
	Saturated bool
}

// Capacity is the highest load that meets an SLO, computed by
// CapacityModel.Capacity.
type Capacity struct {
	Workload Workload
	SLO      SLO
	// Closed is the operating point at the highest closed-loop concurrency
	// that meets the SLO (Concurrency 0 when even one stream misses it).
	Closed OperatingPoint
	// ClosedLimit names what stops the closed loop one stream higher:
	// "ttft_p99", "itl_p95", "tpot_p95", "e2e_p99", or "none" when no SLO
	// binds (ITL and TPOT stop growing once the slots are always full;
	// Closed is then the point at the smallest such concurrency, which has
	// the highest throughput).
	ClosedLimit string
	// Open is the operating point at the highest constant arrival rate
	// that meets the SLO (Rate 0 when none does).
	Open OperatingPoint
	// OpenLimit names what bounds the rate: an SLO as for ClosedLimit, or
	// "saturation" when the SLO holds up to the service capacity.
	OpenLimit string
	// SaturationRate is the service capacity in requests/s: beyond it an
	// open loop's waiting queue grows without limit.
	SaturationRate float64
	// SaturationTokensPerSec is SaturationRate × OutputTokens.
	SaturationTokensPerSec float64
}

// The analytic steady state.
//
// Notation: M = MaxNumSeqs, B = MaxNumBatchedTokens, t0 = StepBase,
// ts = StepPerSeq, tp = PrefillPerToken; a request has I prompt tokens
// (at least 1) and S = ceil(OutputTokens / TokensPerChunk) output steps. A
// step with D decoding sequences and P prefill tokens lasts
// T(D, P) = t0 + ts·D + tp·P. A request admitted at a step boundary is
// prefilled in k = ceil(I / (B − D)) steps (decodes take one budget token
// each, the prompt gets the rest), emits its first chunk at the end of the
// last prefill step, then one chunk per step: it holds its slot for
// K = k + S − 1 steps, and the slot is free from the next step. A request
// arriving during a step is admitted at the next boundary, at once when the
// engine is idle.
//
// Closed loop, N streams, each sending its next request as soon as the last
// chunk of the previous one arrives: the request arrives just after a step
// boundary, so it waits at least for the step in progress.
//
//   - N = 1: the engine is idle when the request arrives. TTFT = k·t0 + tp·I
//     (prefill steps with D = 0), every gap is t0 + ts.
//   - 2 ≤ N ≤ N* = M·(K + 1)/K: each request waits exactly the step in
//     progress (the slots, N·K/(K+1) ≤ M of them busy on average, are never
//     all taken), so a stream's cycle is K + 1 steps and the step pattern is
//     periodic with that period. Over one period every stream decodes S − 1
//     times and prefills I tokens, so the period lasts exactly
//     C = (K + 1)·t0 + N·((S − 1)·ts + I·tp), whatever the arrangement, and
//     throughput = N·O / C. The quantiles assume the requests are spread
//     evenly over the period. Then, while (N − 1)(k + 1) ≤ S − 1, the
//     waiting and prefill steps of different streams never coincide: a
//     period has N·k prefill steps (D = N − 1), N waiting steps (D = N − 1,
//     no prefill) and otherwise all N decoding, so
//     TTFT = T(N−1, 0) + Σ T(N−1, chunk) over the k chunks, the same for
//     every request, and a stream's S − 1 gaps are the other streams'
//     (N − 1)·k prefill steps, their N − 1 waiting steps, and T(N, 0)
//     otherwise; ITL P95 is the nearest-rank quantile of that mixture.
//     Denser loads (prefills sharing steps) use q = N·k/(K + 1) prefill
//     chunks per step: floor(q) or ceil(q) per step, ceil(q) in a fraction
//     frac(q) of them.
//   - N > N*: every slot is busy all the time, each turning over every K
//     steps: one turnover lasts C_s = K·t0 + M·((S − 1)·ts + I·tp) and
//     throughput = M·O / C_s. By Little's law a stream's cycle is N·C_s/M, of
//     which C_s in a slot, so the mean queueing time is W = (N − M)·C_s/M,
//     exactly, and TTFTMean = W + Σ T(M−1, chunk). Gaps: the other slots'
//     (M − 1)·k prefill steps, T(M, 0) otherwise (or the dense rule).
//
// Bands, measured on this engine in virtual time (TestAnalysisMatchesVirtualEngine)
// and stated because they depend on how the requests' phases are spread,
// which the ramp-up sets and fixed lengths keep:
//
//   - up to N*, streams that do not start evenly spread can make prefills
//     share steps: ITL P95 up to one prefill chunk (tp·I/k) higher and TTFT
//     P99 up to two;
//   - beyond N*, the waits of different requests differ by how unevenly the
//     slots' turnovers are spaced: TTFTP99 is predicted as W + C_s/M + the
//     prefill steps (one slot turnover above the mean); a ramp-up over about
//     one request duration stays within a quarter of C_s above the mean,
//     and streams all started at once move in lock-step waves whose P99 is
//     about C_s.
//
// Open loop at a constant rate λ (arrivals 1/λ apart):
//
//   - If one request's time in the engine, R1 = k·t0 + tp·I + (S−1)(t0+ts),
//     is shorter than 1/λ, requests never overlap: TTFT = k·t0 + tp·I and
//     every gap is t0 + ts.
//   - Otherwise the engine is always busy. Per second it runs 1/T̄ steps and
//     does λ(S − 1) decode tokens and λ·I prefill tokens, so
//     1 = t0/T̄ + λ·a with a = (S − 1)·ts + I·tp: the mean step time is
//     T̄ = t0 / (1 − λ·a), the mean batch D̄ = λ·T̄·(S − 1) (Little's law on
//     decode steps), and q = λ·T̄·k prefill chunks per step. With q ≤ 1 a
//     fraction q of the steps carry one chunk (T_P = T(D̄, chunk)) and the
//     others decode only, with floor(D̄) or ceil(D̄) sequences; ITL P95 is
//     the quantile of that mixture, the dense rule above beyond. TTFT is the
//     step in progress at arrival plus the k prefill steps: a decode step,
//     or the end of the previous arrival's prefill if that one arrived less
//     than a decode step plus its prefill earlier, so the P99 wait is
//     max(0.99·T_A, T_A + k·T_P − 1/λ).
//   - The service capacity is λ_sat = min(M / C_s, B / (t0·(S − 1 + I) + B·a)):
//     the first term is the rate at which M slots turn over (the closed
//     loop's saturated throughput), the second the rate at which the token
//     budget is used up by decodes and prefills. At or beyond it the waiting
//     queue grows without limit (Saturated, latencies Unbounded). Arrivals
//     are deterministic, so below it nothing queues for a slot.
//
// Capacity searches these formulas: the largest N, and (by bisection) the
// largest λ below λ_sat, whose predictions meet the SLO.

// Capacity computes, from the model's equations (no simulation), the
// highest closed-loop concurrency and the highest constant arrival rate
// whose predicted latencies meet slo, with the operating points there. See
// the derivation in analysis.go. It fails only for an invalid model or
// workload.
func (m CapacityModel) Capacity(w Workload, slo SLO) (Capacity, error) {
	a, err := newAnalysis(&m, w)
	if err != nil {
		return Capacity{}, err
	}
	c := Capacity{Workload: w, SLO: slo, SaturationRate: a.saturationRate()}
	c.SaturationTokensPerSec = c.SaturationRate * float64(a.O)

	// Closed loop: latencies grow with N (TTFT linearly once the slots are
	// full), so scan upwards to the first violation. Beyond M only TTFT and
	// E2E grow; if neither is constrained nothing binds.
	c.ClosedLimit = "none"
	limitN := 64*a.M + 4096
	nStar := int(math.Floor(a.unsaturatedMax()))
	for n := 1; n <= limitN; n++ {
		op := a.closed(n)
		if v := slo.violated(op); v != "" {
			c.ClosedLimit = v
			break
		}
		c.Closed = op
		if n > nStar && slo.TTFTP99 == 0 && slo.E2EP99 == 0 {
			break // only TTFT and E2E grow beyond N*
		}
	}

	// Open loop: bisect on the rate below saturation.
	sat := c.SaturationRate
	hi := sat * (1 - 1e-9)
	if v := slo.violated(a.open(hi)); v == "" {
		c.Open, c.OpenLimit = a.open(hi), "saturation"
		return c, nil
	}
	lo := 0.0
	for range 100 {
		mid := (lo + hi) / 2
		if slo.violated(a.open(mid)) == "" {
			lo = mid
		} else {
			hi = mid
		}
	}
	c.OpenLimit = slo.violated(a.open(hi))
	if lo > 0 {
		c.Open = a.open(lo)
	}
	return c, nil
}

// violated returns the name of the first SLO op misses, or "".
func (s SLO) violated(op OperatingPoint) string {
	switch {
	case s.TTFTP99 > 0 && op.TTFTP99 > s.TTFTP99:
		return "ttft_p99"
	case s.ITLP95 > 0 && op.ITLP95 > s.ITLP95:
		return "itl_p95"
	case s.TPOTP95 > 0 && op.TPOT > s.TPOTP95:
		return "tpot_p95"
	case s.E2EP99 > 0 && op.E2EP99 > s.E2EP99:
		return "e2e_p99"
	}
	return ""
}

// LoneTTFT is the time to first token of a request alone in the engine
// whose prompt of promptTokens tokens has cachedTokens found in the prefix
// cache: ceil(P'/MaxNumBatchedTokens) steps of StepBase plus
// PrefillPerToken × P', where P' = promptTokens − cachedTokens (at least
// 1) is what it prefills. The difference between two turns' LoneTTFT is
// what the prefix cache saves a later turn of a conversation.
func (m CapacityModel) LoneTTFT(promptTokens, cachedTokens int) (time.Duration, error) {
	op, err := m.ClosedLoop(Workload{PromptTokens: promptTokens, OutputTokens: 1, CachedTokens: cachedTokens}, 1)
	if err != nil {
		return 0, err
	}
	return op.TTFTMean, nil
}
