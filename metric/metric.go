// Package metric is goodput's vocabulary of per-request latency metrics:
// one row per metric with its name in every place it appears (goodput's
// SLO key, GuideLLM's report field, AIPerf's tag, the report's histogram
// key) and its unit. slo, compare, the report's histograms, the AIPerf
// export and the console read their names from here; it imports nothing of
// goodput's.
//
// Every Latency row is a latency: lower is better. Quality rows are the
// streaming-quality figures measured against token deadlines.
package metric

// Latency is one latency metric's names and unit.
type Latency struct {
	Key    string // goodput's key in SLO specs, e.g. "ttft"
	Label  string // the console's column title, e.g. "TTFT"
	Field  string // GuideLLM's field in a benchmark's metrics, e.g. "time_to_first_token_ms"
	Unit   string // unit of Field: "ms" or "s"
	AIPerf string // AIPerf's metric tag, "" when AIPerf has none
	Hist   string // key of its HDR histogram in the report's extras (nanoseconds)
}

// The metrics, in canonical order (Latencies).
var (
	TTFT = Latency{Key: "ttft", Label: "TTFT", Field: "time_to_first_token_ms", Unit: "ms",
		AIPerf: "time_to_first_token", Hist: "time_to_first_token"}
	// ITL is GuideLLM's per-request inter-token latency.
	ITL = Latency{Key: "itl", Label: "ITL", Field: "inter_token_latency_ms", Unit: "ms",
		AIPerf: "inter_token_latency", Hist: "inter_token_latency"}
	// TPOT is GuideLLM's time per output token, TTFT included.
	TPOT = Latency{Key: "tpot", Label: "TPOT", Field: "time_per_output_token_ms", Unit: "ms",
		Hist: "time_per_output_token"}
	// E2E is the request latency.
	E2E = Latency{Key: "e2e", Label: "Request latency", Field: "request_latency", Unit: "s",
		AIPerf: "request_latency", Hist: "request_latency"}
)

// Latencies are the metrics in canonical order.
var Latencies = [...]Latency{TTFT, ITL, TPOT, E2E}

// Stall is a request's longest stall: the largest gap between two
// consecutive token-bearing chunks. It is not in Latencies: the report
// measures it only when asked (its extras' "streaming", where its Field
// is, and its histogram).
var Stall = Latency{Key: "stall", Label: "Longest stall", Field: "longest_stall_ms", Unit: "ms", Hist: "longest_stall"}

// ByKey finds a metric by its goodput key (Stall included).
func ByKey(key string) (Latency, bool) {
	for _, l := range Latencies {
		if l.Key == key {
			return l, true
		}
	}
	if key == Stall.Key {
		return Stall, true
	}
	return Latency{}, false
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
func (l Latency) ToMs() float64 {
	if l.Unit == "s" {
		return 1000
	}
	return 1
}
