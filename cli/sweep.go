package cli

import (
	"math"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/slo"
	"github.com/goodput-dev/goodput/sweep"
)

// sweepOptions are the flags of the SLO, GuideLLM's sweep profile and the
// knee search (--rate-type sweep and knee) of goodput benchmark.
type sweepOptions struct {
	slo            string
	targetLoadTokS float64
	kneeAxis       string
	kneeTolerance  float64
	kneeMaxRounds  int
	kneeFactor     float64
	kneeMaxRate    float64
	sweepStrategy  string
	stoppingScope  string

	given  typed[slo.Spec]   // --slo as a front end built it
	parsed *slo.Spec         // set by validate
	search *sweep.KneeSearch // the knee search planner() built, for finalProfile
}

// kneeOnlyFlags are the flags only --rate-type knee uses.
var kneeOnlyFlags = [...]string{"knee-axis", "knee-tolerance", "knee-max-rounds", "knee-factor", "knee-max-rate"}

// addSweepFlags registers the flags.
func addSweepFlags(fs *pflag.FlagSet, o *sweepOptions) {
	fs.StringVar(&o.slo, "slo", "", "service-level objective every benchmark is judged against, e.g. ttft_p99=500ms,itl_p95=50ms,error_rate=0.5% (the default: interactive chat); keys ttft, itl, tpot, e2e with _p50…_p99.9, _mean, _max, or alone for a per-request threshold; error_rate, attainment")
	fs.Float64Var(&o.targetLoadTokS, "target-load-tok-s", 0, "output tokens/s to serve: the knee's report gives the replicas needed, ceil(target ÷ goodput at the knee)")
	fs.StringVar(&o.kneeAxis, "knee-axis", string(sweep.AxisConcurrency), "what --rate-type knee varies: concurrency (closed loop, the default) or rate (open loop, --sweep-strategy)")
	fs.Float64Var(&o.kneeTolerance, "knee-tolerance", sweep.DefaultKneeTolerance, "knee search: stop bisecting when the bracket is within this fraction of the passing load")
	fs.IntVar(&o.kneeMaxRounds, "knee-max-rounds", sweep.DefaultKneeMaxRounds, "knee search: at most this many rounds")
	fs.Float64Var(&o.kneeFactor, "knee-factor", sweep.DefaultKneeFactor, "knee search: the ramp multiplies the load by this factor")
	fs.Float64Var(&o.kneeMaxRate, "knee-max-rate", sweep.DefaultKneeMaxRate, "knee search on the rate axis: the highest request rate tried (req/s)")
	fs.StringVar(&o.sweepStrategy, "sweep-strategy", string(loadgen.Constant), "open-loop rounds of --rate-type sweep and of a rate knee search: constant or poisson")
	fs.StringVar(&o.stoppingScope, "stopping-scope", "current", "what a --max-errors or --max-error-rate stop ends: current (that benchmark) or all (the remaining rounds too; GuideLLM's stopping_scope)")
}

// validate checks the flags that apply to every run and parses the SLO
// (the default when --slo is not given). fs says which flags were set:
// the knee flags are refused with another rate type.
func (o *sweepOptions) validate(fs *pflag.FlagSet, rateType string) error {
	if s, ok := o.given.of(o.slo); ok {
		o.parsed = &s
	} else if strings.TrimSpace(o.slo) == "" {
		d := slo.Default()
		o.parsed = &d
	} else {
		s, err := slo.Parse(o.slo)
		if err != nil {
			return Usagef("--slo: %v", err)
		}
		o.parsed = &s
	}
	if o.targetLoadTokS < 0 || math.IsNaN(o.targetLoadTokS) || math.IsInf(o.targetLoadTokS, 0) {
		return Usagef("--target-load-tok-s %v: want output tokens per second > 0", o.targetLoadTokS)
	}
	if o.stoppingScope != "current" && o.stoppingScope != "all" {
		return Usagef("--stopping-scope %q: want current or all", o.stoppingScope)
	}
	if o.sweepStrategy != string(loadgen.Constant) && o.sweepStrategy != string(loadgen.Poisson) {
		return Usagef("--sweep-strategy %q: want constant or poisson", o.sweepStrategy)
	}
	if fs != nil && rateType != "knee" {
		for _, name := range kneeOnlyFlags {
			if fs.Changed(name) {
				return Usagef("--%s is only used with --rate-type knee", name)
			}
		}
	}
	if fs != nil && fs.Changed("sweep-strategy") && rateType != "sweep" && !(rateType == "knee" && o.kneeAxis == string(sweep.AxisRate)) {
		return Usagef("--sweep-strategy is only used with --rate-type sweep or --rate-type knee --knee-axis rate")
	}
	return nil
}

// spec is the SLO every round is judged against (validate parses it; the
// default before that).
func (o *sweepOptions) spec() slo.Spec {
	if o.parsed == nil {
		return slo.Default()
	}
	return *o.parsed
}

