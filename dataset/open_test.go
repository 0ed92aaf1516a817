package dataset

import (
	"strings"
	"testing"
)

func TestOpenSynthetic(t *testing.T) {
	tok := builtin(t, "o200k_base")
	for _, value := range []string{
		"prompt_tokens=100,output_tokens=50",
		`{"prompt_tokens": 100, "output_tokens": 50}`,
		"kind=synthetic_text,prompt_tokens=100,output_tokens=50",
		`{"kind": "synthetic_text", "prompt_tokens": 100, "output_tokens": 50}`,
	} {
		d, err := Open(value, Options{Tokenizer: tok, Seed: 4})
		if err != nil {
			t.Fatalf("%s: %v", value, err)
		}
		if _, finite := d.Source.(interface{ Len() int }); finite || d.Schedule != nil {
			t.Errorf("%s: source finite %v, schedule %v; want unbounded, none", value, finite, d.Schedule)
		}
		desc := d.Description
		want := Description{Kind: kindSynthetic, Spec: "prompt_tokens=100,output_tokens=50", Counts: countsExact, Tokenizer: "o200k_base",
			TokenizerHash: tok.Hash(), Seed: 4, PromptTokens: TokenStats{1000, 100, 100, 100}, OutputTokens: TokenStats{1000, 50, 50, 50},
			GuideLLM: []byte(`{"kind":"synthetic_text","prompt_tokens":100,"output_tokens":50}`)}
		if desc.String() != want.String() || string(desc.GuideLLM) != string(want.GuideLLM) || desc.PromptTokens != want.PromptTokens ||
			desc.OutputTokens != want.OutputTokens || desc.TokenizerHash != want.TokenizerHash {
			t.Errorf("%s: description\n%+v\nwant\n%+v", value, desc, want)
		}
		r, ok := d.Source.Request(12345)
		if !ok || r.PromptTokens != 100 || tok.Count(r.Text()) != 100 || r.MaxTokens != 50 {
			t.Errorf("%s: request %+v", value, r)
		}
	}
	if got, want := (Description{Kind: kindSynthetic, Spec: "prompt_tokens=8", Counts: countsExact, Tokenizer: "o200k_base",
		PromptTokens: TokenStats{1000, 8, 8, 8}}).String(),
		"synthetic_text prompt_tokens=8 (exact, o200k_base): unbounded, prompt tokens mean 8.0 [8, 8]"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// TestOpenRounds: a Samples limit ends the source, in every round, and
// rounds have their own markers but the same lengths.
func TestOpenRounds(t *testing.T) {
	d, err := Open("prompt_tokens=20,prompt_tokens_stdev=5,output_tokens=9", Options{Samples: 30, Tokenizer: builtin(t, "o200k_base")})
	if err != nil {
		t.Fatal(err)
	}
	r0, r1 := requests(t, d.Source), requests(t, d.Round(1))
	if len(r0) != 30 || len(r1) != 30 || d.Description.Requests != 30 || d.Description.PromptTokens.Count != 30 {
		t.Fatalf("%d and %d requests, description %+v; want 30", len(r0), len(r1), d.Description)
	}
	for i := range r0 {
		if r0[i].PromptTokens != r1[i].PromptTokens || r0[i].MaxTokens != r1[i].MaxTokens || r0[i].Text() == r1[i].Text() {
			t.Errorf("request %d: rounds 0 and 1 give %d/%d %q and %d/%d %q; want equal lengths, different texts",
				i, r0[i].PromptTokens, r0[i].MaxTokens, r0[i].Text(), r1[i].PromptTokens, r1[i].MaxTokens, r1[i].Text())
		}
	}
	// The warmup's prompts have the same lengths, markers of their own,
	// and do not end with the Samples limit.
	for _, i := range []uint64{0, 7, 29} {
		w, ok := d.Warmup().Request(i)
		if !ok || w.PromptTokens != r0[i].PromptTokens || w.Text() == r0[i].Text() || w.Text() == r1[i].Text() {
			t.Errorf("warmup request %d: %v %d %q; want %d tokens and a text of its own", i, ok, w.PromptTokens, w.Text(), r0[i].PromptTokens)
		}
	}
	if _, ok := d.Warmup().Request(30); !ok {
		t.Error("the warmup's prompts ended with the benchmark's Samples limit")
	}
	f, err := Open("testdata/prompts.csv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Round(3) != f.Source || f.Warmup() != f.Source {
		t.Error("a file's Round(3) or Warmup is not its source")
	}
}

func TestOpenKinds(t *testing.T) {
	txt := writeFile(t, "lines.txt", "prompt,n\nhello,3\n")
	for _, c := range []struct {
		value, kind, format string
		n                   int
	}{
		{"kind=json_file,path=testdata/sharegpt.json", kindJSON, formatJSON, 3},
		{`{"kind":"csv_file","path":"testdata/prompts.csv"}`, kindCSV, formatCSV, 3},
		{"kind=csv_file,path=" + txt, kindCSV, formatCSV, 1},
		{"kind=text_file,path=" + txt, kindText, formatText, 2},
		{"kind=json_file,path=testdata/mooncake.jsonl", kindJSON, formatJSONL, 0},
	} {
		d, err := Open(c.value, Options{})
		if c.n == 0 {
			// mooncake.jsonl has no prompt column.
			if err == nil || !strings.Contains(err.Error(), "no prompt column") {
				t.Errorf("%s: error %v, want no prompt column", c.value, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.value, err)
		}
		if d.Description.Kind != c.kind || d.Description.Format != c.format || d.Description.Requests != c.n {
			t.Errorf("%s: kind %s format %s requests %d; want %s %s %d", c.value, d.Description.Kind, d.Description.Format, d.Description.Requests, c.kind, c.format, c.n)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		value string
		opts  Options
		want  string
	}{
		{"", Options{}, "empty value: want a spec such as prompt_tokens=256"},
		{"promt_tokens=256", Options{}, `unknown key "promt_tokens" (keys: kind, prompt_tokens, prompt_tokens_stdev, prompt_tokens_min, prompt_tokens_max, output_tokens`},
		{"data.jsonl", Options{}, "data.jsonl: no such file, and not a data spec: want a spec such as"},
		{dir, Options{}, "no data files (.parquet, .arrow, .jsonl, .json, .csv or .txt) in it"},
		{"kind=db_file,path=x", Options{}, "kind=db_file is not supported (kinds: synthetic_text, json_file"},
		{"kind=json_file", Options{}, "kind=json_file needs path=FILE"},
		{"kind=json_file,path=x,split=train", Options{}, `kind=json_file: unknown key "split" (keys: kind, path, turns,`},
		{`{"kind": 3}`, Options{}, "kind=3: want a string"},
		{"prompt_tokens=10", Options{Trace: true}, "replay needs a trace file"},
		{"prompt_tokens=10", Options{Shuffle: true}, "shuffle applies to data files"},
		{"prompt_tokens=10", Options{Samples: -1}, "samples=-1: want a count ≥ 0"},
		{"prompt_tokens=10", Options{TimeScale: -2}, "time scale -2: want a positive number"},
		{"prompt_tokens=10", Options{ColumnMapper: "{"}, "--data-column-mapper: not a JSON object"},
		{"prompt_tokens=10,prefix_tokens=1", Options{Tokenizer: builtin(t, "o200k_base")}, "prefix_tokens=1 is too short"},
	} {
		_, err := Open(c.value, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Open(%q): error %v, want one line containing %q", c.value, err, c.want)
		}
	}
}
