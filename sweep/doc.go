// Package sweep runs a series of benchmarks — a list of rates or
// concurrencies, GuideLLM's sweep, or a search for the knee — and turns each
// into a report benchmark. A Planner decides the next round from the rounds
// so far; the Runner executes rounds with the load engine and streams every
// record to the JSON Lines file, the report accumulator and any observer.
//
// Enter with a Planner (List, GuideLLMSweep or KneeSearch) and a Runner
// holding the loadgen.Engine, then Runner.Run(ctx, planner); FindKnee reads
// the knee off the finished rounds. Multi-pod runs split a List with
// NewShardPlan and run their part with Runner.RunShard. A Runner with a
// Drain first waits for the server to finish what earlier rounds left, and
// knee and sweep verdicts leave out a round that started busy.
package sweep
