package cli

import (
	"encoding/json"
	"math"
	"os"
	"time"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/sweep"
)

// loads reads --concurrency, --request-rate and --request-rate-mode into
// the run's rounds: one benchmark per value.
func (po *profileOptions) loads(p *draft) (concs, rates []float64, err error) {
	if concs, err = parseProfileConcurrency(po.concurrency); err != nil {
		return nil, nil, err
	}
	if rates, err = parseProfileRates(po.requestRate); err != nil {
		return nil, nil, err
	}
	if po.rateMode != "poisson" && po.rateMode != "constant" && po.rateMode != "gamma" {
		return nil, nil, Usagef("--request-rate-mode %q: goodput profile supports poisson, constant and gamma", po.rateMode)
	}
	if err := po.validateArrival(rates, concs); err != nil {
		return nil, nil, err
	}
	if err := po.validatePrefill(concs); err != nil {
		return nil, nil, err
	}
	if po.concRamp > 0 && len(concs) == 0 && (len(rates) > 0 || po.rateSeries != "" || po.userCentricSet || po.replay()) {
		p.Notes = append(p.Notes, "--concurrency-ramp-duration ignored: with a rate it ramps the in-flight cap, and no --concurrency gives one (AIPerf's rule)")
	}
	var list sweep.List
	switch {
	case po.userCentricSet:
		return po.userCentric(p, rates, concs)
	case po.replay():
		// The trace's own schedule: the round is built once the data is
		// open (finish).
		if len(rates) > 0 || po.rateSeries != "" || len(concs) > 1 {
			return nil, nil, Usagef("--fixed-schedule replays the trace's timestamps: give no --request-rate, --request-rate-series or --concurrency list")
		}
		p.replay = true
		p.Plan.Profile = report.Profile{Kind: string(loadgen.Replay), TimeScale: 1}
		if len(concs) == 1 {
			p.Plan.Profile.MaxConcurrency = int(concs[0]) // the in-flight cap
		}
		return concs, nil, nil
	case po.rateSeries != "":
		s, err := po.seriesStrategy(concs, p)
		if err != nil {
			return nil, nil, err
		}
		list = sweep.List{s}
		p.Plan.Profile = report.Profile{Kind: string(s.Kind), MaxConcurrency: s.MaxConcurrency, Rate: []float64{s.MeanRate()}}
		rates = []float64{s.MeanRate()}
	case len(rates) > 0:
		if len(concs) > 1 {
			return nil, nil, Usagef("--concurrency %q: with --request-rate it is the in-flight cap, one value", po.concurrency)
		}
		maxConc := 0
		if len(concs) == 1 {
			maxConc = int(concs[0])
		}
		p.Plan.Profile = report.Profile{Kind: string(po.kind()), MaxConcurrency: maxConc, Rate: rates}
		for _, r := range rates {
			list = append(list, po.shape(loadgen.Strategy{Kind: po.kind(), Rate: r, MaxConcurrency: maxConc, Seed: uint64(p.Plan.Seed)}))
		}
	default:
		if len(concs) == 0 {
			concs = []float64{1}
		}
		p.Plan.Profile = report.Profile{Kind: string(loadgen.Concurrent), RampupDuration: po.concRamp}
		for _, c := range concs {
			list = append(list, po.shape(loadgen.Strategy{Kind: loadgen.Concurrent, Streams: int(c)}))
			p.Plan.Profile.Streams = append(p.Plan.Profile.Streams, int(c))
		}
	}
	for _, s := range list {
		if err := s.Validate(); err != nil && len(s.Series) > 0 {
			return nil, nil, Usagef("--request-rate-series %s: %v", po.rateSeries, err)
		} else if err != nil {
			return nil, nil, Usagef("--request-rate-mode %s: %v", po.rateMode, err)
		}
	}
	p.Plan.Planner = list
	return concs, rates, nil
}

