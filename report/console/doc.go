// Package console prints a report's console summary: console.Write(w, rep)
// writes the per-benchmark tables (requests, latencies, throughput,
// goodput's extras and, with an SLO, its verdict table) and the knee.
package console
