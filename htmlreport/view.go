package htmlreport

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/goodput-dev/goodput/internal/redact"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/slo"
)

// runView is what the page shows of one report, extracted once.
type runView struct {
	idx     int // position of the report on the page
	id      string
	name    string
	rep     *report.Report
	extras  *report.RunExtras // nil for GuideLLM reports
	hasExtr bool              // some benchmark has goodput extras
	rounds  []*roundView
	load    loadAxis
	slo     sloView
	knee    *report.Knee
	kneeAt  int // index in rounds of the knee round, -1 if none
	records RecordSource
}

// loadAxis is what the load curves are plotted against.
type loadAxis struct {
	kind  loadKind
	label string // axis label with unit
	short string // column heading
	unit  string // "streams" or "req/s"
}

// loadKind says which figure of a round is its load.
type loadKind uint8

const (
	loadAchieved loadKind = iota // the achieved request rate
	loadStreams                  // configured concurrent streams
	loadRate                     // configured request rate
)

// roundView is one benchmark (one sweep round). Figures are NaN when the
// report does not have them.
type roundView struct {
	i       int // index in Report.Benchmarks
	b       *report.Benchmark
	label   string
	load    float64
	reqRate float64 // successful requests/s
	outTokS float64 // output tokens/s of successful requests
	goodput float64 // output tokens/s of requests that met the SLO
	ttft    float64 // ms, at sloView.ttftP
	itl     float64 // ms, at sloView.itlP
	ttftSrc source
	itlSrc  source
	// ttftCI and itlCI are the intervals of ttft and itl (NaN: none; an
	// infinite bound: the sample cannot give it).
	ttftCI, itlCI [2]float64
	slo           *report.SLOResult
}

// source says where a latency figure came from.
type source uint8

const (
	srcNone     source = iota
	srcSLO             // the SLO verdict's measured value
	srcExtras          // goodput's distribution (absent means absent)
	srcGuideLLM        // GuideLLM's distribution (missing values counted as 0)
)

func (s source) String() string {
	switch s {
	case srcSLO:
		return "the SLO verdict's measured values"
	case srcExtras:
		return "goodput's distributions of successful requests (a request without a value is left out)"
	case srcGuideLLM:
		return "GuideLLM's distributions of successful requests (GuideLLM counts a missing value as 0)"
	}
	return "nothing"
}

// sloView is the run's SLO as the charts need it.
type sloView struct {
	spec       string
	def        bool
	ttftP      float64 // percentile charted for TTFT (99 unless the SLO says otherwise)
	itlP       float64 // percentile charted for ITL (95 unless the SLO says otherwise)
	ttftMs     float64 // threshold, NaN if the SLO has none
	itlMs      float64
	objectives []report.ObjectiveResult // from the first benchmark judged
}

// newRunView extracts the view of report rep.
func newRunView(idx int, rep *report.Report, name string, rec RecordSource) *runView {
	v := &runView{idx: idx, id: "r" + strconv.Itoa(idx), rep: rep, extras: rep.Run, kneeAt: -1, records: rec}
	for i, b := range rep.Benchmarks {
		if b == nil {
			continue
		}
		if b.Extras != nil {
			v.hasExtr = true
		}
		v.rounds = append(v.rounds, &roundView{i: i, b: b, label: strategyLabel(b)})
	}
	v.name = name
	if v.name == "" {
		v.name = v.defaultName()
	}
	v.slo = newSLOView(rep)
	v.load = v.chooseLoad()
	for _, r := range v.rounds {
		v.fillRound(r)
	}
	if rep.Run != nil && rep.Run.Knee != nil {
		v.knee = rep.Run.Knee
		if v.knee.Found {
			v.kneeAt = v.roundAt(int64(v.knee.Index))
		}
	}
	return v
}

