package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/clitest"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/dataset"
	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/run"
	"github.com/goodput-dev/goodput/scorecard/measure"
	"github.com/goodput-dev/goodput/slo"
	"github.com/goodput-dev/goodput/sweep"
)

// profileSetup parses a profile command line as `goodput profile` does,
// without running it.
type profileSetup struct {
	po  *profileOptions
	p   *draft
	cfg *run.Config
	lay *profileLayout
}

func setupProfile(t *testing.T, args ...string) (profileSetup, error) {
	t.Helper()
	base := []string{"--url", "127.0.0.1:1", "--model", "m", "--ui-type", "none"}
	if !slices.Contains(args, "--output") {
		base = append(base, "--artifact-dir", t.TempDir())
	}
	var po profileOptions
	var errb bytes.Buffer
	p, lay, _, err := po.setup(&Env{Stdout: &errb, Stderr: &errb, Getenv: func(string) string { return "" }}, append(base, args...))
	if err != nil {
		return profileSetup{}, err
	}
	return profileSetup{&po, p, p.runConfig(), lay}, nil
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func rounds(s profileSetup) sweep.List {
	l, _ := s.cfg.Plan.Planner.(sweep.List)
	return l
}

// TestAIPerfFlagsReachTheConfiguration feeds every accepted AIPerf flag of
// the table its documented form and checks the value reaches the run's
// configuration.
func TestAIPerfFlagsReachTheConfiguration(t *testing.T) {
	trace := writeFile(t, "trace.jsonl", `{"timestamp": 0, "input_length": 12, "output_length": 4, "hash_ids": [1]}
{"timestamp": 500, "input_length": 600, "output_length": 6, "hash_ids": [1, 2]}
`)
	prompts := writeFile(t, "prompts.jsonl", `{"text": "What is machine learning?"}
{"text": "Explain GANs."}
`)
	series := writeFile(t, "series.json", `{"points":[{"time_s":0,"qps":2},{"time_s":10,"qps":4}]}`)
	config := writeFile(t, "benchmark.yaml", `# AIPerf's YAML config tutorial's example
schemaVersion: "2.0"
randomSeed: 9
benchmark:
  model: meta-llama/Llama-3.1-8B-Instruct
  endpoint:
    url: http://localhost:8000
    type: chat
    streaming: true
  dataset:
    type: synthetic
    entries: 500
    prompts: {isl: {mean: 512, stddev: 16}, osl: 128}
  phases:
    - {name: warmup, type: concurrency, requests: 50}
    - {name: profiling, type: concurrency, requests: 500}
  artifacts:
    dir: ./artifacts/my-test
sweep:
  type: grid
  parameters:
    concurrency: [8, 16, 32, 64]
`)
	type check func(s profileSetup) bool
	cases := map[string]struct {
		args []string
		ok   check
	}{
		"model": {[]string{"--model", "Qwen/Qwen3-0.6B"}, func(s profileSetup) bool {
			// setupProfile gives --model m: a repeated --model adds a model.
			return s.cfg.Client.Model == "m" && slices.Equal(s.cfg.Client.Models, []string{"m", "Qwen/Qwen3-0.6B"})
		}},
		"model-selection-strategy": {[]string{"--model-names", "a,b", "--model-selection-strategy", "random", "--random-seed", "3"}, func(s profileSetup) bool {
			// --model m (setupProfile's) and --model-names a,b: three models.
			return slices.Equal(s.cfg.Client.Models, []string{"m", "a", "b"}) && s.cfg.Client.ModelSelection == loadgen.ModelRandom &&
				s.cfg.Client.ModelSeed == 3 && strings.Join(s.cfg.Client.Models, ",") == "m,a,b"
		}},
		"url-strategy": {[]string{"--url", "http://b:8000", "--url", "c:8000,d:8000", "--url-strategy", "round_robin"}, func(s profileSetup) bool {
			return slices.Equal(s.cfg.Client.Targets, []string{"http://127.0.0.1:1", "http://b:8000", "http://c:8000", "http://d:8000"}) &&
				s.cfg.Client.Target == "http://127.0.0.1:1" && s.cfg.Client.TargetSelection == ""
		}},
		"custom-endpoint": {[]string{"--custom-endpoint", "/v1/custom"}, func(s profileSetup) bool {
			return s.cfg.Client.Path == "/v1/custom"
		}},
		"endpoint-type": {[]string{"--endpoint-type", "completions"}, func(s profileSetup) bool {
			return s.cfg.Client.Endpoint == loadgen.EndpointCompletions
		}},
		"prompt-batch-size": {[]string{"--endpoint-type", "embeddings", "-b", "8"}, func(s profileSetup) bool {
			return s.cfg.Client.Endpoint == loadgen.EndpointEmbeddings && s.cfg.Client.BatchSize == 8 && s.cfg.SLO.String() == slo.DefaultPooling().String()
		}},
		"rankings-passages-mean": {[]string{"--endpoint-type", "cohere_rankings", "--rankings-passages-mean", "5"}, func(s profileSetup) bool {
			return s.cfg.Client.Endpoint == loadgen.EndpointRerank && s.cfg.Client.BatchSize == 5
		}},
		"rankings-passages-stddev": {[]string{"--endpoint-type", "hf_tei_rankings", "--rankings-passages-stddev", "0"}, func(s profileSetup) bool {
			return s.cfg.Client.Endpoint == loadgen.EndpointTEIRerank && s.cfg.Client.BatchSize == 1
		}},
		"rankings-passages-prompt-token-mean": {[]string{"--endpoint-type", "cohere_rankings", "--rankings-passages-prompt-token-mean", "200", "--rankings-query-prompt-token-mean", "200"}, func(s profileSetup) bool {
			return s.cfg.Data.Synthetic.Prompt.Mean == 200
		}},
		"rankings-passages-prompt-token-stddev": {[]string{"--endpoint-type", "cohere_rankings", "--rankings-passages-prompt-token-stddev", "20", "--rankings-query-prompt-token-stddev", "20"}, func(s profileSetup) bool {
			return s.cfg.Data.Synthetic.Prompt == dataset.Dist{Mean: 550, Stdev: 20}
		}},
		"rankings-query-prompt-token-mean": {[]string{"--endpoint-type", "cohere_rankings", "--rankings-query-prompt-token-mean", "550"}, func(s profileSetup) bool {
			return s.cfg.Data.Synthetic.Prompt.Mean == 550
		}},
		"rankings-query-prompt-token-stddev": {[]string{"--endpoint-type", "cohere_rankings", "--rankings-query-prompt-token-stddev", "0"}, func(s profileSetup) bool {
			return s.cfg.Data.Synthetic.Prompt.Stdev == 0
		}},
		"image-width-mean": {[]string{"--image-width-mean", "512", "--image-height-mean", "256"}, func(s profileSetup) bool {
			m := s.cfg.Data.Synthetic.Media
			return m.ImageWidth == 512 && m.ImageHeight == 256 && m.ImageCount == 1
		}},
		"image-width-stddev": {[]string{"--image-width-mean", "64", "--image-height-mean", "64", "--image-width-stddev", "0"}, func(s profileSetup) bool {
			return s.cfg.Data.Synthetic.Media.ImageWidth == 64
		}},
		"image-height-mean": {[]string{"--image-width-mean", "32", "--image-height-mean", "48.0"}, func(s profileSetup) bool {
			return s.cfg.Data.Synthetic.Media.ImageHeight == 48
		}},
		"image-height-stddev": {[]string{"--image-width-mean", "64", "--image-height-mean", "64", "--image-height-stddev", "0"}, func(s profileSetup) bool {
			return s.cfg.Data.Synthetic.Media.ImageHeight == 64
		}},
		"image-batch-size": {[]string{"--image-width-mean", "64", "--image-height-mean", "64", "--batch-size-image", "3"}, func(s profileSetup) bool {
			return s.cfg.Data.Synthetic.Media.ImageCount == 3 && strings.Contains(s.cfg.Data.Synthetic.String(), "image_count=3")
		}},
		"image-format": {[]string{"--image-width-mean", "64", "--image-height-mean", "64", "--image-format", "jpeg"}, func(s profileSetup) bool {
			return s.cfg.Data.Synthetic.Media.ImageFormat == "jpeg"
		}},
		"audio-length-mean": {[]string{"--audio-length-mean", "5"}, func(s profileSetup) bool {
			m := s.cfg.Data.Synthetic.Media
			return m.AudioSeconds == 5 && m.AudioCount == 1 && m.AudioSampleRate == 0
		}},
		"audio-length-stddev": {[]string{"--audio-length-mean", "2", "--audio-length-stddev", "0"}, func(s profileSetup) bool {
			return s.cfg.Data.Synthetic.Media.AudioSeconds == 2
		}},
		"audio-batch-size": {[]string{"--audio-length-mean", "2", "--audio-batch-size", "2"}, func(s profileSetup) bool {
			return s.cfg.Data.Synthetic.Media.AudioCount == 2
		}},
		"audio-sample-rates": {[]string{"--audio-length-mean", "2", "--audio-sample-rates", "44.1"}, func(s profileSetup) bool {
			return s.cfg.Data.Synthetic.Media.AudioSampleRate == 44100
		}},
		"audio-format": {[]string{"--audio-length-mean", "1", "--audio-format", "wav"}, func(s profileSetup) bool {
			return s.cfg.Data.Synthetic.Media.AudioSeconds == 1
		}},
		"audio-depths": {[]string{"--audio-length-mean", "1", "--audio-depths", "16"}, func(s profileSetup) bool {
			return s.cfg.Data.Synthetic.Media.AudioSeconds == 1
		}},
		"audio-num-channels": {[]string{"--audio-length-mean", "1", "--audio-num-channels", "1"}, func(s profileSetup) bool {
			return s.cfg.Data.Synthetic.Media.AudioSeconds == 1
		}},
		"session-header": {[]string{"--session-header", "x-session-id"}, func(s profileSetup) bool { return s.cfg.Client.SessionHeader == "x-session-id" }},
		"conversation-num": {[]string{"--num-sessions", "20", "--conversation-turn-mean", "3"}, func(s profileSetup) bool {
			return s.cfg.Data.Options.Samples == 20 && s.cfg.Data.Synthetic.Session.Turns == 3 && s.cfg.Plan.Constraints.MaxRequests == 0
		}},
		"conversation-turn-mean": {[]string{"--session-turns-mean", "4"}, func(s profileSetup) bool {
			return s.cfg.Data.Synthetic.Session.Turns == 4
		}},
		"conversation-turn-stddev": {[]string{"--conversation-turn-mean", "4", "--conversation-turn-stddev", "2"}, func(s profileSetup) bool {
			return s.cfg.Data.Synthetic.Session.Turns == 4 && s.cfg.Data.Synthetic.Session.TurnsStdev == 2
		}},
		"conversation-turn-delay-mean": {[]string{"--conversation-turn-mean", "2", "--conversation-turn-delay-mean", "1500"}, func(s profileSetup) bool {
			return s.cfg.Data.Synthetic.Session.Delay == dataset.DelayDist{Mean: 1.5}
		}},
		"conversation-turn-delay-stddev": {[]string{"--conversation-turn-mean", "2", "--conversation-turn-delay-mean", "1000", "--session-turn-delay-stddev", "200"}, func(s profileSetup) bool {
			return s.cfg.Data.Synthetic.Session.Delay == dataset.DelayDist{Mean: 1, Stdev: 0.2}
		}},
		"conversation-turn-delay-ratio": {[]string{"--conversation-turn-mean", "2", "--conversation-turn-delay-mean", "1000", "--conversation-turn-delay-stddev", "100", "--conversation-turn-delay-ratio", "0.5"}, func(s profileSetup) bool {
			return s.cfg.Data.Synthetic.Session.Delay == dataset.DelayDist{Mean: 0.5, Stdev: 0.05}
		}},
		"user-context-prompt-length": {[]string{"--num-dataset-entries", "10", "--user-context-prompt-length", "64", "--conversation-turn-mean", "2"}, func(s profileSetup) bool {
			sp := s.cfg.Data.Synthetic
			return sp.PrefixCount == 10 && sp.PrefixTokens == 64 && sp.Samples == 10
		}},
		"num-profile-runs": {[]string{"--num-profile-runs", "3", "--concurrency", "2,4"}, func(s profileSetup) bool {
			return s.cfg.Metrics.NumRuns == 3 && sweep.Planned(s.cfg.Plan.Planner) == 6
		}},
		"profile-run-cooldown-seconds": {[]string{"--num-profile-runs", "2", "--profile-run-cooldown-seconds", "30"}, func(s profileSetup) bool {
			return s.cfg.Plan.Drain.Gap == 30*time.Second
		}},
		"parameter-sweep-cooldown-seconds": {[]string{"--concurrency", "1,2", "--parameter-sweep-cooldown-seconds", "5"}, func(s profileSetup) bool {
			return s.cfg.Plan.Drain.Gap == 5*time.Second
		}},
		"confidence-level": {[]string{"--confidence-level", "0.9"}, func(s profileSetup) bool { return s.cfg.Plan.Confidence == 0.9 }},
		"parameter-sweep-mode": {[]string{"--parameter-sweep-mode", "repeated", "--num-profile-runs", "2"}, func(s profileSetup) bool {
			return s.cfg.Metrics.NumRuns == 2
		}},
		"slice-duration": {[]string{"--slice-duration", "2.5"}, func(s profileSetup) bool { return s.cfg.Metrics.SliceDuration == 2500*time.Millisecond }},
		"streaming":      {[]string{"--streaming"}, func(s profileSetup) bool { return !s.cfg.Client.NoStream }},
		"url": {[]string{"--url", "svc:8000"}, func(s profileSetup) bool {
			return s.cfg.Client.Target == "http://127.0.0.1:1" && s.cfg.Client.Targets[1] == "http://svc:8000"
		}},
		"request-timeout-seconds": {[]string{"--request-timeout-seconds", "90"}, func(s profileSetup) bool {
			return s.cfg.Client.RequestTimeout == 90*time.Second
		}},
		"api-key": {[]string{"--api-key", "sk-1"}, func(s profileSetup) bool { return s.cfg.Client.APIKey == "sk-1" }},
		"reset-kv-cache": {[]string{"--reset-kv-cache"}, func(s profileSetup) bool {
			return *s.cfg.Plan.Control == loadgen.Control{ResetPath: "/reset_prefix_cache"}
		}},
		"reset-kv-cache-timeout-seconds": {[]string{"--reset-kv-cache-timeout-seconds", "2.5"}, func(s profileSetup) bool {
			return *s.cfg.Plan.Control == loadgen.Control{ResetPath: "/reset_prefix_cache", ResetTimeout: 2500 * time.Millisecond}
		}},
		"reset-kv-cache-path": {[]string{"--reset-kv-cache-path", "/flush_cache"}, func(s profileSetup) bool {
			return *s.cfg.Plan.Control == loadgen.Control{ResetPath: "/flush_cache"}
		}},
		"server-profiler": {[]string{"--server-profiler"}, func(s profileSetup) bool {
			return *s.cfg.Plan.Control == loadgen.Control{ProfilerStart: "/start_profile", ProfilerStop: "/stop_profile"}
		}},
		"server-profiler-timeout-seconds": {[]string{"--server-profiler-timeout-seconds", "15"}, func(s profileSetup) bool {
			return *s.cfg.Plan.Control == loadgen.Control{ProfilerStart: "/start_profile", ProfilerStop: "/stop_profile", ProfilerTimeout: 15 * time.Second}
		}},
		"server-profiler-start-path": {[]string{"--server-profiler-start-path", "/v1/admin/start_profile"}, func(s profileSetup) bool {
			return *s.cfg.Plan.Control == loadgen.Control{ProfilerStart: "/v1/admin/start_profile", ProfilerStop: "/stop_profile"}
		}},
		"server-profiler-stop-path": {[]string{"--server-profiler-stop-path", "/v1/admin/stop_profile"}, func(s profileSetup) bool {
			return *s.cfg.Plan.Control == loadgen.Control{ProfilerStart: "/start_profile", ProfilerStop: "/v1/admin/stop_profile"}
		}},
		"config": {[]string{"--config", config, "--request-count", "100"}, func(s profileSetup) bool {
			l, syn := rounds(s), s.cfg.Data.Synthetic
			// --model and --url on the command line win over the file.
			return s.cfg.Client.Model == "m" && s.cfg.Client.Target == "http://127.0.0.1:1" && !s.cfg.Client.NoStream &&
				syn.Samples == 500 && syn.Prompt.Mean == 512 && syn.Prompt.Stdev == 16 && syn.Output.Mean == 128 &&
				len(l) == 4 && l[3].Streams == 64 && s.cfg.Plan.Seed == 9 && s.cfg.Plan.WarmupPhase.Constraints.MaxRequests == 50 &&
				s.cfg.Plan.WarmupPhase.Strategy.Streams == 1 && s.cfg.Plan.Constraints.MaxRequests == 100
		}},
		"transport": {[]string{"--transport", "http"}, func(s profileSetup) bool { return s.po.transport == "http" }},
		"use-legacy-max-tokens": {[]string{"--use-legacy-max-tokens"}, func(s profileSetup) bool {
			return s.cfg.Client.MaxTokensField == "max_tokens"
		}},
		"use-server-token-count": {[]string{"--use-server-token-count"}, func(s profileSetup) bool { return s.po.useServerTokenCount }},
		"tokenizer": {[]string{"--tokenizer", "builtin"}, func(s profileSetup) bool {
			return s.cfg.Data.Options.Tokenizer != nil && s.cfg.Data.Options.Tokenizer.Name() == "o200k_base"
		}},
		"extra-inputs": {[]string{"--extra-inputs", "temperature:0.7", "ignore_eos:true"}, func(s profileSetup) bool {
			return s.cfg.ExtraBody["temperature"] == 0.7 && s.cfg.ExtraBody["ignore_eos"] == true
		}},
		"header": {[]string{"--header", "X-Custom-Header:value"}, func(s profileSetup) bool {
			return s.cfg.Client.Headers["X-Custom-Header"] == "value"
		}},
		"input-file": {[]string{"--input-file", prompts}, func(s profileSetup) bool {
			return s.cfg.Data.Value == prompts && s.cfg.Data.Synthetic == nil && s.cfg.Data.Opened != nil && s.cfg.Plan.Constraints.MaxRequests == 0
		}},
		"custom-dataset-type": {[]string{"--input-file", trace, "--custom-dataset-type", "mooncake_trace"}, func(s profileSetup) bool {
			l := rounds(s)
			return s.cfg.Data.Options.Trace && len(l) == 1 && l[0].Kind == loadgen.Replay && len(l[0].Schedule) == 2 &&
				l[0].Schedule[1] == 500*time.Millisecond
		}},
		"dataset-sampling-strategy": {[]string{"--input-file", prompts, "--dataset-sampling-strategy", "shuffle"}, func(s profileSetup) bool {
			return s.cfg.Data.Options.Shuffle
		}},
		"random-seed": {[]string{"--random-seed", "7"}, func(s profileSetup) bool {
			return s.cfg.Plan.Seed == 7 && s.cfg.Data.Options.Seed == 7
		}},
		"fixed-schedule": {[]string{"--input-file", trace, "--custom-dataset-type", "mooncake_trace", "--fixed-schedule", "--concurrency", "4"}, func(s profileSetup) bool {
			l := rounds(s)
			return len(l) == 1 && l[0].Kind == loadgen.Replay && l[0].MaxConcurrency == 4
		}},
		"no-fixed-schedule": {[]string{"--input-file", trace, "--custom-dataset-type", "mooncake_trace", "--no-fixed-schedule", "--concurrency", "2"}, func(s profileSetup) bool {
			l := rounds(s)
			return s.cfg.Data.Options.Trace && len(l) == 1 && l[0].Kind == loadgen.Concurrent && l[0].Streams == 2
		}},
		"fixed-schedule-auto-offset": {[]string{"--input-file", trace, "--custom-dataset-type", "mooncake_trace", "--fixed-schedule-auto-offset"}, func(s profileSetup) bool {
			l := rounds(s)
			return len(l) == 1 && l[0].Kind == loadgen.Replay && l[0].Schedule[0] == 0
		}},
		// The trace's rows are at 0 and 500 ms.
		"fixed-schedule-start-offset": {[]string{"--input-file", trace, "--custom-dataset-type", "mooncake_trace", "--fixed-schedule", "--fixed-schedule-start-offset", "400"}, func(s profileSetup) bool {
			l := rounds(s)
			return len(l) == 1 && slices.Equal(l[0].Schedule, []time.Duration{100 * time.Millisecond}) && s.cfg.Data.Options.TraceStart == 400*time.Millisecond
		}},
		"fixed-schedule-end-offset": {[]string{"--input-file", trace, "--custom-dataset-type", "mooncake_trace", "--fixed-schedule", "--fixed-schedule-end-offset", "100"}, func(s profileSetup) bool {
			l := rounds(s)
			return len(l) == 1 && slices.Equal(l[0].Schedule, []time.Duration{0}) && s.cfg.Data.Opened.Description.Requests == 1
		}},
		"goodput": {[]string{"--goodput", "time_to_first_token:500 inter_token_latency:50"}, func(s profileSetup) bool {
			return strings.Contains(s.cfg.SLO.String(), "500") && strings.Contains(s.cfg.SLO.String(), "50")
		}},
		"num-dataset-entries": {[]string{"--num-dataset-entries", "50"}, func(s profileSetup) bool { return s.cfg.Data.Synthetic.Samples == 50 }},
		"prefix-prompt-pool-size": {[]string{"--prefix-prompt-pool-size", "3", "--prefix-prompt-length", "64"}, func(s profileSetup) bool {
			return s.cfg.Data.Synthetic.PrefixCount == 3 && s.cfg.Data.Synthetic.PrefixTokens == 64
		}},
		"prefix-prompt-length": {[]string{"--num-prefix-prompts", "2", "--prefix-prompt-length", "100"}, func(s profileSetup) bool {
			return s.cfg.Data.Synthetic.PrefixCount == 2 && s.cfg.Data.Synthetic.PrefixTokens == 100
		}},
		"shared-system-prompt-length": {[]string{"--shared-system-prompt-length", "200"}, func(s profileSetup) bool {
			return s.cfg.Data.Synthetic.PrefixCount == 1 && s.cfg.Data.Synthetic.PrefixTokens == 200
		}},
		"isl":        {[]string{"--isl", "128"}, func(s profileSetup) bool { return s.cfg.Data.Synthetic.Prompt.Mean == 128 }},
		"isl-stddev": {[]string{"--isl-stddev", "10"}, func(s profileSetup) bool { return s.cfg.Data.Synthetic.Prompt.Stdev == 10 }},
		"osl":        {[]string{"--osl", "64"}, func(s profileSetup) bool { return s.cfg.Data.Synthetic.Output.Mean == 64 }},
		"osl-stddev": {[]string{"--osl", "64", "--osl-stddev", "5"}, func(s profileSetup) bool { return s.cfg.Data.Synthetic.Output.Stdev == 5 }},
		"seq-dist": {[]string{"--seq-dist", "64,32:70;256,128:30"}, func(s profileSetup) bool {
			return len(s.cfg.Data.Synthetic.Mix) == 2 && s.cfg.Data.Synthetic.Mix[1].Prompt.Mean == 256
		}},
		"benchmark-duration": {[]string{"--benchmark-duration", "60"}, func(s profileSetup) bool {
			return s.cfg.Plan.Constraints.MaxDuration == time.Minute && s.cfg.Plan.Constraints.MaxRequests == 0
		}},
		"request-cancellation-rate": {[]string{"--request-cancellation-rate", "25", "--random-seed", "3"}, func(s profileSetup) bool {
			c := s.cfg.Plan.Constraints.Cancel
			return c != nil && c.Rate == 0.25 && c.Delay == 0 && c.Seed == 3
		}},
		"request-cancellation-delay": {[]string{"--request-cancellation-rate", "10", "--request-cancellation-delay", "1.5"}, func(s profileSetup) bool {
			c := s.cfg.Plan.Constraints.Cancel
			return c != nil && c.Rate == 0.1 && c.Delay == 1500*time.Millisecond
		}},
		"benchmark-grace-period": {[]string{"--benchmark-duration", "60", "--benchmark-grace-period", "30"}, func(s profileSetup) bool {
			return s.cfg.Plan.Constraints.MaxDuration == time.Minute && s.cfg.Plan.Constraints.Drain == 30*time.Second
		}},
		"concurrency": {[]string{"--concurrency", "4,8"}, func(s profileSetup) bool {
			l := rounds(s)
			return len(l) == 2 && l[0].Streams == 4 && l[1].Streams == 8 && s.cfg.Plan.Constraints.MaxRequests == 16
		}},
		"request-rate": {[]string{"--request-rate", "2.5"}, func(s profileSetup) bool {
			l := rounds(s)
			return len(l) == 1 && l[0].Kind == loadgen.Poisson && l[0].Rate == 2.5
		}},
		"arrival-pattern": {[]string{"--request-rate", "2", "--arrival-pattern", "constant"}, func(s profileSetup) bool {
			return rounds(s)[0].Kind == loadgen.Constant
		}},
		"user-centric-rate": {[]string{"--user-centric-rate", "1.5", "--num-users", "15"}, func(s profileSetup) bool {
			l := rounds(s)
			return len(l) == 1 && l[0].Kind == loadgen.UserCentric && l[0].Rate == 1.5 && l[0].Streams == 15
		}},
		"num-users": {[]string{"--user-centric-rate", "2", "--num-users", "8"}, func(s profileSetup) bool { return rounds(s)[0].Streams == 8 }},
		"arrival-smoothness": {[]string{"--request-rate", "2", "--arrival-pattern", "gamma", "--arrival-smoothness", "2"}, func(s profileSetup) bool {
			return rounds(s)[0].Burstiness == 2
		}},
		"request-count": {[]string{"--request-count", "30"}, func(s profileSetup) bool { return s.cfg.Plan.Constraints.MaxRequests == 30 }},
		"concurrency-ramp-duration": {[]string{"--concurrency", "4", "--concurrency-ramp-duration", "10"}, func(s profileSetup) bool {
			return rounds(s)[0].Rampup == 10*time.Second
		}},
		"prefill-concurrency": {[]string{"--streaming", "--concurrency", "8", "--prefill-concurrency", "3"}, func(s profileSetup) bool {
			l := rounds(s)
			return l[0].Streams == 8 && l[0].MaxPrefill == 3 && l[0].PrefillRampup == 0
		}},
		"prefill-concurrency-ramp-duration": {[]string{"--streaming", "--concurrency", "8", "--prefill-concurrency", "3", "--prefill-concurrency-ramp-duration", "30"}, func(s profileSetup) bool {
			return rounds(s)[0].PrefillRampup == 30*time.Second
		}},
		"warmup-prefill-concurrency": {[]string{"--streaming", "--concurrency", "8", "--prefill-concurrency", "3", "--warmup-request-count", "4", "--warmup-prefill-concurrency", "1"}, func(s profileSetup) bool {
			return s.cfg.Plan.WarmupPhase.Strategy.MaxPrefill == 1 && rounds(s)[0].MaxPrefill == 3
		}},
		"warmup-prefill-concurrency-ramp-duration": {[]string{"--streaming", "--concurrency", "8", "--prefill-concurrency", "3", "--prefill-concurrency-ramp-duration", "30",
			"--warmup-request-count", "4", "--warmup-prefill-concurrency-ramp-duration", "10"}, func(s profileSetup) bool {
			w := s.cfg.Plan.WarmupPhase.Strategy
			return w.MaxPrefill == 3 && w.PrefillRampup == 10*time.Second && rounds(s)[0].PrefillRampup == 30*time.Second
		}},
		"request-rate-ramp-duration": {[]string{"--request-rate", "4", "--request-rate-ramp-duration", "10"}, func(s profileSetup) bool {
			return rounds(s)[0].Rampup == 10*time.Second
		}},
		"request-rate-series": {[]string{"--request-rate-series", series}, func(s profileSetup) bool {
			return len(rounds(s)[0].Series) > 0
		}},
		"warmup-request-count": {[]string{"--request-count", "20", "--warmup-request-count", "5", "--concurrency", "4"}, func(s profileSetup) bool {
			w := s.cfg.Plan.WarmupPhase
			return w != nil && w.Constraints.MaxRequests == 5 && w.Strategy.Kind == loadgen.Concurrent && w.Strategy.Streams == 4 &&
				s.cfg.Plan.Constraints.MaxRequests == 20 && s.cfg.Plan.Warmup.IsZero()
		}},
		"warmup-duration": {[]string{"--benchmark-duration", "60", "--warmup-duration", "10"}, func(s profileSetup) bool {
			w := s.cfg.Plan.WarmupPhase
			return w != nil && w.Constraints.MaxDuration == 10*time.Second && w.Constraints.Drain == loadgen.DrainAll &&
				s.cfg.Plan.Constraints.MaxDuration == 60*time.Second
		}},
		"num-warmup-sessions": {[]string{"--num-warmup-sessions", "3", "--conversation-num", "10"}, func(s profileSetup) bool {
			return s.cfg.Plan.WarmupPhase != nil && s.cfg.Plan.WarmupPhase.Sessions == 3
		}},
		"warmup-concurrency": {[]string{"--concurrency", "16", "--warmup-concurrency", "2", "--warmup-request-count", "4"}, func(s profileSetup) bool {
			return s.cfg.Plan.WarmupPhase.Strategy.Streams == 2 && rounds(s)[0].Streams == 16
		}},
		"warmup-request-rate": {[]string{"--request-rate", "50", "--warmup-request-rate", "10", "--warmup-duration", "30"}, func(s profileSetup) bool {
			w := s.cfg.Plan.WarmupPhase.Strategy
			return w.Kind == loadgen.Poisson && w.Rate == 10 && rounds(s)[0].Rate == 50
		}},
		"warmup-arrival-pattern": {[]string{"--request-rate", "20", "--arrival-pattern", "gamma", "--arrival-smoothness", "2", "--warmup-arrival-pattern", "constant", "--warmup-duration", "30"}, func(s profileSetup) bool {
			w := s.cfg.Plan.WarmupPhase.Strategy
			return w.Kind == loadgen.Constant && w.Rate == 20 && w.Burstiness == 0 && rounds(s)[0].Burstiness == 2
		}},
		"warmup-grace-period": {[]string{"--warmup-duration", "30", "--warmup-grace-period", "10"}, func(s profileSetup) bool {
			return s.cfg.Plan.WarmupPhase.Constraints.Drain == 10*time.Second
		}},
		"warmup-concurrency-ramp-duration": {[]string{"--concurrency", "100", "--concurrency-ramp-duration", "30", "--warmup-concurrency", "50", "--warmup-concurrency-ramp-duration", "10", "--warmup-request-count", "200"}, func(s profileSetup) bool {
			w := s.cfg.Plan.WarmupPhase.Strategy
			return w.Streams == 50 && w.Rampup == 10*time.Second && rounds(s)[0].Rampup == 30*time.Second
		}},
		"warmup-request-rate-ramp-duration": {[]string{"--request-rate", "100", "--warmup-request-rate", "20", "--warmup-request-rate-ramp-duration", "15", "--warmup-duration", "30"}, func(s profileSetup) bool {
			w := s.cfg.Plan.WarmupPhase.Strategy
			return w.Rampup == 15*time.Second && w.RampFrom == 20*0.1/15
		}},
		"output-artifact-dir": {[]string{"--output-artifact-dir", "/tmp/goodput-aiperf-x"}, func(s profileSetup) bool {
			return s.lay.target.Dir == "/tmp/goodput-aiperf-x" && s.cfg.Outputs.Path == "/tmp/goodput-aiperf-x/goodput.json"
		}},
		"server-metrics": {[]string{"--server-metrics", "node1:8081"}, func(s profileSetup) bool {
			return s.cfg.Telemetry.ServerMetrics == measure.ServerMetricsOn && s.cfg.Telemetry.ServerMetricsURL == "http://node1:8081/metrics"
		}},
		"no-server-metrics": {[]string{"--no-server-metrics"}, func(s profileSetup) bool {
			return s.cfg.Telemetry.ServerMetrics == measure.ServerMetricsOff
		}},
		"gpu-telemetry": {[]string{"--gpu-telemetry", "node1:9400", "http://node2:9401/metrics"}, func(s profileSetup) bool {
			return slices.Equal(s.cfg.Telemetry.DCGMURLs, []string{"http://node1:9400/metrics", "http://node2:9401/metrics"}) && !s.cfg.Telemetry.Optional
		}},
		"no-gpu-telemetry": {[]string{"--no-gpu-telemetry"}, func(s profileSetup) bool {
			return len(s.cfg.Telemetry.DCGMURLs) == 0 && !s.cfg.Telemetry.NVML
		}},
		"ui-type": {[]string{"--ui-type", "none"}, func(s profileSetup) bool { return s.cfg.Progress.Disable }},
		"output": {[]string{"--output", "/tmp/r/aiperf.json"}, func(s profileSetup) bool {
			return s.lay.target.Single == "/tmp/r/aiperf.json" && s.cfg.Outputs.Path == "/tmp/r/aiperf.goodput.json"
		}},
		"video-width": {[]string{"--video-width", "320", "--video-height", "240"}, func(s profileSetup) bool {
			return s.cfg.Data.Synthetic.Media.VideoWidth == 320 && s.cfg.Data.Synthetic.Media.VideoSeconds == 5
		}},
		"video-height": {[]string{"--video-width", "320", "--video-height", "240"}, func(s profileSetup) bool {
			return s.cfg.Data.Synthetic.Media.VideoHeight == 240 && s.cfg.Data.Synthetic.Media.VideoFPS == 4
		}},
		"video-fps": {[]string{"--video-width", "64", "--video-height", "64", "--video-fps", "2"}, func(s profileSetup) bool {
			return s.cfg.Data.Synthetic.Media.VideoFPS == 2
		}},
		"video-duration": {[]string{"--video-width", "64", "--video-height", "64", "--video-duration", "3"}, func(s profileSetup) bool {
			return s.cfg.Data.Synthetic.Media.VideoSeconds == 3
		}},
		"video-batch-size": {[]string{"--video-width", "64", "--video-height", "64", "--video-batch-size", "2"}, func(s profileSetup) bool {
			return s.cfg.Data.Synthetic.Media.VideoCount == 2
		}},
		"fail-on-error-rate": {[]string{"--fail-on-error-rate", "0.1"}, func(s profileSetup) bool { return s.p.maxErrorRate != nil && *s.p.maxErrorRate == 0.1 }},
		"allow-all-errors":   {[]string{"--allow-all-errors"}, func(s profileSetup) bool { return s.cfg.AllowAllErrors }},
		"wide":               {[]string{"--wide"}, func(s profileSetup) bool { return s.cfg.Outputs.Wide }},
		"prompt-salt":        {[]string{"--prompt-salt", "run-2"}, func(s profileSetup) bool { return s.cfg.Data.Options.Salt != 0 }},
		"per-chunk-usage": {[]string{"--per-chunk-usage", "--use-server-token-count", "--streaming"}, func(s profileSetup) bool {
			// The per-chunk usage comes from the continuous_usage_stats the client always asks for.
			return s.po.perChunkUsage && !s.cfg.Client.NoStream && !s.cfg.Client.NoStreamUsage
		}},
		"export-http-trace": {[]string{"--export-http-trace"}, func(s profileSetup) bool { return s.po.exportHTTPTrace }},
		"show-trace-timing": {[]string{"--show-trace-timing"}, func(s profileSetup) bool { return s.po.showTraceTiming }},
		"max-connect-failures": {[]string{"--max-connect-failures", "7"}, func(s profileSetup) bool {
			return s.cfg.Plan.Constraints.MaxConnectFailures == 7
		}},
	}
	for _, r := range aiperfFlags {
		if r.refused != "" {
			continue
		}
		c, ok := cases[r.names[0]]
		if !ok {
			t.Errorf("--%s: accepted in aiperfFlags but has no case here", r.names[0])
			continue
		}
		delete(cases, r.names[0])
		t.Run(r.names[0], func(t *testing.T) {
			s, err := setupProfile(t, c.args...)
			if err != nil {
				t.Fatalf("%q: %v", c.args, err)
			}
			if !c.ok(s) {
				t.Errorf("%q did not reach the configuration", c.args)
			}
		})
	}
	for name := range cases {
		t.Errorf("case %s: not an accepted row of aiperfFlags", name)
	}
}

// Bare list flags take AIPerf's defaults.
func TestAIPerfBareListFlags(t *testing.T) {
	s, err := setupProfile(t, "--server-metrics", "--gpu-telemetry", "--concurrency", "2")
	if err != nil {
		t.Fatal(err)
	}
	tel := s.cfg.Telemetry
	if tel.ServerMetrics != measure.ServerMetricsOn || tel.ServerMetricsURL != "" || !tel.Optional ||
		!slices.Equal(tel.DCGMURLs, []string{"http://localhost:9400/metrics", "http://localhost:9401/metrics"}) {
		t.Errorf("telemetry %+v", tel)
	}
	for _, bad := range [][]string{
		{"--gpu-telemetry", "dashboard"},
		{"--no-gpu-telemetry", "--gpu-telemetry", "n:9400"},
		{"--isl", "10", "--input-file", "x.jsonl"},
		{"--shared-system-prompt-length", "10", "--prefix-prompt-length", "5"},
		{"--custom-dataset-type", "multi_turn", "--input-file", "x.jsonl"},
		{"--endpoint-type", "cohere_rankings", "--rankings-passages-stddev", "2"},
		{"--endpoint-type", "cohere_rankings", "--rankings-passages-prompt-token-mean", "200"},
		{"--endpoint-type", "cohere_rankings", "-b", "3", "--rankings-passages-mean", "4"},
		{"--rankings-passages-mean", "4"},
		{"--num-profile-runs", "0"},
		{"--profile-run-cooldown-seconds", "5"},
		{"--parameter-sweep-cooldown-seconds", "5"},
		{"--parameter-sweep-mode", "independent"},
		{"--confidence-level", "1"},
		{"--slice-duration", "0"},
		{"--conversation-turn-stddev", "1"},
		{"--conversation-turn-delay-mean", "100"},
		{"--user-context-prompt-length", "64"},
		{"--user-context-prompt-length", "64", "--num-dataset-entries", "4", "--shared-system-prompt-length", "32"},
		{"--session-header", "x session"},
		{"--num-sessions", "4", "--input-file", "x.jsonl"},
		{"--custom-dataset-type", "random_pool", "--input-file", "x.jsonl"},
		{"--image-width-mean", "64", "--image-height-mean", "64", "--image-width-stddev", "8"},
		{"--image-width-mean", "64"},
		{"--image-width-mean", "64", "--image-height-mean", "64", "--image-format", "random"},
		{"--image-batch-size", "2"},
		{"--audio-length-mean", "2.5"},
		{"--audio-length-mean", "2", "--audio-length-stddev", "1"},
		{"--audio-length-mean", "2", "--audio-format", "mp3"},
		{"--audio-length-mean", "2", "--audio-depths", "16", "24"},
		{"--audio-length-mean", "2", "--audio-sample-rates", "16", "44.1"},
		{"--audio-length-mean", "2", "--audio-num-channels", "2"},
		{"--audio-length-mean", "2", "--input-file", "x.jsonl"},
		{"--endpoint-type", "chat", "--batch-size", "2"},
		{"--warmup-request-count", "-1"},
		{"--warmup-request-count", "3", "--warmup-concurrency", "0"},
		{"--warmup-duration", "5", "--warmup-arrival-pattern", "burst"},
	} {
		if _, err := setupProfile(t, bad...); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

// The table and the flags the profile registers agree: every spelling of
// an accepted row is a flag, every flag is a spelling of an accepted row,
// and no refused spelling is a flag.
func TestAIPerfFlagTableMatchesTheFlags(t *testing.T) {
	var po profileOptions
	fs := pflag.NewFlagSet("profile", pflag.ContinueOnError)
	profileFlags(&po, fs)
	known := func(n string) bool {
		if len(n) == 1 {
			return fs.ShorthandLookup(n) != nil
		}
		return fs.Lookup(n) != nil
	}
	seen := map[string]bool{}
	for _, r := range aiperfFlags {
		if (r.maps == "") == (r.refused == "") {
			t.Errorf("%v: give either what it maps to or why it is refused", r.names)
		}
		for _, n := range r.names {
			if seen[n] {
				t.Errorf("--%s: in two rows", n)
			}
			seen[n] = true
			switch {
			case r.refused == "" && !known(n):
				t.Errorf("--%s: accepted in the table but not a flag of goodput profile", n)
			case r.refused != "" && known(n):
				t.Errorf("--%s: refused in the table but a flag of goodput profile", n)
			}
		}
	}
	fs.VisitAll(func(f *pflag.Flag) {
		if !seen[f.Name] {
			t.Errorf("--%s: a flag of goodput profile missing from aiperfFlags", f.Name)
		}
		if f.Shorthand != "" && !seen[f.Shorthand] {
			t.Errorf("-%s: a shorthand of goodput profile missing from aiperfFlags", f.Shorthand)
		}
	})
}

// Every refused spelling is one line with its reason, exit 2.
func TestAIPerfRefusedFlags(t *testing.T) {
	for _, r := range aiperfFlags {
		if r.refused == "" {
			continue
		}
		for _, n := range r.names {
			arg := "--" + n
			if len(n) == 1 {
				arg = "-" + n
			}
			_, err := aiperfArgs([]string{"--model", "m", arg, "1"})
			if err == nil || !strings.Contains(err.Error(), arg+": an AIPerf flag goodput profile does not support: "+r.refused) {
				t.Errorf("%s: %v", arg, err)
			}
		}
	}
}

// README.md's AIPerf table is the code's table (go test -run
// TestAIPerfFlagTableInREADME -update-readme rewrites it).
func TestAIPerfFlagTableInREADME(t *testing.T) {
	const begin, end = "<!-- aiperf-flags:begin (generated from cli/profile_aiperf.go) -->\n", "<!-- aiperf-flags:end -->"
	path := filepath.Join("..", "README.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i, j := strings.Index(text, begin), strings.Index(text, end)
	if i < 0 || j < i {
		t.Fatalf("README.md has no %q … %q block", strings.TrimSpace(begin), end)
	}
	want := text[:i+len(begin)] + aiperfFlagsMarkdown() + text[j:]
	if *updateREADME {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want != text {
		t.Errorf("README.md's AIPerf flag table differs from aiperfFlags: run go test ./cli -run TestAIPerfFlagTableInREADME -update-readme")
	}
}

// A Mooncake trace replays on its timestamps and shared prefixes reach the
// server, against the mock, with AIPerf's spellings.
func TestProfileTraceAndPrefixesRun(t *testing.T) {
	url := clitest.Mock(t, nil)
	trace := writeFile(t, "trace.jsonl", `{"timestamp": 0, "input_length": 12, "output_length": 4, "hash_ids": [1]}
{"timestamp": 100, "input_length": 20, "output_length": 4, "hash_ids": [1]}
{"timestamp": 200, "input_length": 16, "output_length": 4, "hash_ids": [2]}
`)
	for _, args := range [][]string{
		{"--input-file", trace, "--custom-dataset-type", "mooncake_trace", "--fixed-schedule", "--streaming"},
		{"--shared-system-prompt-length", "32", "--isl", "16", "--osl", "4", "--request-count", "4", "--concurrency", "2", "--server-metrics"},
		{"--num-prefix-prompts", "2", "--prefix-prompt-length", "24", "--isl", "16", "--osl", "4", "--num-dataset-entries", "3", "--request-count", "4"},
	} {
		dir := t.TempDir()
		code, _, stderr := runGoodput(t, append([]string{"profile", "--url", url, "--model", "goodput-mock", "--artifact-dir", dir,
			"--ui-type", "none", "--tokenizer", "builtin"}, args...)...)
		if code != ExitOK {
			t.Fatalf("%q: exit %d: %s", args, code, stderr)
		}
		x := clitest.ReadAIPerf(t, filepath.Join(dir, "profile_export_aiperf.json"))
		want := 3.0
		if args[0] != "--input-file" {
			want = 4
		}
		if got := clitest.MetricAvg(t, x, "request_count"); got != want {
			t.Errorf("%q: %v requests, want %v", args, got, want)
		}
		if args[0] == "--shared-system-prompt-length" && clitest.MetricAvg(t, x, "input_sequence_length") < 48 {
			t.Errorf("%q: input length %v lacks the 32-token system prompt", args, clitest.MetricAvg(t, x, "input_sequence_length"))
		}
	}
}

// An AIPerf YAML config alone gives the run; unknown keys, computed values
// and unset variables are one-line errors naming the key and the file.
func TestAIPerfConfigFile(t *testing.T) {
	run := func(yaml string, args ...string) (profileSetup, error) {
		path := writeFile(t, "c.yaml", yaml)
		var po profileOptions
		var out bytes.Buffer
		getenv := func(k string) string { return map[string]string{"MODEL_NAME": "env-model"}[k] }
		p, lay, _, err := po.setup(&Env{Stdout: &out, Stderr: &out, Getenv: getenv}, append([]string{"-f", path}, args...))
		if err != nil {
			return profileSetup{}, err
		}
		return profileSetup{&po, p, p.runConfig(), lay}, nil
	}
	dir := t.TempDir()
	s, err := run(`schemaVersion: "2.0"
benchmark:
  model: ${MODEL_NAME:fallback}
  endpoint: {url: "http://127.0.0.1:1", type: completions, timeout: 30}
  dataset: {type: synthetic, prompts: {isl: 64, osl: 16}}
  phases: {type: gamma, rate: 4, smoothness: 2, concurrency: 8, duration: 2m}
  artifacts: {dir: `+dir+`}
`, "--ui-type", "none")
	if err != nil {
		t.Fatal(err)
	}
	l := rounds(s)
	if s.cfg.Client.Model != "env-model" || s.cfg.Client.Endpoint != loadgen.EndpointCompletions || s.cfg.Client.RequestTimeout != 30*time.Second ||
		len(l) != 1 || l[0].Kind != loadgen.Poisson || l[0].Rate != 4 || l[0].Burstiness != 2 || l[0].MaxConcurrency != 8 ||
		s.cfg.Plan.Constraints.MaxDuration != 2*time.Minute || s.lay.target.Dir != dir || s.cfg.Data.Synthetic.Prompt.Mean != 64 {
		t.Errorf("config %+v, rounds %+v", s.cfg.Client, l)
	}
	if s, err := run("benchmark:\n  models: [a, b]\n  endpoint: {url: \"http://127.0.0.1:1\"}\n", "--ui-type", "none", "--artifact-dir", dir); err != nil ||
		!slices.Equal(s.cfg.Client.Models, []string{"a", "b"}) {
		t.Errorf("benchmark.models: %v", err)
	}
	for _, c := range []struct{ yaml, want string }{
		{"benchmark:\n  modle: x\n", `unknown key "modle"`},
		{"benchmark:\n  model: x\n  phases: {type: concurrency, concurency: 8}\n", `benchmark.phases: unknown key "concurency"`},
		{"benchmark:\n  model: \"{{ name }}\"\n", "computed values"},
		{"benchmark:\n  model: ${NOPE}\n", "${NOPE} is not set"},
		{"benchmark:\n  model: m\nsweep: {type: zip, parameters: {concurrency: [1, 2]}}\n", "sweep.type"},
		{"benchmark:\n  model: m\n  phases: [{name: warmup, type: poisson, requests: 5}, {name: profiling, requests: 9}]\n", "benchmark.phases.warmup.rate: a poisson phase needs its rate"},
		{"benchmark:\n  model: m\n  phases: [{name: warmup, concurrency: 4}, {name: profiling, requests: 9}]\n", "benchmark.phases.warmup: give the warmup's length"},
	} {
		_, err := run(c.yaml)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "--config ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want one line with %q", c.yaml, err, c.want)
		}
	}
}

// Embeddings, rankings and synthetic media run against the mock with
// AIPerf's spellings: each request carries -b texts,
// --rankings-passages-mean passages, or its images and clips.
func TestProfilePoolingAndMediaRun(t *testing.T) {
	url := clitest.Mock(t, nil)
	for _, args := range [][]string{
		{"--endpoint-type", "embeddings", "-b", "4", "--isl", "16"},
		{"--endpoint-type", "cohere_rankings", "--rankings-passages-mean", "3", "--rankings-passages-prompt-token-mean", "12", "--rankings-query-prompt-token-mean", "12"},
		{"--endpoint-type", "hf_tei_rankings", "--batch-size", "2", "--isl", "8"},
		{"--endpoint-type", "nim_rankings", "--rankings-passages-mean", "3", "--rankings-passages-prompt-token-mean", "12", "--rankings-query-prompt-token-mean", "12"},
		{"--image-width-mean", "32", "--image-height-mean", "24", "--image-batch-size", "2", "--audio-length-mean", "1", "--audio-sample-rates", "8", "--isl", "8", "--osl", "4", "--streaming"},
	} {
		dir := t.TempDir()
		code, _, stderr := runGoodput(t, append([]string{"profile", "--url", url, "--model", "goodput-mock", "--artifact-dir", dir,
			"--ui-type", "none", "--request-count", "4", "--concurrency", "2"}, args...)...)
		if code != ExitOK {
			t.Fatalf("%q: exit %d: %s", args, code, stderr)
		}
		rep, err := report.Read(filepath.Join(dir, "goodput.json"))
		if err != nil {
			t.Fatal(err)
		}
		if rq := rep.Benchmarks[0].Metrics.RequestTotals; rq == nil || rq.Successful != 4 {
			t.Errorf("%q: requests %+v", args, rq)
		}
	}
}

// Conversations run against the mock with AIPerf's spellings: synthetic
// sessions of --conversation-turn-mean turns, and a multi_turn file.
func TestProfileConversationsRun(t *testing.T) {
	url := clitest.Mock(t, nil)
	multi := writeFile(t, "multi.jsonl", `{"session_id": "a", "turns": [{"text": "Hello there"}, {"text": "And then?", "delay": 5}]}
{"session_id": "b", "turns": [{"text": "Hi"}, {"text": "Why?"}, {"text": "Thanks"}]}
`)
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"--num-sessions", "3", "--conversation-turn-mean", "2", "--conversation-turn-delay-mean", "10", "--session-header", "x-session-id",
			"--isl", "16", "--osl", "4"}, 6},
		{[]string{"--input-file", multi, "--custom-dataset-type", "multi_turn", "--conversation-turn-delay-mean", "5"}, 5},
	} {
		dir := t.TempDir()
		code, _, stderr := runGoodput(t, append([]string{"profile", "--url", url, "--model", "goodput-mock", "--artifact-dir", dir,
			"--ui-type", "none", "--concurrency", "2", "--streaming"}, c.args...)...)
		if code != ExitOK {
			t.Fatalf("%q: exit %d: %s", c.args, code, stderr)
		}
		rep, err := report.Read(filepath.Join(dir, "goodput.json"))
		if err != nil {
			t.Fatal(err)
		}
		if rq := rep.Benchmarks[0].Metrics.RequestTotals; rq == nil || int(rq.Successful) != c.want {
			t.Errorf("%q: requests %+v, want %d turns", c.args, rq, c.want)
		}
	}
}

