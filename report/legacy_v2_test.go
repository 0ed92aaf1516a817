package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const legacyFixturePath = "testdata/benchmarks_stripped_legacy_v0.3.json"

// guidellmCheck runs GuideLLM v0.7.3's loader rules
// (report/testdata/guidellm_v2_check.py, a copy of the project tool, or $GUIDELLM_V2_CHECK) on a file
// and returns their output. It skips the test when python3 or the checker
// is missing, unless $GOODPUT_CI is set: CI must run it.
func guidellmCheck(t *testing.T, path string, strict bool) string {
	t.Helper()
	if strict {
		return guidellmCheckArgs(t, "--strict", path)
	}
	return guidellmCheckArgs(t, path)
}

// guidellmCheckArgs runs the checker with the given arguments (see
// guidellmCheck for when it skips).
func guidellmCheckArgs(t *testing.T, args ...string) string {
	t.Helper()
	checker := os.Getenv("GUIDELLM_V2_CHECK")
	if checker == "" {
		checker = filepath.Join("testdata", "guidellm_v2_check.py")
	}
	py, err := exec.LookPath("python3")
	if err == nil {
		_, err = os.Stat(checker)
	}
	if err != nil {
		msg := "GuideLLM v2 checker unavailable (python3 and " + checker + ", or set GUIDELLM_V2_CHECK): " + err.Error()
		if os.Getenv("GOODPUT_CI") != "" {
			t.Fatal(msg + " ($GOODPUT_CI is set: CI must run it)")
		}
		t.Skip(msg)
	}
	out, _ := exec.Command(py, append([]string{checker}, args...)...).CombinedOutput()
	return strings.TrimSpace(string(out))
}

// legacyVariant returns the legacy fixture with edit applied to its
// decoded JSON (nil: unchanged), read by Decode.
func legacyVariant(t *testing.T, edit func(doc map[string]any, b map[string]any)) (*Report, error) {
	t.Helper()
	raw, err := os.ReadFile(legacyFixturePath)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(doc, doc["benchmarks"].([]any)[0].(map[string]any))
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return Decode(bytes.NewReader(data), "legacy.json")
}

func compactJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := MarshalCompact(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func jobj(m map[string]any, key string) map[string]any { return m[key].(map[string]any) }

// TestLegacyAsV2: the v0.2–v0.3 fixture written as JSON is a report v2
// that goodput reads back (and writes again byte for byte) and that
// GuideLLM's loader rules accept, strict; what the old layout records is
// carried over, what it lacks is written as GuideLLM writes absent data.
func TestLegacyAsV2(t *testing.T) {
	r, err := Read(legacyFixturePath)
	if err != nil {
		t.Fatal(err)
	}
	data := encodeReport(t, r)
	if b := r.Benchmarks[0]; r.Config != nil || b.SchedulerState != nil || b.Metrics.RequestLatency.Successful.Percentiles.P50 != nil ||
		b.Metrics.TimeToFirstOutputTokenMs != nil || b.WarmupDuration != nil {
		t.Error("writing the report changed it")
	}
	back, err := Decode(bytes.NewReader(data), "v2.json")
	if err != nil {
		t.Fatal(err)
	}
	if back.Layout != LayoutV2 || back.Metadata.Version != 2 || back.Metadata.GoodputVersion != "" || len(back.Benchmarks) != 1 {
		t.Fatalf("read back as %s, metadata %+v", back.Layout, back.Metadata)
	}
	if again := encodeReport(t, back); !bytes.Equal(again, data) {
		t.Error("the converted report read back and written again differs")
	}

	b := back.Benchmarks[0]
	m := &b.Metrics
	// p50 is the old median, for every status of every distribution the
	// old layout has (values from the fixture).
	if p := m.RequestLatency.Successful.Percentiles.P50; p == nil || *p != 0.6424565315246582 {
		t.Errorf("request_latency p50 %v, want the fixture's median 0.6424565315246582", p)
	}
	if p := m.TimeToFirstTokenMs.Successful.Percentiles.P50; p == nil || *p != 16.38054847717285 {
		t.Errorf("time_to_first_token_ms p50 %v, want the fixture's median 16.38054847717285", p)
	}
	all := map[string]*StatusDistributionSummary{
		"requests_per_second": m.RequestsPerSecond, "request_concurrency": m.RequestConcurrency, "request_latency": m.RequestLatency,
		"request_streaming_iterations_count": m.RequestStreamingIterationsCount, "prompt_token_count": m.PromptTokenCount,
		"output_token_count": m.OutputTokenCount, "total_token_count": m.TotalTokenCount, "time_to_first_token_ms": m.TimeToFirstTokenMs,
		"time_to_first_output_token_ms": m.TimeToFirstOutputTokenMs, "time_per_output_token_ms": m.TimePerOutputTokenMs,
		"inter_token_latency_ms": m.InterTokenLatencyMs, "prompt_tokens_per_second": m.PromptTokensPerSecond,
		"output_tokens_per_second": m.OutputTokensPerSecond, "tokens_per_second": m.TokensPerSecond,
		"output_tokens_per_iteration": m.OutputTokensPerIteration, "iter_tokens_per_iteration": m.IterTokensPerIteration,
	}
	absent := map[string]bool{"request_streaming_iterations_count": true, "total_token_count": true, "time_to_first_output_token_ms": true,
		"prompt_tokens_per_second": true, "output_tokens_per_iteration": true, "iter_tokens_per_iteration": true}
	for k, d := range all {
		if d == nil {
			t.Errorf("%s: missing", k)
			continue
		}
		for st, s := range map[string]*DistributionSummary{"successful": d.Successful, "errored": d.Errored, "incomplete": d.Incomplete, "total": d.Total} {
			switch {
			case s == nil || s.Percentiles.P50 == nil:
				t.Errorf("%s.%s: no summary or no p50", k, st)
			case *s.Percentiles.P50 != s.Median:
				t.Errorf("%s.%s: p50 %v, median %v", k, st, *s.Percentiles.P50, s.Median)
			case absent[k] && compactJSON(t, s) != compactJSON(t, &DistributionSummary{Percentiles: Percentiles{P50: new(Float)}}):
				t.Errorf("%s.%s: the old layout has no such metric: want GuideLLM's summary of no samples, got %+v", k, st, *s)
			}
		}
	}
	if m.Text == nil || m.Text.Tokens != nil || m.Image == nil || m.Video == nil || m.Audio == nil || m.ToolCall == nil || m.ToolCall.Count != nil {
		t.Error("modality metrics: want objects of null summaries")
	}

	// The window is the first request start to the last request end
	// (no warmup or cooldown); the scheduler's times and counts are the
	// run_stats'.
	sm := b.SchedulerMetrics
	if *sm.RequestStartTime != 1749157168.1827004 || *sm.MeasureStartTime != 1749157168.1827004 ||
		*sm.MeasureEndTime != 1749157198.1799018 || *sm.RequestEndTime != 1749157198.1799018 ||
		*sm.StartTime != 1749157168.054225 || *sm.EndTime != 1749157198.213826 {
		t.Errorf("scheduler_metrics times %+v", sm)
	}
	if *sm.ResolveTimeAvg != 0.6373953819274902 || *sm.ResolveTargetedStartDelayAvg != 0.6319031715393066 ||
		*sm.QueuedTimeAvg != 0.631589580089488 || *sm.ResolveStartDelayAvg != -1 || *sm.FinalizedDelayAvg != -1 {
		t.Errorf("scheduler_metrics averages: resolve %v, targeted %v, queued %v, resolve start %v",
			*sm.ResolveTimeAvg, *sm.ResolveTargetedStartDelayAvg, *sm.QueuedTimeAvg, *sm.ResolveStartDelayAvg)
	}
	st := b.SchedulerState
	if st == nil || st.NodeID != -1 || st.NumProcesses != -1 || st.StartTime != 1749157168.054225 || *st.EndTime != 1749157198.213826 ||
		st.SuccessfulRequests != 1 || st.ProcessedRequests != 1 || st.StartRequestsTime != nil {
		t.Errorf("scheduler_state %+v", st)
	}
	if *b.WarmupDuration != 0 || *b.CooldownDuration != 0 || *b.Duration != 29.997201442718506 {
		t.Errorf("durations %v %v %v", *b.WarmupDuration, *b.CooldownDuration, *b.Duration)
	}

	spec := back.Config.Spec
	for _, c := range []struct {
		name string
		got  json.RawMessage
		want string
	}{
		{"backend", spec.Backend, `"target":"example_target","model":"example_model","request_format":"/v1/completions","api_key":null`},
		{"backend", spec.Backend, `"timeout":300.0,"timeout_connect":300.0,"http2":true`},
		{"backend", spec.Backend, `"stream":true,"extras":null,"max_tokens":16384`},
		{"profile", spec.Profile, `"kind":"sweep"`},
		{"profile", spec.Profile, `"sweep_size":10,"strategy_type":"constant","max_concurrency":null`},
		{"tokenizer", spec.Tokenizer, `"model":"example_processor"`},
		{"data", spec.Data[0], `"kind":"synthetic_text","load_kwargs":{},"prompt_tokens":256,`},
		{"data", spec.Data[0], `"output_tokens":128,`},
		{"constraints", spec.Constraints[0], `{"kind":"max_duration","stopping_scope":"current","seconds":30}`},
		{"seed", spec.Seed, `{"kind":"static","value":42}`},
		{"metrics", spec.Metrics, `{"kind":"generative","sample_size":null,"prefer_response_metrics":true}`},
	} {
		if !strings.Contains(compactRaw(c.got), c.want) {
			t.Errorf("config.spec.%s = %s, want it to contain %s", c.name, compactRaw(c.got), c.want)
		}
	}
	if len(spec.Data) != 1 || len(spec.Constraints) != 1 || len(spec.Outputs) != 0 {
		t.Errorf("spec: %d data, %d constraints, %d outputs", len(spec.Data), len(spec.Constraints), len(spec.Outputs))
	}

	path := filepath.Join(t.TempDir(), "v2.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if out := guidellmCheck(t, path, false); out != "OK" {
		t.Errorf("loader check:\n%s", out)
	}
	if out := guidellmCheck(t, path, true); out != "OK" {
		t.Errorf("strict check:\n%s", out)
	}
}

// TestLegacyAsV2Variants: the data, endpoint and profile forms of
// v0.2–v0.3 map onto GuideLLM v0.7's, and the result passes GuideLLM's
// loader rules, strict.
func TestLegacyAsV2Variants(t *testing.T) {
	if testing.Short() {
		t.Skip("runs GuideLLM's loader rules on every legacy variant (make check)")
	}
	tests := []struct {
		name string
		edit func(doc, b map[string]any)
		part func(s Spec) json.RawMessage
		want string
	}{
		{"json lines file", func(_, b map[string]any) {
			jobj(b, "request_loader")["data"] = "data/prompts.jsonl"
			jobj(b, "request_loader")["data_args"] = map[string]any{"split": "train"}
		}, func(s Spec) json.RawMessage { return s.Data[0] }, `{"kind":"json_file","load_kwargs":{"split":"train"},"path":"data/prompts.jsonl"}`},
		{"hugging face dataset", func(_, b map[string]any) { jobj(b, "request_loader")["data"] = "openai/gsm8k" },
			func(s Spec) json.RawMessage { return s.Data[0] }, `{"kind":"huggingface","load_kwargs":{},"source":"openai/gsm8k"}`},
		{"synthetic as JSON", func(_, b map[string]any) {
			jobj(b, "request_loader")["data"] = `{"prompt_tokens": 512, "output_tokens_max": 64, "samples": 100}`
		}, func(s Spec) json.RawMessage { return s.Data[0] }, `"prompt_tokens":512,`},
		{"chat endpoint", func(_, b map[string]any) {
			jobj(b, "requests")["successful"].([]any)[0].(map[string]any)["request_type"] = "chat_completions"
		}, func(s Spec) json.RawMessage { return s.Backend }, `"request_format":"/v1/chat/completions"`},
		{"api key", func(_, b map[string]any) { jobj(jobj(b, "worker"), "backend_info")["authorization"] = true },
			func(s Spec) json.RawMessage { return s.Backend }, `"api_key":"**********"`},
		{"poisson profile", func(_, b map[string]any) {
			jobj(b, "args")["profile"] = map[string]any{"type_": "async", "strategy_type": "poisson", "rate": []any{1.5, 3},
				"initial_burst": true, "random_seed": 7, "max_concurrency": nil}
		}, func(s Spec) json.RawMessage { return s.Profile }, `"kind":"poisson","rampup_duration":0.0`},
		{"poisson seed", func(_, b map[string]any) {
			jobj(b, "args")["profile"] = map[string]any{"type_": "async", "strategy_type": "poisson", "rate": 2.0, "random_seed": 7}
		}, func(s Spec) json.RawMessage { return s.Seed }, `{"kind":"static","value":7}`},
		{"concurrent profile", func(_, b map[string]any) {
			jobj(b, "args")["profile"] = map[string]any{"type_": "concurrent", "streams": []any{2, 8}}
			jobj(b, "args")["strategy"] = map[string]any{"type_": "concurrent", "streams": 2}
		}, func(s Spec) json.RawMessage { return s.Profile }, `"streams":[2,8]`},
		{"sampled records", func(_, b map[string]any) { b["request_samples"] = 20 },
			func(s Spec) json.RawMessage { return s.Metrics }, `"sample_size":20`},
		{"max requests", func(_, b map[string]any) { jobj(b, "args")["max_number"] = 100 },
			func(s Spec) json.RawMessage { return s.Constraints[1] }, `"kind":"max_requests","stopping_scope":"current","count":100`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := legacyVariant(t, tc.edit)
			if err != nil {
				t.Fatal(err)
			}
			v2, err := r.AsV2()
			if err != nil {
				t.Fatal(err)
			}
			if got := compactRaw(tc.part(v2.Config.Spec)); !strings.Contains(got, tc.want) {
				t.Errorf("%s, want it to contain %s", got, tc.want)
			}
			path := filepath.Join(t.TempDir(), "v2.json")
			if err := os.WriteFile(path, encodeReport(t, r), 0o644); err != nil {
				t.Fatal(err)
			}
			if out := guidellmCheck(t, path, true); out != "OK" {
				t.Errorf("strict check:\n%s", out)
			}
		})
	}
}