// roundAt finds the round a run index names (Knee.Index, Below, Above):
// by the benchmarks' run_index when those are distinct (goodput's reports,
// and what package scorecard matches), else by position; -1 if none.
func (v *runView) roundAt(index int64) int {
	seen := map[int64]bool{}
	distinct := true
	for _, r := range v.rounds {
		ri := int64(r.b.Config.RunIndex)
		distinct = distinct && !seen[ri]
		seen[ri] = true
	}
	for k, r := range v.rounds {
		if (distinct && int64(r.b.Config.RunIndex) == index) || (!distinct && int64(r.i) == index) {
			return k
		}
	}
	return -1
}

// defaultName names a run: its run id, else its model, else its position.
func (v *runView) defaultName() string {
	if e := v.extras; e != nil && e.RunID != "" {
		return e.RunID
	}
	for _, r := range v.rounds {
		if id := r.b.Config.RunID; id != "" {
			return id
		}
	}
	if m := v.model(); m != "" {
		return m
	}
	return "report " + strconv.Itoa(v.idx+1)
}

// model is the served model's name, from the run metadata, the scenario
// or a benchmark's backend description.
func (v *runView) model() string {
	if e := v.extras; e != nil && e.Metadata != nil && e.Metadata.Model != "" {
		return e.Metadata.Model
	}
	if c := v.rep.Config; c != nil {
		if m := jsonString(c.Spec.Backend, "model"); m != "" {
			return m
		}
	}
	if m := jsonString(v.rep.Args, "model"); m != "" {
		return m
	}
	for _, r := range v.rounds {
		if m := jsonString(r.b.Config.Backend, "model", "backend_model"); m != "" {
			return m
		}
	}
	return ""
}

// target is the server's base URL without any user information.
func (v *runView) target() string {
	t := ""
	if c := v.rep.Config; c != nil {
		t = jsonString(c.Spec.Backend, "target")
	}
	if t == "" {
		t = jsonString(v.rep.Args, "target")
	}
	for _, r := range v.rounds {
		if t != "" {
			break
		}
		t = jsonString(r.b.Config.Backend, "target", "backend_target")
	}
	return redact.URL(t)
}

