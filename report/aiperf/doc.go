// Package aiperf writes and reads AIPerf's profile_export_aiperf files
// (JSON and CSV), one Export per benchmark, as AIPerf writes one per
// profile run:
//
//   - FromRecords, FromJSONL and Builder compute the export from the
//     per-request records, AIPerf's way (exact up to Options.ExactCap);
//   - FromReport derives it from a report's summaries alone (no records);
//   - Read loads an export, goodput's or AIPerf's own.
//
// README.md documents every metric and where goodput's figures differ.
package aiperf
