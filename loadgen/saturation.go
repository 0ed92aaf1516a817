package loadgen

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
)

// OverSaturation is GuideLLM's over_saturation constraint: within a
// benchmark, sliding-window regressions of the concurrent requests (at
// each request's start) and of the TTFT (at each first token) on time;
// when both slopes are positive with a relative margin of error below
// MOEThreshold, the server is taken as over-saturated: its queue grows
// faster than it drains. Mode stop ends the benchmark there (its stop
// reason over_saturation, in-flight requests cancelled); monitor only
// records it. The keys and defaults are GuideLLM's
// (scheduler/constraints/saturation.py).
type OverSaturation struct {
	Monitor bool // mode=monitor (GuideLLM's default mode is enforce, spelled stop here too)
	// MinSeconds is how long the benchmark runs before the first check.
	MinSeconds float64
	// MaxWindowSeconds and MaxWindowRatio bound the windows: points older
	// than that, or beyond that share of all points seen, are dropped.
	MaxWindowSeconds float64
	MaxWindowRatio   float64
	// MOEThreshold bounds the slope's relative margin of error (t · SE ÷
	// slope).
	MOEThreshold float64
	// MinimumTTFT (seconds): at least half the TTFT window must exceed it.
	MinimumTTFT float64
	// MinWindowSize is the fewest points a slope is estimated from.
	MinWindowSize int
	// Confidence is the t interval's confidence.
	Confidence float64
	// ScopeAll (stopping_scope=all) also skips the remaining rounds once
	// a round stopped on it (the planner's concern: sweep.StopOn).
	ScopeAll bool
}

// DefaultOverSaturation is GuideLLM's default configuration.
func DefaultOverSaturation() OverSaturation {
	return OverSaturation{MinSeconds: 30, MaxWindowSeconds: 120, MaxWindowRatio: 0.75, MOEThreshold: 2,
		MinimumTTFT: 2.5, MinWindowSize: 5, Confidence: 0.95}
}

// overSaturationForm is the accepted form, quoted in errors.
const overSaturationForm = "comma-separated key=value items: mode=stop|enforce|monitor, min_seconds, max_window_seconds, moe_threshold, minimum_ttft, maximum_window_ratio, minimum_window_size, confidence, stopping_scope=current|all (GuideLLM's keys), e.g. mode=monitor,min_seconds=10"

// ParseOverSaturation reads GuideLLM's over_saturation arguments: "" or
// "true" for the defaults, else key=value items (a kind=over_saturation
// item is accepted and ignored).
func ParseOverSaturation(s string) (OverSaturation, error) {
	o := DefaultOverSaturation()
	s = strings.TrimSpace(s)
	if s == "" || s == "true" {
		return o, nil
	}
	for _, item := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(item), "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok {
			return o, fmt.Errorf("over_saturation item %q: want %s", item, overSaturationForm)
		}
		if k == "mode" {
			switch v {
			case "stop", "enforce":
				o.Monitor = false
			case "monitor":
				o.Monitor = true
			default:
				return o, fmt.Errorf("over_saturation mode %q: want stop (GuideLLM's enforce) or monitor", v)
			}
			continue
		}
		if k == "kind" && v == "over_saturation" {
			continue
		}
		if k == "stopping_scope" {
			if v != "current" && v != "all" {
				return o, fmt.Errorf("over_saturation stopping_scope=%q: want current or all", v)
			}
			o.ScopeAll = v == "all"
			continue
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
			return o, fmt.Errorf("over_saturation %s=%q: want a number ≥ 0", k, v)
		}
		switch k {
		case "min_seconds":
			o.MinSeconds = f
		case "max_window_seconds":
			o.MaxWindowSeconds = f
		case "moe_threshold":
			o.MOEThreshold = f
		case "minimum_ttft":
			o.MinimumTTFT = f
		case "maximum_window_ratio":
			if f > 1 {
				return o, fmt.Errorf("over_saturation maximum_window_ratio=%v: want a fraction from 0 to 1", f)
			}
			o.MaxWindowRatio = f
		case "minimum_window_size":
			if f != math.Trunc(f) {
				return o, fmt.Errorf("over_saturation minimum_window_size=%v: want a whole number", f)
			}
			o.MinWindowSize = int(f)
		case "confidence":
			if f <= 0 || f >= 1 {
				return o, fmt.Errorf("over_saturation confidence=%v: want a fraction between 0 and 1, e.g. 0.95", f)
			}
			o.Confidence = f
		default:
			return o, fmt.Errorf("over_saturation: unknown key %q: want %s", k, overSaturationForm)
		}
	}
	return o, nil
}

