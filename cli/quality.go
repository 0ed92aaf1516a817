package cli

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/report/accum"
	"github.com/goodput-dev/goodput/run"
	"github.com/goodput-dev/goodput/slo"
	"github.com/goodput-dev/goodput/sweep"
)

// qualityOptions are the report's optional measurements: Etalon's token
// deadlines (--tbt-deadline, --ttft-deadline), AIPerf's time slices
// (--slice-duration) and a percentile list (--percentiles).
type qualityOptions struct {
	tbtDeadline, ttftDeadline, sliceDuration, percentiles string
	overSat, knee, targetMOE                              string
	numRuns                                               int
	runVariation                                          float64
}

func addQualityFlags(fs *pflag.FlagSet, q *qualityOptions) {
	fs.StringVar(&q.tbtDeadline, "tbt-deadline", "", "Etalon's token deadline (e.g. 50ms, or seconds): each token is due this long after the one before plus the slack earlier tokens saved; reports each request's deadline misses and fluidity index and its longest stall (extras \"streaming\"; needed by the SLO keys fluidity and deadline_misses)")
	fs.StringVar(&q.ttftDeadline, "ttft-deadline", "", "Etalon's first-token deadline after dispatch with --tbt-deadline (default: the first token is not judged)")
	fs.StringVar(&q.sliceDuration, "slice-duration", "", "AIPerf's time slices: cut each benchmark's window into slices this long (e.g. 10s, or seconds) with their throughput and latency percentiles (extras \"timeslices\")")
	fs.StringVar(&q.overSat, "over-saturation", "", "GuideLLM's over_saturation constraint: stop a benchmark once the concurrency and the TTFT both rise significantly (a queue that grows): true for GuideLLM's defaults, or its keys, e.g. mode=monitor,min_seconds=10 (mode stop or monitor, min_seconds, max_window_seconds, moe_threshold, minimum_ttft, maximum_window_ratio, minimum_window_size, confidence, stopping_scope current|all)")
	fs.StringVar(&q.knee, "knee-detection", "", "GuideLLM's knee detection on --rate-type concurrent: fit where output tok/s stops rising with concurrency (two-segment regression), reported beside the SLO knee; true, or enabled=true[,adaptive=true,points_each_side=5,max_step=5] (adaptive: then run a grid of concurrencies around the knee and fit again)")
	fs.StringVar(&q.targetMOE, "target-moe", "", "GuideLLM's target_moe constraint: end each benchmark once a statistic is known to a relative margin of error, e.g. metric=time_to_first_token_ms,statistic=p95,moe=0.05 (keys metric time_to_first_token_ms|request_latency, statistic mean|p25…p999, moe, confidence, min_samples, check_interval, stopping_scope current|all)")
	fs.IntVar(&q.numRuns, "num-runs", 1, "run the whole plan this many times (AIPerf's --num-profile-runs) and report each figure's spread across the runs with a t interval (run extras \"trials\")")
	fs.Float64Var(&q.runVariation, "run-variation-threshold", sweep.DefaultRunVariation, "with --num-runs: flag a figure whose coefficient of variation across runs exceeds this fraction")
	fs.StringVar(&q.percentiles, "percentiles", "", "comma list of percentiles (0 < p < 100) of every latency metric for the console and the extras' \"percentiles\", e.g. 50,90,99,99.9; GuideLLM's fixed percentile fields stay")
}

// metrics validates the flags into the run's measurements; spec is the
// SLO, whose streaming keys need the streams measured.
func (q *qualityOptions) metrics(spec slo.Spec) (run.Metrics, error) {
	var m run.Metrics
	tbt, err := qualityDuration("--tbt-deadline", q.tbtDeadline)
	if err != nil {
		return m, err
	}
	ttft, err := qualityDuration("--ttft-deadline", q.ttftDeadline)
	if err != nil {
		return m, err
	}
	if ttft > 0 && tbt == 0 {
		return m, Usagef("--ttft-deadline %s needs --tbt-deadline (the deadline of each later token)", q.ttftDeadline)
	}
	if spec.NeedsDeadlines() && tbt == 0 {
		return m, Usagef("--slo %s: fluidity and deadline_misses need token deadlines: give --tbt-deadline, e.g. 50ms", spec)
	}
	if tbt > 0 || spec.Streaming() {
		m.Streaming = &accum.StreamingConfig{TTFTDeadlineNs: int64(ttft), TBTDeadlineNs: int64(tbt), FluidityFloor: spec.Thresholds().MinFluidity}
	}
	if m.SliceDuration, err = qualityDuration("--slice-duration", q.sliceDuration); err != nil {
		return m, err
	}
	if q.percentiles != "" {
		for _, f := range strings.Split(q.percentiles, ",") {
			p, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil || !(p > 0 && p < 100) {
				return m, Usagef("--percentiles %s: %q is not a percentile: want numbers between 0 and 100 separated by commas, e.g. 50,90,99,99.9", q.percentiles, f)
			}
			i := 0
			for i < len(m.Percentiles) && m.Percentiles[i] < p {
				i++
			}
			if i == len(m.Percentiles) || m.Percentiles[i] != p { // kept sorted, once each
				m.Percentiles = append(m.Percentiles[:i], append([]float64{p}, m.Percentiles[i:]...)...)
			}
		}
	}
	return m, nil
}

