package htmlreport

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/goodput-dev/goodput/report"
)

// FuzzRender: whatever report.Decode accepts renders without panicking
// into a page whose SVG coordinates are all finite.
func FuzzRender(f *testing.F) {
	legacy, err := os.ReadFile(filepath.Join("..", "report", "testdata", "benchmarks_stripped_legacy_v0.3.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(legacy)
	sweep, _ := buildSweep(f, sweepSpec{rounds: 2, seconds: 1, chunks: 4, kneeAt: 0, telemetry: true, label: "f"}, false)
	var js bytes.Buffer
	if err := sweep.WriteJSON(&js); err != nil {
		f.Fatal(err)
	}
	f.Add(js.Bytes())
	hand := handReport([]float64{1, 2}, []float64{10, 20}, []float64{10, 5}, []float64{100, 900}, []float64{10, 60}, 0)
	hand.Run.Metadata = &report.RunMetadata{Model: evil, Labels: map[string]string{"k": evil}}
	js.Reset()
	if err := hand.WriteJSON(&js); err != nil {
		f.Fatal(err)
	}
	f.Add(js.Bytes())
	f.Add([]byte(`{"metadata": {"version": 2, "goodput_version": "x"}, "config": null, "benchmarks": [{"type_": "generative_benchmark"}]}`))
	f.Add([]byte(`{"benchmarks": [{"config": {"strategy": {"type_": "concurrent", "streams": 3}}, "start_time": 1e300, "end_time": -5,` +
		` "goodput": {"histograms": {"unit": "ns", "metrics": {"time_to_first_token": {"successful": "HISTFAAAACR4nJNpmSzMwMDAxQABzFCaEUzOmNZg/wEi0AEhCgRZ"}}},` +
		` "slo": {"objectives": [{"metric": "ttft", "percentile": 0.99, "threshold": 1e308}]}}}],` +
		` "goodput": {"knee": {"found": true, "index": 0, "above": 7}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := report.Decode(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := Render(&b, []*report.Report{rep, rep}, Options{}); err != nil {
			t.Fatalf("Render failed on a decoded report: %v", err)
		}
		if m := badCoord.Find(b.Bytes()); m != nil {
			t.Fatalf("non-finite coordinate: %s", m)
		}
	})
}
