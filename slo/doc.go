// Package slo declares service-level objectives and judges benchmarks
// against them: which requests are good (goodput) and whether a benchmark
// meets the objective (pass or fail, the input of knee searches).
//
// # Spec syntax
//
// A spec (the --slo flag) is a comma-separated list of key=value items:
//
//	ttft_p99=500ms,itl_p95=50ms,error_rate=0.5%
//
// Latency keys are a metric and a statistic joined by "_":
//
//   - metrics: ttft (time to first token), itl (GuideLLM's inter-token
//     latency, (last token − first token) / (output tokens − 1) per
//     request: vLLM's per-request TPOT), tpot (GuideLLM's time per output
//     token, which includes the TTFT), e2e (request latency; also spelled
//     latency or e2el);
//   - statistics: p0.1, p1, p5, p10, p25, p50 (median), p75, p90, p95,
//     p99, p99.9 (GuideLLM's key spellings p001, p01, p05 and p999 are
//     accepted too), mean (avg) and max;
//   - values: Go durations (500ms, 0.5s, 1m30s, 250us) or plain numbers
//     in milliseconds; at least 1ns and at most 24h.
//
// A metric without a statistic (ttft=500ms) is a per-request threshold
// only: it decides which requests are good and is judged through the
// attainment (below). error_rate=0.5% (or 0.005) bounds the errored share
// of the requests; attainment=99% (or 0.99) sets the minimum share of good
// requests explicitly. String gives the canonical form (objectives in a
// fixed order, durations in ms, fractions as percentages), which Parse
// reads back to the same spec.
//
// ParseVLLM reads vLLM's `--goodput ttft:500 tpot:50 e2el:1000` and
// ParseAIPerf AIPerf's `--goodput "time_to_first_token:500
// inter_token_latency:50"`: per-request thresholds in milliseconds. vLLM's
// tpot is its per-request (latency − TTFT) / (output tokens − 1), which
// is GuideLLM's (and goodput's) itl up to where the last interval ends
// (vLLM's last token, against the last token here): it maps to itl.
// AIPerf's inter_token_latency is the same per-request figure (itl), its
// request_latency is e2e, and output_token_throughput_per_user:N (tokens
// per second per user, 1 / ITL) maps to itl=1000/N ms.
//
// Without --slo the default applies (Default): the interactive-chat SLO of
// the reference harness, ttft_p99=500ms,itl_p95=50ms,error_rate=0.5%,
// reported with default=true.
//
// # Good requests and goodput
//
// Each latency metric has at most one per-request threshold: the largest
// value any percentile, max or per-request item gives for it (a mean is not
// a per-request bound and gives none). A request is good when it succeeded
// and each of its values is within its threshold (the DistServe and vLLM
// goodput definition); errored requests are bad; a request cancelled by
// the client at the end of its benchmark is bad only when what was seen
// before the cancellation already breaks a threshold, and otherwise
// undetermined (see RequestThresholds for every rule).
//
// Per benchmark, over the requests of its measurement window (GuideLLM's
// overlap rule): attainment = good / judged requests (undetermined ones
// left out); goodput = good requests / window seconds and good requests'
// output tokens / window seconds; throughput_output_tokens_per_second =
// successful requests' output tokens / window seconds, the same
// arithmetic, for a goodput-to-throughput comparison.
//
// # Judging a benchmark
//
// Percentile, mean and max objectives are judged on goodput's
// distributions of the successful requests in the window
// (Extras.Metrics, "absent means absent": a request without a value is
// left out), not on GuideLLM's zero-filled ones. The itl and tpot
// distributions are GuideLLM's token-weighted ones. error_rate is errored
// / all requests in the window. An objective with no value to measure (no
// successful request with that value) is missing and fails.
//
// A benchmark also holds the SLO only if its goodput matches its
// throughput within what the objectives themselves allow: unless the spec
// sets attainment= explicitly, a spec with per-request thresholds gets an
// implicit objective attainment ≥ 1 − allowance, where the allowance is
// the error budget (error_rate, 0 without one) plus, per metric, the share
// of requests its threshold-giving objective lets exceed the threshold
// (1 − p for a percentile pP, 0 for max and per-request items). The
// default SLO's floor is 1 − (0.01 + 0.05 + 0.005) = 93.5%. A spec of
// per-request thresholds only (vLLM's and AIPerf's forms) therefore passes
// only when every judged request is good, unless attainment= says
// otherwise. Pass is true when every objective passes. This one verdict is
// what knee searches, sweeps and lists use to name the knee.
package slo
