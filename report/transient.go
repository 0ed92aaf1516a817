package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Transient phase modes, GuideLLM's TransientPhaseConfig.mode values.
const (
	PhasePreferDuration = "prefer_duration" // seconds when a duration limit exists, else requests
	PhasePreferRequests = "prefer_requests" // requests when a request limit exists, else seconds
	PhaseDuration       = "duration"        // seconds only
	PhaseRequests       = "requests"        // requests only
	PhaseBoth           = "both"            // both apply: the later warmup end, the earlier cooldown start
)

// TransientPhase is a warmup or cooldown period excluded from the
// measurement, GuideLLM's TransientPhaseConfig. Percent (in [0, 1)) is a
// fraction of the benchmark's max-duration or max-requests limit; Value is
// an absolute number of seconds or requests; Mode says which applies. As in
// GuideLLM, a phase only applies when the benchmark has the limit it is
// measured against: a phase in seconds needs a max-duration limit, one in
// requests a max-requests limit (even for an absolute Value). The zero
// value is "no phase".
type TransientPhase struct {
	Percent *float64 // fraction of the limit, 0 <= Percent < 1
	Value   *float64 // seconds or requests, >= 0
	Mode    string   // one of the Phase* modes; "" means prefer_duration
}

// IsZero reports whether the phase is unset.
func (t TransientPhase) IsZero() bool { return t.Percent == nil && t.Value == nil }

func (t TransientPhase) mode() string {
	if t.Mode == "" {
		return PhasePreferDuration
	}
	return t.Mode
}

// Limits computes GuideLLM's compute_limits: the phase length in seconds
// and in requests given the benchmark's limits (0 means no such limit).
// Either result is nil when that dimension does not apply; the preferred
// dimension wins over the other when both are available, and "both" keeps
// both.
func (t TransientPhase) Limits(maxRequests int, maxSeconds float64) (seconds *float64, requests *int) {
	mode := t.mode()
	if mode != PhaseRequests && maxSeconds > 0 {
		switch {
		case t.Percent != nil:
			s := *t.Percent * maxSeconds
			seconds = &s
		case t.Value != nil:
			s := *t.Value
			seconds = &s
		}
	}
	if mode != PhaseDuration && maxRequests > 0 {
		switch {
		case t.Percent != nil:
			r := int(*t.Percent * float64(maxRequests))
			requests = &r
		case t.Value != nil:
			r := int(*t.Value)
			requests = &r
		}
	}
	switch {
	case mode == PhasePreferDuration && seconds != nil:
		requests = nil
	case mode == PhasePreferRequests && requests != nil:
		seconds = nil
	}
	return seconds, requests
}

