// Package slo is goodput's one home for service-level objectives: it
// parses every accepted spelling, judges each request and each benchmark,
// and prints the verdicts.
//
//   - Parse reads goodput's --slo ("ttft_p99=500ms,itl_p95=50ms,error_rate=0.5%");
//     ParseAIPerfGoodput AIPerf's --goodput ("time_to_first_token:500
//     inter_token_latency:50"), whose pairs the AIPerf export judges and
//     AIPerfSpec turns into a Spec. Default is the SLO used without --slo;
//     FromResult reads back the spec a report's verdict was judged against.
//   - Spec.Thresholds gives the per-request RequestThresholds;
//     RequestThresholds.Judge gives a request's Verdict (good, bad or
//     undetermined), which report/accum applies to every request it adds.
//   - Spec.Judge judges a finished benchmark given its good-request counts
//     and returns the report.SLOResult that report/accum stores.
//   - Table and KneeSummary render the verdicts for the console summary.
//
// README.md gives the spec syntax, the definition of a good request and of
// goodput, and how a benchmark is judged.
package slo
