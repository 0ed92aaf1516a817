package loadgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/goodput-dev/goodput/report"
)

// Kind names a load strategy. The names are the report's (GuideLLM's
// strategy type_, report.Strategy*): declared once there, since report is
// the lighter package of the two and the engine's kinds are written into
// it unchanged (sweep's reportStrategy).
type Kind string

// Strategy kinds.
const (
	Synchronous Kind = report.StrategySynchronous // one request at a time
	Concurrent  Kind = report.StrategyConcurrent  // N streams, each sends when its last finished
	Throughput  Kind = report.StrategyThroughput  // as fast as possible up to a max concurrency
	Constant    Kind = report.StrategyConstant    // open loop, evenly spaced at a rate
	Poisson     Kind = report.StrategyPoisson     // open loop, exponential gaps at a rate (seeded)
	Replay      Kind = report.StrategyReplay      // open loop, send times from a trace
	// UserCentric is AIPerf's --user-centric-rate: Streams users, each
	// sending its turns Streams/Rate seconds apart (user_centric.go).
	UserCentric Kind = report.StrategyUserCentric
)

// DefaultMaxConcurrency caps in-flight requests of open-loop and throughput
// strategies when no cap is given (GuideLLM's settings default).
const DefaultMaxConcurrency = 10240

// Strategy describes how one benchmark generates load.
type Strategy struct {
	Kind Kind
	// Streams is the number of concurrent streams (concurrent), the
	// concurrency of a throughput benchmark, or the users of a
	// user-centric one. Synchronous uses 1.
	Streams int
	// Rate is requests per second for constant, poisson and user_centric
	// (the users' total).
	Rate float64
	// MaxConcurrency caps requests in flight for open-loop strategies;
	// 0 means DefaultMaxConcurrency. When the cap binds, requests are sent
	// late and their lateness is recorded. For user_centric it caps the
	// users mid-session (AIPerf's --concurrency there: its session
	// slots); 0 means no cap.
	MaxConcurrency int
	// CapRampup raises the in-flight cap MaxConcurrency of an open-loop
	// or user-centric strategy from 1 to its value over this long, one
	// slot at a time (AIPerf's --concurrency-ramp-duration with a rate:
	// the cap is v from CapRampup × (v-1)/(MaxConcurrency-1)).
	CapRampup time.Duration
	// MaxPrefill caps the requests waiting for their first token (AIPerf's
	// --prefill-concurrency): a request takes a slot before it is sent and
	// gives it back at its first token, or when it resolves without one.
	// An open-loop request that waits for a slot is sent late and its
	// lateness is recorded. 0 means no cap.
	MaxPrefill int
	// PrefillRampup raises MaxPrefill from 1 to its value over this long,
	// one slot at a time, as CapRampup does the in-flight cap.
	PrefillRampup time.Duration
	// Seed seeds poisson and gamma gaps.
	Seed uint64
	// Rampup spreads the start: concurrent and throughput streams start
	// evenly over it; constant and poisson rates ramp linearly from 0
	// (GuideLLM's rule for constant). RampShape and RampFrom change the
	// ramp's shape and start (see StreamStart for streams).
	Rampup time.Duration
	// RampShape is linear (the default) or exponential.
	RampShape RampShape
	// RampFrom is where the ramp starts: a rate in requests per second
	// (open loop) or a number of streams (closed loop). 0 starts from 0
	// (linear); an exponential rate ramp needs RampFrom > 0, and an
	// exponential stream ramp starts from at least 1 stream.
	RampFrom float64
	// Burstiness is the gamma shape of poisson gaps (vLLM's --burstiness,
	// AIPerf's --arrival-smoothness): 1 (or 0, unset) is poisson, below 1
	// burstier, above 1 smoother. The mean gap stays 1/rate.
	Burstiness float64
	// Series is a piecewise rate (constant or poisson, instead of Rate):
	// its segments in order, after which the schedule ends.
	Series []RateSegment
	// Schedule gives replay send times (offsets from the benchmark start,
	// already time-scaled), in order.
	Schedule []time.Duration
}

