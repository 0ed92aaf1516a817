package console

import (
	"bytes"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/report"
)

// Outputs shorter than asked get one line per benchmark: 3 of 4 (75 %),
// 14 tokens short on average, by finish reason in name order; a
// benchmark without short outputs gets none.
func TestConsoleShortOutputs(t *testing.T) {
	r := extrasReport()
	r.Benchmarks[0].Extras.OutputShortfall = &report.OutputShortfall{Requests: 4, Short: 3, ShortFraction: 0.75, MeanShortfall: 14,
		ByFinishReason: map[string]*report.ShortfallCounts{"unknown": {Short: 1, MeanShortfall: 2}, "stop": {Short: 2, MeanShortfall: 20}}}
	var b bytes.Buffer
	if err := WriteWidth(&b, r, 0); err != nil { // --wide: the line unwrapped
		t.Fatal(err)
	}
	want := "Short outputs: benchmark 0 (constant 2.00/s): 3 of 4 (75.0 %) ended before their max_tokens, 14.0 tokens short on average (finish_reason: stop 2, unknown 1)\n"
	if !strings.Contains(b.String(), want) || strings.Count(b.String(), "Short outputs:") != 1 {
		t.Errorf("console lacks %q once:\n%s", want, b.String())
	}
}
