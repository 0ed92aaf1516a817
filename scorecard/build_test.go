package scorecard

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/report"
)

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %.15g, want %.15g", what, got, want)
	}
}

func rf(v float64) *report.Float { f := report.Float(v); return &f }

// benchmark returns a minimal benchmark with a measurement window of
// [start, start+d] and, when goodput > 0, an SLO result.
func benchmark(index int, start time.Time, d time.Duration, goodput float64, pass bool) *report.Benchmark {
	s := float64(start.UnixNano()) / 1e9
	b := &report.Benchmark{
		Config:           report.BenchmarkConfig{RunID: "run-1", RunIndex: report.Int(index), Strategy: report.Strategy{Type: "concurrent", Streams: 8 * (index + 1)}},
		SchedulerMetrics: &report.SchedulerMetrics{MeasureStartTime: rf(s), MeasureEndTime: rf(s + d.Seconds())},
		Extras:           &report.Extras{Version: report.ExtrasVersion},
	}
	if goodput > 0 {
		b.Extras.SLO = &report.SLOResult{Spec: "ttft_p99=500ms,itl_p95=50ms,error_rate=0.5%", Pass: pass,
			GoodputOutputTokS: report.Float(goodput), ThroughputOutputTokS: report.Float(goodput * 1.1),
			Objectives: []report.ObjectiveResult{
				{Key: "ttft_p99", Metric: "ttft", Percentile: 99, Unit: "ms", Threshold: 500, Measured: 487, Pass: true},
				{Key: "itl_p95", Metric: "itl", Percentile: 95, Unit: "ms", Threshold: 50, Measured: 42, Pass: true},
				{Key: "error_rate", Metric: "error_rate", Unit: "fraction", Threshold: 0.005, Pass: true},
			}}
		if !pass {
			b.Extras.SLO.Objectives[0].Measured, b.Extras.SLO.Objectives[0].Pass = 721, false
		}
	}
	return b
}

func TestBuildPicksRunRow(t *testing.T) {
	start := time.Unix(1_781_604_000, 0)
	mk := func(gp []float64, pass []bool) []*report.Benchmark {
		var bs []*report.Benchmark
		for i := range gp {
			bs = append(bs, benchmark(i, start.Add(time.Duration(i)*time.Minute), 50*time.Second, gp[i], pass[i]))
		}
		return bs
	}
	for _, tc := range []struct {
		name        string
		gp          []float64
		pass        []bool
		knee        *report.Knee
		wantRound   int
		wantRow     string
		wantElbow   float64
		wantPeakGap bool
	}{
		{"knee", []float64{1000, 2000, 2500}, []bool{true, true, false}, &report.Knee{Found: true, Mode: "sweep", Index: 1, Streams: 16}, 1, "knee", 16, false},
		{"best passing", []float64{1000, 2000, 2500}, []bool{true, true, false}, nil, 1, "best passing round", math.NaN(), false},
		{"none passes", []float64{1000, 2000, 2500}, []bool{false, false, false}, nil, 2, "best round (none passes the SLO)", math.NaN(), false},
	} {
		rep := report.NewReport("test", nil, mk(tc.gp, tc.pass)...)
		rep.Run = &report.RunExtras{RunID: "run-1", Knee: tc.knee, SLO: &report.SLOSpec{Spec: "ttft_p99=500ms,itl_p95=50ms,error_rate=0.5%"}}
		f, err := Build(rep)
		if err != nil {
			t.Fatal(err)
		}
		md := f.Row.Metadata
		if md.Row != tc.wantRow || md.RoundIndex.F() != float64(tc.wantRound) || len(f.Rounds) != 3 {
			t.Errorf("%s: row %q round %v (%d rounds), want %q round %d", tc.name, md.Row, md.RoundIndex, len(f.Rounds), tc.wantRow, tc.wantRound)
		}
		if e := f.Row.Performance.ElbowConcurrency; e.Valid != !math.IsNaN(tc.wantElbow) || (e.Valid && e.V != tc.wantElbow) {
			t.Errorf("%s: elbow %+v, want %v", tc.name, e, tc.wantElbow)
		}
		// Peak throughput is over all rounds: 2500 × 1.1.
		near(t, tc.name+" throughput_peak_tok_s", f.Row.Performance.ThroughputPeakTokS.F(), 2750)
		if md.SLOTTFTP99Ms.F() != 500 || md.SLOITLP95Ms.F() != 50 || md.SLOErrorRate.F() != 0.005 {
			t.Errorf("%s: SLO thresholds %v %v %v", tc.name, md.SLOTTFTP99Ms, md.SLOITLP95Ms, md.SLOErrorRate)
		}
		if f.Rounds[0].Metadata.Row != "round" || f.Rounds[2].Metadata.Strategy != "concurrent streams=24" {
			t.Errorf("%s: round rows %q %q", tc.name, f.Rounds[0].Metadata.Row, f.Rounds[2].Metadata.Strategy)
		}
	}
	// Missing axes carry reasons.
	bs := mk([]float64{0}, []bool{false})
	bs[0].Metrics.OutputTokensPerSecond = &report.StatusDistributionSummary{Successful: &report.DistributionSummary{Mean: 900, Count: 10}}
	rep := report.NewReport("test", nil, bs...)
	f, err := Build(rep)
	if err != nil {
		t.Fatal(err)
	}
	ma := f.Row.Metadata.MissingAxes
	if f.Row.Cost != nil || f.Row.Energy != nil || f.Row.Carbon != nil ||
		!strings.Contains(ma["cost"], "--gpu-cost-per-hour") || !strings.Contains(ma["energy"], "--dcgm-url") || !strings.Contains(ma["carbon"], "no energy") {
		t.Errorf("missing axes %v", ma)
	}
	if f.Row.Metadata.Row != "highest-throughput round (no SLO judged)" || f.Row.Performance.GoodputBasis != "throughput" || f.Row.Performance.GoodputTokS.F() != 900 {
		t.Errorf("row %q, goodput %v (%s)", f.Row.Metadata.Row, f.Row.Performance.GoodputTokS, f.Row.Performance.GoodputBasis)
	}
}
