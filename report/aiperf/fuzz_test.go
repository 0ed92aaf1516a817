package aiperf

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/record"
)

// FuzzReadAIPerf: the AIPerf export reader never panics, its errors are
// one line naming the input, and what it accepts is written and read
// back with the same metrics.
func FuzzReadAIPerf(f *testing.F) {
	if fix, err := os.ReadFile("testdata/aiperf/profile_export_aiperf.json"); err == nil {
		f.Add(fix)
		f.Add(fix[:len(fix)/3])
	}
	if g, err := os.ReadFile(filepath.Join("testdata", "golden", "aiperf_small.json")); err == nil {
		f.Add(g)
	}
	f.Add([]byte(`{"records": {"ttft": {"tag": "ttft", "unit": "ms", "avg": 1, "p50": null}}}`))
	f.Add([]byte(`{"schema_version": "1.0", "x": {"unit": "ms", "avg": NaN, "count": 2.0}}`))
	f.Add([]byte(`{"schema_version": "1.0", "goodput_export": {"exact": "no"}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := Read(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			if msg := err.Error(); strings.ContainsAny(msg, "\r\n") || !strings.HasPrefix(msg, "fuzz.json: ") {
				t.Fatalf("error is not one line naming the input: %q", msg)
			}
			return
		}
		var buf bytes.Buffer
		if err := x.WriteJSON(&buf); err != nil {
			return // a value JSON cannot hold (NaN in a kept block) is refused on write
		}
		y, err := Read(bytes.NewReader(buf.Bytes()), "again.json")
		if err != nil {
			t.Fatalf("written export cannot be read back: %v\n%s", err, buf.Bytes())
		}
		if len(y.Metrics) != len(x.Metrics) {
			t.Fatalf("%d metrics read back, %d written", len(y.Metrics), len(x.Metrics))
		}
		_ = x.WriteCSV(&bytes.Buffer{})
	})
}

// FuzzLineBenchmark: the fast benchmark peek agrees with the full decoder
// whenever it answers.
func FuzzLineBenchmark(f *testing.F) {
	r := record.New()
	r.ID, r.Benchmark, r.Status = 3, 2, record.StatusErrored
	f.Add(record.AppendJSON(nil, r))
	f.Add([]byte(`{"id":1,"benchmark":0}`))
	f.Add([]byte(`{"id":1,"benchmark":01,"status":"successful"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		n, ok := lineBenchmark(line)
		if !ok {
			return
		}
		rec := record.New()
		if err := record.UnmarshalLine(line, rec); err == nil && rec.Benchmark != n {
			t.Fatalf("peek says benchmark %d, the decoder %d: %s", n, rec.Benchmark, line)
		}
	})
}