// Validate checks the fields the kind needs.
func (s Strategy) Validate() error {
	switch s.Kind {
	case Synchronous:
	case Concurrent, Throughput:
		if s.Streams < 1 {
			return fmt.Errorf("%s: streams must be ≥ 1, got %d", s.Kind, s.Streams)
		}
	case Constant, Poisson:
		if err := s.validateShape(); err != nil {
			return err
		}
	case Replay:
		if len(s.Schedule) == 0 {
			return fmt.Errorf("replay: the trace has no requests")
		}
	case UserCentric:
		if s.Streams < 1 {
			return fmt.Errorf("user_centric: users must be ≥ 1, got %d", s.Streams)
		}
		if !(s.Rate > 0) || math.IsInf(s.Rate, 0) {
			return fmt.Errorf("user_centric: rate must be a positive number of requests per second, got %v", s.Rate)
		}
		if s.Rampup != 0 || len(s.Series) > 0 {
			return fmt.Errorf("user_centric: the users pace themselves: no rampup or rate series")
		}
	default:
		return fmt.Errorf("strategy %q: want synchronous, concurrent, throughput, constant, poisson, replay or user_centric", s.Kind)
	}
	if s.MaxConcurrency < 0 || s.Rampup < 0 {
		return fmt.Errorf("%s: max concurrency and rampup must not be negative", s.Kind)
	}
	switch {
	case s.MaxPrefill < 0 || s.PrefillRampup < 0 || s.CapRampup < 0:
		return fmt.Errorf("%s: max prefill and the cap ramps must not be negative", s.Kind)
	case s.PrefillRampup > 0 && s.MaxPrefill == 0:
		return fmt.Errorf("%s: a prefill ramp needs a max prefill", s.Kind)
	case s.CapRampup > 0 && (s.MaxConcurrency == 0 || !s.OpenLoop() && s.Kind != UserCentric):
		return fmt.Errorf("%s: a ramp of the in-flight cap needs a max concurrency and an open-loop or user-centric strategy (closed-loop streams ramp with rampup)", s.Kind)
	}
	switch {
	case s.Burstiness != 0 && s.Kind != Poisson:
		return fmt.Errorf("%s: burstiness shapes poisson gaps; use poisson", s.Kind)
	case len(s.Series) > 0 && s.Kind != Constant && s.Kind != Poisson:
		return fmt.Errorf("%s: a rate series needs constant or poisson", s.Kind)
	case s.RampShape != "" && s.RampShape != RampLinear && s.RampShape != RampExponential:
		return fmt.Errorf("%s: ramp shape %q: want linear or exponential", s.Kind, s.RampShape)
	case (s.RampShape != "" || s.RampFrom != 0) && (s.Rampup == 0 || s.Kind == Synchronous || s.Kind == Replay || s.Kind == UserCentric):
		return fmt.Errorf("%s: a ramp shape or start needs a rampup duration and a concurrent, throughput, constant or poisson strategy", s.Kind)
	case s.RampFrom < 0 || math.IsNaN(s.RampFrom) || math.IsInf(s.RampFrom, 0):
		return fmt.Errorf("%s: ramp start %v: want a number ≥ 0", s.Kind, s.RampFrom)
	}
	return nil
}

// validateShape checks an open-loop rate: flat, ramped or a series.
func (s Strategy) validateShape() error {
	if b := s.Burstiness; b < 0 || math.IsNaN(b) || math.IsInf(b, 0) {
		return fmt.Errorf("%s: burstiness %v: want a gamma shape > 0 (1 = poisson, < 1 burstier, > 1 smoother)", s.Kind, b)
	}
	if len(s.Series) == 0 {
		if !(s.Rate > 0) || math.IsInf(s.Rate, 0) {
			return fmt.Errorf("%s: rate must be a positive number of requests per second, got %v", s.Kind, s.Rate)
		}
		if s.RampShape == RampExponential && s.Rampup > 0 && !(s.RampFrom > 0) {
			return fmt.Errorf("%s: an exponential ramp needs a start rate > 0", s.Kind)
		}
		return nil
	}
	if s.Rate != 0 || s.Rampup != 0 {
		return fmt.Errorf("%s: a rate series replaces the rate and the rampup; give the ramp as the series' first segment", s.Kind)
	}
	var mass float64
	for i, g := range s.Series {
		if g.Duration <= 0 || g.From < 0 || g.To < 0 || math.IsNaN(g.From+g.To) || math.IsInf(g.From+g.To, 0) {
			return fmt.Errorf("%s: rate series segment %d: want a duration > 0 and rates ≥ 0, got %v from %v to %v", s.Kind, i+1, g.Duration, g.From, g.To)
		}
		mass += (g.From + g.To) / 2 * g.Duration.Seconds()
	}
	if !(mass > 0) {
		return fmt.Errorf("%s: the rate series sends no request", s.Kind)
	}
	return nil
}

// Finite reports whether the strategy's schedule ends by itself (replay,
// a rate series).
func (s Strategy) Finite() bool { return s.Kind == Replay || len(s.Series) > 0 }

