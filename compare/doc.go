// Package compare is goodput's CI gate: it compares a current benchmark
// report against a baseline and says whether performance regressed beyond
// configured thresholds and beyond the run-to-run noise.
//
// Either side may be any report report.Read accepts (goodput, GuideLLM
// v2, v0.5–v0.6, v0.4, v0.2–v0.3).
//
// # Matching
//
// Benchmarks pair up when they have the same strategy type and the same
// load (synchronous; concurrent streams; throughput in-flight cap;
// constant or poisson rate; replay time scale), in order, so repeated
// rounds pair in turn. Rate-driven benchmarks left over pair when their
// rates are within 5% (closest first): GuideLLM's sweep derives its rates
// from a measured throughput, which moves a little between runs. When
// both runs carry a knee (report.RunExtras.Knee: a sweep or knee
// search), the knees are compared too: the knee's load (streams when
// both have them, else req/s) gated by the knee limit, the goodput at the
// knee gated by the goodput limit, and TTFT p99 and ITL p95 at the knee
// for information (at different loads they are not comparable). When
// every round of the current run broke the SLO where the baseline had a
// knee, the knee row is a regression. Knees of runs judged against
// different SLOs are not compared. Nothing to compare (no pair and no
// knees) is an error (ErrNoMatch).
//
// # Rows
//
// Per pair: goodput (output tok/s of requests that met the SLO; goodput
// reports only, and only when both benchmarks were judged against the same
// SLO), throughput (output tok/s: the SLO's window throughput when both
// runs have it, else GuideLLM's mean output token rate on both sides),
// TTFT p50 and p99, ITL p50 and p95 (GuideLLM's per-request ITL,
// token-weighted), request latency p99, all of successful requests, in
// ms, and the error rate (errored / all requests in the window). A row a
// side cannot fill (GuideLLM reports have no goodput) says n/a with the
// reason and is not gated.
//
// # Thresholds
//
// Each metric has a limit (Metrics lists them with their flags and
// defaults): goodput, throughput and knee drops in percent (default 5%,
// 5%, 10%); TTFT p99 and ITL p95 increases in percent or as a duration
// (default 10%); TTFT p50, ITL p50 and latency p99 are off by default;
// the error rate's increase in percentage points (default 0.5pp). A
// limit is crossed when the current run is worse than the baseline by
// strictly more than the limit (a 5% drop with a 5% limit passes).
//
// # Noise
//
// A percentile from a finite run is itself noisy. Where both runs carry
// goodput's lossless HDR histograms (report.Extras.Histograms), each
// run's percentile gets a seeded percentile-bootstrap confidence interval
// (1,000 resamples, 95%): resample the run's requests from its
// histogram's distribution and take the percentile of each resample.
// Because the p-th percentile of n draws is their ⌈p·n⌉-th smallest, and
// the k-th smallest of n draws from a distribution F is F⁻¹ of a
// Beta(k, n−k+1) variate, each resample costs one beta draw, exactly
// (not approximately) the distribution of the resampled percentile. The
// resample size is the number of requests: for the token-weighted ITL
// histogram, the successful requests, not the tokens (a request's tokens
// share one value; counting them as independent would shrink the
// interval falsely).
//
// The bootstrap cannot reach beyond a run's most extreme request, so an
// interval end is open (unbounded) when the run has too few requests
// beyond the percentile to bound it at the chosen confidence: the upper
// end of p99 below 368 requests, of p95 below 72 (p^n > 2.5%). An open
// end overlaps everything on its side: a tail percentile of a short run
// can never be significantly worse or better, which is the honest answer.
//
// A difference counts as significant when the two intervals do not
// overlap. This rule was chosen over a bootstrap of the difference: it is
// conservative (two disjoint 95% intervals correspond to a difference
// significant at about the 0.6% level for similar spreads), which is what
// a gate that blocks merges needs, since a false alarm costs a developer
// an investigation and erodes trust in the gate; it needs no pairing of
// the runs' requests, which are independent; and each run's interval is
// shown in the table, so a reader sees the noise directly.
//
// The rule per row: a crossed limit is a regression (exit 1) when the
// difference is significant in the bad direction, or when no noise
// estimate exists for the row (throughput, goodput, error rate, knee, or
// a side without histograms: the threshold alone decides); otherwise it
// is "within noise" and does not fail the gate, unless Options.Strict
// (--strict), under which every crossing fails. An improvement beyond the
// limit (and beyond the noise where estimated) is reported as improved.
//
// The intervals capture the sampling noise of each run's percentile
// under the assumption that requests are independent. They do not
// capture systematic run-to-run variation (server warm state, co-tenant
// load, autocorrelated latencies under queueing), so they are a lower
// bound on the real noise: the thresholds stay the primary guard, and a
// noisy environment wants repeated baselines.
//
// # Output
//
// Result.WriteText (console), WriteMarkdown (pull-request comments) and
// WriteJSON (machine-readable verdict) render the same rows; the output
// depends only on the reports and the options (the bootstrap is seeded
// per row), so it can be checked into golden files.
package compare
