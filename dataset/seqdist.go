package dataset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// LengthPair is one class of a mixed workload: its prompt and output
// lengths and its share of the requests (AIPerf's --sequence-distribution).
type LengthPair struct {
	Prompt, Output Dist
	Weight         float64 // a share; the pairs' weights sum to 100 (or 1)
}

// seqDistForm is the accepted form, quoted in errors.
const seqDistForm = `want ISL,OSL:PROB;… with optional |STDDEV after a length ("64|10,32|8:70;256,128:30"), the bracket form "[(256,128):60,(512,256):40]", or {"pairs":[{"isl":256,"osl":128,"prob":60},…]}; the probabilities sum to 100`

// ParseSequenceDistribution parses AIPerf's --sequence-distribution in
// its three forms: "ISL[|SD],OSL[|SD]:PROB;…", "[(ISL,OSL):PROB,…]" and
// {"pairs":[{"isl","isl_stddev","osl","osl_stddev","prob"},…]}.
// Probabilities are percentages summing to 100, or fractions summing to 1.
func ParseSequenceDistribution(s string) ([]LengthPair, error) {
	in := strings.TrimSpace(s)
	var pairs []LengthPair
	var err error
	switch {
	case strings.HasPrefix(in, "{"):
		pairs, err = seqDistJSON(in)
	case strings.HasPrefix(in, "["):
		if !strings.HasSuffix(in, "]") {
			return nil, fmt.Errorf("%q: no closing ]: %s", s, seqDistForm)
		}
		items := strings.Split(strings.TrimSuffix(strings.TrimPrefix(in, "["), "]"), ",(")
		pairs, err = seqDistItems(items, strings.NewReplacer("(", "", ")", "").Replace)
	default:
		pairs, err = seqDistItems(strings.Split(in, ";"), strings.TrimSpace)
	}
	if err != nil {
		return nil, fmt.Errorf("%q: %v", s, err)
	}
	if len(pairs) == 0 {
		return nil, fmt.Errorf("%q: no pairs: %s", s, seqDistForm)
	}
	total := 0.0
	for _, p := range pairs {
		total += p.Weight
	}
	if math.Abs(total-100) > 0.01 && math.Abs(total-1) > 1e-4 {
		return nil, fmt.Errorf("%q: the probabilities sum to %g, want 100 (or 1)", s, total)
	}
	return pairs, nil
}

// seqDistItems parses "ISL[|SD],OSL[|SD]:PROB" items.
func seqDistItems(items []string, trim func(string) string) ([]LengthPair, error) {
	var out []LengthPair
	for _, it := range items {
		it = strings.TrimSpace(trim(strings.TrimSpace(it)))
		if it == "" {
			continue
		}
		lens, prob, ok := strings.Cut(it, ":")
		isl, osl, ok2 := strings.Cut(lens, ",")
		if !ok || !ok2 {
			return nil, fmt.Errorf("%q is not ISL,OSL:PROB: %s", it, seqDistForm)
		}
		var p LengthPair
		var err error
		if p.Prompt, err = seqDistLength(isl); err != nil {
			return nil, err
		}
		if p.Output, err = seqDistLength(osl); err != nil {
			return nil, err
		}
		if p.Weight, err = strconv.ParseFloat(strings.TrimSpace(prob), 64); err != nil || !(p.Weight > 0) || math.IsInf(p.Weight, 0) {
			return nil, fmt.Errorf("probability %q: want a number > 0", prob)
		}
		out = append(out, p)
	}
	return out, nil
}

// seqDistLength parses "MEAN" or "MEAN|STDDEV".
func seqDistLength(s string) (Dist, error) {
	mean, sd, hasSD := strings.Cut(strings.TrimSpace(s), "|")
	m, err := strconv.Atoi(strings.TrimSpace(mean))
	if err != nil || m < 1 || m > maxTokensPerPrompt {
		return Dist{}, fmt.Errorf("length %q: want a token count ≥ 1, optionally |STDDEV", s)
	}
	d := Dist{Mean: m}
	if hasSD {
		if d.Stdev, err = strconv.Atoi(strings.TrimSpace(sd)); err != nil || d.Stdev < 0 {
			return Dist{}, fmt.Errorf("length %q: the standard deviation after | is a token count ≥ 0", s)
		}
	}
	return d, nil
}