// plannerBase are the benchmark flags the sweep and knee planners share.
type plannerBase struct {
	maxConcurrency   int // --max-concurrency (0: the planner's default)
	rampup           time.Duration
	seed             uint64
	burstiness       float64 // gamma shape of poisson rounds (0: poisson)
	maxPrefill       int     // --max-prefill-concurrency (0: none)
	warmup, cooldown report.TransientPhase
}

// isSweepRateType reports whether planner handles a --rate-type.
func isSweepRateType(rateType string) bool { return rateType == "sweep" || rateType == "knee" }

// planner builds the planner and the report profile of --rate-type sweep
// (GuideLLM's sweep: --rate is the number of rounds, default 10) or knee
// (a knee search: --rate, optional, is the first load: streams or req/s).
// The planner applies --stopping-scope. Errors are usage errors naming the
// flag.
func (o *sweepOptions) planner(rateType string, rates []float64, base plannerBase) (sweep.Planner, report.Profile, error) {
	var p sweep.Planner
	var prof report.Profile
	switch rateType {
	case "sweep":
		g := sweep.GuideLLMSweep{Kind: loadgen.Kind(o.sweepStrategy), MaxConcurrency: base.maxConcurrency, Rampup: base.rampup, Seed: base.seed, Burstiness: base.burstiness, MaxPrefill: base.maxPrefill}
		switch len(rates) {
		case 0:
		case 1:
			if rates[0] < 2 || rates[0] != math.Trunc(rates[0]) || rates[0] > 1000 {
				return nil, prof, Usagef("--rate %v: with --rate-type sweep it is the number of rounds, a whole number from 2 to 1000 (default %d)", rates[0], sweep.DefaultSweepSize)
			}
			g.Size = int(rates[0])
		default:
			return nil, prof, Usagef("--rate-type sweep takes one --rate: the number of rounds (default %d)", sweep.DefaultSweepSize)
		}
		if err := g.Validate(); err != nil {
			return nil, prof, Usagef("--rate-type sweep: %v", err)
		}
		p, prof = g, g.Profile()
	case "knee":
		k, err := o.kneeSearch(rates, base)
		if err != nil {
			return nil, prof, err
		}
		o.search = &k
		p, prof = k, k.Profile(nil)
	default:
		return nil, prof, Usagef("--rate-type %q is not a sweep: want sweep or knee", rateType)
	}
	prof.Warmup, prof.Cooldown = base.warmup, base.cooldown
	return o.stopOn(p), prof, nil
}

// stopOn applies --stopping-scope all to any planner (a rate or stream
// list too): a round ended by --max-errors or --max-error-rate skips the
// remaining rounds, GuideLLM's stopping_scope=all.
func (o *sweepOptions) stopOn(p sweep.Planner) sweep.Planner {
	if o.stoppingScope != "all" {
		return p
	}
	return sweep.StopOn(p, loadgen.StopMaxErrors, loadgen.StopMaxErrorRate, loadgen.StopMaxGlobalErrorRate)
}

// kneeSearch validates the knee flags.
func (o *sweepOptions) kneeSearch(rates []float64, base plannerBase) (sweep.KneeSearch, error) {
	k := sweep.KneeSearch{
		Axis: sweep.Axis(o.kneeAxis), Factor: o.kneeFactor, Tolerance: o.kneeTolerance, MaxRounds: o.kneeMaxRounds,
		MaxConcurrency: base.maxConcurrency, MaxRate: o.kneeMaxRate, Kind: loadgen.Kind(o.sweepStrategy),
		Seed: base.seed, Rampup: base.rampup, Burstiness: base.burstiness, MaxPrefill: base.maxPrefill,
	}
	switch {
	case k.Axis != sweep.AxisConcurrency && k.Axis != sweep.AxisRate:
		return k, Usagef("--knee-axis %q: want concurrency or rate", o.kneeAxis)
	case !(o.kneeTolerance > 0 && o.kneeTolerance < 1):
		return k, Usagef("--knee-tolerance %v: want a fraction 0 < x < 1, e.g. 0.05", o.kneeTolerance)
	case o.kneeMaxRounds < 1:
		return k, Usagef("--knee-max-rounds %d: want at least 1", o.kneeMaxRounds)
	case !(o.kneeFactor > 1) || math.IsInf(o.kneeFactor, 0):
		return k, Usagef("--knee-factor %v: want a number > 1, e.g. 2", o.kneeFactor)
	case !(o.kneeMaxRate > 0) || math.IsInf(o.kneeMaxRate, 0):
		return k, Usagef("--knee-max-rate %v: want req/s > 0", o.kneeMaxRate)
	}
	switch len(rates) {
	case 0:
	case 1:
		k.Start = rates[0]
		if k.Axis == sweep.AxisConcurrency && (k.Start < 1 || k.Start != math.Trunc(k.Start)) {
			return k, Usagef("--rate %v: with --rate-type knee it is the first concurrency, a whole number ≥ 1 (default 1)", rates[0])
		}
		if k.Start <= 0 {
			return k, Usagef("--rate %v: with --rate-type knee --knee-axis rate it is the first rate in req/s, > 0 (default 1)", rates[0])
		}
	default:
		return k, Usagef("--rate-type knee takes at most one --rate: the first load (default 1)")
	}
	if err := k.Validate(); err != nil {
		return k, Usagef("--rate-type knee: %v (see --rate, --max-concurrency and --knee-max-rate)", err)
	}
	return k, nil
}

