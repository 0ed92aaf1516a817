package accum

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/console"
)

// goldenReport builds a two-benchmark report from the golden records: a
// constant-rate benchmark and a concurrent one with warmup and cooldown.
func goldenReport(t *testing.T) *report.Report {
	t.Helper()
	cons := []report.Constraint{{Kind: report.ConstraintMaxDuration, Seconds: 10}}
	b1 := runGolden(t, Config{Start: base, Constraints: cons, Seed: 1}, goldenRecords, BenchmarkInfo{
		RunID: "run-1", RunIndex: 0, Strategy: report.Strategy{Type: report.StrategyConstant, Rate: 10, MaxConcurrency: 64, WorkerCount: 4},
		Start: base, End: ms(10000), QueuingEnd: ms(9000), ProcessingEnd: ms(9500), StopTime: ms(10000),
		StopReason: report.ConstraintMaxDuration, Workers: 4,
		Scheduler: SchedulerCounts{Created: 5, Processed: 5, Successful: 2, Errored: 1, Cancelled: 2},
	})
	b2 := runGolden(t, Config{Start: base, Constraints: cons, Warmup: mustPhase(t, "2"), Cooldown: mustPhase(t, "1s"), Seed: 2},
		windowRecords(), BenchmarkInfo{RunID: "run-1", RunIndex: 1, Strategy: report.Strategy{Type: report.StrategyConcurrent, Streams: 8},
			Start: base, End: ms(10000), StopTime: ms(10000), StopReason: report.ConstraintMaxDuration})
	sc, err := report.NewScenario(report.SpecInput{
		Backend: report.Backend{Target: "http://127.0.0.1:8000", Model: "m", Stream: true, HTTP2: false, APIKeySet: true,
			ExtraBody: map[string]any{"temperature": 0.6}},
		Profile:     report.Profile{Kind: "constant", Rate: []float64{10}, MaxConcurrency: 64, Warmup: mustPhase(t, "2")},
		Constraints: cons,
		Data:        []report.SyntheticText{{PromptTokens: 256, OutputTokens: 128, PrefixTokens: 32}},
		Seed:        42, SampleSize: 20,
		Outputs: []report.Output{{Kind: "json", Path: "benchmarks.json"}, {Kind: "console"}},
		Labels:  map[string]string{"env": "test"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return report.NewReport("test", sc, b1, b2)
}

func writeJSON(t *testing.T, r *report.Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestRoundTrip(t *testing.T) {
	r := goldenReport(t)
	first := writeJSON(t, r)
	if again := writeJSON(t, r); !bytes.Equal(first, again) {
		t.Fatal("writing the same report twice gave different bytes")
	}
	back, err := report.Decode(bytes.NewReader(first), "golden.json")
	if err != nil {
		t.Fatal(err)
	}
	if back.Layout != report.LayoutGoodput {
		t.Errorf("layout %s, want goodput", back.Layout)
	}
	second := writeJSON(t, back)
	if !bytes.Equal(first, second) {
		i := 0
		for i < len(first) && i < len(second) && first[i] == second[i] {
			i++
		}
		lo := max(i-80, 0)
		t.Fatalf("round trip differs at byte %d:\n%s\n%s", i, first[lo:min(i+80, len(first))], second[lo:min(i+80, len(second))])
	}
	if !bytes.Contains(first, []byte(`"api_key": "**********"`)) {
		t.Error("the API key must be written masked")
	}
}

// Expected JSON structure. A leaf is a type: int, float, str, bool, null,
// any, or alternatives joined with "|"; an object is an ordered key list;
// an array is tarr{elem}.
type tobj []kv
type kv struct {
	k string
	v any
}
type tarr struct{ elem any }

func sdTree() tobj {
	p := tobj{}
	for _, k := range []string{"p001", "p01", "p05", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "p999"} {
		p = append(p, kv{k, "float"})
	}
	return tobj{{"mean", "float"}, {"median", "float"}, {"mode", "float"}, {"variance", "float"}, {"std_dev", "float"},
		{"min", "float"}, {"max", "float"}, {"count", "int"}, {"total_sum", "float"}, {"percentiles", p}, {"pdf", "null"},
		{"mean_ci", "tobj?"}, {"percentile_cis", "tobj?"}}
}

func sdsTree() tobj {
	return tobj{{"successful", sdTree()}, {"errored", sdTree()}, {"incomplete", sdTree()}, {"total", sdTree()}}
}

func countsTree() tobj {
	return tobj{{"successful", "int"}, {"errored", "int"}, {"incomplete", "int"}, {"total", "int"}}
}

func gmsTree() tobj {
	var o tobj
	for _, k := range []string{"input", "input_per_second", "input_concurrency", "output", "output_per_second",
		"output_concurrency", "total", "total_per_second", "total_concurrency"} {
		o = append(o, kv{k, sdsTree()})
	}
	return o
}

func nullKeys(keys ...string) tobj {
	var o tobj
	for _, k := range keys {
		o = append(o, kv{k, "null"})
	}
	return o
}

func usageTree() tobj {
	var o tobj
	for _, k := range []string{"text_tokens", "text_words", "text_characters", "image_tokens", "image_count", "image_pixels",
		"image_bytes", "video_tokens", "video_frames", "video_seconds", "video_bytes", "audio_tokens", "audio_samples",
		"audio_seconds", "audio_bytes", "tool_call_tokens", "mixed_content_tool_tokens", "tool_call_count", "total_tokens"} {
		o = append(o, kv{k, "int|float|null"})
	}
	return o
}

func requestTree() tobj {
	tim := tobj{}
	for _, k := range []string{"targeted_start", "queued", "dequeued", "scheduled_at", "resolve_start", "request_start",
		"first_request_iteration", "first_token_iteration", "first_output_token_iteration", "last_token_iteration",
		"last_request_iteration"} {
		tim = append(tim, kv{k, "float|null"})
	}
	tim = append(tim, kv{"request_iterations", "int"}, kv{"token_iterations", "int"},
		kv{"request_end", "float|null"}, kv{"resolve_end", "float"}, kv{"finalized", "float|null"})
	info := tobj{{"request_id", "str"}, {"conversation_id", "null"}, {"turn_index", "int"}, {"status", "str"},
		{"scheduler_node_id", "int"}, {"scheduler_process_id", "int"}, {"scheduler_start_time", "float"},
		{"timings", tim}, {"settings", tobj{{"relative_timestamp", "null"}, {"requeue_delay", "null"}}},
		{"error", "str|null"}, {"traceback", "null"}, {"started_at", "float|null"}, {"completed_at", "float|null"}}
	o := tobj{{"type_", "str"}, {"request_id", "str"}, {"response_id", "str|null"}, {"request_args", "null"},
		{"output", "str|null"}, {"reasoning_output", "str|null"}, {"tool_calls", "null"}, {"info", info},
		{"input_metrics", usageTree()}, {"output_metrics", usageTree()},
		{"request_start_time", "float|null"}, {"request_end_time", "float"}, {"request_latency", "float|null"},
		{"prompt_tokens", "int|null"}, {"output_tokens", "int|null"}, {"total_tokens", "int|null"}}
	for _, k := range []string{"time_to_first_token_ms", "time_per_output_token_ms", "inter_token_latency_ms",
		"tokens_per_second", "output_tokens_per_second", "time_to_first_output_token_ms", "iter_tokens_per_iteration",
		"output_tokens_per_iteration"} {
		o = append(o, kv{k, "float|null"})
	}
	o = append(o, kv{"goodput", tobj{{"id", "int"}, {"error_class", "str?"}, {"http_status", "int"}, {"finish_reason", "str?"},
		{"token_source", "str"}, {"cached_tokens", "int|null"}, {"reasoning_tokens", "int"}, {"server_output_tokens", "int|null"},
		{"client_output_tokens", "int|null"}, {"sent", "float|null"}, {"headers", "float|null"}, {"in_window", "bool"}}})
	return o
}

func tpcTree() tobj {
	return tobj{{"percent", "float|null"}, {"value", "int|float|null"}, {"mode", "str"}}
}

func extrasTree() tobj {
	x := tobj{}
	for _, k := range []string{"request_latency", "time_to_first_token_ms", "time_to_first_output_token_ms",
		"time_to_second_token_ms", "time_per_output_token_ms", "inter_token_latency_ms", "itl_per_gap_ms",
		"itl_per_token_ms", "dispatch_lateness_ms", "scheduled_time_to_first_token_ms", "scheduled_request_latency"} {
		x = append(x, kv{k, sdsTree()})
	}
	return tobj{{"version", "int"}, {"exact", "bool"}, {"inexact_reasons", tarr{"str"}}, {"stop_reason", "str"},
		{"requests", tobj{{"recorded", "int"}, {"invalid", "int"}, {"not_dispatched", "int"}, {"outside_window", "int"},
			{"in_window", "int"}, {"exact_cap", "int"}, {"online_mismatch", "int"}, {"not_sent", "int"}}},
		{"errors", tobj{{"error_rate", "float"}, {"by_class", "map:int"}, {"by_http_status", "map:int"}}},
		{"metrics", x},
		{"token_mismatch", tobj{{"compared", "int"}, {"equal", "int"}, {"server_higher", "int"}, {"client_higher", "int"},
			{"difference", sdTree()}}},
		{"prompt_token_mismatch", "tobj?"}, {"prompt_overhead", "tobj?"}, {"token_warnings", "tarr?"},
		{"histograms", tobj{{"encoding", "str"}, {"unit", "str"}, {"lowest_discernible", "int"}, {"highest_trackable", "int"},
			{"significant_digits", "int"}, {"clamped", "int"},
			{"metrics", "map:histograms"}}},
		{"censored", tobj{{"confidence", "float"}, {"time_to_first_token_ms", censoredTree()}, {"request_latency", censoredTree()}}},
		{"window_throughput", tobj{{"output_tokens_per_second", "float"}, {"requests_per_second", "float"},
			{"completed", "int"}, {"in_flight_done", "float"}, {"window_seconds", "float"}}}}
}

func censoredTree() tobj {
	p, ci := tobj{}, tobj{}
	for _, k := range report.PercentileKeys {
		p = append(p, kv{k, "float|null"})
		ci = append(ci, kv{k, tobj{{"lower", "float|null"}, {"upper", "float|null"}, {"confidence", "float"}}})
	}
	return tobj{{"events", "int"}, {"censored", "int"}, {"max_observed", "float"}, {"percentiles", p}, {"percentile_cis", ci}}
}

func benchmarkTree() tobj {
	action := tobj{{"request_queuing", "str"}, {"request_processing", "str"}, {"stopping_scope", "str"},
		{"metadata", tobj{}}, {"progress", tobj{{"remaining_requests", "float|null"}, {"total_requests", "float|null"},
			{"remaining_duration", "float|null"}, {"total_duration", "float|null"}, {"stop_time", "float|null"}}}}
	state := tobj{{"node_id", "int"}, {"num_processes", "int"}, {"start_time", "float"}, {"end_time", "float|null"},
		{"start_requests_time", "float|null"}, {"end_requests_time", "float|null"}, {"end_queuing_time", "float|null"},
		{"end_queuing_constraints", "map:action"}, {"end_processing_time", "float|null"},
		{"end_processing_constraints", "map:action"}, {"scheduler_constraints", "map:action"},
		{"progress", action[4].v}}
	for _, k := range []string{"created_requests", "queued_requests", "pending_requests", "processing_requests",
		"processed_requests", "successful_requests", "errored_requests", "cancelled_requests"} {
		state = append(state, kv{k, "int"})
	}
	sm := tobj{}
	for _, k := range []string{"start_time", "request_start_time", "measure_start_time", "measure_end_time", "request_end_time", "end_time"} {
		sm = append(sm, kv{k, "float"})
	}
	sm = append(sm, kv{"requests_made", countsTree()})
	for _, k := range []string{"queued_time_avg", "resolve_start_delay_avg", "resolve_targeted_start_delay_avg",
		"request_start_delay_avg", "request_targeted_start_delay_avg", "request_time_avg", "resolve_end_delay_avg",
		"resolve_time_avg", "finalized_delay_avg", "processed_delay_avg"} {
		sm = append(sm, kv{k, "float"})
	}
	metrics := tobj{{"request_totals", countsTree()}}
	for _, k := range []string{"requests_per_second", "request_concurrency", "request_latency",
		"request_streaming_iterations_count", "prompt_token_count", "output_token_count", "total_token_count",
		"time_to_first_token_ms", "time_to_first_output_token_ms", "time_per_output_token_ms", "inter_token_latency_ms",
		"prompt_tokens_per_second", "output_tokens_per_second", "tokens_per_second", "output_tokens_per_iteration",
		"iter_tokens_per_iteration"} {
		metrics = append(metrics, kv{k, sdsTree()})
	}
	metrics = append(metrics,
		kv{"text", tobj{{"tokens", gmsTree()}, {"words", "null"}, {"characters", "null"}}},
		kv{"image", nullKeys("tokens", "images", "pixels", "bytes")},
		kv{"video", nullKeys("tokens", "frames", "seconds", "bytes")},
		kv{"audio", nullKeys("tokens", "samples", "seconds", "bytes")},
		kv{"tool_call", nullKeys("tokens", "mixed_tokens", "count")})
	config := tobj{{"id_", "str"}, {"run_id", "str"}, {"run_index", "int"}, {"strategy", "strategy"},
		{"constraints", "map:any"}, {"sample_size", "int"}, {"warmup", tpcTree()}, {"cooldown", tpcTree()},
		{"prefer_response_metrics", "bool"}, {"profile", "objany"}, {"requests", "objany"}, {"backend", "objany"},
		{"environment", "objany"}}
	return tobj{{"type_", "str"}, {"config", config}, {"scheduler_state", state}, {"scheduler_metrics", sm},
		{"metrics", metrics},
		{"requests", tobj{{"successful", tarr{requestTree()}}, {"errored", tarr{requestTree()}}, {"incomplete", tarr{requestTree()}},
			{"total", "null"}}},
		{"start_time", "float"}, {"end_time", "float"}, {"duration", "float"}, {"warmup_duration", "float"},
		{"cooldown_duration", "float"}, {"goodput", extrasTree()}}
}

func specTree() tobj {
	backend := tobj{{"kind", "str"}, {"target", "str"}, {"model", "str"}, {"request_format", "str"}, {"api_key", "str|null"},
		{"api_routes", tobj{}}, {"timeout", "float|null"}, {"timeout_connect", "float"}, {"http2", "bool"},
		{"follow_redirects", "bool"}, {"verify", "bool"}, {"validate_backend", "bool"}, {"stream", "bool"},
		{"extras", tobj{{"method", "null"}, {"stream", "null"}, {"headers", "null"}, {"params", "null"},
			{"body", tobj{{"temperature", "float"}}}, {"files", "null"}, {"content", "null"}}},
		{"max_tokens", "int|null"}, {"server_history", "bool"}, {"tool_call_missing_behavior", "str"}, {"multiturn_reasoning", "bool"}}
	profile := tobj{{"kind", "str"}, {"rampup_duration", "float"}, {"warmup", tpcTree()}, {"cooldown", tpcTree()},
		{"rate", tarr{"float"}}, {"max_concurrency", "int|null"}}
	data := tobj{{"kind", "str"}, {"load_kwargs", tobj{}}, {"prompt_tokens", "int"}}
	for _, k := range []string{"prompt_tokens_stdev", "prompt_tokens_min", "prompt_tokens_max", "output_tokens",
		"output_tokens_stdev", "output_tokens_min", "output_tokens_max", "delay", "delay_stdev", "delay_min", "delay_max"} {
		data = append(data, kv{k, "int|float|null"})
	}
	data = append(data, kv{"turns", "int"}, kv{"tool_call_turns", tarr{"int"}}, kv{"tools", "null"})
	for _, k := range []string{"tool_response_tokens", "tool_response_tokens_stdev", "tool_response_tokens_min", "tool_response_tokens_max"} {
		data = append(data, kv{k, "null"})
	}
	data = append(data, kv{"server_tool_call_turns", tarr{"int"}},
		kv{"prefix_buckets", tarr{tobj{{"bucket_weight", "int"}, {"prefix_count", "int"}, {"prefix_tokens", "int"}}}})
	return tobj{{"backend", backend}, {"profile", profile},
		{"constraints", tarr{tobj{{"kind", "str"}, {"stopping_scope", "str"}, {"seconds", "int|float"}}}},
		{"tokenizer", tobj{{"kind", "str"}, {"model", "str|null"}, {"load_kwargs", tobj{}}}},
		{"data", tarr{data}},
		{"data_column_mapper", tobj{{"kind", "str"}, {"column_mappings", "null"}}},
		{"data_preprocessors", tarr{tobj{{"kind", "str"}, {"audio_kwargs", tobj{}}, {"image_kwargs", tobj{}}, {"video_kwargs", tobj{}}}}},
		{"data_finalizer", tobj{{"kind", "str"}, {"tool_call_mode", "str"}}},
		{"data_loader", tobj{{"kind", "str"}, {"samples", "int"}, {"shuffle", "bool"}, {"num_workers", "int"}}},
		{"seed", tobj{{"kind", "str"}, {"value", "int"}}},
		{"outputs", tarr{"objany"}},
		{"metrics", tobj{{"kind", "str"}, {"sample_size", "int"}, {"prefer_response_metrics", "bool"}}}}
}

func reportTree() tobj {
	return tobj{
		{"metadata", tobj{{"version", "int"}, {"guidellm_version", "str"}, {"python_version", "str"}, {"platform", "str"}, {"goodput_version", "str"}}},
		{"config", tobj{{"metadata", tobj{{"labels", tobj{{"env", "str"}}}}}, {"spec", specTree()}, {"benchmarks", tarr{"null"}}}},
		{"benchmarks", tarr{benchmarkTree()}},
	}
}

// ordered JSON value: *ordObj, []any, json.Number, string, bool, nil.
type ordObj struct {
	keys []string
	vals map[string]any
}

func parseOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch d := tok.(type) {
	case json.Delim:
		switch d {
		case '{':
			o := &ordObj{vals: map[string]any{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k := kt.(string)
				v, err := parseOrdered(dec)
				if err != nil {
					return nil, err
				}
				o.keys = append(o.keys, k)
				o.vals[k] = v
			}
			_, err := dec.Token()
			return o, err
		case '[':
			var a []any
			for dec.More() {
				v, err := parseOrdered(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token()
			if a == nil {
				a = []any{}
			}
			return a, err
		}
	}
	return tok, nil
}

func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case string:
		return "str"
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			return "float"
		}
		return "int"
	case []any:
		return "tarr"
	case *ordObj:
		return "tobj"
	}
	return "?"
}

func checkTree(t *testing.T, path string, spec, v any) {
	t.Helper()
	switch s := spec.(type) {
	case string:
		switch {
		case s == "any":
			return
		case s == "objany":
			if jsonType(v) != "tobj" {
				t.Errorf("%s: %s, want an object", path, jsonType(v))
			}
			return
		case s == "strategy":
			o, ok := v.(*ordObj)
			if !ok || len(o.keys) < 3 || o.keys[0] != "type_" || o.keys[1] != "worker_count" || o.keys[2] != "max_concurrency" {
				t.Errorf("%s: strategy keys %v", path, o)
			}
			return
		case strings.HasPrefix(s, "map:"):
			o, ok := v.(*ordObj)
			if !ok {
				t.Errorf("%s: %s, want an object", path, jsonType(v))
				return
			}
			for _, k := range o.keys {
				switch s {
				case "map:int":
					checkTree(t, path+"."+k, "int", o.vals[k])
				case "map:histograms":
					checkTree(t, path+"."+k, tobj{{"successful", "str"}, {"errored", "str"}, {"incomplete", "str"}}, o.vals[k])
				case "map:action":
					checkTree(t, path+"."+k, tobj{{"request_queuing", "str"}, {"request_processing", "str"}, {"stopping_scope", "str"},
						{"metadata", tobj{}}, {"progress", "objany"}}, o.vals[k])
				}
			}
			return
		case strings.HasSuffix(s, "?"): // optional key handled by the parent
			s = strings.TrimSuffix(s, "?")
		}
		got := jsonType(v)
		for _, alt := range strings.Split(s, "|") {
			if alt == got {
				return
			}
		}
		t.Errorf("%s: JSON type %s, want %s", path, got, s)
	case tobj:
		o, ok := v.(*ordObj)
		if !ok {
			t.Errorf("%s: %s, want an object", path, jsonType(v))
			return
		}
		var want []string
		for _, e := range s {
			if str, ok := e.v.(string); ok && strings.HasSuffix(str, "?") {
				if _, present := o.vals[e.k]; !present {
					continue
				}
			}
			want = append(want, e.k)
		}
		if strings.Join(o.keys, ",") != strings.Join(want, ",") {
			t.Errorf("%s: keys\n  %v\nwant\n  %v", path, o.keys, want)
			return
		}
		for _, e := range s {
			if _, present := o.vals[e.k]; present {
				checkTree(t, path+"."+e.k, e.v, o.vals[e.k])
			}
		}
	case tarr:
		a, ok := v.([]any)
		if !ok {
			t.Errorf("%s: %s, want an array", path, jsonType(v))
			return
		}
		for i, x := range a {
			checkTree(t, fmt.Sprintf("%s[%d]", path, i), s.elem, x)
		}
	}
}

func TestJSONStructure(t *testing.T) {
	data := writeJSON(t, goldenReport(t))
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseOrdered(dec)
	if err != nil {
		t.Fatal(err)
	}
	checkTree(t, "", reportTree(), v)
	if bytes.HasSuffix(data, []byte("\n")) || !bytes.HasPrefix(data, []byte(`{"metadata": {"version": 2, "guidellm_version": "0.7.3"`)) {
		t.Errorf("layout: %.80s", data)
	}
}

// TestGuideLLMChecker runs GuideLLM v0.7.3's loader rules
// (report/testdata/guidellm_v2_check.py) on a written report, in strict mode.
// The only strict remark allowed is metadata.goodput_version, which
// GuideLLM's loader drops (metadata ignores unknown keys): goodput keeps
// its version there on purpose.
func TestGuideLLMChecker(t *testing.T) {
	checker := os.Getenv("GUIDELLM_V2_CHECK")
	if checker == "" {
		checker = filepath.Join("..", "testdata", "guidellm_v2_check.py")
	}
	if _, err := os.Stat(checker); err != nil {
		t.Skipf("GuideLLM v2 checker not found at %s (set GUIDELLM_V2_CHECK): %v", checker, err)
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found: cannot run the GuideLLM v2 checker")
	}
	path := filepath.Join(t.TempDir(), "report.json")
	if err := os.WriteFile(path, writeJSON(t, goldenReport(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, checker, path).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "OK" {
		t.Fatalf("loader check failed: %v\n%s", err, out)
	}
	out, _ = exec.Command(py, checker, "--strict", path).CombinedOutput()
	want := "metadata.goodput_version: unknown key is silently dropped by the loader (extra='ignore' in GenerativeBenchmarkMetadata) [strict]\n1 violations"
	if strings.TrimSpace(string(out)) != want {
		t.Fatalf("strict check:\n%s\nwant only:\n%s", out, want)
	}
}

func TestReadLegacyFixture(t *testing.T) {
	r, err := report.Read(filepath.Join("..", "testdata", "benchmarks_stripped_legacy_v0.3.json"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Layout != report.LayoutLegacy03 || len(r.Benchmarks) != 1 || r.Config != nil {
		t.Fatalf("layout %s, %d benchmarks", r.Layout, len(r.Benchmarks))
	}
	b := r.Benchmarks[0]
	m := b.Metrics
	// Values copied from the fixture.
	if m.RequestsPerSecond.Successful.Mean != 1.5481806532737452 || m.RequestsPerSecond.Successful.Count != 45 ||
		m.TimePerOutputTokenMs.Successful.Mean != 4.90300272307966 || *m.RequestTotals != (report.StatusCounts{Successful: 46, Incomplete: 1, Total: 47}) {
		t.Errorf("metrics: %+v", m.RequestsPerSecond.Successful)
	}
	if m.RequestsPerSecond.Successful.Percentiles.P50 != nil {
		t.Error("the v0.3 layout has no p50: it must stay absent")
	}
	if m.TimeToFirstOutputTokenMs != nil || m.RequestStreamingIterationsCount != nil || m.Text != nil || b.SchedulerState != nil {
		t.Error("metrics the v0.3 layout lacks must stay nil")
	}
	if b.Config.Strategy.Type != report.StrategySynchronous || string(b.Config.Constraints[report.ConstraintMaxDuration]) != `{"kind":"max_duration","stopping_scope":"current","seconds":30}` {
		t.Errorf("config: %+v %s", b.Config.Strategy, b.Config.Constraints)
	}
	if *b.Duration != 29.997201442718506 || *b.SchedulerMetrics.RequestTimeAvg != 0.6370967195389119 {
		t.Errorf("timings: %v", *b.Duration)
	}
	req := b.Requests.Successful[0]
	if req.RequestID != "73054dd1-486f-4894-a861-075750b82453" || *req.PromptTokens != 257 || *req.Info.Timings.ResolveEnd != 1749157168.8723884 ||
		*req.TimeToFirstTokenMs != 21.281957626342773 {
		t.Errorf("request: %+v", req)
	}
}

var update = flag.Bool("update", false, "rewrite testdata/golden's files")

// golden compares got with testdata/golden/name; go test -update (or
// UPDATE_GOLDEN=1) rewrites the file.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("..", "testdata", "golden", name)
	if *update || os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update or UPDATE_GOLDEN=1 to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (-update or UPDATE_GOLDEN=1 to accept):\n%s", name, got)
	}
}

func TestConsoleAndCSVGolden(t *testing.T) {
	legacy, err := report.Read(filepath.Join("..", "testdata", "benchmarks_stripped_legacy_v0.3.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		r    *report.Report
	}{{"legacy_v0.3", legacy}, {"goodput", goldenReport(t)}} {
		var con, csvb bytes.Buffer
		if err := console.WriteWidth(&con, tc.r, 0); err != nil { // --wide
			t.Fatal(err)
		}
		if err := report.WriteCSV(&csvb, tc.r); err != nil {
			t.Fatal(err)
		}
		golden(t, tc.name+".console.txt", con.Bytes())
		golden(t, tc.name+".csv", csvb.Bytes())
		consoleWidthGolden(t, tc.name, tc.r)
	}
}

// consoleWidthGolden checks the console of r in 80 and 100 columns
// against its golden files and that no line is wider.
func consoleWidthGolden(t *testing.T, name string, r *report.Report) {
	t.Helper()
	for _, cols := range []int{80, console.Columns} {
		var con bytes.Buffer
		if err := console.WriteWidth(&con, r, cols); err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(con.String(), "\n") {
			if n := utf8.RuneCountInString(line); n > cols {
				t.Errorf("%s in %d columns: line %d is %d wide: %s", name, cols, i+1, n, line)
			}
		}
		golden(t, fmt.Sprintf("%s.console.%d.txt", name, cols), con.Bytes())
	}
}

func TestDecodeErrors(t *testing.T) {
	valid := writeJSON(t, goldenReport(t))
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", "report.json: empty file, not a goodput or GuideLLM report"},
		{"truncated", string(valid[:1234]), "report.json: truncated JSON at byte 1234"},
		{"truncated object", `{"benchmarks": [`, "report.json: truncated JSON at byte 16"},
		{"foreign object", `{"foo": 1}`, `report.json: not a goodput or GuideLLM report: missing key "benchmarks"`},
		{"foreign array", `[1, 2]`, "report.json: not a goodput or GuideLLM report: the top-level JSON value is an array, want an object"},
		{"benchmarks not an array", `{"benchmarks": 5}`, `report.json: not a goodput or GuideLLM report: "benchmarks" is a number, want an array`},
		{"bad syntax", `{"benchmarks": [}`, "report.json: invalid JSON at byte 16: invalid character '}' looking for beginning of value"},
		{"unknown version", `{"metadata": {"version": 3}, "benchmarks": []}`, "report.json: unsupported report schema: metadata.version is 3 (this goodput reads versions 1 and 2)"},
		{"wrong type", `{"metadata": {"version": 2}, "config": null, "benchmarks": [{"metrics": {"request_totals": {"total": "x"}}}]}`,
			`report.json: key "benchmarks.metrics.request_totals.total": expected an integer, got a string "x"`},
		{"fractional count", `{"metadata": {"version": 2}, "config": null, "benchmarks": [{"metrics": {"request_latency": {"total": {"count": 1.5}}}}]}`,
			`report.json: key "benchmarks.metrics.request_latency.total.count": expected an integer, got a number 1.5`},
		{"null benchmark", `{"metadata": {"version": 2}, "config": null, "benchmarks": [null]}`, `report.json: key "benchmarks[0]" is null, want an object`},
	}
	for _, tc := range tests {
		_, err := report.Decode(strings.NewReader(tc.in), "report.json")
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if err.Error() != tc.want {
			t.Errorf("%s:\n got  %s\n want %s", tc.name, err, tc.want)
		}
	}
}

func TestDecodeOlderLayouts(t *testing.T) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(writeJSON(t, goldenReport(t)), &doc); err != nil {
		t.Fatal(err)
	}
	build := func(m map[string]json.RawMessage) io.Reader {
		b, _ := json.Marshal(m)
		return bytes.NewReader(b)
	}
	// GuideLLM v2 without goodput's version: read as GuideLLM v2.
	v2 := map[string]json.RawMessage{"metadata": json.RawMessage(`{"version": 2, "guidellm_version": "0.7.3"}`),
		"config": doc["config"], "benchmarks": doc["benchmarks"]}
	// v0.5–v0.6: metadata.version 1 and "args" instead of "config".
	v1 := map[string]json.RawMessage{"metadata": json.RawMessage(`{"version": 1}`), "args": json.RawMessage(`{"target": "x"}`),
		"benchmarks": doc["benchmarks"]}
	// v0.4: {args, benchmarks}.
	v04 := map[string]json.RawMessage{"args": json.RawMessage(`{"target": "x"}`), "benchmarks": doc["benchmarks"]}
	for _, tc := range []struct {
		m    map[string]json.RawMessage
		want report.Layout
	}{{v2, report.LayoutV2}, {v1, report.LayoutV1}, {v04, report.LayoutV04}} {
		r, err := report.Decode(build(tc.m), "x.json")
		if err != nil {
			t.Fatal(err)
		}
		if r.Layout != tc.want || len(r.Benchmarks) != 2 || r.Benchmarks[0].Metrics.RequestTotals.Total != 4 {
			t.Errorf("%s: layout %s", tc.want, r.Layout)
		}
		if tc.want != report.LayoutV2 && (string(r.Args) != `{"target":"x"}` || r.Config != nil) {
			t.Errorf("%s: args %s", tc.want, r.Args)
		}
	}
	// Python's json module writes NaN for a float that is not a number:
	// read as absent.
	nan := bytes.Replace(writeJSON(t, goldenReport(t)), []byte(`"mean": 0.195`), []byte(`"mean": NaN`), 1)
	r, err := report.Decode(bytes.NewReader(nan), "nan.json")
	if err != nil {
		t.Fatal(err)
	}
	if r.Benchmarks[0].Metrics.RequestLatency.Successful.Mean != 0 {
		t.Error("NaN should read as 0 (null)")
	}
}

func TestWriteJSONRejectsNaN(t *testing.T) {
	r := goldenReport(t)
	r.Benchmarks[0].Metrics.RequestLatency.Successful.Mean = report.Float(nan())
	if err := r.WriteJSON(io.Discard); err == nil || strings.Contains(err.Error(), "\n") {
		t.Errorf("err = %v, want a one-line error", err)
	}
}

func nan() float64 { var z float64; return z / z }

// recordFromSpec is used by the fuzz seed corpus.
var _ = record.New

// TestEmptyBenchmark: a benchmark without requests still writes a report
// GuideLLM loads (all distributions zero).
func TestEmptyBenchmark(t *testing.T) {
	a, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	b := a.Finish(BenchmarkInfo{RunID: "empty", Strategy: report.Strategy{Type: report.StrategySynchronous}, Start: base, End: ms(1000)})
	if b.Metrics.RequestTotals.Total != 0 || b.Metrics.RequestLatency.Total.Count != 0 || b.Metrics.Text.Tokens != nil {
		t.Errorf("metrics %+v", b.Metrics.RequestTotals)
	}
	r := goldenReport(t)
	r.Benchmarks = []*report.Benchmark{b}
	data := writeJSON(t, r)
	back, err := report.Decode(bytes.NewReader(data), "empty.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(writeJSON(t, back), data) {
		t.Error("round trip differs")
	}
	checker := filepath.Join("..", "testdata", "guidellm_v2_check.py")
	if py, err := exec.LookPath("python3"); err == nil {
		if _, err := os.Stat(checker); err == nil {
			path := filepath.Join(t.TempDir(), "empty.json")
			_ = os.WriteFile(path, data, 0o644)
			if out, err := exec.Command(py, checker, path).CombinedOutput(); err != nil {
				t.Errorf("loader check: %s", out)
			}
		}
	}
}

// TestGuideLLMCheckerProfiles: every profile kind, constraint kind and
// strategy type goodput writes passes GuideLLM's loader rules, strict.
func TestGuideLLMCheckerProfiles(t *testing.T) {
	if testing.Short() {
		t.Skip("runs GuideLLM's loader rules on every profile (make check)")
	}
	checker := filepath.Join("..", "testdata", "guidellm_v2_check.py")
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found")
	}
	if _, err := os.Stat(checker); err != nil {
		t.Skipf("checker not found: %v", err)
	}
	warm := mustPhase(t, "10%")
	profiles := []struct {
		p report.Profile
		s report.Strategy
	}{
		{report.Profile{Kind: "synchronous"}, report.Strategy{Type: report.StrategySynchronous}},
		{report.Profile{Kind: "concurrent", Streams: []int{1, 4, 16}, Warmup: warm}, report.Strategy{Type: report.StrategyConcurrent, Streams: 4}},
		{report.Profile{Kind: "throughput", MaxConcurrency: 256}, report.Strategy{Type: report.StrategyThroughput, MaxConcurrency: 256}},
		{report.Profile{Kind: "throughput"}, report.Strategy{Type: report.StrategyThroughput}},
		{report.Profile{Kind: "poisson", Rate: []float64{2.5}}, report.Strategy{Type: report.StrategyPoisson, Rate: 2.5, RandomSeed: 42}},
		{report.Profile{Kind: "sweep", SweepSize: 5, StrategyType: "poisson", Cooldown: warm}, report.Strategy{Type: report.StrategyConstant, Rate: 3}},
		{report.Profile{Kind: "replay", TimeScale: 2}, report.Strategy{Type: report.StrategyReplay, TimeScale: 2}},
	}
	cons := []report.Constraint{{Kind: report.ConstraintMaxDuration, Seconds: 30}, {Kind: report.ConstraintMaxRequests, Count: 100},
		{Kind: report.ConstraintMaxErrors, Count: 10, StoppingScope: "all"}, {Kind: report.ConstraintMaxErrorRate, Rate: 0.2},
		{Kind: report.ConstraintMaxGlobalErrorRate, Rate: 0.1}}
	for _, pc := range profiles {
		sc, err := report.NewScenario(report.SpecInput{Backend: report.Backend{Target: "http://127.0.0.1:9", RequestFormat: "/v1/completions", MaxTokens: 64},
			Profile: pc.p, Constraints: cons, Tokenizer: "gpt2",
			Data:    []report.SyntheticText{{PromptTokens: 128, PromptTokensStdev: 16, PromptTokensMin: 64, PromptTokensMax: 256, Turns: 2}},
			RawData: []json.RawMessage{json.RawMessage(`{"kind":"json_file","path":"prompts.jsonl","load_kwargs":{}}`)},
			Outputs: []report.Output{{Kind: "csv", Path: "x.csv"}, {Kind: "yaml", Path: "x.yaml"}, {Kind: "html", Path: "x.html"}}})
		if err != nil {
			t.Fatal(err)
		}
		b := runGolden(t, Config{Start: base, Constraints: cons}, goldenRecords, BenchmarkInfo{RunID: "r", Strategy: pc.s, Start: base,
			Profile: sc.Spec.Profile, Backend: sc.Spec.Backend})
		path := filepath.Join(t.TempDir(), "r.json")
		if err := os.WriteFile(path, writeJSON(t, report.NewReport("t", sc, b)), 0o644); err != nil {
			t.Fatal(err)
		}
		out, _ := exec.Command(py, checker, "--strict", path).CombinedOutput()
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "metadata.goodput_version:") {
			t.Errorf("%s: strict check:\n%s", pc.p.Kind, out)
		}
	}
}