// Validate checks ranges.
func (o OverSaturation) Validate() error {
	if o.Confidence <= 0 || o.Confidence >= 1 || o.MaxWindowRatio < 0 || o.MaxWindowRatio > 1 || o.MinWindowSize < 0 ||
		o.MinSeconds < 0 || o.MaxWindowSeconds < 0 || o.MOEThreshold < 0 || o.MinimumTTFT < 0 {
		return errors.New("over_saturation: a setting is out of range")
	}
	return nil
}

// String is the canonical key=value form, which ParseOverSaturation reads
// back.
func (o OverSaturation) String() string {
	mode := "stop"
	if o.Monitor {
		mode = "monitor"
	}
	g := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	scope := ""
	if o.ScopeAll {
		scope = ",stopping_scope=all"
	}
	return "mode=" + mode + ",min_seconds=" + g(o.MinSeconds) + ",max_window_seconds=" + g(o.MaxWindowSeconds) +
		",moe_threshold=" + g(o.MOEThreshold) + ",minimum_ttft=" + g(o.MinimumTTFT) +
		",maximum_window_ratio=" + g(o.MaxWindowRatio) + ",minimum_window_size=" + strconv.Itoa(o.MinWindowSize) +
		",confidence=" + g(o.Confidence) + scope
}

// SaturationState is the detector's state at the end of a benchmark, in
// GuideLLM's metadata keys. Slopes are per second (concurrency, and TTFT
// in seconds); a slope or margin is NaN before it was first estimated.
type SaturationState struct {
	Detected bool    // over-saturation was detected (is_over_saturated at any point)
	At       float64 // seconds after the start it was first detected (0 when not)
	Monitor  bool

	TTFTSlope, TTFTSlopeMOE             float64
	TTFTN, TTFTViolations               int
	ConcurrentSlope, ConcurrentSlopeMOE float64
	ConcurrentN                         int
}

// slopeChecker is GuideLLM's SlopeChecker: an online least-squares slope
// of y on x with a t-based relative margin of error.
type slopeChecker struct {
	n                        int
	sx, sy, sxy, sx2, sy2    float64
	moeThreshold, confidence float64
	slope, moe               float64
	estimated                bool
}

func (c *slopeChecker) add(x, y float64) {
	c.n++
	c.sx += x
	c.sy += y
	c.sxy += x * y
	c.sx2 += x * x
	c.sy2 += y * y
}

func (c *slopeChecker) remove(x, y float64) {
	c.n--
	c.sx -= x
	c.sy -= y
	c.sxy -= x * y
	c.sx2 -= x * x
	c.sy2 -= y * y
}

// check reports a positive slope whose relative margin of error is below
// the threshold, with effN as the sample size (GuideLLM caps it by the
// elapsed seconds: points of one second are correlated).
func (c *slopeChecker) check(effN float64) bool {
	const eps = 1e-12
	if effN < 3 || c.n == 0 {
		return false
	}
	n := float64(c.n)
	sxx := max(c.sx2-c.sx*c.sx/n, eps)
	sxy := c.sxy - c.sx*c.sy/n
	syy := c.sy2 - c.sy*c.sy/n
	slope := sxy / sxx
	rss := max(syy-sxy*sxy/sxx, 0)
	dof := effN - 2
	se := math.Sqrt(rss / dof / sxx)
	t := approxTPPF(1-(1-c.confidence)/2, dof)
	c.slope, c.moe, c.estimated = slope, t*se/max(slope, eps), true
	return slope > 0 && c.moe < c.moeThreshold
}

// approxTPPF is GuideLLM's approx_t_ppf: the normal quantile by Abramowitz
// and Stegun 26.2.23, corrected for dof degrees of freedom by the first
// Cornish–Fisher terms.
func approxTPPF(p, dof float64) float64 {
	if dof <= 0 {
		return math.NaN()
	}
	c := [3]float64{2.515517, 0.802853, 0.010328}
	d := [3]float64{1.432788, 0.189269, 0.001308}
	q := p
	if p >= 0.5 {
		q = 1 - p
	}
	t := math.Sqrt(-2 * math.Log(q))
	z := t - ((c[2]*t+c[1])*t+c[0])/(((d[2]*t+d[1])*t+d[0])*t+1)
	if p < 0.5 {
		z = -z
	}
	z2 := z * z
	g1 := (z2*z + z) / 4
	g2 := (5*z2*z2 + 16*z2*z + 3*z2) / 96
	return z + g1/dof + g2/(dof*dof)
}

