// Package metric is goodput's vocabulary of per-request latency metrics:
// one row per metric with its name in every place it appears (goodput's
// SLO key, GuideLLM's report field, AIPerf's tag, the report's histogram
// key) and its unit. slo, compare, the report's histograms, the AIPerf
// export and the console read their names from here; it imports nothing of
// goodput's.
//
// Every row is a latency: lower is better.
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

// ByKey finds a metric by its goodput key.
func ByKey(key string) (Latency, bool) {
	for _, l := range Latencies {
		if l.Key == key {
			return l, true
		}
	}
	return Latency{}, false
}

// ToMs is the factor turning a value of Field into milliseconds.
func (l Latency) ToMs() float64 {
	if l.Unit == "s" {
		return 1000
	}
	return 1
}