// jsonString returns the first of keys that is a string in the JSON
// object raw.
func jsonString(raw json.RawMessage, keys ...string) string {
	if len(raw) == 0 || raw[0] != '{' {
		return ""
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	for _, k := range keys {
		var s string
		if v, ok := m[k]; ok && json.Unmarshal(v, &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// strategyLabel names a benchmark's strategy with its rate or streams.
func strategyLabel(b *report.Benchmark) string {
	s := b.Config.Strategy
	if a := arrivalOf(b); a != nil {
		switch a.Process {
		case "user_centric":
			return "user-centric " + fmtNum(s.Rate) + " req/s, " + strconv.Itoa(a.Users) + " users"
		case "gamma":
			return "gamma " + fmtNum(s.Rate) + " req/s"
		}
	}
	switch s.Type {
	case report.StrategyConstant, report.StrategyPoisson:
		return s.Type + " " + fmtNum(s.Rate) + " req/s"
	case report.StrategyConcurrent:
		return "concurrent " + strconv.Itoa(s.Streams)
	case report.StrategyThroughput:
		if s.MaxConcurrency > 0 {
			return "throughput, max " + strconv.Itoa(s.MaxConcurrency)
		}
		return "throughput"
	case report.StrategyReplay:
		ts := s.TimeScale
		if ts == 0 {
			ts = 1
		}
		return "replay ×" + fmtNum(ts)
	case "":
		return "–"
	}
	return s.Type
}

func arrivalOf(b *report.Benchmark) *report.Arrival {
	if b.Extras == nil {
		return nil
	}
	return b.Extras.Arrival
}

// chooseLoad picks the load axis: configured streams when every round is
// concurrent, configured rate when every round is constant or Poisson,
// else the achieved request rate.
func (v *runView) chooseLoad() loadAxis {
	allConc, allRate := len(v.rounds) > 0, len(v.rounds) > 0
	for _, r := range v.rounds {
		s := r.b.Config.Strategy
		allConc = allConc && s.Type == report.StrategyConcurrent && s.Streams > 0
		allRate = allRate && (s.Type == report.StrategyConstant || s.Type == report.StrategyPoisson) && s.Rate > 0
	}
	switch {
	case allConc:
		return loadAxis{kind: loadStreams, label: "Concurrency (streams)", short: "Streams", unit: "streams"}
	case allRate:
		return loadAxis{kind: loadRate, label: "Request rate (req/s, scheduled)", short: "Rate req/s", unit: "req/s"}
	}
	return loadAxis{kind: loadAchieved, label: "Achieved request rate (req/s)", short: "Achieved req/s", unit: "req/s"}
}

// fillRound computes a round's figures.
func (v *runView) fillRound(r *roundView) {
	b := r.b
	s := b.Config.Strategy
	m := &b.Metrics
	r.reqRate = mean(m.RequestsPerSecond, false)
	switch v.load.kind {
	case loadStreams:
		r.load = float64(s.Streams)
	case loadRate:
		r.load = s.Rate
	default:
		r.load = mean(m.RequestsPerSecond, true)
	}
	r.outTokS = mean(m.OutputTokensPerSecond, false)
	r.goodput = math.NaN()
	if g := b.Extras; g != nil && g.SLO != nil {
		r.slo = g.SLO
		r.goodput = float64(g.SLO.GoodputOutputTokS)
		r.outTokS = float64(g.SLO.ThroughputOutputTokS)
	}
	r.ttft, r.ttftSrc = v.latency(r, string(slo.TTFT), v.slo.ttftP,
		extrasDist(b, func(x *report.ExtraMetrics) *report.StatusDistributionSummary { return x.TimeToFirstTokenMs }), m.TimeToFirstTokenMs)
	r.itl, r.itlSrc = v.latency(r, string(slo.ITL), v.slo.itlP,
		extrasDist(b, func(x *report.ExtraMetrics) *report.StatusDistributionSummary { return x.InterTokenLatencyMs }), m.InterTokenLatencyMs)
	r.ttftCI = latencyCI(r, string(slo.TTFT), v.slo.ttftP, extrasDist(b, func(x *report.ExtraMetrics) *report.StatusDistributionSummary { return x.TimeToFirstTokenMs }))
	r.itlCI = latencyCI(r, string(slo.ITL), v.slo.itlP, extrasDist(b, func(x *report.ExtraMetrics) *report.StatusDistributionSummary { return x.InterTokenLatencyMs }))
}

// latencyCI is the interval of the figure latency chose: the censoring-
// aware estimate's when the SLO verdict judged on it, else goodput's
// distribution's; NaN when the report has none.
func latencyCI(r *roundView, metric string, p float64, extras *report.StatusDistributionSummary) [2]float64 {
	none := [2]float64{math.NaN(), math.NaN()}
	var ci *report.ConfidenceInterval
	if r.slo != nil && metric == string(slo.TTFT) && r.b.Extras != nil && r.b.Extras.Censored != nil {
		for _, o := range r.slo.Objectives {
			if o.Metric == metric && samePct(float64(o.Percentile), p) && o.Censored {
				if cd := r.b.Extras.Censored.TimeToFirstTokenMs; cd != nil && cd.PercentileCIs != nil {
					for i, pr := range report.PercentileProbs {
						if samePct(pr*100, p) {
							ci = cd.PercentileCIs.At(i)
						}
					}
				}
				if ci == nil {
					return none
				}
			}
		}
	}
	if ci == nil && extras != nil {
		ci = extras.Successful.PercentileCI(p)
	}
	if ci == nil {
		return none
	}
	out := [2]float64{math.Inf(-1), math.Inf(1)}
	if ci.Lower != nil {
		out[0] = float64(*ci.Lower)
	}
	if ci.Upper != nil {
		out[1] = float64(*ci.Upper)
	}
	return out
}

// latency is a round's percentile p of a metric: the SLO verdict's
// measured value for that objective when there is one, else goodput's
// distribution, else GuideLLM's.
func (v *runView) latency(r *roundView, metric string, p float64, extras, guide *report.StatusDistributionSummary) (float64, source) {
	if r.slo != nil {
		for _, o := range r.slo.Objectives {
			if o.Metric == metric && samePct(float64(o.Percentile), p) && !o.Missing {
				return float64(o.Measured), srcSLO
			}
		}
	}
	if extras != nil && extras.Successful != nil {
		if x := pctOf(extras.Successful, p); !math.IsNaN(x) {
			return x, srcExtras
		}
	}
	if guide != nil && guide.Successful != nil {
		if x := pctOf(guide.Successful, p); !math.IsNaN(x) {
			return x, srcGuideLLM
		}
	}
	return math.NaN(), srcNone
}

func extrasDist(b *report.Benchmark, get func(*report.ExtraMetrics) *report.StatusDistributionSummary) *report.StatusDistributionSummary {
	if b.Extras == nil {
		return nil
	}
	return get(&b.Extras.Metrics)
}

// mean is a distribution's successful mean (the total's when total is
// set, falling back to the other), NaN when absent.
func mean(d *report.StatusDistributionSummary, total bool) float64 {
	if d == nil {
		return math.NaN()
	}
	first, second := d.Successful, d.Total
	if total {
		first, second = second, first
	}
	if first != nil {
		return float64(first.Mean)
	}
	if second != nil {
		return float64(second.Mean)
	}
	return math.NaN()
}

// pctNorm turns a percentile given as a fraction (0.99) into a percent.
func pctNorm(p float64) float64 {
	if p > 0 && p < 1 {
		return p * 100
	}
	return p
}

func samePct(a, b float64) bool { return math.Abs(pctNorm(a)-pctNorm(b)) < 1e-9 }

// pctOf is percentile p (in percent) of d, NaN when d has no such key.
func pctOf(d *report.DistributionSummary, p float64) float64 {
	if d == nil {
		return math.NaN()
	}
	if pctNorm(p) == 100 {
		return float64(d.Max)
	}
	v, _ := d.Percentile(pctNorm(p))
	return v
}

// newSLOView reads the SLO: the spec from the run extras, the objectives
// (thresholds and percentiles) from the first benchmark judged.
func newSLOView(rep *report.Report) sloView {
	s := sloView{ttftP: 99, itlP: 95, ttftMs: math.NaN(), itlMs: math.NaN()}
	if e := rep.Run; e != nil && e.SLO != nil {
		s.spec, s.def = e.SLO.Spec, e.SLO.Default
	}
	for _, b := range rep.Benchmarks {
		if b == nil || b.Extras == nil || b.Extras.SLO == nil {
			continue
		}
		res := b.Extras.SLO
		if s.spec == "" {
			s.spec, s.def = res.Spec, res.Default
		}
		s.objectives = res.Objectives
		for _, o := range slo.FromResult(res).Objectives {
			p, ok := o.Quantile()
			if !ok {
				continue
			}
			switch {
			case o.Metric == slo.TTFT && math.IsNaN(s.ttftMs):
				s.ttftP, s.ttftMs = p, o.Threshold
			case o.Metric == slo.ITL && math.IsNaN(s.itlMs):
				s.itlP, s.itlMs = p, o.Threshold
			}
		}
		break
	}
	return s
}

// pctName writes a percentile as a key: 99 → "P99", 99.9 → "P99.9".
func pctName(p float64) string {
	return "P" + strconv.FormatFloat(pctNorm(p), 'f', -1, 64)
}

// roundName is how a round is called in legends and tables.
func (r *roundView) name() string {
	return fmt.Sprintf("#%d %s", r.i, r.label)
}

// jsonNumber returns key of the JSON object raw as a number, NaN if absent.
func jsonNumber(raw json.RawMessage, key string) float64 {
	if len(raw) == 0 || raw[0] != '{' {
		return math.NaN()
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return math.NaN()
	}
	var f float64
	if v, ok := m[key]; ok && json.Unmarshal(v, &f) == nil {
		return f
	}
	return math.NaN()
}
