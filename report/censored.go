package report

import "math"

// Censored treats the requests still in flight when a benchmark ended as
// right-censored observations instead of deleting them: deleting them
// biases the tail low, since the requests that waited longest are exactly
// the ones cut off. Its distributions are Kaplan–Meier estimates over the
// in-window successful and cut-off (incomplete) requests; errored requests
// are left out. GuideLLM's fields keep the completed-only figures.
type Censored struct {
	// Confidence is the confidence of the percentiles' intervals.
	Confidence Float `json:"confidence"`
	// TimeToFirstTokenMs: a request cut off before its first token is
	// censored at its elapsed time. RequestLatency (seconds): a request
	// cut off is censored at its elapsed time.
	TimeToFirstTokenMs *CensoredDistribution `json:"time_to_first_token_ms"`
	RequestLatency     *CensoredDistribution `json:"request_latency"`
}

// CensoredDistribution is a Kaplan–Meier estimate of one metric.
type CensoredDistribution struct {
	Events   Int `json:"events"`   // requests whose value is known
	Censored Int `json:"censored"` // requests known only to exceed their elapsed time
	// MaxObserved is the largest time seen, event or censored: a
	// percentile the estimate never reaches (null) is known only to exceed
	// the censored times, this at most.
	MaxObserved Float `json:"max_observed"`
	// Percentiles are the estimate's quantiles at the report's percentile
	// keys (p001 … p999), null where it never reaches them.
	Percentiles map[string]*Float `json:"percentiles"`
	// PercentileCIs are their intervals (Greenwood's band inverted).
	PercentileCIs *PercentileCIs `json:"percentile_cis"`
}

// Percentile returns percentile pct (in percent) and whether the estimate
// reaches it.
func (c *CensoredDistribution) Percentile(pct float64) (float64, bool) {
	if c == nil {
		return 0, false
	}
	for i, p := range PercentileProbs {
		if math.Abs(p*100-pct) <= 1e-9 {
			if v := c.Percentiles[PercentileKeys[i]]; v != nil {
				return float64(*v), true
			}
			return 0, false
		}
	}
	return 0, false
}

// PercentileKeys are the JSON keys of PercentileProbs.
var PercentileKeys = [11]string{"p001", "p01", "p05", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "p999"}

// WindowThroughput is throughput over the measurement window without the
// survivorship bias of counting completed requests only: over a short
// closed-loop window that undercounts capacity by up to streams ÷ window.
type WindowThroughput struct {
	// OutputTokensPerSecond counts every output token that arrived inside
	// the window, from requests finished or not.
	OutputTokensPerSecond Float `json:"output_tokens_per_second"`
	// RequestsPerSecond counts the successful requests that ended inside
	// the window plus, for each request cut off at its end, the share of
	// it done (its output tokens over the successful requests' mean).
	RequestsPerSecond Float `json:"requests_per_second"`
	Completed         Int   `json:"completed"`
	InFlightDone      Float `json:"in_flight_done"` // Σ shares done of the cut-off requests
	WindowSeconds     Float `json:"window_seconds"`
}
