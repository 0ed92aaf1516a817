// Package cli turns goodput's command lines into a run.Config: goodput
// benchmark (GuideLLM's v0.6 flags), goodput run and --config (GuideLLM
// v0.7's options and scenarios), goodput profile (AIPerf's flags and
// YAML). Enter at Benchmark or Profile. Each option group has its own
// file (sweep.go, shard.go, telemetry.go, quality.go, profile_loads.go, …);
// env.go holds the exit codes and usage errors every command shares.
package cli
