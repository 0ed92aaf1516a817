// Package mock is goodput's built-in mock of a vLLM OpenAI-compatible server.
//
// It backs `goodput mock`, `make demo`, local load, tests and benchmarks. It
// serves POST /v1/chat/completions and POST /v1/completions (streaming SSE and
// non-streaming JSON, in vLLM's shapes), POST /v1/responses and
// POST /v1/messages (OpenAI Responses and Anthropic Messages, as their
// documentation shows them), GET /v1/models, GET /health,
// GET /version, GET /metrics (vLLM's metric names, counting what the mock
// actually did) and GET /dcgm/metrics (a DCGM exporter exposition of
// simulated GPUs whose energy is known exactly: Server.EnergyJ).
//
// Enter with DefaultConfig and New, then Start (or mount Handler):
//
//	cfg := mock.DefaultConfig()
//	if m, err := mock.Preset("tiny"); err == nil { // optional: latencies that grow with load
//		cfg.Capacity = &m
//	}
//	srv, err := mock.New(cfg)
//	err = srv.Start("127.0.0.1:0")
//	defer srv.Close()
//	base := srv.URL()
//
// Two latency models exist: the default draws each request's TTFT, gaps,
// output length and faults from a generator seeded by (Config.Seed, arrival
// index), so runs are reproducible; with Config.Capacity a simulated
// continuous-batching engine sets the latencies, and CapacityModel.Capacity
// predicts its knee analytically. A prefix cache spares cached prompt
// blocks their prefill; /v1/responses keeps responses for
// previous_response_id; tools get tool calls. Fault rates, NoAbort,
// MetricsErrorRate, LazyMetrics and ChatTemplateTokens play real servers'
// failures and habits; Config.Personality plays llama.cpp's or Ollama's
// server where it differs from vLLM. Payloads carry an emission stamp (goodput_emit_ns).
//
// README.md beside this file describes both latency models, the presets and
// their knees, the prefix cache, stored responses and tool calls, the
// simulated GPU telemetry, the stamps, the faults and the real servers'
// habits.
package mock
