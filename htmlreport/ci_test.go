package htmlreport

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/report"
)

// TestErrorBars: a report whose distributions carry intervals draws an
// error bar on every per-round latency point and says what the bars are.
func TestErrorBars(t *testing.T) {
	rep, err := report.Read(filepath.Join("..", "report", "testdata", "rebuild", "benchmarks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Render(&b, []*report.Report{rep}, Options{}); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	if n := strings.Count(html, `<path class="ci"`); n < 4 {
		t.Errorf("%d error bars, want one per round on the TTFT and ITL charts (4)", n)
	}
	if !strings.Contains(html, "confidence interval; one that runs to the edge") {
		t.Error("the caption does not say what the bars are")
	}
}
