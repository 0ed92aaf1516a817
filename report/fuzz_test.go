package report_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/console"
)

// FuzzDecode: the report reader never panics, its errors are one line
// naming the input, and whatever it accepts can be written and read back,
// unless it is an older layout that cannot be written as report v2 (a
// one-line error wrapping ErrNotV2).
func FuzzDecode(f *testing.F) {
	legacy, err := os.ReadFile(filepath.Join("testdata", "benchmarks_stripped_legacy_v0.3.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(legacy)
	f.Add(legacy[:len(legacy)/2])
	f.Add([]byte(`{"metadata": {"version": 2, "goodput_version": "x"}, "config": null, "benchmarks": [{"type_": "generative_benchmark"}]}`))
	f.Add([]byte(`{"metadata": {"version": 1}, "args": {}, "benchmarks": [{"metrics": {"request_latency": {"successful": {"mean": NaN, "count": 3.0}}}}]}`))
	f.Add([]byte(`{"args": {}, "benchmarks": [{"config": {"strategy": {"type_": "async", "rate": 1e400}}}]}`))
	f.Add([]byte(`{"benchmarks": [{"requests": {"successful": [{"request_id": "x", "scheduler_info": {}}]}}]}`))
	f.Add([]byte(`[1,2,3]`))
	f.Add([]byte(`{"benchmarks": "x"}`))
	f.Add([]byte("\xff\xfe{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := report.Decode(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			msg := err.Error()
			if strings.ContainsAny(msg, "\r\n") || !strings.HasPrefix(msg, "fuzz.json: ") {
				t.Fatalf("error is not one line naming the file: %q", msg)
			}
			return
		}
		var buf bytes.Buffer
		if err := r.WriteJSON(&buf); err != nil {
			if !errors.Is(err, report.ErrNotV2) || r.Layout == report.LayoutGoodput || r.Layout == report.LayoutV2 || strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("accepted report cannot be written: %v", err)
			}
			_ = console.Write(&bytes.Buffer{}, r)
			_ = report.WriteCSV(&bytes.Buffer{}, r)
			return
		}
		if _, err := report.Decode(bytes.NewReader(buf.Bytes()), "again.json"); err != nil {
			t.Fatalf("written report cannot be read back: %v\n%s", err, buf.Bytes())
		}
		_ = console.Write(&bytes.Buffer{}, r)
		_ = report.WriteCSV(&bytes.Buffer{}, r)
	})
}

// FuzzParseTransientPhase: the warmup/cooldown parser never panics, its
// errors are one line, and what it accepts renders to a form it accepts
// again with the same meaning.
func FuzzParseTransientPhase(f *testing.F) {
	for _, s := range []string{"", "none", "0.1", "10%", "30", "30s", "1m30s", "100r", "requests:100", "10%r",
		"duration:10%", `{"percent":0.2,"mode":"both"}`, "-1", "1e309", "NaN", "0x10", "%", "r", "requests:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := report.ParseTransientPhase(s)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("multi-line error: %q", err)
			}
			return
		}
		q, err := report.ParseTransientPhase(p.String())
		if err != nil {
			t.Fatalf("%q -> %s does not parse: %v", s, p.String(), err)
		}
		if q.String() != p.String() {
			t.Fatalf("%q: %s re-parses as %s", s, p.String(), q.String())
		}
		if p.Percent != nil && (*p.Percent < 0 || *p.Percent >= 1) {
			t.Fatalf("%q: percent %v out of range", s, *p.Percent)
		}
	})
}
