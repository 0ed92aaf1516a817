package sweep

import (
	"encoding/json"
	"math"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/report"
)

// reportSaturation is the over-saturation detector's state as the report
// holds it (nil without the constraint).
func reportSaturation(s *loadgen.SaturationState, cfg *loadgen.OverSaturation) *report.OverSaturation {
	if s == nil || cfg == nil {
		return nil
	}
	f := func(v float64) *report.Float {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return report.FloatPtr(v)
	}
	o := &report.OverSaturation{Mode: "stop", Settings: cfg.String(), IsOverSaturated: s.Detected,
		TTFTSlope: f(s.TTFTSlope), TTFTSlopeMOE: f(s.TTFTSlopeMOE), TTFTN: report.Int(s.TTFTN), TTFTViolations: report.Int(s.TTFTViolations),
		ConcurrentSlope: f(s.ConcurrentSlope), ConcurrentSlopeMOE: f(s.ConcurrentSlopeMOE), ConcurrentN: report.Int(s.ConcurrentN)}
	if cfg.Monitor {
		o.Mode = "monitor"
	}
	if s.Detected {
		o.DetectedAtS = report.FloatPtr(s.At)
	}
	return o
}

// saturationAction is GuideLLM's record of the constraint in the
// scheduler state: what it asked for, and its metadata.
func saturationAction(o *report.OverSaturation) report.SchedulerUpdateAction {
	a := report.SchedulerUpdateAction{RequestQueuing: "continue", RequestProcessing: "continue", StoppingScope: "current",
		Metadata: map[string]json.RawMessage{}}
	if o.IsOverSaturated && o.Mode == "stop" {
		a.RequestQueuing, a.RequestProcessing = "stop", "stop_all"
	}
	put := func(k string, v any) { putMetadata(a.Metadata, k, v) }
	put("ttft_slope", o.TTFTSlope)
	put("ttft_slope_moe", o.TTFTSlopeMOE)
	put("ttft_n", o.TTFTN)
	put("ttft_violations", o.TTFTViolations)
	put("concurrent_slope", o.ConcurrentSlope)
	put("concurrent_slope_moe", o.ConcurrentSlopeMOE)
	put("concurrent_n", o.ConcurrentN)
	put("is_over_saturated", o.IsOverSaturated)
	return a
}

// putMetadata stores v's JSON under k in a constraint's metadata (GuideLLM's
// scheduler_constraints entries); a value that does not marshal is left out.
func putMetadata(m map[string]json.RawMessage, k string, v any) {
	if b, err := json.Marshal(v); err == nil {
		m[k] = b
	}
}
