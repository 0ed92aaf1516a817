// Package scorecard measures the three axes of goodput's scorecard — cost,
// energy and performance — in the same time window as the load, writes
// the scorecard file, and compares runs on a Pareto frontier.
//
// # During a run
//
//	tel, err := scorecard.Open(ctx, cfg, target) // probes every source; fails before the load
//	defer tel.Close()
//	obs := tel.Observer(progress, engine.Clock().Time) // a sweep.Observer; forwards to progress
//	runner.Observer = obs
//	rounds, err := runner.Run(ctx, planner)
//	obs.Finish(finishCtx) // writes goodput.telemetry into every benchmark
//	card, err := scorecard.Build(rep)
//	card.Write(w) // scorecard-<run-id>.json beside the report
//
// Sources (Config): dcgm-exporter URLs and NVML sampled directly
// (telemetry.GPUSampler), a Prometheus server holding dcgm-exporter (and
// Kepler) series, the inference server's /metrics (telemetry.ServerSampler),
// OpenCost's allocation API or a fixed price per GPU-hour. Open probes each
// one within Config.ProbeTimeout: an unreachable source, or one without the
// metrics it must serve, is an error naming it and the metric, before any
// load is sent — unless Config.Optional, when it is listed under
// goodput.telemetry.missing and the run goes on. The server's /metrics is
// scraped by default when it serves vLLM or SGLang metrics (ServerMetricsAuto);
// when it does not, that is noted, not an error.
//
// # Windows
//
// Each benchmark's figures cover its measurement window,
// scheduler_metrics.measure_start_time to measure_end_time (after warmup,
// before cooldown), or the round's start to end when the report has none.
// The energy is the change of the GPUs' energy counters over that window
// (interpolated at both edges from the samples around them), or the
// integral of power when a counter is absent; the sampler takes a reading
// at every round edge, and each window waits (at most Config.Wait) for a
// reading after its end, in the background, so that the wait overlaps the
// next round. The tokens are the client's own, counted at the instant each
// token-bearing chunk arrived and summed over exactly the same window (see
// tokens.go), so that J/token shares its window with the energy.
//
// # Figures
//
//	Wh/token          = energy J / 3600 / output tokens in the window
//	J/token           = energy J / output tokens
//	PUE-adjusted      = Wh/token × PUE (default 1: GPU energy only)
//	gCO2 per 1M tok   = Wh/token × 10^6 / 1000 × PUE × grid gCO2/kWh
//	CPM               = cost/h × 10^6 / (goodput tok/s × 3600)
//	window cost       = cost/h × window s / 3600
//	cost per request  = window cost / successful requests ended in the window
//
// Goodput is the benchmark's SLO result (goodput.slo) when it has one,
// else the throughput; the scorecard says which (goodput_basis, cpm_basis).
//
// # The scorecard file
//
// scorecard-<run-id>.json holds the run's row at the top level, in the
// article's layout (run_id, metadata, performance, cost, energy, carbon),
// and one such row per round under "rounds". The run's row is the knee
// round when the run found a knee, else the best passing round (see
// Build). A block is null when its axis was not measured, with the reason
// in metadata.missing_axes. Read and Decode accept hand-written files in
// the same layout leniently.
//
// # Aggregating runs
//
// Collect gathers the scorecards (or reports) of many runs, WriteCSV
// flattens them into one row each, and Frontier places the runs that meet
// their SLO on the Pareto frontier over (CPM, Wh/token, TTFT P99), all
// minimised: run i dominates run j when it is no worse on all three axes
// and better on at least one. A run that breaks the SLO, or lacks an axis,
// is off the frontier with the reason.
package scorecard
