package dataset

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// convertBack writes d as JSON Lines and opens the result with opts.
func convertBack(t *testing.T, d *Dataset, opts Options) (*Dataset, string) {
	t.Helper()
	var b bytes.Buffer
	if err := d.WriteJSONL(&b); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "out.jsonl")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := Open(p, opts)
	if err != nil {
		t.Fatalf("reading back %q: %v", b.String(), err)
	}
	return back, b.String()
}

func TestConvertRoundTrip(t *testing.T) {
	tok := builtin(t, "o200k_base")
	pq := filepath.Join(t.TempDir(), "p.parquet")
	writeParquet(t, pq, fixtureRows)
	for _, c := range []struct {
		value string
		opts  Options
	}{
		{pq, Options{Tokenizer: tok}},
		{"testdata/sharegpt.json", Options{Tokenizer: tok}},
		{"testdata/prompts.csv", Options{}},
		{"prompt_tokens=20,output_tokens=5,prefix_tokens=8,prefix_count=2", Options{Tokenizer: tok, Samples: 6}},
		{"testdata/burstgpt.csv", Options{Trace: true}},
		{"testdata/azure2024.csv", Options{Trace: true, Tokenizer: tok}},
		{"testdata/mooncake.jsonl", Options{Trace: true}},
	} {
		d, err := Open(c.value, c.opts)
		if err != nil {
			t.Fatalf("%s: %v", c.value, err)
		}
		back, text := convertBack(t, d, Options{Tokenizer: c.opts.Tokenizer, Trace: c.opts.Trace})
		a, b := requests(t, d.Source), requests(t, back.Source)
		if len(a) != len(b) {
			t.Fatalf("%s: %d requests, %d read back", c.value, len(a), len(b))
		}
		for i := range a {
			if !reflect.DeepEqual(a[i].Messages, b[i].Messages) || a[i].MaxTokens != b[i].MaxTokens ||
				a[i].TargetPromptTokens != b[i].TargetPromptTokens || a[i].PromptTokens != b[i].PromptTokens {
				t.Fatalf("%s: request %d %+v, read back %+v\n%s", c.value, i, summary(a[i:i+1]), summary(b[i:i+1]), text)
			}
		}
		if !reflect.DeepEqual(d.Schedule, back.Schedule) {
			t.Fatalf("%s: schedule %v, read back %v", c.value, d.Schedule, back.Schedule)
		}
	}
	d, _ := Open("prompt_tokens=20", Options{})
	if err := d.WriteJSONL(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "never ends") {
		t.Fatalf("unbounded synthetic: %v", err)
	}
}

func TestInspect(t *testing.T) {
	pq := filepath.Join(t.TempDir(), "p.parquet")
	writeParquet(t, pq, fixtureRows)
	d, err := Open(pq, Options{Tokenizer: builtin(t, "o200k_base")})
	if err != nil {
		t.Fatal(err)
	}
	in := d.Inspect(2)
	want := []Column{{"id", "number"}, {"question", "string"}, {"system", "string"}, {"output_tokens_count", "number"}, {"conversations", "list"}}
	if !reflect.DeepEqual(in.Columns, want) {
		t.Fatalf("columns %+v", in.Columns)
	}
	if len(in.First) != 2 || in.First[1].Messages[0].Content != "Name a prime." || in.Offsets != nil {
		t.Fatalf("first %+v offsets %v", summary(in.First), in.Offsets)
	}
	if o := in.OutputTokens; o.Count != 3 || o.Min != 4 || o.P50 != 8 || o.Max != 16 {
		t.Fatalf("output distribution %+v", o)
	}
	if p := in.PromptTokens; p.Count != 3 || p.Min < 3 || p.Max > 12 {
		t.Fatalf("prompt distribution %+v", p)
	}
	tr, err := Open("testdata/burstgpt.csv", Options{Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	in = tr.Inspect(5)
	if p := in.PromptTokens; p.Count != 3 || p.Min != 30 || p.P50 != 417 || p.Max != 472 || len(in.First) != 3 || len(in.Offsets) != 3 {
		t.Fatalf("trace: %+v, %d first", p, len(in.First))
	}
	if d := distribution([]int{5, 1, 4, 2, 3, 6, 7, 8, 9, 10}); d.P10 != 2 || d.P50 != 6 || d.P90 != 9 || d.P99 != 10 || d.Mean != 5.5 {
		t.Fatalf("distribution %+v", d)
	}
}
