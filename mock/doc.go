// Package mock is goodput's built-in mock of a vLLM OpenAI-compatible server.
//
// It backs `goodput mock`, `make demo`, local load, tests and benchmarks. It
// serves POST /v1/chat/completions and POST /v1/completions (streaming SSE and
// non-streaming JSON, in vLLM's shapes), GET /v1/models, GET /health,
// GET /version, GET /metrics (Prometheus text exposition with vLLM's metric
// names and bucket boundaries, counting what the mock actually did) and
// GET /dcgm/metrics (a DCGM exporter exposition of simulated GPUs; see
// "GPU telemetry").
//
// Two latency models are available: the independent per-request model
// (the default, below) and, with Config.Capacity, a continuous-batching
// capacity model whose latencies come from a simulated engine and so grow
// with load (see "Capacity model").
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
// internal interface (tokenSchedule), implemented by the independent model
// above and by the capacity model below.
//
// # Capacity model
//
// With Config.Capacity set, the mock simulates a vLLM-like engine (TTFT,
// TTFTStdev, ITL and ITLStdev are then unused; output lengths, faults,
// usage, stamps and /metrics work as before). One engine goroutine advances
// in steps on absolute times of the monotonic clock:
//
//   - MaxNumSeqs slots. A request joins a FIFO waiting queue at the first
//     step boundary after it arrives (at once if the engine is idle) and is
//     admitted while a slot and token budget remain.
//   - Each step has a budget of MaxNumBatchedTokens tokens: every decoding
//     sequence takes one, then prompts still being prefilled take chunks of
//     the rest in admission order, then newly admitted prompts (chunked
//     prefill). A prompt longer than what is left is prefilled over several
//     steps. A prompt counts at least one token.
//   - A step lasts StepBase + StepPerSeq × (decoding sequences) +
//     PrefillPerToken × (prefill tokens in the step).
//   - A sequence whose prefill completes in a step emits its first chunk at
//     that step's end; every decoding sequence emits one chunk
//     (Config.TokensPerChunk tokens) at the end of every step, until its
//     output length. Its slot is free for the next step.
//   - The engine publishes a step's end time when it composes the step (its
//     duration is fixed then); each stream sleeps to that absolute deadline
//     on its own timer. Deadlines never depend on when anything was
//     written, so nothing drifts. The engine does no per-token locking: a
//     request's chunk i is simply engine step first+i.
//
// So TTFT grows with queueing and prefill interference, ITL with the batch
// size and the prefills sharing its steps, and the knee is a property of the
// parameters. In /metrics, vllm:num_requests_running counts the sequences in
// the batch, vllm:num_requests_waiting the queue, and
// vllm:kv_cache_usage_perc the prefilled prompt and generated tokens of the
// running sequences over Config.KVCacheTokens. The engine does not model
// KV-cache exhaustion: nothing is preempted and
// vllm:num_preemptions_total stays 0.
//
// Faults compose with the engine: an injected HTTP error is answered before
// admission (the engine never sees the request); a disconnect or an
// injected stream error ends the request and frees its slot (or queue
// place) at the next step boundary, as do a client going away and Close. A
// stall is a stall of delivery: the engine keeps generating the sequence in
// its batch (its slot is held until its last step, and the batch and the
// other streams are unaffected), while the stalled stream writes step p and
// later StallDuration late, like a network or API-server hiccup.
//
// CapacityModel.Capacity computes the same engine's steady state from its
// equations: the highest closed-loop concurrency and the highest constant
// arrival rate meeting an SLO, with the TTFT, ITL and throughput there (see
// analysis.go for the derivation and its stated assumptions).
//
// # Presets
//
// Preset(name) returns a named model; PresetNames lists them. Knees are
// Capacity's, under InteractiveSLO (TTFT P99 < 500 ms, ITL P95 < 50 ms),
// with fixed prompt and output lengths (PresetWorkload returns each
// preset's):
//
//	preset       slots  budget  StepBase  StepPerSeq  PrefillPerToken  GPUs
//	70b-8xh100   12     8192    2.4ms     50µs        10µs             8 × H100 (115 W idle, 21 W/seq, 700 W cap)
//	8b-1xh100    256    8192    6ms       50µs        8µs              1 × H100 (90 W idle, 6 W/seq, 700 W cap)
//	tiny         8      512     5ms       500µs       20µs             1 × L4 (16 W idle, 8 W/seq, 72 W cap)
//
//	preset       workload    saturates at         closed-loop knee             open-loop knee
//	70b-8xh100   1024 / 256  N=12, 3,441 tok/s    N=17, 3,451 tok/s, TTFT-bound  13.48 req/s = 3,451 tok/s (saturation)
//	8b-1xh100    1024 / 256  N=256, 9,494 tok/s   N=272, 9,502 tok/s, TTFT-bound 37.12 req/s = 9,502 tok/s (saturation)
//	tiny         256 / 128   N=8, 858 tok/s       N=10, 861 tok/s, TTFT-bound    6.73 req/s = 861 tok/s (saturation)
//
// 70b-8xh100 reproduces the illustrative 70B-on-8×H100 sweep of the
// harness articles (throughput rising to about 3,400 tok/s at concurrency 16,
// TTFT P99 breaking 500 ms between 16 and 24): a sweep over 8/16/24/32
// streams passes at 16 (TTFT P99 ≈ 384 ms) and fails at 24 (≈ 978 ms). Its 12 slots are
// far below vLLM's default --max-num-seqs; they stand in for whatever caps a
// real deployment's batch, chosen so the knee lands there, and its step
// times are those of an optimistic FP8 deployment (about 4.7 ms per token
// per stream at the knee). Its GPUs draw about 370 W each at 12 running
// sequences: about 0.85 J per output token at saturation, 2.7 J at one
// stream. 8b-1xh100 has vLLM's default 256 slots; its ITL P95 at 256
// streams is 27 ms (35 ms when prefills cluster), so it too is TTFT-bound,
// just past 256 streams. tiny reaches
// its knee within a few seconds at about 7 requests/s of 256/128 (the
// `make demo` shape), for fast tests and demos.
//
// Beyond the saturating concurrency, the closed loop's mean TTFT is exact
// (Little's law) but its P99 depends on how evenly the requests' phases
// are spread over the slots, which a ramp-up sets and fixed-length requests
// keep: Capacity predicts mean + one slot turnover; streams all started at
// the same instant move in lock-step waves whose P99 is about one whole slot
// period (the knee then falls to the saturating concurrency), while a
// ramp-up over about one request duration stays within a quarter of it.
//
// # GPU telemetry
//
// GET /dcgm/metrics (and GET /metrics on Config.DCGMAddr, like
// dcgm-exporter's :9400) serves a DCGM exporter exposition for Config.GPUs
// simulated GPUs (default: the capacity model's, else 1), with
// dcgm-exporter's metric names, HELP and TYPE lines, value formats and label
// set (gpu, UUID, pci_bus_id, device, modelName, Hostname,
// DCGM_FI_DRIVER_VERSION; Hostname spelled as in releases up to 4.5.x,
// value DCGMHostname): DCGM_FI_DEV_SM_CLOCK, DCGM_FI_DEV_MEM_CLOCK,
// DCGM_FI_DEV_MEMORY_TEMP, DCGM_FI_DEV_GPU_TEMP, DCGM_FI_DEV_POWER_USAGE (W),
// DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION (mJ counter), DCGM_FI_DEV_GPU_UTIL,
// DCGM_FI_DEV_FB_FREE and DCGM_FI_DEV_FB_USED. The PCIe, XID, NVLink,
// encoder/decoder and vGPU fields of the default counters are not served.
// UUIDs derive from Config.Seed.
//
// Power per GPU is min(MaxWatts, IdleWatts + WattsPerSeq × running) times a
// fixed per-GPU factor in [0.97, 1], where running is the number of
// sequences in the engine's batch (or, without a capacity model, admitted
// requests not yet ended); it changes only when running does, and the
// energy counter is its exact integral since New (plus a per-GPU boot
// offset of about 1 kWh, standing for the energy since the driver loaded).
// Server.EnergyJ(t) returns that ground truth in joules, summed over the
// GPUs. Like dcgm-exporter's collect interval (30 s by default there), the
// exposition changes only every Config.DCGMUpdateInterval: every value is
// the state at the last multiple of the interval since New, the energy
// counter its exact value then (floored to the mJ), power and utilisation
// (percent of the time with something running) their means over the
// min(1 s, interval) before it. Temperatures follow power (30 °C plus 45 °C
// at MaxWatts); memory is 90% used, as vLLM preallocates it.
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
