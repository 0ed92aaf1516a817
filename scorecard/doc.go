// Package scorecard is goodput's scorecard file: the run's row of cost,
// energy and performance, built from a finished report (Build), written
// and read back (Write, Read, Decode), and compared across runs on a
// Pareto frontier. It knows nothing of how the figures were measured: the
// live measurement during a run is package scorecard/measure, which writes
// them into the report's goodput.telemetry.
//
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