// qualityDuration reads a positive duration flag: a Go duration or a
// number of seconds ("" is 0).
func qualityDuration(flag, v string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		f, ferr := strconv.ParseFloat(v, 64)
		if ferr != nil || math.IsNaN(f) || math.IsInf(f, 0) || f > 1e6 {
			return 0, Usagef("%s %s: want a duration such as 50ms or 10s, or a number of seconds", flag, v)
		}
		d = time.Duration(f * 1e9)
	}
	if d <= 0 {
		return 0, Usagef("%s %s: want a duration > 0", flag, v)
	}
	return d, nil
}

// overSaturation is --over-saturation, nil when not given; with
// stopping_scope=all a round it stops also ends the run.
func (q *qualityOptions) overSaturation(p *draft) (*loadgen.OverSaturation, error) {
	if q.overSat == "" || q.overSat == "false" {
		return nil, nil
	}
	value := q.overSat
	if strings.HasPrefix(strings.TrimSpace(value), "{") {
		// GuideLLM v0.6's JSON form.
		v, off, err := overSaturationJSON(value)
		if err != nil {
			return nil, Usagef("--over-saturation %s: %v", q.overSat, err)
		}
		if off {
			return nil, nil
		}
		value = v
	}
	o, err := loadgen.ParseOverSaturation(value)
	if err != nil {
		return nil, Usagef("--over-saturation %s: %v", q.overSat, err)
	}
	if o.ScopeAll {
		p.Plan.Planner = sweep.StopOn(p.Plan.Planner, loadgen.StopOverSaturation)
	}
	return &o, nil
}

// kneeDetection applies --knee-detection to the plan: the fit's settings
// for the report and, when adaptive, the planner that runs the grid.
func (q *qualityOptions) kneeDetection(rateType string, p *draft) error {
	kd, err := sweep.ParseKneeDetection(q.knee)
	if err != nil {
		return Usagef("--knee-detection %s: %v", q.knee, err)
	}
	if kd == nil {
		return nil
	}
	if rateType != string(loadgen.Concurrent) {
		return Usagef("--knee-detection needs --rate-type concurrent with at least 5 stream counts in --rate (GuideLLM's rule), got --rate-type %s", rateType)
	}
	p.Metrics.KneeDetection = kd
	if kd.Adaptive {
		p.Plan.Planner = &sweep.KneePlanner{Inner: p.Plan.Planner, Detection: *kd}
	}
	return nil
}

// targetMOEOf is --target-moe, nil when not given; with stopping_scope=all
// a round it ends also ends the run.
func (q *qualityOptions) targetMOEOf(p *draft) (*sweep.TargetMOE, error) {
	if q.targetMOE == "" {
		return nil, nil
	}
	t, err := sweep.ParseTargetMOE(q.targetMOE)
	if err != nil {
		return nil, Usagef("--target-moe %s: %v", q.targetMOE, err)
	}
	if t.ScopeAll {
		p.Plan.Planner = sweep.StopOn(p.Plan.Planner, sweep.StopTargetMOE)
	}
	return t, nil
}

// repeat applies --num-runs and --run-variation-threshold to the plan.
func (q *qualityOptions) repeat(p *draft) error {
	return repeatPlan(p, "--num-runs", q.numRuns, "--run-variation-threshold", q.runVariation)
}

// repeatPlan plays the plan runs times and sets the variation threshold
// (also for goodput profile's --num-profile-runs); the flags name the
// values in errors.
func repeatPlan(p *draft, runsFlag string, runs int, thresholdFlag string, threshold float64) error {
	if runs < 1 || runs > 100 {
		return Usagef("%s %d: want a number of runs from 1 to 100", runsFlag, runs)
	}
	if !(threshold > 0) || math.IsInf(threshold, 0) {
		return Usagef("%s %v: want a coefficient of variation > 0, e.g. 0.1", thresholdFlag, threshold)
	}
	if runs == 1 {
		return nil
	}
	if p.shard != nil && p.shard.sharded {
		return Usagef("%s %d cannot be sharded: repeat the sharded run instead", runsFlag, runs)
	}
	p.Metrics.NumRuns, p.Metrics.RunVariation = runs, threshold
	p.Plan.Planner = sweep.Repeat(p.Plan.Planner, runs)
	return nil
}
