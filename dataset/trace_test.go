package dataset

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func commonPrefix(a, b []int) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// TestMooncakeTrace replays testdata/mooncake.jsonl: rows sorted by
// timestamp (ms), exact prompts of input_length tokens, max_tokens =
// output_length, and prompt blocks shared where hash ids are.
func TestMooncakeTrace(t *testing.T) {
	for _, nt := range exactTokenizers(t) {
		t.Run(nt.name, func(t *testing.T) {
			d, err := Open("testdata/mooncake.jsonl", Options{Tokenizer: nt.tok, Trace: true, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			wantSched := []time.Duration{0, 0, 1500 * time.Millisecond, 3052 * time.Millisecond}
			if !reflect.DeepEqual(d.Schedule, wantSched) {
				t.Errorf("schedule %v, want %v", d.Schedule, wantSched)
			}
			rs := requests(t, d.Source)
			wantIn, wantOut := []int{1200, 700, 300, 1100}, []int{52, 10, 31, 794}
			ids := make([][]int, len(rs))
			for i, r := range rs {
				ids[i] = nt.tok.Encode(r.Text())
				if len(ids[i]) != wantIn[i] || r.PromptTokens != wantIn[i] || r.TargetPromptTokens != wantIn[i] || r.MaxTokens != wantOut[i] {
					t.Errorf("request %d: %d tokens encoded, PromptTokens %d, target %d, MaxTokens %d; want %d, %d",
						i, len(ids[i]), r.PromptTokens, r.TargetPromptTokens, r.MaxTokens, wantIn[i], wantOut[i])
				}
			}
			tr := d.Source.(*Trace)
			width := tr.gen.dmin[ctxMid]
			// Rows: [0 1 2] (1200), [0 3] (700), [5] (300), [0 1 4] (1100).
			if n := commonPrefix(ids[0], ids[3]); n < 1024 || n >= 1024+width {
				t.Errorf("rows sharing ids 0 and 1 share %d tokens, want 1024 (+ fewer than %d)", n, width)
			}
			if n := commonPrefix(ids[0], ids[1]); n < 512 || n >= 512+width {
				t.Errorf("rows sharing id 0 share %d tokens, want 512 (+ fewer than %d)", n, width)
			}
			if n := commonPrefix(ids[2], ids[0]); n >= tr.gen.dmin[ctxStart] {
				t.Errorf("rows sharing no id share %d tokens", n)
			}
			desc := d.Description
			if desc.Kind != kindMooncake || desc.BlockSize != 512 || desc.Counts != countsExact || desc.Requests != 4 ||
				desc.Span != 3052*time.Millisecond || desc.TimestampUnit != "ms" || desc.TimeScale != 1 {
				t.Errorf("description %+v", desc)
			}
			if ps := desc.PromptTokens; ps.Count != 4 || ps.Min != 300 || ps.Max != 1200 || ps.Mean != 825 {
				t.Errorf("prompt stats %+v, want 4 requests, 300..1200, mean 825", ps)
			}
			if want := `{"kind":"mooncake","path":"testdata/mooncake.jsonl","timestamp_column":"timestamp","prompt_tokens_column":"input_length","output_tokens_column":"output_length","hash_ids_column":"hash_ids","hash_id_block_size":512,"timestamp_unit":"ms"}`; string(desc.GuideLLM) != want {
				t.Errorf("GuideLLM %s\nwant %s", desc.GuideLLM, want)
			}
		})
	}
}

func TestTraceSynthetic(t *testing.T) {
	tok := builtin(t, "o200k_base")
	// kind=trace_synthetic ignores hash ids: every prompt has its own marker.
	d, err := Open("kind=trace_synthetic,path=testdata/mooncake.jsonl,timestamp_unit=ms", Options{Tokenizer: tok, TimeScale: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if want := []time.Duration{0, 0, 750 * time.Millisecond, 1526 * time.Millisecond}; !reflect.DeepEqual(d.Schedule, want) {
		t.Errorf("time scale 0.5: schedule %v, want %v", d.Schedule, want)
	}
	rs := requests(t, d.Source)
	a, b := tok.Encode(rs[0].Text()), tok.Encode(rs[3].Text())
	if n := commonPrefix(a, b); n >= d.Source.(*Trace).gen.dmin[ctxStart] {
		t.Errorf("trace_synthetic requests share %d tokens", n)
	}
	if len(a) != 1200 || len(b) != 1100 {
		t.Errorf("lengths %d and %d, want 1200 and 1100", len(a), len(b))
	}
	if d.Description.Kind != kindTrace || d.Description.BlockSize != 0 {
		t.Errorf("description %+v", d.Description)
	}

	// Column overrides (WEKA-style names), seconds, samples, no tokenizer.
	path := writeFile(t, "weka.jsonl", `{"t": 2.5, "in": 40, "out": 5}
{"t": 1.0, "in": 30, "out": 6}
{"t": 1.25, "in": 20, "out": 7}
`)
	for _, o := range []struct {
		value  string
		mapper string
	}{
		{"kind=trace_synthetic,path=" + path + ",timestamp_column=t,prompt_tokens_column=in,output_tokens_column=out,timestamp_unit=s", ""},
		{`{"kind":"trace_synthetic","path":"` + path + `","timestamp_column":"t","prompt_tokens_column":"in","output_tokens_column":"out","timestamp_unit":"s"}`, ""},
	} {
		d, err := Open(o.value, Options{Samples: 2})
		if err != nil {
			t.Fatal(err)
		}
		if want := []time.Duration{0, 250 * time.Millisecond}; !reflect.DeepEqual(d.Schedule, want) {
			t.Errorf("%s: schedule %v, want %v", o.value, d.Schedule, want)
		}
		rs := requests(t, d.Source)
		if len(rs) != 2 || rs[0].TargetPromptTokens != 30 || rs[1].TargetPromptTokens != 20 || rs[0].MaxTokens != 6 || rs[0].PromptTokens != -1 {
			t.Errorf("%s: requests %+v", o.value, summary(rs))
		}
		if n := len(strings.Fields(rs[0].Text())); n != 30 {
			t.Errorf("approximate prompt of 30 tokens has %d words", n)
		}
		if d.Description.Counts != countsApproximate {
			t.Errorf("counts %q, want approximate", d.Description.Counts)
		}
	}
	// The same through a plain path, Options.Trace and the column mapper.
	d, err = Open(path, Options{Trace: true, TimeScale: 2, ColumnMapper: `{"timestamp_column":"t","prompt_tokens_count_column":"in","output_tokens_count_column":"out"}`})
	if err != nil {
		t.Fatal(err)
	}
	if want := []time.Duration{0, 500 * time.Microsecond, 3 * time.Millisecond}; !reflect.DeepEqual(d.Schedule, want) {
		t.Errorf("mapper, ms: schedule %v, want %v", d.Schedule, want)
	}
}

func TestTraceErrors(t *testing.T) {
	good := `{"timestamp": 0, "input_length": 10, "output_length": 5}` + "\n"
	for _, c := range []struct {
		name, data, value string
		opts              Options
		want              string
	}{
		{"negative input", good + good + `{"timestamp": 1, "input_length": -5, "output_length": 5}`, "", Options{Trace: true},
			`trace.jsonl:3: "input_length" must be a positive integer (at most 4194304), got "-5"`},
		{"zero output", `{"timestamp": 1, "input_length": 5, "output_length": 0}`, "", Options{Trace: true}, `trace.jsonl:1: "output_length" must be a positive integer`},
		{"missing input", good + `{"timestamp": 1, "output_length": 5}`, "", Options{Trace: true}, `trace.jsonl:2: "input_length" is missing`},
		{"bad timestamp", `{"timestamp": "soon", "input_length": 5, "output_length": 5}`, "", Options{Trace: true}, `trace.jsonl:1: "timestamp" must be a number or a date-time such as 2023-11-16 18:15:46.68, got "\"soon\""`},
		{"no column", `{"ts": 0, "input_length": 5, "output_length": 5}`, "", Options{Trace: true}, `trace.jsonl: no "timestamp" column (columns: "ts", "input_length", "output_length")`},
		{"hash ids count", `{"timestamp": 0, "input_length": 1025, "output_length": 5, "hash_ids": [1, 2]}`, "", Options{Trace: true},
			`trace.jsonl:1: "hash_ids" has 2 ids but input_length=1025 needs 3 blocks of 512 tokens (hash_id_block_size)`},
		{"hash ids type", `{"timestamp": 0, "input_length": 5, "output_length": 5, "hash_ids": [-1]}`, "", Options{Trace: true},
			`trace.jsonl:1: "hash_ids" must be a list of non-negative integers, got "[-1]"`},
		{"mooncake needs hash ids", good, "kind=mooncake,path=%s", Options{}, `trace.jsonl:1: "hash_ids" is missing`},
		{"mooncake block size", `{"timestamp": 0, "input_length": 9, "output_length": 5, "hash_ids": [1, 2]}`, "kind=mooncake,path=%s,hash_id_block_size=4", Options{},
			`"hash_ids" has 2 ids but input_length=9 needs 3 blocks of 4 tokens`},
		{"shuffle", good, "", Options{Trace: true, Shuffle: true}, "shuffle does not apply to a trace"},
		{"unit", good, "kind=trace_synthetic,path=%s,timestamp_unit=h", Options{}, "kind=trace_synthetic: timestamp_unit=h: want s, ms or us"},
		{"unknown key", good, "kind=trace_synthetic,path=%s,hash_ids_column=h", Options{}, `kind=trace_synthetic: unknown key "hash_ids_column" (keys: kind, path, timestamp_column`},
		{"no path", good, "kind=trace_synthetic", Options{}, "kind=trace_synthetic needs path=FILE"},
		{"mapper role", good, "", Options{Trace: true, ColumnMapper: `{"text_column":"x"}`}, "--data-column-mapper: text_column does not apply to a trace"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeFile(t, "trace.jsonl", c.data)
			v := path
			if c.value != "" {
				v = strings.ReplaceAll(c.value, "%s", path)
			}
			_, err := Open(v, c.opts)
			if err != nil {
				// Messages name the file as given: trim the temporary directory.
				err = errorString(strings.ReplaceAll(err.Error(), path, "trace.jsonl"))
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v, want one line containing %q", err, c.want)
			}
		})
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

// TestTraceUnitsPerFormat replays each format's documented example in its
// own tool's unit: GuideLLM's trace kinds (trace_synthetic, its
// column-mapped form, mooncake, weka) count seconds, so its docs' rows at
// 1234500.0 and 1234500.5 are sent 0.5 s apart; AIPerf's mooncake_trace
// (a plain trace path) counts milliseconds.
func TestTraceUnitsPerFormat(t *testing.T) {
	half := []time.Duration{0, 500 * time.Millisecond}
	for _, c := range []struct {
		value string
		unit  string
		want  []time.Duration
	}{
		// GuideLLM's benchmark.md "Trace Replay Benchmarking".
		{"kind=trace_synthetic,path=testdata/guidellm_trace.jsonl", "s", half},
		{`{"kind":"trace_synthetic","path":"testdata/guidellm_trace.jsonl"}`, "s", half},
		// GuideLLM's trace_file_formats.md: other column names in --data.
		{"kind=trace_synthetic,path=testdata/guidellm_trace_columns.jsonl,timestamp_column=ts,prompt_tokens_column=input_tokens,output_tokens_column=generated_tokens", "s", half},
		{"kind=mooncake,path=testdata/guidellm_mooncake.jsonl", "s", half},
		{"kind=weka,path=testdata/guidellm_weka.jsonl", "s", half},
		// timestamp_unit still overrides GuideLLM's seconds.
		{"kind=trace_synthetic,path=testdata/guidellm_trace.jsonl,timestamp_unit=ms", "ms", []time.Duration{0, 500 * time.Microsecond}},
		// AIPerf's trace_replay.md example (--custom-dataset-type mooncake_trace).
		{"testdata/aiperf_trace.jsonl", "ms", []time.Duration{0, 10535 * time.Millisecond, 27482 * time.Millisecond}},
	} {
		d, err := Open(c.value, Options{Trace: true})
		if err != nil {
			t.Fatalf("%s: %v", c.value, err)
		}
		if !reflect.DeepEqual(d.Schedule, c.want) || d.Description.TimestampUnit != c.unit {
			t.Errorf("%s: schedule %v in %s, want %v in %s", c.value, d.Schedule, d.Description.TimestampUnit, c.want, c.unit)
		}
	}
	// The replay's time scale multiplies GuideLLM's seconds too.
	d, err := Open("kind=trace_synthetic,path=testdata/guidellm_trace.jsonl", Options{TimeScale: 2})
	if err != nil {
		t.Fatal(err)
	}
	if want := []time.Duration{0, time.Second}; !reflect.DeepEqual(d.Schedule, want) {
		t.Errorf("time scale 2: schedule %v, want %v", d.Schedule, want)
	}
}

// A window of a trace (AIPerf's --fixed-schedule-start-offset 2000
// --fixed-schedule-end-offset 4000 on its fixed-schedule tutorial's
// timestamps): the rows from 2000 to 4000 ms, sent at their time after the
// window's start.
func TestTraceWindow(t *testing.T) {
	path := writeFile(t, "precise_schedule.jsonl", `{"timestamp": 0, "input_length": 100, "output_length": 8}
{"timestamp": 500, "input_length": 200, "output_length": 8}
{"timestamp": 1250, "input_length": 180, "output_length": 8}
{"timestamp": 2000, "input_length": 400, "output_length": 8}
{"timestamp": 2500, "input_length": 250, "output_length": 8}
{"timestamp": 3000, "input_length": 350, "output_length": 8}
{"timestamp": 4000, "input_length": 500, "output_length": 8}
{"timestamp": 5000, "input_length": 600, "output_length": 8}
`)
	ms := time.Millisecond
	for _, c := range []struct {
		start, end time.Duration
		want       []time.Duration
		in         int // the first request's input_length
	}{
		{2000 * ms, 4000 * ms, []time.Duration{0, 500 * ms, 1000 * ms, 2000 * ms}, 400},
		{2200 * ms, 0, []time.Duration{300 * ms, 800 * ms, 1800 * ms, 2800 * ms}, 250},
		{0, 1000 * ms, []time.Duration{0, 500 * ms}, 100},
	} {
		d, err := Open(path, Options{Trace: true, TraceStart: c.start, TraceEnd: c.end})
		if err != nil {
			t.Fatalf("[%v, %v]: %v", c.start, c.end, err)
		}
		r, _ := d.Source.Request(0)
		if !reflect.DeepEqual(d.Schedule, c.want) || r.TargetPromptTokens != c.in || d.Description.Requests != len(c.want) {
			t.Errorf("[%v, %v]: schedule %v, first input %d, %d requests; want %v, %d", c.start, c.end, d.Schedule, r.TargetPromptTokens, d.Description.Requests, c.want, c.in)
		}
	}
	if _, err := Open(path, Options{Trace: true, TraceStart: 6000 * ms}); err == nil || !strings.Contains(err.Error(), "no row of 8 has a timestamp in the window [6s, end]") {
		t.Errorf("empty window: %v", err)
	}
}

// AIPerf's fixed-schedule tutorial's precise_schedule.jsonl has no
// output_length (documented optional): a plain trace path sends those
// requests without max_tokens; GuideLLM's trace kinds still require it.
func TestTraceOptionalOutput(t *testing.T) {
	path := writeFile(t, "precise_schedule.jsonl", `{"timestamp": 0, "input_length": 100, "hash_ids": [3001]}
{"timestamp": 500, "input_length": 200, "hash_ids": [3002]}
{"timestamp": 750, "input_length": 150, "output_length": 20, "hash_ids": [3003]}
`)
	d, err := Open(path, Options{Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	var max []int
	for _, r := range requests(t, d.Source) {
		max = append(max, r.MaxTokens)
	}
	if !reflect.DeepEqual(max, []int{0, 0, 20}) || !reflect.DeepEqual(d.Schedule, []time.Duration{0, 500 * time.Millisecond, 750 * time.Millisecond}) {
		t.Errorf("max_tokens %v, schedule %v", max, d.Schedule)
	}
	if _, err := Open("kind=trace_synthetic,path="+path, Options{}); err == nil || !strings.Contains(err.Error(), `precise_schedule.jsonl:1: "output_length" is missing`) {
		t.Errorf("GuideLLM's trace_synthetic without output_length: %v", err)
	}
}
