package measure

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/scorecard"
	"github.com/goodput-dev/goodput/telemetry"
)

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %.15g, want %.15g", what, got, want)
	}
}

// fval reads a report value, NaN for nil.
func fval(p *report.Float) float64 {
	if p == nil {
		return math.NaN()
	}
	return float64(*p)
}

// topKeys are a JSON object's keys in order, comma-separated.
func topKeys(t *testing.T, b []byte) string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	var keys []string
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
	}
	return strings.Join(keys, ",")
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
		b.Extras.SLO = &report.SLOResult{Spec: "ttft_p99=500ms,itl_p95=50ms", Pass: pass,
			GoodputOutputTokS: report.Float(goodput), ThroughputOutputTokS: report.Float(goodput * 1.1),
			Objectives: []report.ObjectiveResult{
				{Key: "ttft_p99", Metric: "ttft", Percentile: 99, Unit: "ms", Threshold: 500, Measured: 487, Pass: true},
				{Key: "itl_p95", Metric: "itl", Percentile: 95, Unit: "ms", Threshold: 50, Measured: 42, Pass: true},
			}}
		if !pass {
			b.Extras.SLO.Objectives[0].Measured, b.Extras.SLO.Objectives[0].Pass = 721, false
		}
	}
	return b
}

// articleRound is the article's row B as measured: 4 GPUs drawing 4924 W
// for 100 s while 312,000 output tokens (3120 tok/s) and 1,228,800 prompt
// tokens of 1200 requests were served, priced at 2.7 €/GPU-h.
func articleRound(t *testing.T, withSLO bool) (*Telemetry, *roundState) {
	t.Helper()
	start := time.Unix(1_781_604_000, 0)
	end := start.Add(100 * time.Second)
	tel := &Telemetry{cfg: Config{GPUCostPerHour: 2.7, GPUs: 4, PUE: 1.4, GridIntensity: 40}}
	w := telemetry.EnergyWindow{Start: start, End: end, Source: "dcgm-exporter http://127.0.0.1:9400/metrics", Method: telemetry.MethodCounter,
		EnergyJ: 492400, MeanPowerW: 4924, PeakPowerW: 5100, UpdateInterval: time.Second, Coverage: 1}
	for i := 0; i < 4; i++ {
		w.GPUs = append(w.GPUs, telemetry.GPUEnergy{GPU: telemetry.GPUID{Index: string(rune('0' + i)), Model: "NVIDIA H100 80GB HBM3"},
			Method: telemetry.MethodCounter, EnergyJ: 123100, MeanPowerW: 1231, PeakPowerW: 1275, Coverage: 1, Samples: 100})
	}
	gp := 0.0
	if withSLO {
		gp = 3120
	}
	rs := &roundState{bench: benchmark(0, start, 100*time.Second, gp, true), start: start, end: end, basis: "measurement",
		meas: measurements{energy: []energyReading{{source: w.Source, scope: scopeDirect, w: &w}}}}
	rs.sums[colOut], rs.sums[colPrompt], rs.sums[colReqs], rs.sums[colOK] = 312000, 1228800, 1200, 1200
	return tel, rs
}