// MeanRate is the open-loop rate averaged over the schedule: Rate, or a
// series' expected requests over its duration.
func (s Strategy) MeanRate() float64 {
	if len(s.Series) == 0 {
		return s.Rate
	}
	c := curveOf(s)
	l := c[len(c)-1]
	return c.total() / (l.start + l.dur)
}

// OpenLoop reports whether the strategy schedules sends without waiting for
// responses.
func (s Strategy) OpenLoop() bool { return s.Kind == Constant || s.Kind == Poisson || s.Kind == Replay }

// Workers is the number of closed-loop streams or users (fewer when a
// cap on the users mid-session binds), or the in-flight cap of an
// open-loop strategy.
func (s Strategy) Workers() int {
	switch s.Kind {
	case Synchronous:
		return 1
	case Concurrent, Throughput:
		return s.Streams
	case UserCentric:
		if s.MaxConcurrency > 0 {
			return min(s.Streams, s.MaxConcurrency)
		}
		return s.Streams
	}
	if s.MaxConcurrency > 0 {
		return s.MaxConcurrency
	}
	return DefaultMaxConcurrency
}

// String is a short label such as "constant@4.00" or "concurrent@16".
func (s Strategy) String() string {
	switch s.Kind {
	case Concurrent, Throughput:
		return fmt.Sprintf("%s@%d", s.Kind, s.Streams)
	case Constant, Poisson:
		kind := string(s.Kind)
		if s.Burstiness != 0 && s.Burstiness != 1 {
			kind = fmt.Sprintf("gamma(%g)", s.Burstiness)
		}
		if len(s.Series) > 0 {
			return fmt.Sprintf("%s@series(%d)", kind, len(s.Series))
		}
		return fmt.Sprintf("%s@%.2f", kind, s.Rate)
	case UserCentric:
		return fmt.Sprintf("%s@%.2fx%d", s.Kind, s.Rate, s.Streams)
	}
	return string(s.Kind)
}

// Pacer says when the i-th request of an open-loop benchmark is due, as an
// offset from the benchmark start. It is called with i = 0, 1, 2… in order
// from one goroutine; ok=false ends the schedule.
type Pacer interface {
	Next(i uint64) (offset time.Duration, ok bool)
}

// NewPacer returns the pacer of an open-loop strategy.
func NewPacer(s Strategy) (Pacer, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	shaped := len(s.Series) > 0 || s.RampShape == RampExponential || s.RampFrom != 0
	switch s.Kind {
	case Constant:
		if !shaped {
			return constantPacer{rate: s.Rate, rampup: s.Rampup.Seconds()}, nil
		}
		return &shapedPacer{curve: curveOf(s), flat: s.Rate}, nil
	case Poisson:
		rng := rand.New(rand.NewPCG(s.Seed, 0x676f6f64707574))
		if !shaped && s.Rampup == 0 && (s.Burstiness == 0 || s.Burstiness == 1) {
			return &poissonPacer{rate: s.Rate, rng: rng}, nil
		}
		k := s.Burstiness
		if k == 0 {
			k = 1
		}
		return &shapedPacer{curve: curveOf(s), flat: s.Rate, gaps: &gammaGaps{k: k, rng: rng}}, nil
	case Replay:
		return replayPacer(s.Schedule), nil
	}
	return nil, fmt.Errorf("%s is not an open-loop strategy", s.Kind)
}

// constantPacer spaces requests 1/rate apart. Offsets are computed from the
// index, so there is no accumulated drift. With a rampup R the rate grows
// linearly from 0 to rate over R: the i-th send time solves
// i = rate·t²/(2R) during the ramp (GuideLLM's rule).
type constantPacer struct {
	rate, rampup float64
}

func (p constantPacer) Next(i uint64) (time.Duration, bool) {
	n := float64(i)
	var t float64
	if rampN := p.rate * p.rampup / 2; p.rampup > 0 && n < rampN {
		t = math.Sqrt(2 * p.rampup * n / p.rate)
	} else if p.rampup > 0 {
		t = p.rampup + (n-rampN)/p.rate
	} else {
		t = n / p.rate
	}
	return time.Duration(t * 1e9), true
}

// poissonPacer draws exponential gaps with mean 1/rate from a seeded source,
// so the same seed gives the same schedule.
type poissonPacer struct {
	rate float64
	rng  *rand.Rand
	t    float64
}

func (p *poissonPacer) Next(i uint64) (time.Duration, bool) {
	if i > 0 {
		p.t += p.rng.ExpFloat64() / p.rate
	}
	return time.Duration(p.t * 1e9), true
}

type replayPacer []time.Duration

func (p replayPacer) Next(i uint64) (time.Duration, bool) {
	if i >= uint64(len(p)) {
		return 0, false
	}
	return p[i], true
}
