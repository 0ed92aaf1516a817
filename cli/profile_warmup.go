package cli

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/loadgen"
)

// AIPerf's warmup phase (its Warmup options and a YAML config's warmup
// phase): a phase of its own before each benchmark's measured one, ended
// by the first of its request count, duration and session count, under
// its own load (by default the profiling phase's), its requests left out
// of the results. The measured phase's limits count from its end.

// warmupFlagNames are the warmup options that shape the phase but start
// none: AIPerf ignores them without a stop condition.
var warmupFlagNames = []string{"warmup-concurrency", "warmup-request-rate", "warmup-arrival-pattern",
	"warmup-concurrency-ramp-duration", "warmup-request-rate-ramp-duration",
	"warmup-prefill-concurrency", "warmup-prefill-concurrency-ramp-duration"}

func warmupFlags(po *profileOptions, fs *pflag.FlagSet) {
	fs.IntVar(&po.warmupCount, "warmup-request-count", 0, "requests of a warmup phase run before each benchmark and left out of the results; the benchmark's limits count from its end (alias --num-warmup-requests)")
	fs.IntVar(&po.warmupCount, "num-warmup-requests", 0, "alias of --warmup-request-count")
	fs.Float64Var(&po.warmupDuration, "warmup-duration", 0, "seconds of the warmup phase (with --warmup-request-count or --num-warmup-sessions the first reached ends it)")
	fs.IntVar(&po.warmupSessions, "num-warmup-sessions", 0, "conversations the warmup phase starts, each sent to its last turn (single requests count one each)")
	fs.IntVar(&po.warmupConc, "warmup-concurrency", 0, "concurrent requests of the warmup (default --concurrency, else 1); with a warmup rate, its in-flight cap")
	fs.Float64Var(&po.warmupRate, "warmup-request-rate", 0, "requests per second of the warmup, open loop (default --request-rate when it is one value)")
	fs.StringVar(&po.warmupPattern, "warmup-arrival-pattern", "", "arrivals of the warmup rate: poisson, constant or gamma (default --arrival-pattern)")
	fs.StringVar(&po.warmupGrace, "warmup-grace-period", "", "with --warmup-duration: seconds (or inf) the warmup's requests in flight at its end may finish in before the benchmark starts (default: all are waited for)")
	fs.Float64Var(&po.warmupConcRamp, "warmup-concurrency-ramp-duration", 0, "seconds over which the warmup's streams start (default --concurrency-ramp-duration)")
	fs.Float64Var(&po.warmupRateRamp, "warmup-request-rate-ramp-duration", 0, "seconds over which the warmup rate ramps up (default --request-rate-ramp-duration)")
	fs.IntVar(&po.warmupPrefill, "warmup-prefill-concurrency", 0, "most warmup requests waiting for their first token (default --prefill-concurrency)")
	fs.Float64Var(&po.warmupPrefillRamp, "warmup-prefill-concurrency-ramp-duration", 0, "seconds over which the warmup's prefill cap rises from 1 (default --prefill-concurrency-ramp-duration)")
}

