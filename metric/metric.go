// Package metric is goodput's table of per-request latency metrics: one
// row per metric with its name in every place it appears (goodput's SLO
// key, GuideLLM's report field, AIPerf's tag, the report's histogram key),
// its unit, how a request's value is read (Value, Weight) and where its
// distributions sit in the report (Guide, Extra). Every consumer loops over
// All: the accumulator keeps one histogram per row (Slot) and computes its
// exact, binned and histogram figures, merge merges them, slo parses and
// judges the rows with a Key, and the console, compare, the HTML report and
// the exports read the names.
//
// Adding a metric is adding a row to All: a new figure also needs its
// field in report.ExtraMetrics (the JSON model), which Extra points at.
// It imports only the report model. Every row is a latency: lower is
// better. Quality rows are the streaming-quality figures measured against
// token deadlines.
package metric

import "github.com/goodput-dev/goodput/report"

// Weight is how many samples a request's value counts for in the
// token-weighted distributions (GuideLLM's rule).
type Weight uint8

// Weights.
const (
	PerRequest Weight = iota // one sample per request
	PerToken                 // one per output token (tpot)
	PerGap                   // one per output token after the first (itl)
)

// Censor is what a cancelled request's partial stream says about a
// metric's value (the SLO's per-request verdict on incomplete requests).
type Censor uint8

// Censoring rules.
const (
	// CensorNone: nothing (an average over tokens still to come).
	CensorNone Censor = iota
	// CensorGrows: the value seen so far only grows (the longest stall).
	CensorGrows
	// CensorSinceStart: a time since dispatch; a request without it had
	// not reached it by its end, so its elapsed time bounds it from below.
	CensorSinceStart
)

// Request is what a metric's value is read from: one request's times in
// Unix nanoseconds (0: did not happen) and its output tokens.
type Request struct {
	Start            int64 // Dispatched (GuideLLM's request_start); 0 when never dispatched
	End              int64 // when the request ended (else its start)
	FirstToken       int64 // first token-bearing chunk
	LastToken        int64 // last token-bearing chunk
	FirstOutputToken int64 // first non-reasoning chunk
	Intended         int64 // the schedule's target
	// OutputTokens is GuideLLM's output_tokens: the usage, else one per
	// token-bearing chunk; -1 when unknown.
	OutputTokens int64
	// Chunks are the token-bearing chunks' times, nil where not kept
	// (rows with Chunks set need them).
	Chunks []int64
}

// Latency is one latency metric's row.
type Latency struct {
	// Key is goodput's key in SLO specs, e.g. "ttft"; "" for a metric the
	// SLO does not bound. Aliases are other spellings --slo accepts.
	Key     string
	Aliases []string
	Label   string // the console's column title, e.g. "TTFT"
	// Field is its distribution's JSON field in the benchmark's metrics
	// (GuideLLM's) or goodput's extras, e.g. "time_to_first_token_ms".
	Field  string
	Unit   string // unit of Field: "ms" or "s"
	AIPerf string // AIPerf's metric tag, "" when AIPerf has none
	Hist   string // key of its HDR histogram in the report's extras (nanoseconds)

	// Slot is the row's index in All and in per-metric arrays ([N]…).
	Slot int
	// Core marks GuideLLM's four latencies, the console's columns
	// (Latencies).
	Core bool
	// Value is a request's value in nanoseconds, ok false where it has none
	// (r by value: it does not escape to the heap on the hot path).
	Value func(r Request) (ns float64, ok bool)
	// Weight is how many samples a value counts for.
	Weight Weight
	// Chunks says Value needs Request.Chunks, which the accumulator does
	// not keep per request: its exact figures come from the histogram.
	Chunks bool
	// Stream says the metric is measured only when the streams' quality
	// is (Stall): no histogram otherwise, and an SLO on it asks for it.
	Stream bool
	// Gapless reports whether a successful request without a value had no
	// gap to measure and so meets a threshold (itl, stall); nil: never.
	Gapless func(r Request) bool
	// Censor is what a cancelled request's value bounds.
	Censor Censor

	// Guide and Extra locate its distributions in the report: GuideLLM's
	// metrics (a request without a value counts as 0) and goodput's
	// extras (absent means absent); nil where it has none.
	Guide func(m *report.Metrics) **report.StatusDistributionSummary
	Extra func(x *report.ExtraMetrics) **report.StatusDistributionSummary
}

// since is t − from, ok false when either did not happen.
func since(from, t int64) (float64, bool) {
	if from == 0 || t == 0 {
		return 0, false
	}
	return float64(t - from), true
}

