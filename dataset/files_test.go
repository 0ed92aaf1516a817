package dataset

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/loadgen"
)

// req is what a test expects of one request.
type req struct {
	system, prompt  string
	target, maxToks int
}

// requests drains a finite source.
func requests(t *testing.T, src loadgen.Source) []*loadgen.Request {
	t.Helper()
	n, ok := src.(interface{ Len() int })
	if !ok {
		t.Fatalf("source %T has no Len: it must be finite", src)
	}
	var out []*loadgen.Request
	for i := uint64(0); ; i++ {
		r, ok := src.Request(i)
		if !ok {
			break
		}
		out = append(out, r)
	}
	if len(out) != n.Len() {
		t.Fatalf("source gave %d requests, Len() = %d", len(out), n.Len())
	}
	return out
}

func summary(rs []*loadgen.Request) []req {
	var out []req
	for _, r := range rs {
		q := req{target: r.TargetPromptTokens, maxToks: r.MaxTokens}
		for _, m := range r.Messages {
			if m.Role == "system" {
				q.system = m.Content
			} else {
				q.prompt = m.Content
			}
		}
		out = append(out, q)
	}
	return out
}

func gz(t *testing.T, s string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestFiles(t *testing.T) {
	for _, c := range []struct {
		name, file, data string
		mapper           string
		want             []req
		columns          map[string]string
	}{
		{name: "jsonl first matching column in file order", file: "a.jsonl",
			data: `{"id":1,"question":"Q1","prompt":"P1"}` + "\n\n" + `{"id":2,"question":"Q2","prompt":"P2"}`,
			want: []req{{"", "Q1", -1, -1}, {"", "Q2", -1, -1}}, columns: map[string]string{roleText: "question"}},
		{name: "jsonl plural and case", file: "a.jsonl", data: `{"Prompts":"x"}`, want: []req{{"", "x", -1, -1}}},
		{name: "jsonl counts and system", file: "a.jsonl",
			data:    `{"system":"S","text":"T","prompt_tokens_count":5,"output_tokens_count":7}` + "\n" + `{"text":"U","input_tokens_count":"6","completion_tokens_count":8.0}`,
			want:    []req{{"S", "T", 5, 7}, {"", "U", -1, -1}},
			columns: map[string]string{roleText: "text", rolePrefix: "system", rolePromptCount: "prompt_tokens_count", roleOutputCount: "output_tokens_count"}},
		{name: "jsonl null system", file: "a.jsonl", data: `{"system":null,"prompt":"p"}`, want: []req{{"", "p", -1, -1}}},
		{name: "json array", file: "a.json", data: "[\n {\"instruction\": \"i1\"},\n {\"instruction\": \"i2\"}\n]", want: []req{{"", "i1", -1, -1}, {"", "i2", -1, -1}}},
		{name: "json data wrapper", file: "a.json", data: `{"version": 2, "data": [{"input": "x"}], "other": [1]}`, want: []req{{"", "x", -1, -1}}},
		{name: "json only list", file: "a.json", data: `{"meta": {"n": 1}, "things": [{"context": "c"}]}`, want: []req{{"", "c", -1, -1}}},
		{name: "json sniffed", file: "a.data", data: `[{"prompt": "s"}]`, want: []req{{"", "s", -1, -1}}},
		{name: "jsonl sniffed", file: "a.log", data: "{\"prompt\": \"a\"}\n{\"prompt\": \"b\"}\n", want: []req{{"", "a", -1, -1}, {"", "b", -1, -1}}},
		{name: "csv", file: "prompts.csv", data: string(mustRead(t, "testdata/prompts.csv")),
			want: []req{{"You are helpful.", "Summarise the plot of Hamlet, briefly.", -1, 64}, {"", "Translate 'good morning' into German.", -1, 16},
				{"You are a poet.", "Write two lines about rain.\nKeep them short.", -1, 32}}},
		{name: "csv with BOM", file: "a.csv", data: "\ufeffprompt\nhello\n", want: []req{{"", "hello", -1, -1}}},
		{name: "text", file: "a.txt", data: "first line\n\n   \nsecond, with comma\r\n", want: []req{{"", "first line", -1, -1}, {"", "second, with comma", -1, -1}}},
		{name: "gzip jsonl", file: "a.jsonl.gz", data: gz(t, `{"prompt":"zipped"}`), want: []req{{"", "zipped", -1, -1}}},
		{name: "mapper replaces defaults", file: "a.jsonl", mapper: `{"text_column":"q","output_tokens_count_column":"max_len"}`,
			data: `{"system":"ignored","prompt":"ignored","q":"asked","max_len":9,"output_tokens_count":99}`, want: []req{{"", "asked", -1, 9}},
			columns: map[string]string{roleText: "q", roleOutputCount: "max_len"}},
		{name: "mapper v0.7 form with list", file: "a.jsonl",
			mapper: `{"kind":"generative_column_mapper","column_mappings":{"text_column":["missing","body"],"prefix_column":"sys"}}`,
			data:   `{"sys":"S","body":"B"}`, want: []req{{"S", "B", -1, -1}}},
		{name: "mapper key=value", file: "a.csv", mapper: "text_column=q,prompt_tokens_count_column=n", data: "n,q\n3,hi\n", want: []req{{"", "hi", 3, -1}}},
		{name: "openai messages", file: "a.jsonl",
			data: `{"messages":[{"role":"system","content":"Be kind."},{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello"}]}`,
			want: []req{{"Be kind.", "Hi", -1, -1}}, columns: map[string]string{roleMessages: "messages"}},
		{name: "sharegpt without tokenizer", file: "sharegpt.json", data: string(mustRead(t, "testdata/sharegpt.json")),
			want: []req{{"", "What is the capital of France?", -1, -1}, {"You are a terse assistant.", "Name three primary colors.", -1, -1},
				{"", "Write a haiku about the sea.", -1, -1}}, columns: map[string]string{roleText: "conversations"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeFile(t, c.file, c.data)
			d, err := Open(path, Options{ColumnMapper: c.mapper})
			if err != nil {
				t.Fatal(err)
			}
			rs := requests(t, d.Source)
			if got := summary(rs); !reflect.DeepEqual(got, c.want) {
				t.Errorf("requests\n got %+v\nwant %+v", got, c.want)
			}
			for _, r := range rs {
				if r.PromptTokens != -1 {
					t.Errorf("PromptTokens %d without a tokenizer, want -1", r.PromptTokens)
				}
			}
			for role, col := range c.columns {
				if d.Description.Columns[role] != col {
					t.Errorf("Columns[%s] = %q, want %q (all: %v)", role, d.Description.Columns[role], col, d.Description.Columns)
				}
			}
			if d.Description.Counts != countsUnknown || d.Description.Requests != len(c.want) || d.Schedule != nil {
				t.Errorf("description %+v: want counts unknown, %d requests, no schedule", d.Description, len(c.want))
			}
		})
	}
}

func mustRead(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFileTokenCounts: with a tokenizer, PromptTokens is the count of each
// request's text (system and join included) and a ShareGPT reply's length is
// max_tokens.
func TestFileTokenCounts(t *testing.T) {
	tok := builtin(t, "o200k_base")
	d, err := Open("testdata/sharegpt.json", Options{Tokenizer: tok})
	if err != nil {
		t.Fatal(err)
	}
	rs := requests(t, d.Source)
	if len(rs) != 3 || d.Description.Skipped != 1 {
		t.Fatalf("%d requests, %d skipped; want 3 and 1 (conv-3 has no user turn)", len(rs), d.Description.Skipped)
	}
	wantMax := []int{tok.Count("The capital of France is Paris."), tok.Count("Red, yellow and blue."), -1}
	for i, r := range rs {
		if n := tok.Count(r.Text()); r.PromptTokens != n {
			t.Errorf("request %d: PromptTokens %d, fresh count %d", i, r.PromptTokens, n)
		}
		if r.MaxTokens != wantMax[i] {
			t.Errorf("request %d: MaxTokens %d, want %d (the reply's tokens)", i, r.MaxTokens, wantMax[i])
		}
	}
	// conv-2: "You are a terse assistant." + "\n\n" + "Name three primary colors."
	if want := tok.Count("You are a terse assistant.\n\nName three primary colors."); rs[1].PromptTokens != want {
		t.Errorf("system + prompt: %d tokens, want %d", rs[1].PromptTokens, want)
	}
	desc := d.Description
	if desc.Counts != countsExact || desc.Tokenizer != "o200k_base" || desc.Kind != kindJSON || desc.Format != formatJSON {
		t.Errorf("description %+v", desc)
	}
	var sum, lo, hi int
	for i, r := range rs {
		sum += r.PromptTokens
		if i == 0 || r.PromptTokens < lo {
			lo = r.PromptTokens
		}
		hi = max(hi, r.PromptTokens)
	}
	if ps := desc.PromptTokens; ps.Count != 3 || ps.Min != lo || ps.Max != hi || ps.Mean != float64(sum)/3 {
		t.Errorf("prompt stats %+v, want count 3 min %d max %d mean %v", ps, lo, hi, float64(sum)/3)
	}
	if os := desc.OutputTokens; os.Count != 2 || os.Min != min(wantMax[0], wantMax[1]) {
		t.Errorf("output stats %+v, want the two replies' lengths", os)
	}
	if len(desc.SHA256) != 64 || string(desc.GuideLLM) != `{"kind":"json_file","path":"testdata/sharegpt.json"}` {
		t.Errorf("sha256 %q, GuideLLM %s", desc.SHA256, desc.GuideLLM)
	}
}

func TestFileShuffleSamples(t *testing.T) {
	var b strings.Builder
	for i := range 100 {
		b.WriteString(`{"prompt":"p` + string(rune('A'+i%26)) + string(rune('a'+i/26)) + `"}` + "\n")
	}
	path := writeFile(t, "many.jsonl", b.String())
	prompts := func(o Options) []string {
		d, err := Open(path, o)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, q := range summary(requests(t, d.Source)) {
			out = append(out, q.prompt)
		}
		return out
	}
	all := prompts(Options{})
	if len(all) != 100 || all[0] != "pAa" || all[99] != "pVd" {
		t.Fatalf("unshuffled: %d prompts, first %q last %q", len(all), all[0], all[99])
	}
	if got := prompts(Options{Samples: 10}); !reflect.DeepEqual(got, all[:10]) {
		t.Errorf("samples=10: %v, want the first 10", got)
	}
	a, b2, c := prompts(Options{Shuffle: true, Seed: 1}), prompts(Options{Shuffle: true, Seed: 1}), prompts(Options{Shuffle: true, Seed: 2})
	if !reflect.DeepEqual(a, b2) || reflect.DeepEqual(a, c) || reflect.DeepEqual(a, all) {
		t.Errorf("shuffle: same seed equal %v, seeds 1 and 2 differ %v, differs from file order %v; want true, true, true",
			reflect.DeepEqual(a, b2), !reflect.DeepEqual(a, c), !reflect.DeepEqual(a, all))
	}
	seen := map[string]bool{}
	for _, p := range a {
		seen[p] = true
	}
	if len(seen) != 100 {
		t.Errorf("shuffled rows hold %d distinct prompts, want all 100", len(seen))
	}
	if got := prompts(Options{Shuffle: true, Seed: 1, Samples: 5}); !reflect.DeepEqual(got, a[:5]) {
		t.Errorf("shuffle then samples=5: %v, want the first 5 of the shuffled order %v", got, a[:5])
	}
}

func TestFileErrors(t *testing.T) {
	for _, c := range []struct {
		name, file, data, mapper, want string
	}{
		{"jsonl bad line", "x.jsonl", "{\"prompt\":\"a\"}\n{oops\n", "", "x.jsonl:2: not a JSON object"},
		{"jsonl array line", "x.jsonl", "{\"prompt\":\"a\"}\n[1]\n", "", "x.jsonl:2: not a JSON object"},
		{"jsonl empty prompt", "x.jsonl", "{\"prompt\":\"a\"}\n\n{\"prompt\":\"  \"}\n", "", `x.jsonl:3: column "prompt": empty value`},
		{"jsonl missing prompt", "x.jsonl", "{\"prompt\":\"a\"}\n{\"other\":1}\n", "", `x.jsonl:2: column "prompt": missing`},
		{"jsonl number prompt", "x.jsonl", `{"prompt":42}`, "", `x.jsonl:1: column "prompt": want a string, got "42"`},
		{"jsonl bad count", "x.jsonl", `{"prompt":"a","output_tokens_count":-3}`, "", `x.jsonl:1: column "output_tokens_count": want a positive integer`},
		{"jsonl duplicate key", "x.jsonl", `{"prompt":"a","prompt":"b"}`, "", `x.jsonl:1: key "prompt" given twice`},
		{"no prompt column", "x.jsonl", `{"a":1,"b":"x"}`, "", `x.jsonl: no prompt column (looked for prompt, instruction, question, input, context, content, conversation, turn, text; columns: "a", "b")`},
		{"mapper missing column", "x.jsonl", `{"a":"x"}`, `{"text_column":"q"}`, `--data-column-mapper: text_column "q": no such column in`},
		{"mapper unknown role", "x.jsonl", `{"a":"x"}`, `{"pixel_column":"a"}`, `--data-column-mapper: unknown role "pixel_column"`},
		{"mapper bad value", "x.jsonl", `{"a":"x"}`, `{"text_column":5}`, `--data-column-mapper: text_column: want a column name or a list of names`},
		{"csv wrong fields", "x.csv", "prompt,n\na,1\nb\n", "", "x.csv:3: wrong number of fields"},
		{"csv bad quote", "x.csv", "prompt\n\"a\"b\n", "", "x.csv:2: extraneous or missing \" in quoted-field"},
		{"csv empty prompt", "x.csv", "prompt,output_tokens_count\na,1\n,2\n", "", `x.csv:3: column "prompt": empty value`},
		{"csv bad count", "x.csv", "prompt,output_tokens_count\na,abc\n", "", `x.csv:2: column "output_tokens_count": want a positive integer (at most 4194304), got "abc"`},
		{"csv unnamed column", "x.csv", "prompt,\na,b\n", "", "x.csv:1: column 2 has no name"},
		{"csv header only", "x.csv", "prompt\n", "", "x.csv: no records"},
		{"json element not object", "x.json", "[\n{\"prompt\":\"a\"},\n3\n]", "", "x.json:3: not a JSON object"},
		{"json truncated", "x.json", "[{\"prompt\":\"a\"},", "", "x.json:1: unexpected end of input"},
		{"json no list", "x.json", `{"a": 1}`, "", "a JSON object must hold its records in one list"},
		{"json syntax", "x.json", "{\n\"a\": }", "", "x.json:2: invalid character"},
		{"conversation bad turns", "x.jsonl", `{"conversations":[{"from":"human","value":3}]}`, "", `x.jsonl:1: column "conversations": turn 0: the text is not a string`},
		{"conversation not turns", "x.jsonl", `{"conversations":[1,2]}`, "", `x.jsonl:1: column "conversations": want a list of turns`},
		{"only skipped conversations", "x.jsonl", `{"conversations":[{"from":"gpt","value":"a"}]}`, "", "x.jsonl: no usable records (1 conversations without a user turn)"},
		{"empty text", "x.txt", "\n \n", "", "x.txt: no records"},
		{"unknown type", "x.bin", "hello", "", "unknown file type: name it .jsonl, .json, .csv, .txt, .parquet or .arrow"},
		{"not gzip", "x.jsonl.gz", "plain", "", "not gzip data"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeFile(t, c.file, c.data)
			_, err := Open(path, Options{ColumnMapper: c.mapper})
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v, want one line containing %q", err, c.want)
			}
		})
	}
}

