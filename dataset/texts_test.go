package dataset

import (
	"strings"
	"testing"
)

// AIPerf's embeddings and rankings input files, the docs' own example
// lines: testdata/aiperf_embeddings.jsonl is ai-dynamo/aiperf's
// docs/tutorials/embeddings.md ("Profile with Custom Input File"),
// testdata/aiperf_rankings.jsonl its docs/tutorials/rankings.md ("Profile
// using Custom Inputs"). Each record is one request carrying its texts,
// its tokens the inputs' (a rankings query once per passage), and the
// source is sent as it is (Pooled); without Options.Pooling the files
// are no prompts.
func TestAIPerfTextsFiles(t *testing.T) {
	tok := builtin(t, "o200k_base")
	for _, c := range []struct {
		path, pooling string
		texts         func(i int) (query string, inputs []string)
	}{
		{"testdata/aiperf_embeddings.jsonl", PoolingInputs, func(i int) (string, []string) {
			return "", []string{[]string{"What is artificial intelligence?", "Explain machine learning.", "How do neural networks work?",
				"Define deep learning.", "What are transformers in AI?"}[i]}
		}},
		{"testdata/aiperf_rankings.jsonl", PoolingDocuments, func(i int) (string, []string) {
			n := string(rune('0' + i))
			return "What is AI topic " + n + "?", []string{"AI passage " + n}
		}},
	} {
		d, err := Open(c.path, Options{Pooling: c.pooling, Tokenizer: tok})
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		l, ok := d.Source.(*List)
		if !ok || !l.Pooled() || l.Len() != 5 || d.Description.Requests != 5 {
			t.Fatalf("%s: source %T, %d requests; want a pooled list of the 5 records", c.path, d.Source, d.Description.Requests)
		}
		for i := range 5 {
			r, _ := l.Request(uint64(i))
			query, inputs := c.texts(i)
			want := 0
			if query != "" {
				want = tok.Count(query) * len(inputs)
			}
			for _, s := range inputs {
				want += tok.Count(s)
			}
			if r.Inputs() != len(inputs) || r.PromptTokens != want {
				t.Errorf("%s: record %d: %d inputs, %d prompt tokens; want %d, %d", c.path, i+1, r.Inputs(), r.PromptTokens, len(inputs), want)
			}
		}
		if _, err := Open(c.path, Options{}); err == nil {
			t.Errorf("%s: read as prompts without Options.Pooling", c.path)
		}
	}
}

// Several texts make one embeddings request of several inputs; AIPerf
// skips empty contents, and named texts count alike for embeddings.
func TestAIPerfTextsInputs(t *testing.T) {
	path := writeFile(t, "in.jsonl", `{"texts": ["a b", "c", ""]}
{"texts": [{"name": "text", "contents": ["d", "e f"]}, "g"]}
{"text": "h"}
`)
	d, err := Open(path, Options{Pooling: PoolingInputs})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{2, 3, 1} {
		r, _ := d.Source.Request(uint64(i))
		if r.Inputs() != want || r.PromptTokens != -1 {
			t.Errorf("record %d: %d inputs, %d prompt tokens; want %d, unknown without a tokenizer", i+1, r.Inputs(), r.PromptTokens, want)
		}
	}
	if d.Description.Counts != countsUnknown {
		t.Errorf("counts %q without a tokenizer", d.Description.Counts)
	}
}