// userCentric reads --user-centric-rate and --num-users into one
// user-centric benchmark, and --concurrency into its cap on the users
// mid-session (AIPerf's session slots: a user whose session would start
// while the cap is full waits, and the wait is lateness).
func (po *profileOptions) userCentric(p *draft, rates, concs []float64) ([]float64, []float64, error) {
	switch {
	case !(po.userRate > 0) || math.IsInf(po.userRate, 0) || po.numUsers < 1:
		return nil, nil, Usagef("--user-centric-rate %v --num-users %d: want a rate > 0 (requests per second) and users ≥ 1, both given", po.userRate, po.numUsers)
	case len(rates) > 0 || po.rateSeries != "" || po.replay():
		return nil, nil, Usagef("--user-centric-rate: give no --request-rate, --request-rate-series or --fixed-schedule with it (AIPerf's rule)")
	case len(concs) > 1:
		return nil, nil, Usagef("--concurrency %q: with --user-centric-rate it caps the users mid-session, one value", po.concurrency)
	}
	s := loadgen.Strategy{Kind: loadgen.UserCentric, Rate: po.userRate, Streams: po.numUsers}
	if len(concs) == 1 {
		s.MaxConcurrency = int(concs[0])
	}
	s = po.shape(s)
	if err := s.Validate(); err != nil {
		return nil, nil, Usagef("--user-centric-rate: %v", err)
	}
	p.Plan.Planner = sweep.List{s}
	p.Plan.Profile = report.Profile{Kind: report.StrategyConstant, Rate: []float64{po.userRate}, MaxConcurrency: s.Workers()}
	return nil, []float64{po.userRate}, nil
}

// validateArrival checks AIPerf's arrival flags: gamma's smoothness, the
// ramps and the rate series.
func (po *profileOptions) validateArrival(rates, concs []float64) error {
	switch {
	case !(po.smoothness > 0) || math.IsInf(po.smoothness, 0):
		return Usagef("--arrival-smoothness %v: want a gamma shape > 0 (1 poisson, < 1 burstier, > 1 smoother)", po.smoothness)
	case po.smoothness != 1 && po.rateMode != "gamma":
		return Usagef("--arrival-smoothness %v: needs --arrival-pattern gamma", po.smoothness)
	case po.rateRamp < 0 || math.IsNaN(po.rateRamp) || math.IsInf(po.rateRamp, 0):
		return Usagef("--request-rate-ramp-duration %v: want seconds > 0", po.rateRamp)
	case po.rateRamp > 0 && len(rates) == 0:
		return Usagef("--request-rate-ramp-duration needs --request-rate (a series gives its own ramps)")
	case po.concRamp < 0 || math.IsNaN(po.concRamp) || math.IsInf(po.concRamp, 0):
		return Usagef("--concurrency-ramp-duration %v: want seconds > 0", po.concRamp)
	case po.rateSeries != "" && len(rates) > 0:
		return Usagef("--request-rate and --request-rate-series are mutually exclusive")
	case po.rateSeries != "" && len(concs) > 1:
		return Usagef("--concurrency %v: with --request-rate-series it is the in-flight cap, one value", formatList(concs))
	}
	return nil
}

// kind is the loadgen strategy of --request-rate-mode (gamma is poisson
// with a burstiness).
func (po *profileOptions) kind() loadgen.Kind {
	if po.rateMode == "constant" {
		return loadgen.Constant
	}
	return loadgen.Poisson
}

