// Package mock is goodput's built-in mock of a vLLM OpenAI-compatible server.
//
// It backs `goodput mock`, `make demo`, local load, tests and benchmarks. It
// serves POST /v1/chat/completions and POST /v1/completions (streaming SSE and
// non-streaming JSON, in vLLM's shapes), GET /v1/models, GET /health,
// GET /version and GET /metrics (Prometheus text exposition with vLLM's metric
// names and bucket boundaries, counting what the mock actually did).
//
// # Latency model
//
// Each accepted completion request is given a sequence number k (0, 1, 2, ...
// in arrival order). Everything random about request k (its time to first
// token, its inter-token gaps, its natural output length, whether and where a
// fault is injected, its response id) is drawn from a PCG generator seeded
// with (Config.Seed, k) in a fixed order, so a run is reproducible: the same
// seed and the same request k give the same parameters whatever the
// concurrency.
//
// Output is produced in steps (one SSE chunk per step, Config.TokensPerChunk
// tokens per step, the last step possibly shorter). Step 0 is due at
// arrival + TTFT; step j > 0 is due at arrival + TTFT + gap_1 + ... + gap_j,
// each gap drawn from N(ITL, ITLStdev) and clamped at 0. Deadlines are
// absolute: lateness in writing one chunk never delays the next one, so there
// is no drift. When several steps are already due they are rendered together
// and written with a single write and flush.
//
// Lateness itself is the Go runtime's timer precision: on Linux a process
// with idle CPUs wakes timers up to about 1 ms late (the runtime's netpoller
// sleeps in whole milliseconds), more on a saturated machine. The emission
// stamps record what actually happened.
//
// The question "when is step i of this request due?" is answered by a small
// internal interface (tokenSchedule); today's implementation is the
// independent per-request model above, and a continuous-batching capacity
// model can replace it.
//
// # Emission stamps
//
// With Config.Stamp on (the default), every JSON payload the mock writes
// (each SSE chunk, the usage chunk, a mid-stream error payload and the
// non-streaming body) carries an extra top-level integer field
// "goodput_emit_ns": wall-clock Unix nanoseconds read once per write, after the
// mock has decided which steps are due and immediately before it renders and
// writes them. All chunks written by that one write (and flush) carry the same
// stamp; each write reads the clock anew. One write carries at most 256 steps.
//
// # Output text
//
// Token texts are common English words with a leading space (" the", " of",
// ...); common BPE tokenizers encode each as a single token, so re-tokenizing
// the output gives back (approximately, not guaranteed) the token count the
// mock reported.
//
// # Faults
//
// Config.ErrorRate, DisconnectRate, StallRate and StreamErrorRate inject, per
// request and reproducibly, an HTTP error before any stream byte, an abrupt
// connection close mid-stream, a pause mid-stream, or a vLLM-style
// `data: {"error": ...}` payload mid-stream. See Config for the details.
package mock
