// Package compare is goodput's CI gate: it compares a current benchmark
// report against a baseline and says whether performance regressed beyond
// configured thresholds and beyond the run-to-run noise.
//
// Enter with Compare(baseline, current, baseName, curName, Options): either
// side may be any report report.Read accepts (goodput, GuideLLM v2,
// v0.5–v0.6, v0.4, v0.2–v0.3). It pairs the benchmarks by strategy and
// load (and the knees of sweeps), builds one row per gated metric (Metrics
// lists them with their flags and default limits; ParseLimit reads a
// limit) and judges each row: a crossed limit is a regression when the
// difference is significant, i.e. the two runs' bootstrap confidence
// intervals do not overlap, or when no noise estimate exists; otherwise it
// is "within noise" unless Options.Strict. Nothing to compare is
// ErrNoMatch.
//
// The Result renders as text (WriteText), Markdown for pull-request
// comments (WriteMarkdown) or JSON (WriteJSON); the output depends only on
// the reports and the options, so it can be checked into golden files.
//
// README.md beside this file describes the matching, each row, the
// thresholds and the noise model (the bootstrap, open interval ends and
// why intervals must not overlap).
package compare
