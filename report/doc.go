// Package report is goodput's benchmark report file: GuideLLM's report
// v2 model (metadata.version 2, as GuideLLM v0.7.3 writes and loads it)
// with goodput's own figures under "goodput" keys, the readers of every
// GuideLLM layout, and the JSON and CSV writers.
//
//	rep, err := report.Read(path)               // goodput, GuideLLM v2, v0.5–v0.6, v0.4, v0.2–v0.3
//	rep := report.NewReport(version, scenario, b1, b2, …)
//	rep.WriteJSON(w); report.WriteCSV(w, rep)
//
// A goodput report written, read and written again is byte-identical.
// report imports none of its subpackages, which do the other jobs:
//
//   - report/accum builds a Benchmark from per-request records
//     (accum.New(cfg), Add, Finish);
//   - report/stats computes GuideLLM's distributions and goodput's HDR
//     histograms;
//   - report/console prints the console summary (console.Write);
//   - report/merge merges sharded runs (merge.Shards);
//   - report/aiperf exports and reads AIPerf's profile_export_aiperf files.
//
// README.md lists how every GuideLLM field is computed, every deviation
// from GuideLLM and every goodput key.
package report