// --num-profile-runs runs every benchmark again; each run gets its AIPerf
// export, and the report its trials.
func TestProfileRepeatedRuns(t *testing.T) {
	url := clitest.Mock(t, nil)
	dir := t.TempDir()
	code, _, stderr := runGoodput(t, "profile", "--url", url, "--model", "goodput-mock", "--artifact-dir", dir, "--ui-type", "none",
		"--concurrency", "2", "--request-count", "4", "--isl", "16", "--osl", "4", "--num-profile-runs", "2", "--confidence-level", "0.9",
		"--slice-duration", "1")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rep, err := report.Read(filepath.Join(dir, "goodput.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Benchmarks) != 2 {
		t.Fatalf("%d benchmarks, want one per run", len(rep.Benchmarks))
	}
	for _, label := range []string{"concurrency_2", "concurrency_2_2"} {
		if x := clitest.ReadAIPerf(t, filepath.Join(dir, label, "profile_export_aiperf.json")); clitest.MetricAvg(t, x, "request_count") != 4 {
			t.Errorf("%s: request_count %v", label, clitest.MetricAvg(t, x, "request_count"))
		}
	}
}

// --request-count 64 with --conversation-num 8 (AIPerf's tutorial) sends
// the 8 conversations once each, as AIPerf does, and says so: once on
// stderr and in the report's notes.
func TestProfileConversationNumSupersedesRequestCount(t *testing.T) {
	url := clitest.Mock(t, nil)
	dir := t.TempDir()
	code, _, stderr := runGoodput(t, "profile", "--url", url, "--model", "goodput-mock", "--artifact-dir", dir, "--ui-type", "none",
		"--endpoint-type", "chat", "--streaming", "--concurrency", "4", "--request-count", "64", "--conversation-num", "8", "--isl", "16", "--osl", "4")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	const note = "--request-count 64 is superseded by --conversation-num 8: its 8 conversations of 1 turn(s) send at most 8 requests"
	if n := strings.Count(stderr, note); n != 1 {
		t.Errorf("stderr says %d times %q:\n%s", n, note, stderr)
	}
	rep, err := report.Read(filepath.Join(dir, "goodput.json"))
	if err != nil {
		t.Fatal(err)
	}
	if rq := rep.Benchmarks[0].Metrics.RequestTotals; rq == nil || rq.Successful != 8 {
		t.Errorf("requests %+v, want 8", rq)
	}
	if rep.Run == nil || len(rep.Run.Notes) != 1 || !strings.HasPrefix(rep.Run.Notes[0], note) {
		t.Errorf("report notes %v, want %q", rep.Run, note)
	}
}

// AIPerf's documented forms that were refused or misread: a full --url
// (the YAML tutorial's), --benchmark-grace-period inf, --output-dir, and
// --warmup-request-count with a trace, whose file fixes the count.
func TestAIPerfDocForms(t *testing.T) {
	s, err := setupProfile(t, "--url", "http://svc:8000/v1/chat/completions")
	if err != nil || s.cfg.Client.Targets[1] != "http://svc:8000" || s.cfg.Client.Path != "" || s.cfg.Client.Targets[0] != "http://127.0.0.1:1" {
		t.Errorf("full --url: targets %v, path %q, %v", s.cfg.Client.Targets, s.cfg.Client.Path, err)
	}
	s, err = setupProfile(t, "--url", "http://svc:8000/v1/embeddings", "--endpoint-type", "embeddings")
	if err != nil || s.cfg.Client.Targets[1] != "http://svc:8000" {
		t.Errorf("full --url of embeddings: targets %v, %v", s.cfg.Client.Targets, err)
	}
	s, err = setupProfile(t, "--url", "http://svc:8000/v1/chat/completions", "--endpoint-type", "completions")
	if err != nil || s.cfg.Client.Targets[1] != "http://svc:8000/v1/chat/completions" {
		t.Errorf("a --url ending in another endpoint's path is kept: targets %v, %v", s.cfg.Client.Targets, err)
	}
	s, err = setupProfile(t, "--benchmark-duration", "5", "--benchmark-grace-period", "inf")
	if err != nil || s.cfg.Plan.Constraints.Drain != graceInf {
		t.Errorf("--benchmark-grace-period inf: drain %v, %v", s.cfg.Plan.Constraints.Drain, err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	s, err = setupProfile(t, "--output-dir", dir)
	if err != nil || s.lay.target.Dir != dir {
		t.Errorf("--output-dir: %+v, %v", s.lay, err)
	}
	trace := writeFile(t, "trace.jsonl", `{"timestamp": 0, "input_length": 12, "output_length": 4, "hash_ids": [1]}
{"timestamp": 10, "input_length": 12, "output_length": 4, "hash_ids": [1]}
{"timestamp": 20, "input_length": 12, "output_length": 4, "hash_ids": [1]}
`)
	// The warmup sends its request under --concurrency, then the whole
	// trace is replayed (even a warmup as long as the trace).
	for _, n := range []string{"1", "3"} {
		s, err = setupProfile(t, "--input-file", trace, "--custom-dataset-type", "mooncake_trace", "--fixed-schedule", "--concurrency", "2", "--warmup-request-count", n)
		if err != nil || s.cfg.Plan.Constraints.MaxRequests != 0 || s.cfg.Plan.WarmupPhase == nil || s.cfg.Plan.WarmupPhase.Strategy.Streams != 2 ||
			s.cfg.Plan.WarmupPhase.Constraints.MaxRequests != int(n[0]-'0') || len(rounds(s)[0].Schedule) != 3 {
			t.Errorf("--warmup-request-count %s with a trace: constraints %+v, warmup %+v, %v", n, s.cfg.Plan.Constraints, s.cfg.Plan.WarmupPhase, err)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--benchmark-grace-period", "30"}, "--benchmark-grace-period applies with --benchmark-duration"},
		{[]string{"--benchmark-duration", "5", "--benchmark-grace-period", "-1"}, `--benchmark-grace-period "-1": want seconds ≥ 0 or inf`},
	} {
		if _, err := setupProfile(t, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v; want %q", c.args, err, c.want)
		}
	}

	// The full URL reaches the mock's endpoint: no request 404s.
	url := clitest.Mock(t, nil)
	out := t.TempDir()
	code, _, stderr := runGoodput(t, "profile", "--url", url+"/v1/chat/completions", "--model", "goodput-mock", "--artifact-dir", out, "--ui-type", "none",
		"--endpoint-type", "chat", "--streaming", "--request-count", "3", "--isl", "16", "--osl", "4")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rep, err := report.Read(filepath.Join(out, "goodput.json"))
	if err != nil {
		t.Fatal(err)
	}
	if rq := rep.Benchmarks[0].Metrics.RequestTotals; rq == nil || rq.Successful != 3 || rq.Errored != 0 {
		t.Errorf("full --url: requests %+v, want 3 successful", rq)
	}
}

// AIPerf's request cancellation: the picked requests are cancelled by the
// client after the delay and reported incomplete with class cancelled.
func TestProfileRequestCancellation(t *testing.T) {
	url := clitest.Mock(t, nil)
	dir := t.TempDir()
	code, _, stderr := runGoodput(t, "profile", "--url", url, "--model", "goodput-mock", "--artifact-dir", dir, "--ui-type", "none",
		"--endpoint-type", "chat", "--streaming", "--concurrency", "2", "--request-count", "6", "--isl", "16", "--osl", "4",
		"--request-cancellation-rate", "100", "--request-cancellation-delay", "0")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rep, err := report.Read(filepath.Join(dir, "goodput.json"))
	if err != nil {
		t.Fatal(err)
	}
	b := rep.Benchmarks[0]
	if rq := b.Metrics.RequestTotals; rq == nil || rq.Successful != 0 || rq.Incomplete != 6 {
		t.Errorf("requests %+v, want all 6 incomplete", rq)
	}
	if n := b.Extras.Errors.ByClass["cancelled"]; n != 6 {
		t.Errorf("errors by class %v, want 6 cancelled", b.Extras.Errors.ByClass)
	}
	for _, bad := range [][]string{{"--request-cancellation-rate", "101"}, {"--request-cancellation-delay", "2"}} {
		if _, err := setupProfile(t, bad...); err == nil || !strings.Contains(err.Error(), bad[0]) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
