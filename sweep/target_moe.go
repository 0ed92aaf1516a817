package sweep

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/stats"
)

// StopTargetMOE is the stop reason of a benchmark TargetMOE ended.
const StopTargetMOE loadgen.StopReason = "target_moe"

// TargetMOE is GuideLLM's target_moe constraint: a benchmark stops once a
// statistic of a metric over its successful requests is known to a
// relative margin of error: the interval's farther bound is within MOE ×
// the estimate. Means get Student's t interval, percentiles the
// distribution-free one whose bounds are observations (report/stats). It
// checks after MinSamples successful requests, then every CheckInterval.
// Requests under load are not independent and stopping on the data biases
// coverage (GuideLLM's caveats too).
type TargetMOE struct {
	Metric        string  // time_to_first_token_ms or request_latency (seconds)
	Statistic     string  // mean, or GuideLLM's percentile keys p25 … p999
	MOE           float64 // relative margin, e.g. 0.05
	Confidence    float64
	MinSamples    int
	CheckInterval int
	ScopeAll      bool    // stopping_scope=all: the remaining rounds are skipped too
	q             float64 // the percentile's quantile (0..1), 0 for the mean
}

// targetMOEForm is the accepted form, quoted in errors.
const targetMOEForm = "metric=time_to_first_token_ms|request_latency,statistic=mean|p25|p50|p75|p90|p95|p99|p999[,moe=0.05,confidence=0.95,min_samples=30,check_interval=10,stopping_scope=current|all] (GuideLLM's keys)"

// ParseTargetMOE reads GuideLLM's target_moe arguments (a
// kind=target_moe item is accepted and ignored).
func ParseTargetMOE(s string) (*TargetMOE, error) {
	t := &TargetMOE{Metric: "time_to_first_token_ms", Statistic: "mean", MOE: 0.05, Confidence: 0.95, MinSamples: 30, CheckInterval: 10}
	for _, item := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(item), "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok {
			return nil, fmt.Errorf("target_moe item %q: want %s", item, targetMOEForm)
		}
		num := func() (float64, error) {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return 0, fmt.Errorf("target_moe %s=%q: want a number", k, v)
			}
			return f, nil
		}
		switch k {
		case "kind":
			if v != "target_moe" {
				return nil, fmt.Errorf("target_moe kind=%q: want target_moe", v)
			}
		case "metric":
			if v != "time_to_first_token_ms" && v != "request_latency" {
				return nil, fmt.Errorf("target_moe metric=%q: want time_to_first_token_ms or request_latency", v)
			}
			t.Metric = v
		case "statistic":
			t.Statistic = v
		case "moe", "confidence":
			f, err := num()
			if err != nil {
				return nil, err
			}
			if f <= 0 || f >= 1 {
				return nil, fmt.Errorf("target_moe %s=%v: want a fraction between 0 and 1", k, f)
			}
			if k == "moe" {
				t.MOE = f
			} else {
				t.Confidence = f
			}
		case "min_samples", "check_interval":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("target_moe %s=%q: want a whole number ≥ 1", k, v)
			}
			if k == "min_samples" {
				t.MinSamples = n
			} else {
				t.CheckInterval = n
			}
		case "stopping_scope":
			if v != "current" && v != "all" {
				return nil, fmt.Errorf("target_moe stopping_scope=%q: want current or all", v)
			}
			t.ScopeAll = v == "all"
		default:
			return nil, fmt.Errorf("target_moe: unknown key %q: want %s", k, targetMOEForm)
		}
	}
	switch t.Statistic {
	case "mean":
	case "p25", "p50", "p75", "p90", "p95", "p99":
		p, _ := strconv.Atoi(t.Statistic[1:])
		t.q = float64(p) / 100
	case "p999":
		t.q = 0.999
	default:
		return nil, fmt.Errorf("target_moe statistic=%q: want mean, p25, p50, p75, p90, p95, p99 or p999", t.Statistic)
	}
	return t, nil
}

// moeWatcher is one benchmark's TargetMOE (a loadgen.Watcher).
type moeWatcher struct {
	cfg         *TargetMOE
	mu          sync.Mutex
	vals        []float64 // sorted, for a percentile
	sum, sumSq  float64
	n           int
	first, last int64 // first and latest dispatch seen (Unix ns), for the rate
	reached     bool
	est, lo, hi float64
	rel         float64
	checked     bool
}

func (t *TargetMOE) watcher() *moeWatcher { return &moeWatcher{cfg: t} }

// Reason implements loadgen.Watcher.
func (w *moeWatcher) Reason() loadgen.StopReason { return StopTargetMOE }

