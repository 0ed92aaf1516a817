package record

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// DecodeSpan gives what Decode gives, whether it scans the line or decodes
// it whole, and the same errors for a line that is not a record.
func TestDecodeSpan(t *testing.T) {
	errored := sampleRecord() // its error text holds a quoted "by"
	errored.OutputText = `{"status":"successful","end_ns":5,"intended_ns":7}`
	ok := sampleRecord()
	ok.Status, ok.ErrorClass, ok.Error = StatusSuccessful, "", ""
	zero := New() // no times: the encoder leaves them out
	zero.ID, zero.Status = 3, StatusIncomplete
	undispatched := sampleRecord()
	undispatched.Dispatched = 0
	var lines []string
	for _, r := range []*Record{errored, ok, zero, undispatched} {
		lines = append(lines, string(AppendJSON(nil, r)))
	}
	lines = append(lines,
		// Another writer's shapes, decoded whole.
		`{"id": 9, "status": "successful", "intended_ns": 100, "end_ns" : 900}`,
		`{"id":10,"status":"\u0065rrored","end_ns":900}`,
		`{"id":11,"status":"incomplete","end_ns":800,"extra":{"end_ns":1}}`,
	)
	want := []Span{
		{Status: StatusErrored, Intended: errored.Intended, Dispatched: errored.Dispatched, End: errored.End},
		{Status: StatusSuccessful, Intended: ok.Intended, Dispatched: ok.Dispatched, End: ok.End},
		{Status: StatusIncomplete},
		{Status: StatusErrored, Intended: undispatched.Intended, End: undispatched.End},
		{Status: StatusSuccessful, Intended: 100, End: 900},
		{Status: StatusErrored, End: 900},
		{Status: StatusIncomplete, End: 800},
	}
	for i, l := range lines {
		var scanned Span
		if got := scanSpan([]byte(l), &scanned); got != (i < 4) {
			t.Errorf("line %d: scanned %v, want %v (the encoder's lines scan, the others decode whole)", i, got, i < 4)
		}
	}
	dec := NewDecoder(strings.NewReader(strings.Join(lines, "\n")+"\n"), "requests.jsonl")
	whole := NewDecoder(strings.NewReader(strings.Join(lines, "\n")+"\n"), "requests.jsonl")
	r := New()
	for i, w := range want {
		var s Span
		if err := dec.DecodeSpan(&s); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if s != w {
			t.Errorf("line %d: span %+v, want %+v", i+1, s, w)
		}
		if err := whole.Decode(r); err != nil {
			t.Fatal(err)
		}
		if r.Status != s.Status || r.Started() != s.Started() || r.End != s.End {
			t.Errorf("line %d: span %+v, Decode %v %d..%d", i+1, s, r.Status, r.Started(), r.End)
		}
	}
	if err := dec.DecodeSpan(new(Span)); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last line: %v, want EOF", err)
	}

	for _, bad := range []string{`{"status":"successful","end_ns":5}`, `{"id":1,"status":"errored","end_ns":9e2}`, `{"id":1,"status":"done","end_ns":5}`, `{"id":1,"status":"successful","end_ns":5`} {
		err := NewDecoder(strings.NewReader(bad+"\n"), "x.jsonl").DecodeSpan(new(Span))
		if err == nil || !strings.HasPrefix(err.Error(), "x.jsonl:1: ") {
			t.Errorf("%s: error %v, want one naming x.jsonl:1", bad, err)
		}
	}
}

// Whatever line the scan takes, the full decoder reads the same span.
func FuzzScanSpan(f *testing.F) {
	f.Add(AppendJSON(nil, sampleRecord()))
	f.Add([]byte(`{"id":1,"status":"errored","end_ns":-5,"intended_ns":3}`))
	f.Add([]byte(`{"id":1,"status":"successful","error":"\"end_ns\":4","end_ns":5}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		var s Span
		if !scanSpan(line, &s) {
			return
		}
		r := New()
		if err := UnmarshalLine(line, r); err != nil {
			return // not a record: the run's own files never hold such a line
		}
		if r.Status != s.Status || r.Intended != s.Intended || r.Dispatched != s.Dispatched || r.End != s.End {
			t.Fatalf("%s: scanned %+v, decoded %v %d %d %d", line, s, r.Status, r.Intended, r.Dispatched, r.End)
		}
	})
}

func BenchmarkDecodeSpan(b *testing.B) {
	r := sampleRecord()
	for i := range 128 {
		r.ChunkTimes = append(r.ChunkTimes, r.Dispatched+int64(i)*1000)
		r.ChunkTokens = append(r.ChunkTokens, 1)
	}
	line := AppendJSON(nil, r)
	b.Run("scan", func(b *testing.B) {
		var s Span
		for b.Loop() {
			scanSpan(line, &s)
		}
	})
	b.Run("decode", func(b *testing.B) {
		x := New()
		for b.Loop() {
			_ = UnmarshalLine(line, x)
		}
	})
}
