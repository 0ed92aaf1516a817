package compare

import (
	"fmt"
	"math"

	"github.com/goodput-dev/goodput/report"
)

// nearLoad is how far apart two rates may be and still be compared (the
// rates a GuideLLM sweep derives from a measured throughput differ a
// little between runs).
const nearLoad = 0.05

// matched is one pair of benchmark indices.
type matched struct {
	b, c  int
	kind  string // "load" or "near_load"
	label string
}

// load is what a strategy holds constant: 1 for synchronous, the streams
// of concurrent, the in-flight cap of throughput (0: none), the rate of
// constant and poisson, the time scale of replay.
func load(s report.Strategy) float64 {
	switch s.Type {
	case report.StrategySynchronous:
		return 1
	case report.StrategyConcurrent:
		return float64(s.Streams)
	case report.StrategyThroughput:
		return float64(s.MaxConcurrency)
	case report.StrategyConstant, report.StrategyPoisson:
		return s.Rate
	case report.StrategyReplay:
		if s.TimeScale == 0 {
			return 1
		}
		return s.TimeScale
	}
	return 0
}

// describe names a benchmark's strategy and load.
func describe(b *report.Benchmark) string {
	s := b.Config.Strategy
	switch s.Type {
	case report.StrategyConstant, report.StrategyPoisson:
		return fmt.Sprintf("%s %s/s", s.Type, fmtLoad(s.Rate))
	case report.StrategyConcurrent:
		return fmt.Sprintf("concurrent %d", s.Streams)
	case report.StrategyThroughput:
		if s.MaxConcurrency > 0 {
			return fmt.Sprintf("throughput max %d", s.MaxConcurrency)
		}
		return "throughput"
	case report.StrategyReplay:
		return fmt.Sprintf("replay x%s", fmtLoad(load(s)))
	case "":
		return "unknown strategy"
	}
	return s.Type
}

func fmtLoad(v float64) string {
	if v >= 100 {
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// match pairs benchmarks: first those with the same strategy type and the
// same load (in order, so repeated rounds pair up in turn), then, among
// the rest, rate-driven ones (constant, poisson) whose rates are within
// nearLoad of each other, closest first. It returns the pairs in current
// order and the unmatched indices of each side.
func match(base, cur []*report.Benchmark) (pairs []matched, unB, unC []int) {
	usedB := make([]bool, len(base))
	pairOf := make([]int, len(cur))
	kind := make([]string, len(cur))
	for i := range pairOf {
		pairOf[i] = -1
	}
	for ci, c := range cur {
		for bi, b := range base {
			if usedB[bi] || b.Config.Strategy.Type != c.Config.Strategy.Type {
				continue
			}
			lb, lc := load(b.Config.Strategy), load(c.Config.Strategy)
			if math.Abs(lb-lc) <= 1e-9*math.Max(1, math.Abs(lb)) {
				usedB[bi], pairOf[ci], kind[ci] = true, bi, "load"
				break
			}
		}
	}
	for ci, c := range cur {
		t := c.Config.Strategy.Type
		if pairOf[ci] >= 0 || (t != report.StrategyConstant && t != report.StrategyPoisson) {
			continue
		}
		best, bestD := -1, math.Inf(1)
		lc := load(c.Config.Strategy)
		for bi, b := range base {
			if usedB[bi] || b.Config.Strategy.Type != t {
				continue
			}
			lb := load(b.Config.Strategy)
			if d := math.Abs(lc-lb) / lb; lb > 0 && d <= nearLoad+1e-12 && d < bestD {
				best, bestD = bi, d
			}
		}
		if best >= 0 {
			usedB[best], pairOf[ci], kind[ci] = true, best, "near_load"
		}
	}
	for ci, bi := range pairOf {
		if bi < 0 {
			unC = append(unC, ci)
			continue
		}
		label := describe(cur[ci])
		if kind[ci] == "near_load" {
			label = fmt.Sprintf("%s vs %s", describe(base[bi]), describe(cur[ci]))
		}
		pairs = append(pairs, matched{b: bi, c: ci, kind: kind[ci], label: label})
	}
	for bi, u := range usedB {
		if !u {
			unB = append(unB, bi)
		}
	}
	return pairs, unB, unC
}
