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

// A pooling run's row is the round that processed the most input tokens
// per second, as its output token rates are all 0.
func TestPoolingRunRow(t *testing.T) {
	round := func(i int, tokS float64) *report.Benchmark {
		b := &report.Benchmark{Config: report.BenchmarkConfig{RunID: "p", RunIndex: report.Int(i)}, Extras: &report.Extras{
			Inputs: &report.InputFigures{Kind: "inputs", Total: 400, PerRequest: 4, PerSecond: report.Float(tokS / 64), Tokens: 25600, TokensPerSecond: report.Float(tokS)}}}
		b.Config.Strategy = report.Strategy{Type: report.StrategyConcurrent, Streams: 1 << i}
		return b
	}
	rep := report.NewReport("test", nil, round(0, 1000), round(1, 3000), round(2, 2000))
	rep.Run = &report.RunExtras{RunID: "p"}
	f, err := Build(rep)
	if err != nil {
		t.Fatal(err)
	}
	if f.Row.Metadata.RoundIndex != N(1) || !strings.Contains(f.Row.Metadata.RowReason, "highest pooling throughput") {
		t.Errorf("run row: round %v (%s), want round 1, the highest pooling throughput", f.Row.Metadata.RoundIndex, f.Row.Metadata.RowReason)
	}
}
