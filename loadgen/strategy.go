package loadgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Kind names a load strategy, with GuideLLM's names.
type Kind string

// Strategy kinds.
const (
	Synchronous Kind = "synchronous" // one request at a time
	Concurrent  Kind = "concurrent"  // N streams, each sends when its last finished
	Throughput  Kind = "throughput"  // as fast as possible up to a max concurrency
	Constant    Kind = "constant"    // open loop, evenly spaced at a rate
	Poisson     Kind = "poisson"     // open loop, exponential gaps at a rate (seeded)
	Replay      Kind = "replay"      // open loop, send times from a trace
)

// DefaultMaxConcurrency caps in-flight requests of open-loop and throughput
// strategies when no cap is given (GuideLLM's settings default).
const DefaultMaxConcurrency = 10240

// Strategy describes how one benchmark generates load.
type Strategy struct {
	Kind Kind
	// Streams is the number of concurrent streams (concurrent), or the
	// concurrency of a throughput benchmark. Synchronous uses 1.
	Streams int
	// Rate is requests per second for constant and poisson.
	Rate float64
	// MaxConcurrency caps requests in flight for open-loop strategies;
	// 0 means DefaultMaxConcurrency. When the cap binds, requests are sent
	// late and their lateness is recorded.
	MaxConcurrency int
	// Seed seeds poisson gaps.
	Seed uint64
	// Rampup spreads the start: concurrent and throughput streams start
	// evenly over it; constant rate ramps linearly from 0 (GuideLLM's rule).
	Rampup time.Duration
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
		if !(s.Rate > 0) || math.IsInf(s.Rate, 0) {
			return fmt.Errorf("%s: rate must be a positive number of requests per second, got %v", s.Kind, s.Rate)
		}
	case Replay:
		if len(s.Schedule) == 0 {
			return fmt.Errorf("replay: the trace has no requests")
		}
	default:
		return fmt.Errorf("strategy %q: want synchronous, concurrent, throughput, constant, poisson or replay", s.Kind)
	}
	if s.MaxConcurrency < 0 || s.Rampup < 0 {
		return fmt.Errorf("%s: max concurrency and rampup must not be negative", s.Kind)
	}
	return nil
}

// OpenLoop reports whether the strategy schedules sends without waiting for
// responses.
func (s Strategy) OpenLoop() bool { return s.Kind == Constant || s.Kind == Poisson || s.Kind == Replay }

// Workers is the number of closed-loop streams, or the in-flight cap of an
// open-loop strategy.
func (s Strategy) Workers() int {
	switch s.Kind {
	case Synchronous:
		return 1
	case Concurrent, Throughput:
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
		return fmt.Sprintf("%s@%.2f", s.Kind, s.Rate)
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
	switch s.Kind {
	case Constant:
		return constantPacer{rate: s.Rate, rampup: s.Rampup.Seconds()}, nil
	case Poisson:
		return &poissonPacer{rate: s.Rate, rng: rand.New(rand.NewPCG(s.Seed, 0x676f6f64707574))}, nil
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
