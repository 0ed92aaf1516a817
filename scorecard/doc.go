// Package scorecard measures the three axes of goodput's scorecard (cost,
// energy and performance) in the same time windows as the load, writes the
// scorecard file, and compares runs on a Pareto frontier.
//
// During a run, Open probes every source in Config before any load is sent
// (an unreachable source is an error naming it, unless Config.Optional),
// and its Observer records the rounds' windows; Build then turns the report
// into a File:
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
// Across runs, Collect gathers scorecards (or reports), WriteCSV flattens
// them one row each, and Frontier places the runs that meet their SLO on
// the Pareto frontier over (CPM, Wh/token, TTFT P99).
//
// README.md beside this file describes the sources, the measurement
// windows, the formulas of every figure and the file layout.
package scorecard