// Observe implements loadgen.Watcher: it adds a successful request's value
// and reports whether the margin is reached.
func (w *moeWatcher) Observe(r *record.Record) bool {
	if r.Status != record.StatusSuccessful || r.Dispatched == 0 {
		return false
	}
	var v float64
	switch {
	case w.cfg.Metric == "request_latency" && r.End != 0:
		v = float64(r.End-r.Dispatched) / 1e9
	case w.cfg.Metric == "time_to_first_token_ms" && r.FirstToken != 0:
		v = float64(r.FirstToken-r.Dispatched) / 1e6
	default:
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.reached {
		return true
	}
	w.n++
	w.sum += v
	w.sumSq += v * v
	if w.first == 0 || r.Dispatched < w.first {
		w.first = r.Dispatched
	}
	w.last = max(w.last, r.End)
	if w.cfg.q > 0 {
		i, _ := slices.BinarySearch(w.vals, v)
		w.vals = slices.Insert(w.vals, i, v)
	}
	if w.n < w.cfg.MinSamples || (w.n-w.cfg.MinSamples)%w.cfg.CheckInterval != 0 {
		return false
	}
	w.check()
	return w.reached
}

// check computes the estimate, its interval and the relative margin.
func (w *moeWatcher) check() {
	n := float64(w.n)
	var iv stats.CI
	if w.cfg.q == 0 {
		w.est = w.sum / n
		sd := math.Sqrt(max(w.sumSq/n-w.est*w.est, 0))
		iv = stats.MeanCI(w.est, sd, int64(w.n), w.cfg.Confidence)
	} else {
		w.est = w.vals[min(max(int(math.Ceil(w.cfg.q*n))-1, 0), w.n-1)]
		iv = stats.PercentileCI(w.vals, w.cfg.q, w.cfg.Confidence)
	}
	w.lo, w.hi, w.checked = iv.Lower, iv.Upper, true
	w.rel = math.Inf(1)
	if iv.Bounded() && w.est > 0 {
		w.rel = max(w.hi-w.est, w.est-w.lo) / w.est
	}
	w.reached = w.rel <= w.cfg.MOE
}

// required estimates the successful requests the margin needs: a margin
// shrinks as 1/√n; an unbounded percentile needs at least the sample
// that bounds it.
func (w *moeWatcher) required() int {
	if w.reached {
		return w.n
	}
	if !math.IsInf(w.rel, 0) {
		return int(math.Ceil(float64(w.n) * (w.rel / w.cfg.MOE) * (w.rel / w.cfg.MOE)))
	}
	n := int64(max(w.n, 2))
	for ; n < 1<<30; n *= 2 {
		if lo, hi := stats.OrderStatRanks(n, w.cfg.q, w.cfg.Confidence); lo >= 1 && hi <= n {
			break
		}
	}
	return int(n)
}

// result is the constraint's state at the end of the benchmark, in
// GuideLLM's keys.
func (w *moeWatcher) result() *report.TargetMOE {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.checked && w.n > 0 {
		w.check()
	}
	fin := func(v float64) *report.Float {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return nil
		}
		return report.FloatPtr(v)
	}
	t := &report.TargetMOE{Metric: w.cfg.Metric, Statistic: w.cfg.Statistic, MOE: report.Float(w.cfg.MOE),
		Confidence: report.Float(w.cfg.Confidence), Reached: w.reached, Samples: report.Int(w.n)}
	if w.n == 0 {
		return t
	}
	t.Estimate, t.Lower, t.Upper, t.RelativeMOE = fin(w.est), fin(w.lo), fin(w.hi), fin(w.rel)
	req := w.required()
	t.RequiredSamples = report.Int(req)
	if secs := float64(w.last-w.first) / 1e9; secs > 0 && req > w.n {
		t.EstimatedRemainingS = report.FloatPtr(float64(req-w.n) / (float64(w.n) / secs))
	} else if req <= w.n {
		t.EstimatedRemainingS = report.FloatPtr(0)
	}
	return t
}

// moeAction is GuideLLM's record of the constraint in the scheduler
// state's end_processing_constraints.
func moeAction(t *report.TargetMOE, scopeAll bool) report.SchedulerUpdateAction {
	a := report.SchedulerUpdateAction{RequestQueuing: "continue", RequestProcessing: "continue", StoppingScope: "current",
		Metadata: map[string]json.RawMessage{}}
	if scopeAll {
		a.StoppingScope = "all"
	}
	if t.Reached {
		a.RequestQueuing = "stop"
	}
	put := func(k string, v any) { putMetadata(a.Metadata, k, v) }
	put("target_moe_reached", t.Reached)
	put("samples", t.Samples)
	put("estimate", t.Estimate)
	put("lower", t.Lower)
	put("upper", t.Upper)
	put("relative_moe", t.RelativeMOE)
	put("required_samples", t.RequiredSamples)
	put("estimated_remaining_seconds", t.EstimatedRemainingS)
	return a
}
