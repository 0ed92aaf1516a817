package record

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"
)

func sampleRecord() *Record {
	r := New()
	r.ID, r.Benchmark, r.Shard = 42, 3, 1
	r.Status, r.ErrorClass, r.Error, r.HTTPStatus = StatusErrored, ErrDisconnect, "connection reset \"by\" peer\n", 200
	r.ResponseID, r.FinishReason = "chatcmpl-1", "length"
	base := int64(1_765_000_000_000_000_000)
	r.Intended, r.Dispatched, r.Sent, r.Headers = base, base+1_000, base+50_000, base+9_000_000
	r.FirstChunk, r.FirstToken, r.FirstOutputToken = base+10_000_000, base+10_000_000, base+20_000_000
	r.LastToken, r.End = base+40_000_000, base+41_000_000
	r.ChunkTimes = []int64{base + 10_000_000, base + 20_000_000, base + 30_000_000, base + 40_000_000}
	r.ChunkTokens = []int32{1, 2, 1, 3}
	r.EmitTimes = []int64{base + 9_999_000, base + 19_999_500, base + 29_999_000, base + 39_998_000}
	r.Connected, r.ConnReused = base+20_000, true
	r.Iterations, r.PromptTokens, r.OutputTokens, r.ReasoningTokens = 6, 256, 7, 1
	r.RxKernel, r.MaxReadLag = true, 35_000
	r.CachedTokens, r.OutputSource = 0, TokensUsage
	r.ServerPromptTokens, r.ServerOutputTokens, r.ClientOutputTokens = 256, 7, 4
	r.RequestedPromptTokens, r.RequestedOutputTokens = 256, 128
	r.OutputText, r.ReasoningText = "héllo\u2028\x01", "thinking"
	return r
}

func TestRoundTrip(t *testing.T) {
	cases := map[string]*Record{"full": sampleRecord(), "minimal": func() *Record {
		r := New()
		r.ID, r.Status = 1, StatusSuccessful
		return r
	}(), "media": func() *Record {
		r := sampleRecord()
		r.MediaBytes, r.AudioSeconds = 9000, 1.5
		r.Media = Media{ImageCount: 2, ImagePixels: 2 * 640 * 480, ImageBytes: 4000, AudioSamples: 24000, AudioBytes: 3000, VideoFrames: 15, VideoBytes: 2000, VideoSeconds: 1.5}
		return r
	}(), "server timings": func() *Record {
		r := sampleRecord()
		r.ServerTimings = ServerTimings{Present: true, PromptTokens: 33, CachedTokens: 8, PredictedTokens: 32, PromptNS: 31_824_000, PredictedNS: 96_217_000}
		return r
	}(), "server timings partly known": func() *Record {
		r := sampleRecord()
		r.ServerTimings = UnknownServerTimings()
		r.ServerTimings.PromptNS = 0
		return r
	}(), "warmup": func() *Record {
		r := sampleRecord()
		r.Warmup = true
		return r
	}(), "session": func() *Record {
		r := sampleRecord()
		r.Session = Session{ID: "s-7", Turn: 2, Turns: 5, HistoryMessages: 5, HistoryTokens: 812, ToolCalls: 1}
		return r
	}()}
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			enc := NewEncoder(&buf)
			if err := enc.Encode(want); err != nil {
				t.Fatal(err)
			}
			if err := enc.Flush(); err != nil {
				t.Fatal(err)
			}
			if !json.Valid(bytes.TrimSpace(buf.Bytes())) {
				t.Fatalf("invalid JSON: %s", buf.String())
			}
			got := New()
			dec := NewDecoder(&buf, "x.jsonl")
			if err := dec.Decode(got); err != nil {
				t.Fatal(err)
			}
			normalize(want)
			normalize(got)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("round trip mismatch\n got %+v\nwant %+v", got, want)
			}
			if err := dec.Decode(got); err != io.EOF {
				t.Fatalf("want EOF, got %v", err)
			}
		})
	}
}

