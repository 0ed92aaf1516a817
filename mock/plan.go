package mock

import (
	"math"
	"math/rand/v2"
	"time"
)

// noFault marks a fault position that is not injected.
const noFault = -1

// plan is everything decided about request k before its first byte: its
// output length, its faults and its time to first token. Gaps between steps
// are drawn later, step by step, by the schedule, from the same generator.
type plan struct {
	k            uint64
	idHi, idLo   uint64
	prompt       int    // prompt tokens
	cached       int    // of which found in the prefix cache (not prefilled)
	tokens       int    // output tokens
	steps        int    // chunks: ceil(tokens / TokensPerChunk)
	finish       string // "length" or "stop"
	httpError    int    // injected HTTP status, 0 for none
	disconnectAt int    // step index at whose deadline the connection is cut, or noFault
	stallAt      int    // step index delayed by StallDuration (and all later ones), or noFault
	streamErrAt  int    // step index replaced by an error payload, or noFault
	ttft         time.Duration
}

// seedRNG seeds pcg for request k so that its stream depends only on seed and k.
func seedRNG(pcg *rand.PCG, seed, k uint64) {
	pcg.Seed(splitmix64(seed), splitmix64(k^splitmix64(seed+0x9e3779b97f4a7c15)))
}

// splitmix64 is a bijective 64-bit mixer, used to decorrelate consecutive seeds.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// makePlan draws request k's parameters from rng, which must be freshly seeded
// with seedRNG. Every draw is made whatever the configuration, in a fixed
// order, so that changing one rate does not shift the others' draws.
func makePlan(cfg *Config, req *request, k uint64, rng *rand.Rand) plan {
	p := plan{k: k, prompt: req.promptTokens, disconnectAt: noFault, stallAt: noFault, streamErrAt: noFault}
	p.idHi, p.idLo = rng.Uint64(), rng.Uint64()
	uErr, codeDraw := rng.Float64(), rng.Uint64()
	uDisc, uStall, uStreamErr := rng.Float64(), rng.Float64(), rng.Float64()
	posDisc, posStall, posStreamErr := rng.Float64(), rng.Float64(), rng.Float64()
	p.ttft = sampleDuration(cfg.TTFT, cfg.TTFTStdev, rng.NormFloat64())
	zLen := rng.NormFloat64()

	natural := int(math.Round(float64(cfg.OutputTokens) + cfg.OutputTokensStdev*zLen))
	natural = max(natural, 1)
	switch {
	case req.ignoreEOS && req.explicitMax:
		p.tokens, p.finish = req.maxTokens, "length"
	case natural >= req.limit:
		p.tokens, p.finish = req.limit, "length"
	default:
		p.tokens, p.finish = natural, "stop"
	}
	p.steps = (p.tokens + cfg.TokensPerChunk - 1) / cfg.TokensPerChunk

	if uErr < cfg.ErrorRate {
		p.httpError = cfg.ErrorCodes[codeDraw%uint64(len(cfg.ErrorCodes))]
	}
	if uDisc < cfg.DisconnectRate {
		p.disconnectAt = faultStep(posDisc, p.steps)
	}
	if uStall < cfg.StallRate {
		p.stallAt = faultStep(posStall, p.steps)
	}
	if uStreamErr < cfg.StreamErrorRate {
		p.streamErrAt = faultStep(posStreamErr, p.steps)
	}
	return p
}

// faultStep maps u in [0,1) to a step in [1, steps-1] (mid-stream: at least
// one step before, at least one after), or 0 when there is a single step.
func faultStep(u float64, steps int) int {
	if steps < 2 {
		return 0
	}
	return 1 + min(int(u*float64(steps-1)), steps-2)
}

// sampleDuration returns mean + stdev*z, clamped at 0.
func sampleDuration(mean, stdev time.Duration, z float64) time.Duration {
	if stdev == 0 {
		return mean
	}
	d := float64(mean) + float64(stdev)*z
	if d <= 0 {
		return 0
	}
	return time.Duration(d)
}