// TestRowArithmetic checks every scorecard figure against values computed
// by hand from the article's identities:
//
//	cost/h      = 2.7 €/GPU-h × 4 GPUs = 10.8 €/h
//	CPM         = 10.8 × 10^6 / (3120 × 3600) = 10,800,000 / 11,232,000 = 25/26 = 0.961538… €/1M
//	window cost = 10.8 × 100 / 3600 = 0.3 €; per request 0.3 / 1200 = 0.00025 €
//	Wh/token    = 492,400 J / 3600 / 312,000 = 1231/2,808,000 = 0.000438390313…
//	J/token     = 492,400 / 312,000 = 1231/780 = 1.578205128…
//	J/token all = 492,400 / (312,000 + 1,228,800) = 0.319574247144…
//	PUE 1.4     = 0.000438390313… × 1.4 = 0.000613746438746…
//	gCO2/1M tok = 0.000438390313… × 10^6 / 1000 × 1.4 × 40 = 24.5498575498…
//	energy      = 492,400 / 3.6e6 = 0.136777… kWh; per request 136.777… / 1200 Wh
func TestRowArithmetic(t *testing.T) {
	for _, withSLO := range []bool{true, false} {
		tel, rs := articleRound(t, withSLO)
		bt := tel.assemble(rs)
		rs.bench.Extras.Telemetry = bt
		if withSLO {
			near(t, "telemetry CPM", fval(bt.Cost.CPM), 25.0/26)
			if bt.Cost.CPMBasis != "goodput" {
				t.Errorf("cpm basis %q", bt.Cost.CPMBasis)
			}
		} else if bt.Cost.CPMBasis != "throughput" {
			t.Errorf("cpm basis %q, want throughput (no SLO)", bt.Cost.CPMBasis)
		}
		near(t, "window cost", float64(bt.Cost.WindowCost), 0.3)
		near(t, "cost per request", fval(bt.Cost.CostPerRequest), 0.00025)
		d := bt.Energy.Derived
		near(t, "Wh/output token", fval(d.WhPerOutputToken), 1231.0/2808000)
		near(t, "J/output token", fval(d.JPerOutputToken), 1231.0/780)
		near(t, "J/token (prompt+output)", fval(d.JPerToken), 492400.0/1540800)
		near(t, "Wh/request", fval(d.WhPerRequest), 492400.0/3600/1200)
		near(t, "Wh/output token PUE", fval(d.WhPerOutputTokenPUE), 1231.0/2808000*1.4)
		near(t, "gCO2/1M output tokens", fval(d.GCO2PerMOutputTokens), 68936000.0/2808000)
		if bt.Energy.GPUs != 4 || bt.Energy.GPUModel != "NVIDIA H100 80GB HBM3" || bt.Energy.Method != "counter" {
			t.Errorf("energy GPUs %d model %q method %q", bt.Energy.GPUs, bt.Energy.GPUModel, bt.Energy.Method)
		}
		near(t, "tokens/s", float64(bt.Tokens.OutputTokS), 3120)

		// The round ran 150 s in all (30 s of warm-up before the 100 s
		// window, 20 s after): the run cost 10.8 €/h × 150 s = 0.45 €.
		s0 := float64(rs.start.Unix())
		rs.bench.StartTime, rs.bench.EndTime = rf(s0-30), rf(s0+120)
		f, err := scorecard.Build(report.NewReport("test", nil, rs.bench))
		if err != nil {
			t.Fatal(err)
		}
		r := f.Row
		near(t, "cost_run_eur", r.Cost.CostRunEUR.F(), 0.45)
		if f.Rounds[0].Cost.CostRunEUR.Valid {
			t.Errorf("a round row has cost_run_eur %v, want null", f.Rounds[0].Cost.CostRunEUR)
		}
		near(t, "cpm_eur_1m", r.Cost.CPMEUR1M.F(), 25.0/26) // 3120 tok/s either way
		near(t, "gpu_cost_eur_h", r.Cost.GPUCostEURH.F(), 10.8)
		near(t, "cost_window_eur", r.Cost.CostWindowEUR.F(), 0.3)
		near(t, "wh_per_token", r.Energy.WhPerToken.F(), 1231.0/2808000)
		near(t, "j_per_token", r.Energy.JPerToken.F(), 1231.0/780)
		near(t, "power_mean_w", r.Energy.PowerMeanW.F(), 4924)
		near(t, "energy_total_kwh", r.Energy.EnergyTotalKWh.F(), 492400/3.6e6)
		near(t, "pue", r.Energy.PUE.F(), 1.4)
		near(t, "wh_per_token_pue_adjusted", r.Energy.WhPerTokenPUEAdjusted.F(), 1231.0/2808000*1.4)
		near(t, "grid_intensity_gco2_kwh", r.Carbon.GridIntensityGCO2KWh.F(), 40)
		near(t, "co2_per_1m_tokens_g", r.Carbon.CO2Per1MTokensG.F(), 68936000.0/2808000)
		near(t, "goodput_tok_s", r.Performance.GoodputTokS.F(), 3120)
		wantBasis := map[bool]string{true: "slo", false: "throughput"}[withSLO]
		if r.Performance.GoodputBasis != wantBasis || r.Cost.Currency != "EUR" || r.Metadata.MissingAxes != nil {
			t.Errorf("basis %q currency %q missing %v", r.Performance.GoodputBasis, r.Cost.Currency, r.Metadata.MissingAxes)
		}
	}
}

// TestCPMIssueExample: 10.8 €/h at 3,120 tok/s is 0.9615 €/1M tokens.
func TestCPMIssueExample(t *testing.T) {
	f := costFigures(10.8, 3600, 3120, 0)
	if math.Round(f.CPM*1e4)/1e4 != 0.9615 {
		t.Errorf("CPM %.6f, want 0.9615", f.CPM)
	}
	near(t, "window cost of one hour", f.WindowCost, 10.8)
}

// TestWriteRead writes a built scorecard and reads it back.
func TestWriteRead(t *testing.T) {
	tel, rs := articleRound(t, true)
	rs.bench.Extras.Telemetry = tel.assemble(rs)
	rep := report.NewReport("test", nil, rs.bench)
	rep.Run = &report.RunExtras{RunID: "run-1", Metadata: &report.RunMetadata{Model: "m", Labels: map[string]string{"team": "a"}}}
	f, err := scorecard.Build(rep)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	back, warns, err := scorecard.Decode(buf.Bytes(), "scorecard-run-1.json")
	if err != nil || len(warns) > 0 {
		t.Fatalf("decode: %v %q", err, warns)
	}
	if !reflect.DeepEqual(back, f) {
		t.Errorf("read back differs:\n%+v\nwant\n%+v", back, f)
	}
	var again bytes.Buffer
	if err := back.Write(&again); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Bytes(), buf.Bytes()) {
		t.Error("writing what was read gives other bytes")
	}
	// The top-level keys are the article's six blocks, then the rounds.
	if got := topKeys(t, buf.Bytes()); got != "run_id,metadata,performance,cost,energy,carbon,rounds" {
		t.Errorf("top-level keys %s", got)
	}
}