// TestAsV2Refused: what cannot be made a valid report v2 honestly is
// refused with one line naming the reason, and WriteJSON writes nothing.
func TestAsV2Refused(t *testing.T) {
	tests := []struct {
		name string
		edit func(doc, b map[string]any)
		want string
	}{
		{"warmup", func(_, b map[string]any) { jobj(b, "args")["warmup_duration"] = 5.0 }, "benchmarks[0]: warmup or cooldown set"},
		{"cooldown", func(_, b map[string]any) { jobj(b, "args")["cooldown_number"] = 3.0 }, "benchmarks[0]: warmup or cooldown set"},
		{"backend type", func(_, b map[string]any) { jobj(b, "worker")["backend_type"] = "deepsparse" }, `worker.backend_type is "deepsparse", want openai_http`},
		{"no target", func(_, b map[string]any) { delete(jobj(b, "worker"), "backend_target") }, "worker.backend_target is missing"},
		{"custom path", func(_, b map[string]any) {
			jobj(jobj(b, "worker"), "backend_info")["text_completions_path"] = "/x/completions"
		},
			`sends text_completions to "/x/completions"`},
		{"profile", func(_, b map[string]any) { jobj(jobj(b, "args"), "profile")["type_"] = "adaptive" }, `args.profile.type_ is "adaptive"`},
		{"data config file", func(_, b map[string]any) { jobj(b, "request_loader")["data"] = "synthetic.yaml" }, "synthetic data configuration file"},
		{"data key", func(_, b map[string]any) { jobj(b, "request_loader")["data"] = "prompt_tokens=256,images=2" }, `unknown key "images"`},
		{"data not a string", func(_, b map[string]any) { jobj(b, "request_loader")["data"] = []any{"a"} }, "request_loader.data is an array, want a string"},
		{"no run stats times", func(_, b map[string]any) { delete(jobj(b, "run_stats"), "start_time") }, "run_stats.start_time or run_stats.end_time is missing"},
		{"two targets", func(doc, b map[string]any) {
			var c map[string]any
			raw, _ := json.Marshal(b)
			_ = json.Unmarshal(raw, &c)
			jobj(c, "worker")["backend_target"] = "http://other"
			doc["benchmarks"] = append(doc["benchmarks"].([]any), c)
		}, `benchmarks[1] ran with another "worker"`},
		{"no benchmarks", func(doc, _ map[string]any) { doc["benchmarks"] = []any{} }, "no benchmarks"},
		{"v0.4 layout", func(doc, _ map[string]any) { doc["args"] = map[string]any{"target": "x"} }, "(GuideLLM v0.4–v0.6 layout)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := legacyVariant(t, tc.edit)
			if err != nil {
				t.Fatal(err)
			}
			_, err = r.AsV2()
			if err == nil || !errors.Is(err, ErrNotV2) || !strings.Contains(err.Error(), tc.want) || strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("err = %v, want one line wrapping ErrNotV2 containing %q", err, tc.want)
			}
			var buf bytes.Buffer
			if err := r.WriteJSON(&buf); !errors.Is(err, ErrNotV2) || buf.Len() != 0 {
				t.Errorf("WriteJSON: %v, %d bytes written", err, buf.Len())
			}
		})
	}
}

