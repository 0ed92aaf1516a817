package sweep

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/report"
)

// GuideLLM sweep defaults (src/guidellm/benchmark/profiles/sweep.py).
const (
	DefaultSweepSize           = 10
	DefaultSweepMaxConcurrency = 512
)

// GuideLLMSweep plans GuideLLM's sweep profile exactly: a synchronous
// round, a throughput round (MaxConcurrency streams, with the rampup),
// then Size − 2 constant (or poisson) rounds in ascending order at the
// rates numpy.linspace(synchronous rate, throughput rate, Size − 1)[1:],
// where each rate is the round's requests_per_second.successful.mean. The
// open-loop rounds are capped at MaxConcurrency in flight and get no
// rampup (GuideLLM does not pass it to them). A next rate ≤ 0 ends the
// sweep; both measured rates ≤ 0 is an error ("invalid rates in sweep;
// aborting"). GuideLLM's stopping_scope=all rule is StopOn's.
type GuideLLMSweep struct {
	// Size is the number of rounds (GuideLLM's sweep_size, --rate);
	// 0 means DefaultSweepSize, otherwise ≥ 2.
	Size int
	// Kind is the open-loop strategy of the rate rounds: loadgen.Constant
	// (the default when empty) or loadgen.Poisson.
	Kind loadgen.Kind
	// MaxConcurrency is the throughput round's streams and the open-loop
	// rounds' in-flight cap; 0 means DefaultSweepMaxConcurrency.
	MaxConcurrency int
	// Rampup applies to the throughput round only.
	Rampup time.Duration
	// Seed seeds poisson rounds.
	Seed uint64
	// Burstiness is the gamma shape of poisson rounds' gaps (0 or 1:
	// poisson; see loadgen.Strategy).
	Burstiness float64
	// MaxPrefill caps every round's requests waiting for their first
	// token (loadgen.Strategy.MaxPrefill); 0: no cap.
	MaxPrefill int
}

func (g GuideLLMSweep) size() int {
	if g.Size == 0 {
		return DefaultSweepSize
	}
	return g.Size
}

func (g GuideLLMSweep) maxConcurrency() int {
	if g.MaxConcurrency == 0 {
		return DefaultSweepMaxConcurrency
	}
	return g.MaxConcurrency
}

func (g GuideLLMSweep) kind() loadgen.Kind {
	if g.Kind == "" {
		return loadgen.Constant
	}
	return g.Kind
}

// Validate checks the settings.
func (g GuideLLMSweep) Validate() error {
	if g.size() < 2 {
		return fmt.Errorf("sweep size %d: want at least 2 rounds (synchronous and throughput)", g.Size)
	}
	if g.MaxConcurrency < 0 {
		return fmt.Errorf("sweep max concurrency %d: want a positive count", g.MaxConcurrency)
	}
	if k := g.kind(); k != loadgen.Constant && k != loadgen.Poisson {
		return fmt.Errorf("sweep strategy %q: want constant or poisson", k)
	}
	if g.Rampup < 0 {
		return errors.New("sweep rampup must not be negative")
	}
	if b := g.Burstiness; b != 0 && (g.kind() != loadgen.Poisson || !(b > 0) || math.IsInf(b, 0)) {
		return fmt.Errorf("sweep burstiness %v: want a gamma shape > 0 on poisson rounds", b)
	}
	return nil
}

// Rounds is the number of rounds the sweep plans (fewer run when a rate
// is ≤ 0 or a stop rule ends it).
func (g GuideLLMSweep) Rounds() int { return g.size() }

// Profile describes the sweep in the report's scenario.
func (g GuideLLMSweep) Profile() report.Profile {
	return report.Profile{Kind: "sweep", SweepSize: g.size(), StrategyType: string(g.kind()),
		MaxConcurrency: g.maxConcurrency(), RampupDuration: g.Rampup.Seconds()}
}

// Next returns the next round of the sweep.
func (g GuideLLMSweep) Next(done []Round) (loadgen.Strategy, bool, error) {
	if err := g.Validate(); err != nil {
		return loadgen.Strategy{}, false, err
	}
	switch len(done) {
	case 0:
		return loadgen.Strategy{Kind: loadgen.Synchronous, MaxPrefill: g.MaxPrefill}, true, nil
	case 1:
		return loadgen.Strategy{Kind: loadgen.Throughput, Streams: g.maxConcurrency(), Rampup: g.Rampup, MaxPrefill: g.MaxPrefill}, true, nil
	}
	rates, err := g.Rates(done[0], done[1])
	if err != nil {
		return loadgen.Strategy{}, false, err
	}
	i := len(done) - 2
	if i >= len(rates) || rates[i] <= 0 {
		return loadgen.Strategy{}, false, nil
	}
	s := loadgen.Strategy{Kind: g.kind(), Rate: rates[i], MaxConcurrency: g.maxConcurrency(), Seed: g.Seed, MaxPrefill: g.MaxPrefill}
	if s.Kind == loadgen.Poisson {
		s.Burstiness = g.Burstiness
	}
	return s, true, nil
}

// Rates returns the rates of the open-loop rounds from the synchronous and
// throughput rounds.
func (g GuideLLMSweep) Rates(sync, tput Round) ([]float64, error) {
	if sync.Strategy.Kind != loadgen.Synchronous || tput.Strategy.Kind != loadgen.Throughput {
		return nil, fmt.Errorf("sweep: rounds 0 and 1 must be synchronous and throughput, got %s and %s", sync.Strategy, tput.Strategy)
	}
	s, t := measuredRate(sync), measuredRate(tput)
	if s <= 0 && t <= 0 {
		return nil, fmt.Errorf("invalid rates in sweep; aborting: the synchronous round measured %v req/s and the throughput round %v req/s (were there any successful requests?)", s, t)
	}
	return SweepRates(s, t, g.size()), nil
}

// SweepRates is GuideLLM's list of sweep rates:
// numpy.linspace(sync, tput, size − 1)[1:], computed as numpy does
// (start + i·step, the last point exactly tput).
func SweepRates(sync, tput float64, size int) []float64 {
	n := size - 1
	if n < 2 {
		return nil
	}
	div := float64(n - 1)
	step := (tput - sync) / div
	out := make([]float64, 0, n-1)
	for i := 1; i < n; i++ {
		v := float64(i)*step + sync
		if step == 0 {
			v = float64(i)/div*(tput-sync) + sync
		}
		if i == n-1 {
			v = tput
		}
		out = append(out, v)
	}
	return out
}

// measuredRate is a round's requests_per_second.successful.mean, the rate
// GuideLLM's sweep measures (0 when absent). A round of conversations
// gives it in sessions per second (÷ the mean turns per session), since
// open-loop rates of sessions are rates of new sessions.
func measuredRate(r Round) float64 {
	v := requestRate(r)
	if r.Benchmark != nil && r.Benchmark.Extras != nil && r.Benchmark.Extras.Sessions != nil {
		if t := float64(r.Benchmark.Extras.Sessions.TurnsPerSession.Mean); t > 0 {
			v /= t
		}
	}
	return v
}

// requestRate is a round's requests_per_second.successful.mean.
func requestRate(r Round) float64 {
	if r.Benchmark == nil {
		return 0
	}
	d := r.Benchmark.Metrics.RequestsPerSecond
	if d == nil || d.Successful == nil {
		return 0
	}
	v := float64(d.Successful.Mean)
	if math.IsNaN(v) {
		return 0
	}
	return v
}