// arrivalOptions are benchmark's arrival-shape flags, beyond GuideLLM's
// --rampup (linear, on constant rates and concurrent streams): the ramp's
// shape and start, gamma gaps on poisson (vLLM's --burstiness) and a
// piecewise rate series.
type arrivalOptions struct {
	rampupShape string
	rampupFrom  float64
	burstiness  float64
	rateSeries  string
	series      []loadgen.RateSegment // --rate-series, parsed by validate
}

func addArrivalFlags(fs *pflag.FlagSet, a *arrivalOptions) {
	fs.StringVar(&a.rampupShape, "rampup-shape", "", "linear (default) or exponential: how --rampup grows the rate or the streams; it also ramps a poisson rate, which GuideLLM's --rampup leaves alone")
	fs.Float64Var(&a.rampupFrom, "rampup-from", 0, "where --rampup starts: req/s for constant and poisson, streams for concurrent and throughput (default 0; an exponential rate ramp needs > 0)")
	fs.Float64Var(&a.burstiness, "burstiness", 1, "poisson (and sweep/knee with --sweep-strategy poisson): gamma shape of the gaps, vLLM's --burstiness: 1 poisson, < 1 burstier, > 1 smoother, same mean rate")
	fs.StringVar(&a.rateSeries, "rate-series", "", "constant or poisson: a piecewise rate instead of --rate, RATE:DURATION steps and FROM..TO:DURATION ramps, e.g. 2:30s,8:1m,8..2:30s; the benchmark ends with it")
}

// gamma is --burstiness as a strategy's Burstiness (0 when poisson).
func (a *arrivalOptions) gamma() float64 {
	if a.burstiness == 1 {
		return 0
	}
	return a.burstiness
}

// validate checks the arrival flags against the rate type and parses
// --rate-series.
func (a *arrivalOptions) validate(o *benchOptions) error {
	kind := o.rateType
	rate := kind == "constant" || kind == "async" || kind == "poisson"
	shaped := a.rampupShape != "" || a.rampupFrom != 0
	switch {
	case a.rampupShape != "" && a.rampupShape != string(loadgen.RampLinear) && a.rampupShape != string(loadgen.RampExponential):
		return Usagef("--rampup-shape %q: want linear or exponential", a.rampupShape)
	case a.rampupFrom < 0 || math.IsNaN(a.rampupFrom) || math.IsInf(a.rampupFrom, 0):
		return Usagef("--rampup-from %v: want a rate (req/s) or a number of streams ≥ 0", a.rampupFrom)
	case shaped && !(rate || kind == "concurrent" || kind == "throughput"):
		return Usagef("--rampup-shape and --rampup-from apply to --rate-type concurrent, throughput, constant or poisson")
	case shaped && o.rampup == 0:
		return Usagef("--rampup-shape and --rampup-from shape a ramp: give its length with --rampup SECONDS")
	case rate && a.rampupShape == string(loadgen.RampExponential) && a.rampupFrom == 0:
		return Usagef("--rampup-shape exponential on a rate needs --rampup-from RATE > 0 (an exponential cannot start from 0)")
	case !(a.burstiness > 0) || math.IsInf(a.burstiness, 0):
		return Usagef("--burstiness %v: want a gamma shape > 0 (1 poisson, < 1 burstier, > 1 smoother)", a.burstiness)
	case a.burstiness != 1 && kind != "poisson" && !(isSweepRateType(kind) && o.sweep.sweepStrategy == string(loadgen.Poisson)):
		return Usagef("--burstiness shapes poisson gaps: use --rate-type poisson, or sweep or knee with --sweep-strategy poisson")
	}
	if a.rateSeries == "" {
		return nil
	}
	switch {
	case !rate:
		return Usagef("--rate-series needs --rate-type constant or poisson")
	case o.rate != "":
		return Usagef("--rate-series replaces --rate: give one of them")
	case o.rampup != 0:
		return Usagef("--rate-series replaces --rampup: begin the series with a ramp, e.g. 0..8:30s,8:5m")
	}
	var err error
	if a.series, err = loadgen.ParseRateSeries(a.rateSeries); err != nil {
		return Usagef("--rate-series: %v", err)
	}
	return nil
}

// apply sets the arrival flags on one of the plan's strategies: an
// explicit ramp shape or start turns the ramp on (poisson too), and
// --burstiness shapes poisson gaps.
func (a *arrivalOptions) apply(s loadgen.Strategy, rampup time.Duration) loadgen.Strategy {
	if a.rampupShape != "" || a.rampupFrom != 0 {
		s.Rampup, s.RampShape, s.RampFrom = rampup, loadgen.RampShape(a.rampupShape), a.rampupFrom
	}
	if s.Kind == loadgen.Poisson {
		s.Burstiness = a.gamma()
	}
	return s
}
