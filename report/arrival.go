package report

import "fmt"

// Arrival is the shape of a benchmark's load beyond what GuideLLM's
// strategy object can say (in Extras.Arrival; nil for the shapes GuideLLM
// has): gamma gaps, a ramp other than GuideLLM's linear one from 0 (or on
// poisson, whose GuideLLM object has no rampup), a piecewise rate series,
// a prefill cap and the ramps of the caps.
// The strategy object then holds GuideLLM's nearest reading: gamma is
// written as poisson, a series as constant or poisson at its mean rate,
// a user-centric rate as constant at its rate.
type Arrival struct {
	// Process is the arrival process of an open-loop schedule: constant,
	// poisson or gamma; user_centric for AIPerf's user-centric rate; ""
	// for closed-loop streams.
	Process string `json:"process,omitempty"`
	// Users is the number of users of a user-centric rate, and TurnGapS
	// the gap between one user's turns (users ÷ rate, seconds).
	Users    int   `json:"users,omitempty"`
	TurnGapS Float `json:"turn_gap_s,omitempty"`
	// Burstiness is the gamma shape (vLLM's --burstiness, AIPerf's
	// --arrival-smoothness): 1 is poisson, below 1 burstier.
	Burstiness Float `json:"burstiness,omitempty"`
	Ramp       *Ramp `json:"ramp,omitempty"`
	// Series is a piecewise rate, its segments in order; the schedule
	// ends after the last.
	Series []RateSegment `json:"series,omitempty"`
	// MaxPrefill caps the requests waiting for their first token (AIPerf's
	// --prefill-concurrency): each takes a slot before it is sent and gives
	// it back at its first token. PrefillRamp is how that cap rose, and
	// CapRamp how the strategy's in-flight cap did (both in Unit "slots").
	MaxPrefill  Int   `json:"max_prefill,omitempty"`
	PrefillRamp *Ramp `json:"prefill_ramp,omitempty"`
	CapRamp     *Ramp `json:"cap_ramp,omitempty"`
}

// Ramp is how the load rose to its target.
type Ramp struct {
	Shape     string `json:"shape"` // linear or exponential
	DurationS Float  `json:"duration_s"`
	// From and To are requests per second (Unit "rate"), streams (Unit
	// "streams") or a cap's slots (Unit "slots").
	From Float  `json:"from"`
	To   Float  `json:"to"`
	Unit string `json:"unit"`
}

// RateSegment is one piece of a rate series: the rate moves linearly from
// FromRate to ToRate requests per second over DurationS.
type RateSegment struct {
	DurationS Float `json:"duration_s"`
	FromRate  Float `json:"from_rate"`
	ToRate    Float `json:"to_rate"`
}

// Label names a benchmark's load as the console tables show it: the
// strategy's label, except where goodput's arrival shape says more than
// GuideLLM's strategy object can (a user-centric rate, gamma gaps).
func (b *Benchmark) Label() string {
	s := b.Config.Strategy
	if b.Extras == nil || b.Extras.Arrival == nil {
		return s.Label()
	}
	switch a := b.Extras.Arrival; a.Process {
	case "user_centric":
		return fmt.Sprintf("user_centric %.2f/s, %d users", s.Rate, a.Users)
	case "gamma":
		return fmt.Sprintf("gamma %.2f/s", s.Rate)
	}
	return s.Label()
}