// normalize makes empty slices nil so DeepEqual compares contents.
func normalize(r *Record) {
	if len(r.ChunkTimes) == 0 {
		r.ChunkTimes = nil
	}
	if len(r.ChunkTokens) == 0 {
		r.ChunkTokens = nil
	}
	if len(r.EmitTimes) == 0 {
		r.EmitTimes = nil
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"id":1,"status":"successful"`, "x.jsonl:1: invalid"},
		{`{"status":"successful"}`, `x.jsonl:1: invalid record: missing key "id"`},
		{"\n" + `{"id":1,"status":"weird"}`, `x.jsonl:2: invalid record: key "status" is "weird"`},
		{`[1,2]`, "x.jsonl:1: invalid record"},
		{`{"id":1,"status":"successful","rx_timestamps":"tsc"}`, `x.jsonl:1: invalid record: key "rx_timestamps" is "tsc", want kernel or user`},
	}
	for _, c := range cases {
		err := NewDecoder(strings.NewReader(c.in), "x.jsonl").Decode(New())
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: got %v, want prefix %q", c.in, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error is not one line: %q", c.in, err)
		}
	}
}

func TestAppendJSONStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "quote\" back\\slash", "ctl\x00\x1f\t\r\n", "héllo 世界 🎉", "bad\xffutf8", "\u2028\u2029", "<html>&"} {
		got := AppendJSONString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%q: %v (%s)", s, err, got)
		}
		want, _ := json.Marshal(s)
		var wantBack string
		_ = json.Unmarshal(want, &wantBack)
		if back != wantBack {
			t.Errorf("%q: decoded %q, encoding/json gives %q", s, back, wantBack)
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "a\"b", "\xff\xfe", "\u2028", "日本"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := AppendJSONString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("invalid JSON for %q: %s", s, got)
		}
		want, _ := json.Marshal(s)
		var wantBack string
		_ = json.Unmarshal(want, &wantBack)
		if back != wantBack {
			t.Fatalf("%q: decoded %q, want %q", s, back, wantBack)
		}
	})
}

func FuzzDecodeLine(f *testing.F) {
	var buf bytes.Buffer
	enc := NewEncoder(&buf)
	_ = enc.Encode(sampleRecord())
	_ = enc.Flush()
	f.Add(buf.Bytes())
	f.Add([]byte(`{"id":1,"status":"errored","chunk_deltas_ns":[1,2,3]}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		r := New()
		if err := UnmarshalLine(line, r); err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error: %q", err)
			}
			return
		}
		// Whatever decodes must re-encode to a line that decodes to the same record.
		again := New()
		if err := UnmarshalLine(AppendJSON(nil, r), again); err != nil {
			t.Fatalf("re-encoded record does not decode: %v", err)
		}
		normalize(r)
		normalize(again)
		if !reflect.DeepEqual(r, again) {
			t.Fatalf("re-encode mismatch\n%+v\n%+v", r, again)
		}
	})
}

func BenchmarkEncode(b *testing.B) {
	r := sampleRecord()
	enc := NewEncoder(io.Discard)
	b.ReportAllocs()
	for b.Loop() {
		_ = enc.Encode(r)
	}
}

func TestServerTimingsForm(t *testing.T) {
	r := New()
	r.ID, r.Status = 1, StatusSuccessful
	if line := string(AppendJSON(nil, r)); strings.Contains(line, "server_timings") {
		t.Fatalf("a record without timings writes them: %s", line)
	}
	r.ServerTimings = UnknownServerTimings()
	r.ServerTimings.PromptTokens, r.ServerTimings.PromptNS = 33, 31_824_000
	line := string(AppendJSON(nil, r))
	if want := `,"server_timings":{"prompt_n":33,"prompt_ns":31824000}}`; !strings.HasSuffix(line, want) {
		t.Fatalf("got %s\nwant the suffix %s", line, want)
	}
	r.ServerTimings = UnknownServerTimings()
	if line := string(AppendJSON(nil, r)); !strings.HasSuffix(line, `,"server_timings":{}}`) {
		t.Fatalf("all unknown: %s", line)
	}
}
