// Package report turns goodput's per-request records into benchmark
// reports: GuideLLM's report v2 JSON (metadata.version 2, as GuideLLM
// v0.7.3 writes and loads it) with goodput's own figures under "goodput"
// keys, GuideLLM's CSV layout, and a console summary.
//
// # Pipeline
//
// One Accumulator per benchmark (one rate, one sweep step):
//
//	acc, err := accum.New(accum.Config{
//		Warmup: warm, Cooldown: cool,            // ParseTransientPhase("30s"), ("10%"), ("100r") …
//		Constraints: []report.Constraint{{Kind: report.ConstraintMaxDuration, Seconds: 120}},
//		Start: schedulerStart,                   // Unix ns
//	})
//	for each completed request: acc.Add(rec)     // one goroutine; rec may be reused afterwards
//	b := acc.Finish(accum.BenchmarkInfo{…})     // strategy, times, scheduler counters, stop reason
//	rep := report.NewReport(version, scenario, b1, b2, …)
//	rep.WriteJSON(w); report.WriteCSV(w, rep); console.Write(w, rep)
//
// Read (and Decode) load goodput's JSON, GuideLLM v2, GuideLLM v0.5–v0.6
// (metadata.version 1), v0.4 ({args, benchmarks}) and the v0.2–v0.3
// layout into the same model; a goodput report written, read and written
// again is byte-identical.
//
// # Numbers
//
// Every GuideLLM field is computed with GuideLLM's own definitions
// (GenerativeRequestStats, GenerativeMetrics.compile, statistics.py):
// weighted empirical-CDF percentiles without interpolation, population
// variance, token-weighted TPOT and ITL, duration-weighted rate
// distributions over locally merged events (0.1 ms), time-weighted
// concurrency, the overlap rule for warmup and cooldown, and GuideLLM's
// zero-filling of missing values. FromValues, RateDistribution and
// ConcurrencyDistribution expose the statistics; they match a numpy
// re-implementation of GuideLLM's statistics.py bit for bit
// (testdata/guidellm_oracle.json).
//
// goodput's own figures (under "goodput") fix what GuideLLM's hide: a
// request without a value is left out instead of counted as 0, every
// inter-chunk gap is kept (not just the per-request average),
// schedule-anchored latencies and dispatch lateness expose coordinated
// omission, and lossless HDR histograms allow merging runs and shards.
//
// # Memory and exactness
//
// Add keeps a summary of 72 bytes per request plus HDR histograms (about
// 10 MB); up to Config.ExactCap requests (default 1,000,000) every
// distribution is exact. Beyond it, distributions come from histograms and
// time bins, and the benchmark's goodput.exact is false with the reasons.
// The token rate distributions are exact up to Config.TokenEventCap token
// events (default 1,000,000). Finish needs about 36 more bytes per
// in-window request while it runs, then frees the summaries.
//
// README.md lists every deviation from GuideLLM and every goodput key.
package report