func TestParseLegacySynthetic(t *testing.T) {
	tests := []struct {
		in   string
		want SyntheticText
		err  string
	}{
		{"prompt_tokens=256,output_tokens=128", SyntheticText{PromptTokens: 256, OutputTokens: 128}, ""},
		{" prompt_tokens = 64 , prompt_tokens_stdev=8,prompt_tokens_min=32,prompt_tokens_max=96,output_tokens_stdev=4,output_tokens_min=1,output_tokens_max=9,prefix_tokens=16,samples=1000,source=data:x.txt",
			SyntheticText{PromptTokens: 64, PromptTokensStdev: 8, PromptTokensMin: 32, PromptTokensMax: 96, OutputTokensStdev: 4,
				OutputTokensMin: 1, OutputTokensMax: 9, PrefixTokens: 16}, ""},
		{`{"prompt_tokens": 10, "output_tokens": "5", "source": "x"}`, SyntheticText{PromptTokens: 10, OutputTokens: 5}, ""},
		{"output_tokens=128", SyntheticText{}, "prompt_tokens is required"},
		{"prompt_tokens=0", SyntheticText{}, "prompt_tokens is required"},
		{"prompt_tokens=-3", SyntheticText{}, `prompt_tokens is "-3", want a non-negative integer`},
		{"prompt_tokens=2.5", SyntheticText{}, `prompt_tokens is "2.5", want a non-negative integer`},
		{"prompt_tokens=1,turns=2", SyntheticText{}, `unknown key "turns"`},
		{"prompt_tokens=1,,", SyntheticText{}, `"" is not key=value`},
		{`{"prompt_tokens": 1`, SyntheticText{}, "unexpected end of JSON input"},
	}
	for _, tc := range tests {
		got, err := ParseLegacySynthetic(tc.in)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: err %v, want %q", tc.in, err, tc.err)
		case tc.err == "" && got != tc.want:
			t.Errorf("%q: %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

// FuzzParseLegacySynthetic: the parser never panics, its errors are one
// line, and what it accepts is a synthetic_text source NewSpec writes.
func FuzzParseLegacySynthetic(f *testing.F) {
	for _, s := range []string{"prompt_tokens=256,output_tokens=128", `{"prompt_tokens": 5}`, "prompt_tokens=1,samples=x",
		"=", ",", "prompt_tokens=99999999999999999999", `{"prompt_tokens": 1e3}`, "prompt_tokens=1\n,x=2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st, err := ParseLegacySynthetic(s)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("multi-line error: %q", err)
			}
			return
		}
		if st.PromptTokens <= 0 {
			t.Fatalf("%q: accepted without prompt tokens: %+v", s, st)
		}
		if _, err := syntheticJSON(st); err != nil {
			t.Fatalf("%q: accepted %+v, which NewSpec refuses: %v", s, st, err)
		}
	})
}

func encodeReport(t *testing.T, r *Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
