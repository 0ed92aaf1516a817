package dataset

import (
	"reflect"
	"strings"
	"testing"
)

// OneLine fails when err spans several lines.
func oneLine(t *testing.T, err error) {
	t.Helper()
	if err != nil && strings.ContainsAny(err.Error(), "\n\r") {
		t.Fatalf("error spans lines: %q", err)
	}
}

func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{
		"prompt_tokens=256,output_tokens=128",
		"kind=synthetic_text,prompt_tokens=10,prompt_tokens_stdev=2,prompt_tokens_min=5,prompt_tokens_max=20,samples=7",
		"prompt_tokens=100,prefix_tokens=512,prefix_count=4",
		`{"prompt_tokens":64,"prefix_buckets":[{"bucket_weight":2,"prefix_count":2,"prefix_tokens":100}]}`,
		`{"prompt_tokens": "1", "output_tokens": 2.0}`,
		"turns=3,prompt_tokens=32,first_prompt_tokens=256,first_output_tokens=64,output_tokens=16,delay=0.5,delay_stdev=0.1",
		"turns=4,prompt_tokens=8,tools=2,tool_call_turns=1,tool_choice=auto,tool_response_tokens=20,tool_call_missing_behavior=skip",
		`{"turns":2,"prompt_tokens":8,"tools":[{"type":"function","function":{"name":"f"}}],"server_history":true}`,
		`{"turns":3,"prompt_tokens":8,"branches":[{"at_turn":0,"turns":2,"agent_id":"a","merge_after":1}]}`,
		`{"turns":2,"prompt_tokens":8,"turn_lengths":[{"prompt_tokens":16,"output_tokens":4},{"prompt_tokens":32,"prompt_tokens_stdev":4,"output_tokens":8}]}`,
		"turns=3,prompt_tokens=8,tools=1,server_tool_call_turns=-1", "turns=4,prompt_tokens=8,tools=2,tool_call_turns=[0,2]",
		"turns=0,prompt_tokens=1", "delay=1,prompt_tokens=3", "turns=2,prompt_tokens=3,delay=-1",
		"promt_tokens=1", "=,=", "{", "prompt_tokens=0\n00", "kind=x\ny", `{"a":{"b":[1,{}]}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := ParseSpec(s)
		oneLine(t, err)
		if err != nil {
			return
		}
		back, err := ParseSpec(sp.String())
		if err != nil || !reflect.DeepEqual(back, sp) {
			t.Fatalf("ParseSpec(%q) = %+v; String() %q parses to %+v, %v", s, sp, sp.String(), back, err)
		}
		// A valid spec always builds an (approximate) source.
		if sp.Prompt.Mean <= 4096 {
			r, _ := NewSynthetic(sp, 1).Request(3)
			if r.TargetPromptTokens < 1 {
				t.Fatalf("target %d", r.TargetPromptTokens)
			}
		}
	})
}

func FuzzParseColumnMapper(f *testing.F) {
	for _, s := range []string{
		`{"text_column":"question","output_tokens_count_column":"max_len"}`,
		`{"kind":"generative_column_mapper","column_mappings":{"text_column":["0.q","question"]}}`,
		"text_column=q,prefix_column=sys", `{"column_mappings":{}}`, "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, err := ParseColumnMapper(s)
		oneLine(t, err)
	})
}

// fuzzFile runs a data file's contents through everything Open does after
// reading it, without a tokenizer.
func fuzzFile(f *testing.F, format string, seeds []string) {
	for _, s := range seeds {
		f.Add(s, "")
	}
	f.Add(seeds[0], `{"text_column":"q","prefix_column":"s","output_tokens_count_column":"n"}`)
	f.Fuzz(func(t *testing.T, data, mapper string) {
		m, err := ParseColumnMapper(mapper)
		if err != nil {
			return
		}
		d, err := openFileData("f."+format, "", fileData{data: []byte(data), format: format}, m, Options{Samples: 50})
		oneLine(t, err)
		if err != nil {
			return
		}
		n := d.Source.(interface{ Len() int }).Len()
		want := d.Description.Requests
		if l, ok := d.Source.(*SessionList); ok {
			want = d.Description.Sessions
			for i := range uint64(n) {
				s, _ := l.Session(i)
				for k, turn := range s.Turns {
					if strings.TrimSpace(turn.Prompt) == "" {
						t.Fatalf("session %d turn %d: empty prompt", i, k)
					}
				}
			}
		}
		if n == 0 || n > 50 || want != n {
			t.Fatalf("%d requests, description %d", n, want)
		}
		for i := range uint64(n) {
			r, ok := d.Source.Request(i)
			if !ok || len(r.Messages) == 0 || strings.TrimSpace(r.Messages[len(r.Messages)-1].Content) == "" {
				t.Fatalf("request %d: %+v, %v", i, r, ok)
			}
		}
	})
}

func FuzzReadJSONL(f *testing.F) {
	fuzzFile(f, formatJSONL, []string{
		`{"prompt":"a","system":"s","output_tokens_count":3}` + "\n" + `{"prompt":"b"}`,
		`{"conversations":[{"from":"system","value":"s"},{"from":"human","value":"q"},{"from":"gpt","value":"a"}]}`,
		`{"messages":[{"role":"user","content":"hi"}]}`,
		`{"q":"x","s":"y","n":"4"}`,
		`{"prompt_0":"a","prompt_1":"b"}`,
		`{"prefix":"sys","prompt_0":"a","output_tokens_count_0":3,"prompt_1":"b","delay_1":0.5}`,
		`{"session_id":"s1","turns":[{"text":"hi","delay":0},{"text":"more","delay":250,"max_tokens":8}]}`,
	})
}

func FuzzReadJSON(f *testing.F) {
	fuzzFile(f, formatJSON, []string{
		`[{"prompt":"a"},{"prompt":"b","prompt_tokens_count":2}]`,
		`{"data":[{"instruction":"x"}]}`,
		`{"meta":1,"rows":[{"text":"t"}]}`,
		string(mustReadF(f, "testdata/sharegpt.json")),
	})
}

func FuzzReadCSV(f *testing.F) {
	fuzzFile(f, formatCSV, []string{
		string(mustReadF(f, "testdata/prompts.csv")),
		"prompt\nhello\n",
		"q,s,n\nx,y,3\n",
		"a,\"b\nc\",d\n1,2,3\n",
	})
}

func FuzzReadText(f *testing.F) {
	fuzzFile(f, formatText, []string{"one\ntwo\r\n\nthree", "\n\n", "x"})
}

// fuzzColumnar writes the fuzzer's values as a Parquet file or an Arrow
// file or stream with the fixture's schema, and reads it back as Open does:
// the conversion of columnar values to records, the column mapping and
// conversations. The files are valid: the libraries' own parsers of corrupt
// bytes are left to their projects (TestColumnarDamage tries truncations).
func fuzzColumnar(f *testing.F, write func(t testing.TB, rows []pqRow, mode uint8) (string, []byte)) {
	f.Add("What is Go?", "Be brief.", int64(16), "human", "hi", "", uint8(0))
	f.Add("", "", int64(0), "gpt", "", `{"text_column":"conversations"}`, uint8(1))
	f.Add("q", "s", int64(-3), "system", "x", `{"text_column":"system","output_tokens_count_column":"id"}`, uint8(2))
	f.Fuzz(func(t *testing.T, q, sys string, n int64, from, value, mapper string, mode uint8) {
		m, err := ParseColumnMapper(mapper)
		if err != nil {
			return
		}
		rows := []pqRow{
			{ID: n, Question: q, System: &sys, Output: n, Turns: []pqTurn{{"human", q}, {from, value}}},
			{ID: 2, Question: value, Output: 1, Turns: []pqTurn{{from, value}}},
		}
		name, data := write(t, rows, mode)
		format := formatOf(name)
		d, err := openFileData(name, "", fileData{data: data, format: format}, m, Options{})
		oneLine(t, err)
		if err != nil {
			if !strings.HasPrefix(err.Error(), name) && !strings.HasPrefix(err.Error(), "--data-column-mapper") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if n := d.Source.(*List).Len(); n == 0 || n > 2 || d.Description.Format != format {
			t.Fatalf("%d requests, description %+v", n, d.Description)
		}
	})
}

func FuzzReadParquet(f *testing.F) {
	fuzzColumnar(f, func(t testing.TB, rows []pqRow, _ uint8) (string, []byte) {
		return "f.parquet", parquetBytes(t, rows)
	})
}

func FuzzReadArrow(f *testing.F) {
	fuzzColumnar(f, func(t testing.TB, rows []pqRow, mode uint8) (string, []byte) {
		return "f.arrow", arrowBytesOf(t, rows, mode%2 == 1)
	})
}

// FuzzReadPublishedTrace reads BurstGPT- and Azure-shaped CSV traces.
func FuzzReadPublishedTrace(f *testing.F) {
	f.Add(string(mustReadF(f, "testdata/burstgpt.csv")))
	f.Add(string(mustReadF(f, "testdata/azure2023.csv")))
	f.Add(string(mustReadF(f, "testdata/azure2024.csv")))
	f.Add("t,in,out\n0,1,1\n")
	f.Fuzz(func(t *testing.T, data string) {
		ta := traceArgs{hash: hashAuto, blockSize: DefaultBlockSize}
		ta.cols.setDefaults()
		d, err := openTraceData("t.csv", ta, fileData{data: []byte(data), format: formatCSV}, Options{})
		oneLine(t, err)
		if err != nil {
			return
		}
		want := d.Description.Requests
		if d.Description.Sessions > 0 { // a session trace schedules its sessions
			want = d.Description.Sessions
		}
		if len(d.Schedule) != want || d.Schedule[0] != 0 {
			t.Fatalf("schedule %v for %d requests", d.Schedule, want)
		}
		for i := 1; i < len(d.Schedule); i++ {
			if d.Schedule[i] < d.Schedule[i-1] {
				t.Fatalf("schedule not sorted: %v", d.Schedule)
			}
		}
	})
}

func FuzzReadTrace(f *testing.F) {
	f.Add(string(mustReadF(f, "testdata/mooncake.jsonl")), int64(0))
	f.Add(`{"timestamp": 1.5, "input_length": 3, "output_length": 2}`, int64(1))
	f.Add("timestamp,input_length,output_length\n0,5,5\n1,6,6\n", int64(2))
	f.Fuzz(func(t *testing.T, data string, mode int64) {
		format := []string{formatJSONL, formatJSON, formatCSV}[uint64(mode)%3]
		ta := traceArgs{hash: int(uint64(mode) / 3 % 3), blockSize: int(uint64(mode)/9%600) + 1, unit: "ms"}
		ta.cols.setDefaults()
		d, err := openTraceData("t."+format, ta, fileData{data: []byte(data), format: format}, Options{})
		oneLine(t, err)
		if err != nil {
			return
		}
		if l, ok := d.Source.(*SessionList); ok {
			checkSessionTrace(t, d, l)
			return
		}
		tr := d.Source.(*Trace)
		if len(d.Schedule) != tr.Len() || tr.Len() == 0 {
			t.Fatalf("schedule of %d for %d requests", len(d.Schedule), tr.Len())
		}
		for i := 1; i < len(d.Schedule); i++ {
			if d.Schedule[i] < d.Schedule[i-1] || d.Schedule[0] != 0 {
				t.Fatalf("schedule not sorted from 0: %v", d.Schedule)
			}
		}
		if tr.rows[0].in <= 1<<16 {
			r, ok := tr.Request(0)
			if !ok || r.TargetPromptTokens != tr.rows[0].in || len(strings.Fields(r.Text())) != tr.rows[0].in {
				t.Fatalf("request 0: %d words for input_length %d", len(strings.Fields(r.Text())), tr.rows[0].in)
			}
		}
	})
}

// FuzzReadSessionTrace reads traces with a session column.
func FuzzReadSessionTrace(f *testing.F) {
	f.Add(string(mustReadF(f, "testdata/session_trace.jsonl")), int64(4))
	f.Add(`{"chat_id":7,"timestamp":0,"input_length":3,"output_length":2}`+"\n"+`{"chat_id":7,"timestamp":9,"input_length":3,"output_length":2}`, int64(0))
	f.Add("conversation_id,timestamp,input_length,output_length\na,5,5,5\nb,1,6,6\na,2,1,1\n", int64(2))
	f.Fuzz(func(t *testing.T, data string, mode int64) {
		format := []string{formatJSONL, formatJSON, formatCSV}[uint64(mode)%3]
		ta := traceArgs{hash: int(uint64(mode) / 3 % 3), blockSize: int(uint64(mode)/9%600) + 1, unit: "ms"}
		ta.cols.setDefaults()
		d, err := openTraceData("t."+format, ta, fileData{data: []byte(data), format: format}, Options{})
		oneLine(t, err)
		if err != nil {
			return
		}
		if l, ok := d.Source.(*SessionList); ok {
			checkSessionTrace(t, d, l)
		}
	})
}

// checkSessionTrace checks a session trace's invariants: one start per
// session, sorted from 0; every row one turn; turn offsets from 0, in order.
func checkSessionTrace(t *testing.T, d *Dataset, l *SessionList) {
	t.Helper()
	if len(d.Schedule) != l.Len() || l.Len() != d.Description.Sessions || d.Schedule[0] != 0 {
		t.Fatalf("schedule %v for %d sessions", d.Schedule, l.Len())
	}
	turns := 0
	for i, s := range l.list {
		if i > 0 && d.Schedule[i] < d.Schedule[i-1] {
			t.Fatalf("schedule not sorted: %v", d.Schedule)
		}
		for k, tr := range s.Turns {
			if (k == 0 && tr.At != 0) || (k > 0 && tr.At < s.Turns[k-1].At) || tr.Prompt == "" {
				t.Fatalf("session %d turn %d: %+v", i, k, tr)
			}
		}
		turns += len(s.Turns)
	}
	if turns != d.Description.Requests {
		t.Fatalf("%d turns, %d requests", turns, d.Description.Requests)
	}
}

func mustReadF(f *testing.F, p string) []byte {
	f.Helper()
	return mustRead(f, p)
}
