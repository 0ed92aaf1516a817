// Package accum builds one report.Benchmark (one rate, one sweep step)
// from goodput's per-request records:
//
//	acc, err := accum.New(accum.Config{
//		Warmup: warm, Cooldown: cool,  // report.ParseTransientPhase("30s"), ("10%"), ("100r") …
//		Constraints: cons, Start: schedulerStart, SLO: spec,
//	})
//	for each completed request: acc.Add(rec) // one goroutine; rec may be reused afterwards
//	b := acc.Finish(accum.BenchmarkInfo{…})  // strategy, times, scheduler counters, stop reason
//
// Every GuideLLM figure uses GuideLLM's own definitions (the overlap rule
// for warmup and cooldown, zero-filling of missing values); goodput's own
// figures leave a missing value out, keep every inter-chunk gap and add
// schedule-anchored latencies and HDR histograms.
//
// Add keeps a 72-byte summary per request plus HDR histograms; up to
// Config.ExactCap requests (default DefaultExactCap) every distribution is
// exact (exact.go). Beyond it, distributions come from the histograms and
// time bins (binned.go) and the benchmark's goodput.exact is false with the
// reasons; token rates are exact up to Config.TokenEventCap token events
// (default DefaultTokenEventCap).
package accum