// The metrics. All gives their slots and canonical order.
var (
	TTFT = &Latency{Key: "ttft", Label: "TTFT", Field: "time_to_first_token_ms", Unit: "ms",
		AIPerf: "time_to_first_token", Hist: "time_to_first_token", Core: true, Censor: CensorSinceStart,
		Value: func(r Request) (float64, bool) { return since(r.Start, r.FirstToken) },
		Guide: func(m *report.Metrics) **report.StatusDistributionSummary { return &m.TimeToFirstTokenMs },
		Extra: func(x *report.ExtraMetrics) **report.StatusDistributionSummary { return &x.TimeToFirstTokenMs }}
	// TTFOT is the time to the first non-reasoning chunk.
	TTFOT = &Latency{Label: "TTFOT", Field: "time_to_first_output_token_ms", Unit: "ms",
		Hist: "time_to_first_output_token", Censor: CensorSinceStart,
		Value: func(r Request) (float64, bool) { return since(r.Start, r.FirstOutputToken) },
		Guide: func(m *report.Metrics) **report.StatusDistributionSummary { return &m.TimeToFirstOutputTokenMs },
		Extra: func(x *report.ExtraMetrics) **report.StatusDistributionSummary { return &x.TimeToFirstOutputTokenMs }}
	// TTST is the time to the second token-bearing chunk (AIPerf's
	// time_to_second_token is another figure: second − first chunk).
	TTST = &Latency{Key: "ttst", Aliases: []string{"time_to_second_token"}, Label: "TTST", Field: "time_to_second_token_ms", Unit: "ms",
		Hist: "time_to_second_token", Chunks: true, Censor: CensorSinceStart,
		Value: func(r Request) (float64, bool) {
			if len(r.Chunks) < 2 {
				return 0, false
			}
			return since(r.Start, r.Chunks[1])
		},
		Extra: func(x *report.ExtraMetrics) **report.StatusDistributionSummary { return &x.TimeToSecondTokenMs }}
	// ITL is GuideLLM's per-request inter-token latency, (last token −
	// first token) / (output tokens − 1).
	ITL = &Latency{Key: "itl", Label: "ITL", Field: "inter_token_latency_ms", Unit: "ms",
		AIPerf: "inter_token_latency", Hist: "inter_token_latency", Core: true, Weight: PerGap,
		Gapless: func(r Request) bool { return r.FirstToken != 0 && r.OutputTokens >= 0 && r.OutputTokens <= 1 },
		Value: func(r Request) (float64, bool) {
			if r.FirstToken == 0 || r.LastToken == 0 || r.OutputTokens <= 1 {
				return 0, false
			}
			return float64(r.LastToken-r.FirstToken) / float64(r.OutputTokens-1), true
		},
		Guide: func(m *report.Metrics) **report.StatusDistributionSummary { return &m.InterTokenLatencyMs },
		Extra: func(x *report.ExtraMetrics) **report.StatusDistributionSummary { return &x.InterTokenLatencyMs }}
	// TPOT is GuideLLM's time per output token, ((last token, else end) −
	// start) / output tokens: TTFT included.
	TPOT = &Latency{Key: "tpot", Label: "TPOT", Field: "time_per_output_token_ms", Unit: "ms",
		Hist: "time_per_output_token", Core: true, Weight: PerToken,
		Value: func(r Request) (float64, bool) {
			if r.Start == 0 || r.OutputTokens <= 0 {
				return 0, false
			}
			stop := r.LastToken
			if stop == 0 {
				stop = r.End
			}
			return float64(stop-r.Start) / float64(r.OutputTokens), true
		},
		Guide: func(m *report.Metrics) **report.StatusDistributionSummary { return &m.TimePerOutputTokenMs },
		Extra: func(x *report.ExtraMetrics) **report.StatusDistributionSummary { return &x.TimePerOutputTokenMs }}
	// E2E is the request latency, end − start.
	E2E = &Latency{Key: "e2e", Aliases: []string{"e2el", "latency"}, Label: "Request latency", Field: "request_latency", Unit: "s",
		AIPerf: "request_latency", Hist: "request_latency", Core: true, Censor: CensorSinceStart,
		Value: func(r Request) (float64, bool) { return since(r.Start, r.End) },
		Guide: func(m *report.Metrics) **report.StatusDistributionSummary { return &m.RequestLatency },
		Extra: func(x *report.ExtraMetrics) **report.StatusDistributionSummary { return &x.RequestLatency }}
	// Stall is a request's longest stall: the largest gap between two
	// consecutive token-bearing chunks. The report measures it only when
	// asked (its extras' "streaming", where its Field is, and its
	// histogram).
	Stall = &Latency{Key: "stall", Label: "Longest stall", Field: "longest_stall_ms", Unit: "ms", Hist: "longest_stall",
		Chunks: true, Stream: true, Censor: CensorGrows,
		Gapless: func(r Request) bool { return r.FirstToken != 0 },
		Value: func(r Request) (float64, bool) {
			var g int64
			for i := 1; i < len(r.Chunks); i++ {
				if d := r.Chunks[i] - r.Chunks[i-1]; i == 1 || d > g {
					g = d
				}
			}
			return float64(g), len(r.Chunks) > 1
		}}
	// Lateness is how late the client dispatched a request against its
	// schedule (open-loop strategies).
	Lateness = &Latency{Label: "Dispatch lateness", Field: "dispatch_lateness_ms", Unit: "ms", Hist: "dispatch_lateness",
		Value: func(r Request) (float64, bool) { return since(r.Intended, r.Start) },
		Extra: func(x *report.ExtraMetrics) **report.StatusDistributionSummary { return &x.DispatchLatenessMs }}
	// ScheduledTTFT is the TTFT as the schedule's user saw it, lateness
	// included.
	ScheduledTTFT = &Latency{Label: "Scheduled TTFT", Field: "scheduled_time_to_first_token_ms", Unit: "ms",
		Hist:  "scheduled_time_to_first_token",
		Value: func(r Request) (float64, bool) { return since(r.Intended, r.FirstToken) },
		Extra: func(x *report.ExtraMetrics) **report.StatusDistributionSummary { return &x.ScheduledTimeToFirstTokenMs }}
	// ScheduledLatency is the request latency from the schedule's target.
	ScheduledLatency = &Latency{Label: "Scheduled request latency", Field: "scheduled_request_latency", Unit: "s",
		Hist:  "scheduled_request_latency",
		Value: func(r Request) (float64, bool) { return since(r.Intended, r.End) },
		Extra: func(x *report.ExtraMetrics) **report.StatusDistributionSummary { return &x.ScheduledRequestLatency }}
)