// shape applies the smoothness, the prefill cap and the ramps to one
// benchmark's strategy. AIPerf's rate ramp starts at rate × 0.1 s ÷
// duration (its update interval over the ramp), its concurrency ramp adds
// a stream every duration ÷ concurrency: goodput's linear stream ramp;
// with a rate it raises the in-flight cap from 1 (its session slots).
func (po *profileOptions) shape(s loadgen.Strategy) loadgen.Strategy {
	if s.Kind == loadgen.Poisson && po.smoothness != 1 {
		s.Burstiness = po.smoothness
	}
	switch {
	case s.Kind == loadgen.Concurrent && po.concRamp > 0:
		s.Rampup = time.Duration(po.concRamp * float64(time.Second))
	case s.OpenLoop() && po.rateRamp > 0 && len(s.Series) == 0:
		s.Rampup = time.Duration(po.rateRamp * float64(time.Second))
		s.RampShape, s.RampFrom = loadgen.RampLinear, s.Rate*min(1, 0.1/po.rateRamp)
	}
	if (s.OpenLoop() || s.Kind == loadgen.UserCentric) && s.MaxConcurrency > 0 && po.concRamp > 0 {
		s.CapRampup = time.Duration(po.concRamp * float64(time.Second))
	}
	return prefillCap(s, po.prefill, po.prefillRamp)
}

// prefillCap caps s's requests waiting for their first token at n (0:
// none), the cap ramped over ramp seconds.
func prefillCap(s loadgen.Strategy, n int, ramp float64) loadgen.Strategy {
	s.MaxPrefill = n
	if n > 0 {
		s.PrefillRampup = time.Duration(ramp * float64(time.Second))
	}
	return s
}

// validatePrefill checks --prefill-concurrency and its ramp: at most the
// concurrency when both are given (AIPerf's rule).
func (po *profileOptions) validatePrefill(concs []float64) error {
	switch {
	case po.prefill < 0 || po.prefillSet && po.prefill == 0:
		return Usagef("--prefill-concurrency %d: want requests ≥ 1", po.prefill)
	case !(po.prefillRamp > 0) && (po.prefillRampSet || po.prefillRamp != 0) || math.IsInf(po.prefillRamp, 0):
		return Usagef("--prefill-concurrency-ramp-duration %v: want seconds > 0", po.prefillRamp)
	case po.prefillRamp > 0 && po.prefill == 0:
		return Usagef("--prefill-concurrency-ramp-duration needs --prefill-concurrency (the cap it ramps)")
	case po.prefill > 0 && !po.streaming:
		return Usagef("--prefill-concurrency needs --streaming: a request frees its prefill slot at its first token (AIPerf's rule)")
	case po.warmupPrefill > 0 && !po.streaming:
		return Usagef("--warmup-prefill-concurrency needs --streaming: a request frees its prefill slot at its first token (AIPerf's rule)")
	}
	for _, c := range concs {
		if po.prefill > int(c) {
			return Usagef("--prefill-concurrency %d is more than --concurrency %d: want at most the concurrency (AIPerf's rule)", po.prefill, int(c))
		}
	}
	return nil
}

// seriesStrategy reads --request-rate-series into one open-loop benchmark:
// linear between the points, then the last rate held until
// --benchmark-duration (without one the series ends the benchmark).
func (po *profileOptions) seriesStrategy(concs []float64, p *draft) (loadgen.Strategy, error) {
	b, err := os.ReadFile(po.rateSeries)
	if err != nil {
		return loadgen.Strategy{}, Usagef("--request-rate-series: %v", err)
	}
	var file struct {
		Points []loadgen.RatePoint `json:"points"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		return loadgen.Strategy{}, Usagef(`--request-rate-series %s: %v (want {"points":[{"time_s":0,"qps":5},…]})`, po.rateSeries, err)
	}
	series, err := loadgen.PiecewiseLinear(file.Points)
	if err != nil {
		return loadgen.Strategy{}, Usagef("--request-rate-series %s: %v", po.rateSeries, err)
	}
	if last := file.Points[len(file.Points)-1]; po.duration > last.TimeS {
		series = append(series, loadgen.RateSegment{Duration: time.Duration((po.duration - last.TimeS) * float64(time.Second)), From: last.QPS, To: last.QPS})
	}
	s := loadgen.Strategy{Kind: po.kind(), Series: series, Seed: uint64(p.Plan.Seed)}
	if len(concs) == 1 {
		s.MaxConcurrency = int(concs[0])
	}
	return po.shape(s), nil
}
