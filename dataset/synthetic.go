package dataset

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/loadgen"
)

// Sample draws one length from d (GuideLLM's rule, see Dist).
func (d Dist) Sample(rng *rand.Rand) int {
	if d.Stdev > 0 {
		lo, hi := d.Min, d.Max
		if lo == 0 {
			lo = max(1, d.Mean-5*d.Stdev)
		}
		if hi == 0 {
			hi = d.Mean + 5*d.Stdev
		}
		v := int(math.Round(float64(d.Mean) + rng.NormFloat64()*float64(d.Stdev)))
		return max(1, min(hi, max(lo, v)))
	}
	if d.Min > 0 || d.Max > 0 {
		lo, hi := max(1, d.Min), d.Max
		if hi == 0 {
			hi = max(lo, d.Mean)
		}
		if hi <= lo {
			return lo
		}
		return lo + rng.IntN(hi-lo+1)
	}
	return d.Mean
}

// words are common English words, each a single token (with its leading
// space) in the BPE vocabularies of the major model families, so a prompt
// of N words is close to N tokens without a tokenizer.
var words = strings.Fields(`the of and to in is was for on that with as by at from his her an be this
which or had are but not have it they were one their all been has when who more there can would
what about out so some them into time only new other than then its over also could after first
two most made people any like may way used years world many state these such through where much
year before back well even between good must life under while part same long last great city
day still number each music school end both group work public own found high old family known
music since against during small large without home early place name three second house point
water power several often however around line form area among next system side country order`)

// Synthetic generates requests from a Spec. Lengths and texts depend only on
// the seed and the request index, so a run is reproducible. Every prompt
// starts with a marker unique to its request, so no two requests share a
// prefix-cache entry by accident; a shared system prefix is only present
// when prefix_tokens asks for one.
//
// Without a tokenizer, token counts are approximate: one common word is
// about one token in the major BPE vocabularies, and the marker adds a
// few. RequestedPromptTokens records the target.
type Synthetic struct {
	spec     Spec
	seed     uint64
	bodies   []string
	prefixes []string
}

// NewSynthetic prepares a synthetic source.
func NewSynthetic(spec Spec, seed uint64) *Synthetic {
	s := &Synthetic{spec: spec, seed: seed}
	if spec.Samples > 0 {
		s.bodies = make([]string, spec.Samples)
		for i := range s.bodies {
			rng := s.rng(uint64(i), 1)
			s.bodies[i] = text(rng, spec.Prompt.Sample(rng))
		}
	}
	for i := 0; i < spec.PrefixCount && spec.PrefixTokens > 0; i++ {
		s.prefixes = append(s.prefixes, text(s.rng(uint64(i), 2), spec.PrefixTokens))
	}
	return s
}

func (s *Synthetic) rng(i, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(s.seed^0x9e3779b97f4a7c15*stream, i))
}

// Request returns the i-th request. It never runs out.
func (s *Synthetic) Request(i uint64) (*loadgen.Request, bool) {
	rng := s.rng(i, 3)
	var body string
	var n int
	if s.bodies != nil {
		body = s.bodies[i%uint64(len(s.bodies))]
		n = strings.Count(body, " ")
	} else {
		n = s.spec.Prompt.Sample(rng)
		body = text(rng, n)
	}
	out := -1
	if s.spec.Output.Set() {
		out = s.spec.Output.Sample(rng)
	}
	system := ""
	if len(s.prefixes) > 0 {
		system = s.prefixes[i%uint64(len(s.prefixes))]
	}
	prompt := "[" + strconv.FormatUint(i, 10) + "]" + body
	r := loadgen.NewRequest(system, prompt, out)
	r.TargetPromptTokens = n
	return r, true
}

// text returns n words drawn from rng, each preceded by a space.
func text(rng *rand.Rand, n int) string {
	var b strings.Builder
	b.Grow(n * 6)
	for range n {
		b.WriteByte(' ')
		b.WriteString(words[rng.IntN(len(words))])
	}
	return b.String()
}