// ParseTransientPhase parses the command-line forms of a warmup or
// cooldown:
//
//	""  "none"  "0"  no phase
//	"0.1"          a fraction (< 1) of the max-duration limit, or of the
//	               max-requests limit when there is no duration limit
//	               (GuideLLM's bare number, mode prefer_duration)
//	"30"           30 seconds, or 30 requests when the benchmark has only a
//	               max-requests limit (GuideLLM's bare number >= 1)
//	"10%"          the same as "0.1"
//	"30s" "2m" "1m30s" "500ms"  a duration, always in seconds (mode duration)
//	"100r" "100req" "requests:100"  a number of requests (mode requests)
//	"10%r" "requests:10%"           a fraction of the max-requests limit
//	"duration:10%" "10%d"           a fraction of the max-duration limit
//	{"percent":…,"value":…,"mode":…}  GuideLLM's TransientPhaseConfig JSON
//
// GuideLLM treats "0" as a zero-length phase that still moves the
// measurement start to the scheduler start; goodput treats it as no phase.
func ParseTransientPhase(s string) (TransientPhase, error) {
	in := strings.TrimSpace(s)
	bad := func(why string) (TransientPhase, error) {
		return TransientPhase{}, fmt.Errorf("invalid warmup/cooldown %q: %s (accepted: 0.1, 10%%, 30, 30s, 2m, 100r, requests:100, 10%%r, duration:10%%, or a JSON TransientPhaseConfig)", s, why)
	}
	if in == "" || in == "none" {
		return TransientPhase{}, nil
	}
	if strings.HasPrefix(in, "{") {
		var t TransientPhase
		if err := t.UnmarshalJSON([]byte(in)); err != nil {
			return bad(err.Error())
		}
		return t, nil
	}
	mode := ""
	switch {
	case strings.HasPrefix(in, "requests:"):
		mode, in = PhaseRequests, strings.TrimPrefix(in, "requests:")
	case strings.HasPrefix(in, "duration:"):
		mode, in = PhaseDuration, strings.TrimPrefix(in, "duration:")
	case strings.HasSuffix(in, "%r"):
		mode, in = PhaseRequests, strings.TrimSuffix(in, "r")
	case strings.HasSuffix(in, "%d"):
		mode, in = PhaseDuration, strings.TrimSuffix(in, "d")
	case strings.HasSuffix(in, "req"):
		mode, in = PhaseRequests, strings.TrimSuffix(in, "req")
	case strings.HasSuffix(in, "r") && !strings.HasSuffix(in, "%r"):
		mode, in = PhaseRequests, strings.TrimSuffix(in, "r")
	}
	in = strings.TrimSpace(in)
	if strings.HasSuffix(in, "%") {
		p, err := strconv.ParseFloat(strings.TrimSuffix(in, "%"), 64)
		if err != nil || math.IsNaN(p) || p < 0 || p >= 100 {
			return bad("a percentage must be a number in [0, 100)")
		}
		if p == 0 {
			return TransientPhase{}, nil
		}
		f := p / 100
		return TransientPhase{Percent: &f, Mode: mode}, nil
	}
	if v, err := strconv.ParseFloat(in, 64); err == nil {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0) || v < 0:
			return bad("the number must be finite and >= 0")
		case v == 0:
			return TransientPhase{}, nil
		case mode == PhaseRequests && v != math.Trunc(v):
			return bad("a number of requests must be a whole number")
		case v < 1 && mode == PhaseRequests:
			return bad("use 10%r for a fraction of the request limit")
		case v < 1:
			return TransientPhase{Percent: &v, Mode: mode}, nil
		}
		return TransientPhase{Value: &v, Mode: mode}, nil
	}
	if mode == "" {
		d, err := time.ParseDuration(in)
		if err != nil {
			return bad("not a number, percentage, duration or request count")
		}
		if d < 0 {
			return bad("a duration must be >= 0")
		}
		if d == 0 {
			return TransientPhase{}, nil
		}
		v := d.Seconds()
		return TransientPhase{Value: &v, Mode: PhaseDuration}, nil
	}
	return bad("not a number")
}

// String renders the phase in a form ParseTransientPhase accepts.
func (t TransientPhase) String() string {
	if t.IsZero() {
		return "none"
	}
	b, _ := t.MarshalJSON()
	return string(b)
}

// MarshalJSON writes GuideLLM's TransientPhaseConfig:
// {"percent": …, "value": …, "mode": …}.
func (t TransientPhase) MarshalJSON() ([]byte, error) {
	type tpc struct {
		Percent *Float `json:"percent"`
		Value   any    `json:"value"`
		Mode    string `json:"mode"`
	}
	var out tpc
	if t.Percent != nil {
		f := Float(*t.Percent)
		out.Percent = &f
	}
	if t.Value != nil {
		v := *t.Value
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			out.Value = int64(v)
		} else {
			out.Value = Float(v)
		}
	}
	out.Mode = t.mode()
	return MarshalCompact(out)
}

// UnmarshalJSON reads GuideLLM's TransientPhaseConfig, a bare number
// (< 1 a fraction, >= 1 a value) or null, as GuideLLM's profile
// validators do.
func (t *TransientPhase) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	*t = TransientPhase{}
	if string(b) == "null" {
		return nil
	}
	if len(b) > 0 && b[0] != '{' {
		v, err := strconv.ParseFloat(string(b), 64)
		if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("warmup/cooldown: expected an object or a number >= 0, got %.40s", b)
		}
		if v < 1 {
			t.Percent = &v
		} else {
			t.Value = &v
		}
		return nil
	}
	var raw struct {
		Percent *float64 `json:"percent"`
		Value   *float64 `json:"value"`
		Mode    *string  `json:"mode"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return fmt.Errorf("warmup/cooldown: %w", err)
	}
	if raw.Percent != nil && (*raw.Percent < 0 || *raw.Percent >= 1) {
		return fmt.Errorf("warmup/cooldown: percent must be in [0, 1), got %v", *raw.Percent)
	}
	if raw.Value != nil && *raw.Value < 0 {
		return fmt.Errorf("warmup/cooldown: value must be >= 0, got %v", *raw.Value)
	}
	if raw.Mode != nil {
		switch *raw.Mode {
		case PhasePreferDuration, PhasePreferRequests, PhaseDuration, PhaseRequests, PhaseBoth:
			t.Mode = *raw.Mode
		default:
			return fmt.Errorf("warmup/cooldown: mode must be one of duration, requests, prefer_duration, prefer_requests, both; got %q", *raw.Mode)
		}
	}
	t.Percent, t.Value = raw.Percent, raw.Value
	return nil
}