// seqDistJSON parses AIPerf's JSON form.
func seqDistJSON(s string) ([]LengthPair, error) {
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.DisallowUnknownFields()
	var v struct {
		Pairs []struct {
			ISL       int     `json:"isl"`
			ISLStddev int     `json:"isl_stddev"`
			OSL       int     `json:"osl"`
			OSLStddev int     `json:"osl_stddev"`
			Prob      float64 `json:"prob"`
		} `json:"pairs"`
	}
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%s: %s", jsonErr(err), seqDistForm)
	}
	var out []LengthPair
	for i, p := range v.Pairs {
		if p.ISL < 1 || p.OSL < 1 || p.ISLStddev < 0 || p.OSLStddev < 0 || !(p.Prob > 0) || p.ISL > maxTokensPerPrompt || p.OSL > maxTokensPerPrompt {
			return nil, fmt.Errorf("pairs[%d]: isl and osl ≥ 1, stddevs ≥ 0, prob > 0", i)
		}
		out = append(out, LengthPair{Prompt: Dist{Mean: p.ISL, Stdev: p.ISLStddev}, Output: Dist{Mean: p.OSL, Stdev: p.OSLStddev}, Weight: p.Prob})
	}
	return out, nil
}

// pick draws a pair in proportion to the weights.
func pick(pairs []LengthPair, rng *rand.Rand) LengthPair {
	total := 0.0
	for _, p := range pairs {
		total += p.Weight
	}
	u := rng.Float64() * total
	for _, p := range pairs {
		if u < p.Weight {
			return p
		}
		u -= p.Weight
	}
	return pairs[len(pairs)-1]
}

// mixJSON is the mix as the report's data config writes it.
func mixJSON(pairs []LengthPair) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, p := range pairs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('{')
		for j, kv := range append(p.Prompt.keys("prompt_tokens"), p.Output.keys("output_tokens")...) {
			k, v, _ := strings.Cut(kv, "=")
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%q:%s", k, v)
		}
		fmt.Fprintf(&b, `,"weight":%s}`, strconv.FormatFloat(p.Weight, 'g', -1, 64))
	}
	b.WriteByte(']')
	return b.Bytes()
}

// parseMix reads the sequence_distribution key: the report's JSON list
// [{"prompt_tokens":…,"output_tokens":…,"weight":…},…] or a string in one
// of AIPerf's forms.
func (sp *Spec) parseMix(p param) error {
	if !p.raw {
		pairs, err := ParseSequenceDistribution(p.val)
		if err != nil {
			return fmt.Errorf("sequence_distribution=%v", err)
		}
		sp.Mix = pairs
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(p.val)))
	dec.DisallowUnknownFields()
	var raw []struct {
		lengthsJSON
		Weight float64 `json:"weight"`
	}
	const form = `want [{"prompt_tokens":256,"output_tokens":128,"weight":60},…] or AIPerf's "256,128:60;512,256:40"`
	if err := dec.Decode(&raw); err != nil {
		return fmt.Errorf("sequence_distribution: %s: %s", jsonErr(err), form)
	}
	total := 0.0
	for i, r := range raw {
		if r.PromptTokens < 1 || r.OutputTokens < 1 || !(r.Weight > 0) {
			return fmt.Errorf("sequence_distribution[%d]: prompt_tokens and output_tokens ≥ 1 and weight > 0: %s", i, form)
		}
		total += r.Weight
		l := r.pair()
		l.Weight = r.Weight
		sp.Mix = append(sp.Mix, l)
	}
	if len(raw) == 0 || math.Abs(total-100) > 0.01 && math.Abs(total-1) > 1e-4 {
		return fmt.Errorf("sequence_distribution: the weights sum to %g, want 100 (or 1): %s", total, form)
	}
	return nil
}

// lengthsJSON is one entry of a JSON list of lengths (sequence_distribution,
// turn_lengths): GuideLLM's synthetic keys.
type lengthsJSON struct {
	PromptTokens      int `json:"prompt_tokens"`
	PromptTokensStdev int `json:"prompt_tokens_stdev"`
	PromptTokensMin   int `json:"prompt_tokens_min"`
	PromptTokensMax   int `json:"prompt_tokens_max"`
	OutputTokens      int `json:"output_tokens"`
	OutputTokensStdev int `json:"output_tokens_stdev"`
	OutputTokensMin   int `json:"output_tokens_min"`
	OutputTokensMax   int `json:"output_tokens_max"`
}

func (r lengthsJSON) pair() LengthPair {
	return LengthPair{Prompt: Dist{Mean: r.PromptTokens, Stdev: r.PromptTokensStdev, Min: r.PromptTokensMin, Max: r.PromptTokensMax},
		Output: Dist{Mean: r.OutputTokens, Stdev: r.OutputTokensStdev, Min: r.OutputTokensMin, Max: r.OutputTokensMax}}
}
