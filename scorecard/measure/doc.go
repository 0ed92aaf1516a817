// Package measure measures the three axes of goodput's scorecard (cost,
// energy and the server's own figures) in the same time windows as the
// load, and writes them into each benchmark's goodput.telemetry; package
// scorecard then builds the scorecard file from the report.
//
// Open probes every source in Config before any load is sent (an
// unreachable source is an error naming it, unless Config.Optional), and
// its Observer records the rounds' windows:
//
//	tel, err := measure.Open(ctx, cfg, target) // probes every source; fails before the load
//	defer tel.Close()
//	obs := tel.Observer(progress, engine.Clock().Time) // a sweep.Observer; forwards to progress
//	runner.Observer = obs
//	rounds, err := runner.Run(ctx, planner)
//	obs.Finish(finishCtx) // writes goodput.telemetry into every benchmark
//	card, err := scorecard.Build(rep)
//
// ../README.md describes the sources, the measurement windows and the
// formulas of every figure.
package measure