func TestParseColumnMapper(t *testing.T) {
	for _, c := range []struct {
		in   string
		want ColumnMapper
	}{
		{"", nil},
		{`{"text_column":"question","output_tokens_count_column":"max_len"}`, ColumnMapper{roleText: {"question"}, roleOutputCount: {"max_len"}}},
		{`{"kind":"generative_column_mapper","column_mappings":{"text_column":["0.q","question"]}}`, ColumnMapper{roleText: {"q", "question"}}},
		{"text-column=q,prefix_column=sys", ColumnMapper{roleText: {"q"}, rolePrefix: {"sys"}}},
		// GuideLLM's pooling mapper: its default column, by kind or (v0.6) by name alone
		{`{"kind":"pooling_column_mapper"}`, ColumnMapper{rolePooling: {"prompt"}}},
		{"kind=pooling_column_mapper", ColumnMapper{rolePooling: {"prompt"}}},
		{"pooling_column_mapper", ColumnMapper{rolePooling: {"prompt"}}},
		{`{"kind":"pooling_column_mapper","column_mappings":{"pooling_column":"request"}}`, ColumnMapper{rolePooling: {"request"}}},
		{"generative_column_mapper", nil},
	} {
		got, err := ParseColumnMapper(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseColumnMapper(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{`{"kind":"tool_column_mapper"}`, "kind=tool_column_mapper: want generative_column_mapper or pooling_column_mapper"},
		{`{"column_mappings":"x"}`, "column_mappings: want a JSON object"},
		{`{"column_mappings":{},"text_column":"x"}`, "only kind may be given besides"},
		{`{"text_column":[]}`, "empty list"},
		{`{"text_column":""}`, "empty column name"},
		{"text_column", "not key=value"},
	} {
		if _, err := ParseColumnMapper(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseColumnMapper(%q) error %v, want %q", c.in, err, c.want)
		}
	}
}

// TestFileMissing: a path that does not exist and is not a spec.
func TestFileMissing(t *testing.T) {
	_, err := Open(filepath.Join(t.TempDir(), "nope.jsonl"), Options{})
	if err == nil || !strings.Contains(err.Error(), "nope.jsonl: no such file, and not a data spec") {
		t.Errorf("error %v", err)
	}
}
