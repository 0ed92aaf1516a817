package scorecard

import (
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/report"
)

// A pooling round's scorecard gives its input tokens and inputs per
// second, and its summary line says so instead of "0 tok/s".
func TestPoolingScorecard(t *testing.T) {
	b := &report.Benchmark{Config: report.BenchmarkConfig{RunID: "p"}, Extras: &report.Extras{
		Inputs: &report.InputFigures{Kind: "inputs", Total: 400, PerRequest: 4, PerSecond: 50, Tokens: 25600, TokensPerSecond: 3200}}}
	b.Config.Strategy = report.Strategy{Type: report.StrategyConcurrent, Streams: 4}
	rep := report.NewReport("test", nil, b)
	rep.Run = &report.RunExtras{RunID: "p"}
	f, err := Build(rep)
	if err != nil {
		t.Fatal(err)
	}
	pl := f.Row.Performance.Pooling
	if pl == nil || pl.Kind != "inputs" || pl.InputTokS != N(3200) || pl.ItemsPerS != N(50) {
		t.Fatalf("pooling %+v, want inputs, 3200 input tok/s, 50 inputs/s", pl)
	}
	var s strings.Builder
	if err := WriteSummary(&s, f, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.String(), "performance: pooling 3200 input tok/s, 50.00 inputs/s") || strings.Contains(s.String(), " 0 tok/s") {
		t.Errorf("summary:\n%s", s.String())
	}
}
