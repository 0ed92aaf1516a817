// Package loadgen is goodput's load engine: a streaming HTTP client for
// OpenAI chat and text completions, the OpenAI Responses API and Anthropic
// Messages (ClientConfig.Endpoint; Path overrides the path) that stamps
// every request phase on a monotonic clock, and a
// scheduler that drives it with a load strategy (synchronous, concurrent,
// throughput, constant, poisson, replay, user_centric) under stop
// constraints.
//
// The engine produces one record.Record per request and hands it to a
// channel; what happens to records (files, reports, live progress) is the
// caller's business. The per-token path allocates nothing in steady state:
// each in-flight request owns a reusable read buffer, SSE parser and chunk
// decoder, and chunk payloads are decoded by the sse package's scanner.
//
// Response arrival times (headers, every chunk, the end of a stream) are
// the kernel's receive timestamps of the bytes on Linux over HTTP/1.1,
// converted to the run clock, so the client's own scheduling delays are
// not counted as server latency; see rxstamp.go.
//
// Open-loop strategies (constant, poisson, replay) never wait for responses
// to schedule the next request: every record carries the intended send time
// next to the actual dispatch time, so latency can also be measured from the
// schedule (no coordinated omission) and dispatch lateness is visible. A
// Pacer computes the schedule; arrival.go shapes it: gamma gaps (a
// burstiness), linear and exponential ramps, a piecewise rate series, and
// the start times of ramped closed-loop streams (Strategy.StreamStart).
// Closed-loop streams back off exponentially after consecutive immediate
// failures (a non-2xx status, a refused connection), so a full server is
// measured rather than flooded; Result counts the pauses.
//
// A Source that is also a SessionSource runs conversations (session.go):
// each session's turns in order, the next after the last ended plus its
// think time, with the history, streamed replies and tool calls. The
// user-centric rate (user_centric.go) paces N users' turns N/R apart, each
// turn's slot recorded as its intended send time.
//
// Enter with NewClient (a ClientConfig and NewClock), NewEngine, then
// Engine.Run(ctx, Benchmark{Strategy, Constraints, Source}, out) per benchmark.
package loadgen
