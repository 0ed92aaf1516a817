// Package loadgen is goodput's load engine: a streaming HTTP client for
// every request type (ClientConfig.Endpoint; Path overrides the path) that
// stamps each request phase on a monotonic clock, and a scheduler that
// drives it with a strategy (synchronous, concurrent, throughput, constant,
// poisson, replay, user_centric) under stop constraints.
//
// The engine hands one record.Record per request to a channel; what
// happens to records is the caller's business. The per-token path
// allocates nothing in steady state: each stream keeps its SSE parser and
// takes a read buffer and a decoded chunk from pools only while bytes
// wait to be parsed, and its goroutine fits a 4 KB stack (see Client.Do),
// so a stream waiting for its next token costs about 9 KB. Requests go
// out through goodput's own HTTP/1.1 client (h1.go: no goroutine per
// connection) or net/http (for HTTP/2 and proxies), chosen per target
// (ClientConfig.HTTPClient). One watchdog timer per request enforces its
// timeout and stall timeout (watchdog.go).
// Arrival times are the kernel's receive timestamps on Linux over
// HTTP/1.1 (rxstamp.go), so the client's own scheduling delays are not
// counted as server latency.
//
// Open-loop strategies never wait for responses: every record carries its
// intended send time beside its dispatch, so latency is also measured
// from the schedule (no coordinated omission). A Pacer computes the
// schedule and arrival.go shapes it (gamma gaps, ramps, a rate series).
// Closed-loop streams back off after consecutive immediate failures.
//
// A Source that is also a SessionSource runs conversations (session.go):
// turns in order with their history, think time, streamed replies and tool
// calls; user_centric.go paces N users' turns N/R apart.
//
// Enter with NewClient (a ClientConfig and NewClock), NewEngine, then
// Engine.Run(ctx, Benchmark{Strategy, Constraints, Source}, out) per benchmark.
package loadgen