// In a multi_turn file each conversation is one request of one turn:
// AIPerf's embeddings and rankings endpoints send one turn per request.
func TestAIPerfTextsMultiTurn(t *testing.T) {
	path := writeFile(t, "mt.jsonl", `{"session_id": "a", "turns": [{"texts": ["x", "y"]}]}
{"session_id": "b", "turns": [{"text": "z"}]}
`)
	d, err := Open(path, Options{Pooling: PoolingInputs})
	if err != nil {
		t.Fatal(err)
	}
	if d.Description.Sessions != 0 || d.Description.Requests != 2 {
		t.Fatalf("%d sessions, %d requests; want 2 plain requests", d.Description.Sessions, d.Description.Requests)
	}
	for i, want := range []int{2, 1} {
		if r, _ := d.Source.Request(uint64(i)); r.Inputs() != want {
			t.Errorf("conversation %d: %d inputs, want %d", i+1, r.Inputs(), want)
		}
	}
	rank := writeFile(t, "mt.jsonl", `{"turns": [{"texts": [{"name": "query", "contents": ["q"]}, {"name": "passages", "contents": ["p", "r"]}]}]}`+"\n")
	if d, err := Open(rank, Options{Pooling: PoolingDocuments}); err != nil {
		t.Fatal(err)
	} else if r, _ := d.Source.Request(0); r.Inputs() != 2 {
		t.Errorf("rankings turn: %d passages, want 2", r.Inputs())
	}
	for _, c := range []struct{ data, want string }{
		{`{"turns": [{"texts": ["a"]}, {"texts": ["b"]}]}`, `mt.jsonl:1: field "turns": want one turn`},
		{`{"turns": [{"texts": [4]}]}`, `mt.jsonl:1: field "turns[0].texts[0]": want a string`},
	} {
		_, err := Open(writeFile(t, "mt.jsonl", c.data+"\n"), Options{Pooling: PoolingInputs})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.data, err, c.want)
		}
	}
}

// A record that does not fit the endpoint is refused with one line naming
// its field.
func TestAIPerfTextsErrors(t *testing.T) {
	for _, c := range []struct{ name, pooling, data, want string }{
		{"rankings of plain texts", PoolingDocuments, `{"texts": ["a", "b"]}`, `x.jsonl:1: field "texts[0]": a rankings request needs named texts`},
		{"unknown name", PoolingDocuments, `{"texts": [{"name": "query", "contents": ["q"]}, {"name": "passage", "contents": ["p"]}]}`,
			`x.jsonl:1: field "texts[1].name": "passage": want "query" or "passages"`},
		{"two queries", PoolingDocuments, `{"texts": [{"name": "query", "contents": ["q", "r"]}, {"name": "passages", "contents": ["p"]}]}`,
			`x.jsonl:1: field "texts": 2 queries; a rankings request has one`},
		{"no query", PoolingDocuments, `{"texts": [{"name": "passages", "contents": ["p"]}]}`, `field "texts": 0 queries`},
		{"no passages", PoolingDocuments, `{"texts": [{"name": "queries", "contents": ["q"]}]}`, `x.jsonl:1: field "texts": no passages to rank`},
		{"rankings of one text", PoolingDocuments, "{\"texts\": [{\"name\": \"query\", \"contents\": [\"q\"]}, {\"name\": \"passages\", \"contents\": [\"p\"]}]}\n{\"text\": \"q\"}",
			`x.jsonl:2: field "texts[0]": a rankings request needs named texts`},
		{"nothing to embed", PoolingInputs, `{"texts": ["", ""]}`, `x.jsonl:1: field "texts": no text to embed`},
		{"media", PoolingInputs, `{"texts": ["a"], "images": ["x.png"]}`, `x.jsonl:1: field "images": embeddings requests carry texts only`},
		{"text and texts", PoolingInputs, `{"text": "a", "texts": ["b"]}`, `x.jsonl:1: field "text": give "text" or "texts", not both`},
		{"not a list", PoolingInputs, `{"texts": "a"}`, `x.jsonl:1: field "texts": want a list`},
		{"bad element", PoolingInputs, `{"texts": [3]}`, `x.jsonl:1: field "texts[0]": want a string or {"name"`},
		{"record without texts", PoolingInputs, "{\"texts\": [\"a\"]}\n{\"prompt\": \"b\"}", `x.jsonl:2: field "texts": missing`},
	} {
		_, err := Open(writeFile(t, "x.jsonl", c.data+"\n"), Options{Pooling: c.pooling})
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line containing %q", c.name, err, c.want)
		}
	}
}