// All are the rows, in slot order; the SLO keys' canonical order is theirs.
var All = [...]*Latency{TTFT, TTFOT, TTST, ITL, TPOT, E2E, Stall, Lateness, ScheduledTTFT, ScheduledLatency}

// N is the number of rows: the length of per-metric arrays.
const N = len(All)

// Latencies are GuideLLM's four latencies (Core) in canonical order.
var Latencies []*Latency

func init() {
	for i, l := range All {
		l.Slot = i
		if l.Core {
			Latencies = append(Latencies, l)
		}
	}
}

// ByKey finds a metric by its goodput SLO key.
func ByKey(key string) (*Latency, bool) {
	for _, l := range All {
		if key != "" && l.Key == key {
			return l, true
		}
	}
	return nil, false
}

// ByName finds an SLO-able metric by its key or one of its aliases.
func ByName(name string) (*Latency, bool) {
	for _, l := range All {
		if l.Key == "" {
			continue
		}
		if l.Key == name {
			return l, true
		}
		for _, a := range l.Aliases {
			if a == name {
				return l, true
			}
		}
	}
	return nil, false
}

// Names are the SLO keys, in canonical order.
func Names() []string {
	var out []string
	for _, l := range All {
		if l.Key != "" {
			out = append(out, l.Key)
		}
	}
	return out
}

// Quality is a per-request streaming-quality metric that is not a
// latency, measured with token deadlines (Etalon's).
type Quality struct {
	Key   string // goodput's key in SLO specs
	Label string // the console's title
	Field string // its distribution in the report's extras' "streaming"
	// HigherBetter says the SLO bounds it from below.
	HigherBetter bool
}

// The streaming-quality metrics.
var (
	// Fluidity is Etalon's fluidity index: the share of a request's token
	// deadlines it met (1 − missed ÷ deadlines).
	Fluidity = Quality{Key: "fluidity", Label: "Fluidity index", Field: "fluidity_index", HigherBetter: true}
	// DeadlineMisses is the number of token deadlines a request missed.
	DeadlineMisses = Quality{Key: "deadline_misses", Label: "Deadline misses", Field: "deadline_misses"}
)

// ToMs is the factor turning a value of Field into milliseconds.
func (l *Latency) ToMs() float64 {
	if l.Unit == "s" {
		return 1000
	}
	return 1
}

// Scale is the factor turning nanoseconds into Field's unit (its divisor).
func (l *Latency) Scale() float64 { return l.ToMs() * 1e6 }

// Samples is how many samples a request with out output tokens (-1
// unknown) counts for.
func (l *Latency) Samples(out int64) int64 {
	switch l.Weight {
	case PerToken:
		return max(out, 0)
	case PerGap:
		return max(out, 1) - 1
	}
	return 1
}

// Of is the metric's distribution in GuideLLM's metrics, nil when none.
func (l *Latency) Of(m *report.Metrics) *report.StatusDistributionSummary {
	if l.Guide == nil || m == nil {
		return nil
	}
	return *l.Guide(m)
}

// OfExtra is goodput's distribution of the metric, nil when none.
func (l *Latency) OfExtra(x *report.ExtraMetrics) *report.StatusDistributionSummary {
	if l.Extra == nil || x == nil {
		return nil
	}
	return *l.Extra(x)
}