type satPoint struct{ x, y float64 }

// saturationDetector runs GuideLLM's over-saturation detection over one
// benchmark; its methods are safe for concurrent use.
type saturationDetector struct {
	mu                sync.Mutex
	cfg               OverSaturation
	duration          float64
	started, finished []satPoint // windows, oldest first
	totalStarted      int
	totalFinished     int
	violations        int
	conc, ttft        slopeChecker
	detected          bool
	at                float64
}

func newSaturationDetector(cfg OverSaturation) *saturationDetector {
	d := &saturationDetector{cfg: cfg}
	d.conc = slopeChecker{moeThreshold: cfg.MOEThreshold, confidence: cfg.Confidence}
	d.ttft = slopeChecker{moeThreshold: cfg.MOEThreshold, confidence: cfg.Confidence}
	return d
}

// observeStart records a request starting at t seconds with concurrent
// requests in flight, and reports whether the server is over-saturated.
func (d *saturationDetector) observeStart(t, concurrent float64) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.totalStarted++
	d.started = append(d.started, satPoint{t, concurrent})
	d.conc.add(t, concurrent)
	return d.update(t)
}

// observeTTFT records a first token at t seconds after a TTFT of ttft
// seconds, and reports whether the server is over-saturated.
func (d *saturationDetector) observeTTFT(t, ttft float64) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.totalFinished++
	d.finished = append(d.finished, satPoint{t, ttft})
	if ttft > d.cfg.MinimumTTFT {
		d.violations++
	}
	d.ttft.add(t, ttft)
	return d.update(t)
}

// update prunes the windows at time t (GuideLLM's _update_duration) and
// checks (its _check_alert).
func (d *saturationDetector) update(t float64) bool {
	d.duration = max(d.duration, t)
	for len(d.finished) > 0 && (len(d.finished) > int(float64(d.totalFinished)*d.cfg.MaxWindowRatio) ||
		d.duration-d.finished[0].x > d.cfg.MaxWindowSeconds) {
		p := d.finished[0]
		d.finished = d.finished[1:]
		if p.y > d.cfg.MinimumTTFT {
			d.violations--
		}
		d.ttft.remove(p.x, p.y)
	}
	for len(d.started) > 0 && (len(d.started) > int(float64(d.totalStarted)*d.cfg.MaxWindowRatio) ||
		d.duration-d.started[0].x > d.cfg.MaxWindowSeconds) {
		p := d.started[0]
		d.started = d.started[1:]
		d.conc.remove(p.x, p.y)
	}
	alert := d.alert()
	if alert && !d.detected {
		d.detected, d.at = true, d.duration
	}
	return alert
}

func (d *saturationDetector) alert() bool {
	concN := min(d.duration, float64(d.conc.n))
	ttftN := min(d.duration, float64(d.ttft.n))
	if d.duration < d.cfg.MinSeconds || d.ttft.n > d.violations*2 || d.duration < d.cfg.MinimumTTFT ||
		concN < float64(d.cfg.MinWindowSize) {
		return false
	}
	conc := d.conc.check(concN)
	if ttftN < float64(d.cfg.MinWindowSize) {
		return conc
	}
	return d.ttft.check(ttftN) && conc
}

// state is the detector's final state.
func (d *saturationDetector) state() *SaturationState {
	d.mu.Lock()
	defer d.mu.Unlock()
	nan := math.NaN()
	s := &SaturationState{Detected: d.detected, At: d.at, Monitor: d.cfg.Monitor,
		TTFTSlope: nan, TTFTSlopeMOE: nan, ConcurrentSlope: nan, ConcurrentSlopeMOE: nan,
		TTFTN: d.ttft.n, TTFTViolations: d.violations, ConcurrentN: d.conc.n}
	if d.ttft.estimated {
		s.TTFTSlope, s.TTFTSlopeMOE = d.ttft.slope, d.ttft.moe
	}
	if d.conc.estimated {
		s.ConcurrentSlope, s.ConcurrentSlopeMOE = d.conc.slope, d.conc.moe
	}
	return s
}
