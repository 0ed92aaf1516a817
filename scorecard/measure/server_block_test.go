package measure

import (
	"math"
	"testing"

	"github.com/goodput-dev/goodput/telemetry"
)

// TestServerBlockEngines: prefix cache hit rate, speculative decoding
// acceptance, the request phases and the replica count reach the report;
// what the server does not expose stays out.
func TestServerBlockEngines(t *testing.T) {
	nan := math.NaN()
	lat := func(metric string, mean float64) telemetry.Latency {
		return telemetry.Latency{Metric: metric, Count: 10, MeanS: mean, P50: mean, P95: mean, P99: mean}
	}
	none := telemetry.Latency{Count: nan, MeanS: nan, P50: nan, P95: nan, P99: nan}
	w := &telemetry.ServerWindow{Engine: "vllm", Replicas: 2, Metrics: map[string]string{},
		KVCacheUsage: telemetry.Stat{Mean: 0.5, Max: 0.6}, Requests: 10, PrefixCacheQueries: 4000, PrefixCacheHits: 1000,
		SpecAccepted: 300, SpecDraft: 400, Preemptions: nan, PromptTokens: 100, GenerationTokens: 200,
		TTFT: lat("vllm:time_to_first_token_seconds", 0.2), ITL: none, E2E: none, QueueTime: lat("vllm:request_queue_time_seconds", 0.05),
		InferenceTime: none, PrefillTime: none, DecodeTime: none, IterationTokens: lat("vllm:iteration_tokens_total", 12)}
	s := serverBlock(w, nil)
	if s.Replicas != 2 || fval(s.RequestsSucceeded) != 10 || s.PrefixCache == nil || fval(s.PrefixCache.HitRate) != 0.25 ||
		s.SpecDecode == nil || fval(s.SpecDecode.AcceptanceRate) != 0.75 {
		t.Errorf("server block %+v prefix %+v spec %+v", s, s.PrefixCache, s.SpecDecode)
	}
	if s.QueueTime == nil || fval(s.QueueTime.ServerMeanMs) != 50 || s.PrefillTime != nil || s.IterationTokens == nil || fval(s.IterationTokens.Mean) != 12 {
		t.Errorf("phases queue %+v prefill %+v iteration %+v", s.QueueTime, s.PrefillTime, s.IterationTokens)
	}
	w.PrefixCacheQueries, w.SpecDraft, w.Replicas = nan, nan, 1
	if s := serverBlock(w, nil); s.PrefixCache != nil || s.SpecDecode != nil || s.Replicas != 0 {
		t.Errorf("absent figures reported: %+v %+v %d", s.PrefixCache, s.SpecDecode, s.Replicas)
	}
}
