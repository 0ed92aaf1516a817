package console

import (
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/report"
)

// A pooling benchmark's console shows its input tokens and inputs per
// second (its output tok/s is 0); generative benchmarks get no table.
func TestPoolingTable(t *testing.T) {
	bm := &report.Benchmark{Extras: &report.Extras{Inputs: &report.InputFigures{Kind: "documents", Total: 240, PerRequest: 8, PerSecond: 31.25, Tokens: 15360, TokensPerSecond: 2000}}}
	bm.Config.Strategy = report.Strategy{Type: report.StrategyConcurrent, Streams: 4}
	var b strings.Builder
	if err := WriteWidth(&b, &report.Report{Benchmarks: []*report.Benchmark{bm}}, 0); err != nil {
		t.Fatal(err)
	}
	want := "Pooling throughput (successful requests in the measurement window; a pooling request has no output tokens)\n" +
		"                 |           | Throughput        |\n" +
		" #  Strategy     |      Kind | In tok/s  Items/s | Items  Items/req\n" +
		" -  ------------ | --------- | --------  ------- | -----  ---------\n" +
		" 0  concurrent 4 | documents |   2000.0    31.25 |   240        8.0\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("console:\n%s\nwant the pooling table:\n%s", b.String(), want)
	}
	audio := &report.Benchmark{Extras: &report.Extras{Inputs: &report.InputFigures{Kind: "audio_seconds", Total: 3}}}
	if poolingTable(&report.Report{Benchmarks: []*report.Benchmark{audio, {Extras: &report.Extras{}}}}) != nil {
		t.Error("a pooling table for transcriptions and generative benchmarks")
	}
}