// warmup reads the warmup options into the run's warmup phase
// (run.Plan.WarmupPhase); concs and rates are the profiling phase's.
func (po *profileOptions) warmup(fs *pflag.FlagSet, p *draft, concs, rates []float64) error {
	changed := func(n string) bool { return fs != nil && fs.Changed(n) }
	switch {
	case po.warmupCount < 0:
		return Usagef("--warmup-request-count %d: want requests ≥ 1", po.warmupCount)
	case po.warmupDuration < 0 || math.IsNaN(po.warmupDuration) || math.IsInf(po.warmupDuration, 0):
		return Usagef("--warmup-duration %v: want seconds > 0", po.warmupDuration)
	case po.warmupSessions < 0:
		return Usagef("--num-warmup-sessions %d: want sessions ≥ 1", po.warmupSessions)
	case po.warmupConc < 0 || changed("warmup-concurrency") && po.warmupConc == 0:
		return Usagef("--warmup-concurrency %d: want requests ≥ 1", po.warmupConc)
	case !(po.warmupRate >= 0) || math.IsInf(po.warmupRate, 0) || changed("warmup-request-rate") && po.warmupRate == 0:
		return Usagef("--warmup-request-rate %v: want requests per second > 0", po.warmupRate)
	case po.warmupPattern != "" && po.warmupPattern != "poisson" && po.warmupPattern != "constant" && po.warmupPattern != "gamma":
		return Usagef("--warmup-arrival-pattern %q: want poisson, constant or gamma", po.warmupPattern)
	case !(po.warmupConcRamp >= 0) || math.IsInf(po.warmupConcRamp, 0) || changed("warmup-concurrency-ramp-duration") && po.warmupConcRamp == 0:
		return Usagef("--warmup-concurrency-ramp-duration %v: want seconds > 0", po.warmupConcRamp)
	case !(po.warmupRateRamp >= 0) || math.IsInf(po.warmupRateRamp, 0) || changed("warmup-request-rate-ramp-duration") && po.warmupRateRamp == 0:
		return Usagef("--warmup-request-rate-ramp-duration %v: want seconds > 0", po.warmupRateRamp)
	case po.warmupPrefill < 0 || changed("warmup-prefill-concurrency") && po.warmupPrefill == 0:
		return Usagef("--warmup-prefill-concurrency %d: want requests ≥ 1", po.warmupPrefill)
	case !(po.warmupPrefillRamp >= 0) || math.IsInf(po.warmupPrefillRamp, 0) || changed("warmup-prefill-concurrency-ramp-duration") && po.warmupPrefillRamp == 0:
		return Usagef("--warmup-prefill-concurrency-ramp-duration %v: want seconds > 0", po.warmupPrefillRamp)
	case po.warmupPrefillRamp > 0 && po.warmupPrefill == 0 && po.prefill == 0:
		return Usagef("--warmup-prefill-concurrency-ramp-duration needs --warmup-prefill-concurrency or --prefill-concurrency (the cap it ramps)")
	}
	if po.warmupCount == 0 && po.warmupDuration == 0 && po.warmupSessions == 0 {
		if po.warmupGrace != "" {
			return Usagef("--warmup-grace-period needs --warmup-duration (it bounds the wait for a timed warmup's last requests)")
		}
		var set []string
		for _, n := range warmupFlagNames {
			if changed(n) {
				set = append(set, "--"+n)
			}
		}
		if len(set) > 0 {
			p.Notes = append(p.Notes, fmt.Sprintf("%s ignored: no warmup phase without --warmup-request-count, --warmup-duration or --num-warmup-sessions (AIPerf's rule)", strings.Join(set, ", ")))
		}
		return nil
	}
	s, err := po.warmupStrategy(fs, p, concs, rates)
	if err != nil {
		return err
	}
	ph := &loadgen.Phase{Strategy: s, Sessions: po.warmupSessions, Constraints: loadgen.Constraints{MaxRequests: po.warmupCount,
		MaxDuration: time.Duration(po.warmupDuration * float64(time.Second)), Drain: loadgen.DrainAll}}
	if po.warmupGrace != "" {
		if po.warmupDuration == 0 {
			return Usagef("--warmup-grace-period needs --warmup-duration (a warmup ended by its count waits for all its requests)")
		}
		if ph.Constraints.Drain, err = warmupGrace(po.warmupGrace); err != nil {
			return err
		}
	}
	p.Plan.WarmupPhase = ph
	p.Metadata.Warmup = ph.String()
	if po.profileRuns > 1 {
		p.Notes = append(p.Notes, "the warmup phase runs before every benchmark of every --num-profile-runs run (AIPerf's --no-profile-run-disable-warmup-after-first; AIPerf's default warms up before the first run only)")
	}
	return nil
}

// warmupStrategy is the warmup's load, AIPerf's rule: a rate (the
// warmup's, else the profiling phase's single rate) makes it open loop
// with --warmup-concurrency (else --concurrency) as the cap; otherwise it
// is closed loop with --warmup-concurrency streams, else --concurrency's
// single value, else 1. The prefill cap and the ramps are the warmup's,
// else the profiling's; with a rate the concurrency ramp raises the cap.
func (po *profileOptions) warmupStrategy(fs *pflag.FlagSet, p *draft, concs, rates []float64) (loadgen.Strategy, error) {
	changed := func(n string) bool { return fs != nil && fs.Changed(n) }
	rate := po.warmupRate
	if rate == 0 && len(rates) == 1 && !po.userCentricSet && po.rateSeries == "" && !po.warmupClosed {
		rate = rates[0]
	}
	conc := po.warmupConc
	if conc == 0 && len(concs) == 1 {
		conc = int(concs[0])
	}
	concRamp, rateRamp := po.warmupConcRamp, po.warmupRateRamp
	if concRamp == 0 {
		concRamp = po.concRamp
	}
	if rateRamp == 0 {
		rateRamp = po.rateRamp
	}
	var s loadgen.Strategy
	if rate > 0 {
		pattern := po.warmupPattern
		if pattern == "" {
			pattern = po.rateMode
		}
		s = loadgen.Strategy{Kind: loadgen.Poisson, Rate: rate, MaxConcurrency: conc, Seed: uint64(p.Plan.Seed)}
		smooth := po.smoothness
		if po.warmupSmoothness != 0 {
			smooth = po.warmupSmoothness
		}
		switch {
		case pattern == "constant":
			s.Kind = loadgen.Constant
		case pattern == "gamma" && smooth != 1:
			s.Burstiness = smooth
		}
		switch {
		case concRamp > 0 && conc > 0:
			s.CapRampup = time.Duration(concRamp * float64(time.Second))
		case changed("warmup-concurrency-ramp-duration"):
			p.Notes = append(p.Notes, "--warmup-concurrency-ramp-duration ignored: with a warmup rate it ramps the in-flight cap, and no --warmup-concurrency or --concurrency gives one (AIPerf's rule)")
		}
		if rateRamp > 0 {
			s.Rampup = time.Duration(rateRamp * float64(time.Second))
			s.RampShape, s.RampFrom = loadgen.RampLinear, rate*min(1, 0.1/rateRamp)
		}
	} else {
		if changed("warmup-arrival-pattern") {
			p.Notes = append(p.Notes, "--warmup-arrival-pattern ignored: the warmup has no rate (give --warmup-request-rate, or a single --request-rate); it runs closed loop, as AIPerf's")
		}
		if changed("warmup-request-rate-ramp-duration") {
			return s, Usagef("--warmup-request-rate-ramp-duration needs a warmup rate: give --warmup-request-rate (AIPerf's rule)")
		}
		s = loadgen.Strategy{Kind: loadgen.Concurrent, Streams: max(conc, 1)}
		if concRamp > 0 {
			s.Rampup = time.Duration(concRamp * float64(time.Second))
		}
	}
	prefill, prefillRamp := po.warmupPrefill, po.warmupPrefillRamp
	if prefill == 0 {
		prefill = po.prefill
	} else if conc > 0 && prefill > conc && (po.warmupConc > 0 || po.concurrency != "") {
		return s, Usagef("--warmup-prefill-concurrency %d is more than the warmup's concurrency %d: want at most the concurrency (AIPerf's rule)", prefill, conc)
	}
	if prefillRamp == 0 {
		prefillRamp = po.prefillRamp
	}
	s = prefillCap(s, prefill, prefillRamp)
	if err := s.Validate(); err != nil {
		return s, Usagef("warmup phase: %v", err)
	}
	return s, nil
}

// errWarmupShard refuses a warmup phase in one shard of a multi-pod run.
var errWarmupShard = Usagef("--warmup-request-count, --warmup-duration, --num-warmup-sessions: the shards of a run start their benchmarks on one timetable; warm up with a run of its own before the sharded one")

// warmupGrace reads --warmup-grace-period: seconds ≥ 0, or inf.
func warmupGrace(s string) (time.Duration, error) {
	if s == "inf" {
		return loadgen.DrainAll, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, Usagef("--warmup-grace-period %q: want seconds ≥ 0 or inf", s)
	}
	return time.Duration(f * float64(time.Second)), nil
}
