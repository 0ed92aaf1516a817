package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Limits that keep a spec from asking for unbounded memory.
const (
	maxTokensPerPrompt = 1 << 22 // one prompt, prefix or output length
	maxSamples         = 1 << 24
	maxPrefixTotal     = 1 << 24 // tokens over all distinct prefixes
)

// Dist is a token-length distribution in GuideLLM's terms
// (guidellm.utils.random.IntegerRangeSampler). Zero fields are unset. With a
// stdev, a normal distribution around Mean, rounded and clamped to
// [Min, Max], which default to max(1, Mean−5·Stdev) and Mean+5·Stdev;
// without a stdev, a uniform integer in [Min, Max], which default to Mean;
// when the bounds meet, that constant.
type Dist struct {
	Mean, Stdev, Min, Max int
}

// Set reports whether the distribution was given at all.
func (d Dist) Set() bool { return d.Mean > 0 || d.Stdev > 0 || d.Min > 0 || d.Max > 0 }

// Bounds returns the smallest and largest value Sample can return.
func (d Dist) Bounds() (lo, hi int) {
	lo, hi = d.Min, d.Max
	if lo == 0 {
		lo = d.Mean
		if d.Stdev > 0 {
			lo = d.Mean - 5*d.Stdev
		}
		lo = max(1, lo)
	}
	if hi == 0 {
		hi = d.Mean + 5*d.Stdev
	}
	return lo, hi
}

// Sample draws one length from d (GuideLLM's rule, see Dist). Python's
// round (half to even) is mirrored by math.RoundToEven.
func (d Dist) Sample(rng *rand.Rand) int {
	lo, hi := d.Bounds()
	switch {
	case lo >= hi:
		return lo
	case d.Stdev == 0:
		return lo + rng.IntN(hi-lo+1)
	}
	v := float64(d.Mean) + rng.NormFloat64()*float64(d.Stdev)
	return int(math.RoundToEven(max(float64(lo), min(float64(hi), v))))
}

// String renders d as GuideLLM keys with the given prefix, e.g.
// "prompt_tokens=256,prompt_tokens_stdev=32".
func (d Dist) keys(name string) []string {
	var out []string
	add := func(suffix string, v int) {
		if v > 0 {
			out = append(out, name+suffix+"="+strconv.Itoa(v))
		}
	}
	add("", d.Mean)
	add("_stdev", d.Stdev)
	add("_min", d.Min)
	add("_max", d.Max)
	return out
}

// PrefixBucket is one of GuideLLM's prefix_buckets: Count distinct shared
// system prefixes of Tokens tokens each, used by a share of the requests
// proportional to Weight.
type PrefixBucket struct {
	Weight int `json:"bucket_weight"`
	Count  int `json:"prefix_count"`
	Tokens int `json:"prefix_tokens"`
}

// Spec is a synthetic data spec: GuideLLM's synthetic_text keys.
type Spec struct {
	Prompt Dist // prompt_tokens (required), prompt_tokens_stdev/min/max
	Output Dist // output_tokens, output_tokens_stdev/min/max; unset = no max_tokens sent
	// Samples is the number of distinct (length, output length, body)
	// samples; request i uses sample i mod Samples, still with its own
	// unique marker. 0 draws a new sample for every request.
	Samples int
	// PrefixTokens and PrefixCount describe shared system prefixes:
	// PrefixCount distinct prefixes of PrefixTokens tokens (GuideLLM's
	// shorthand for a single prefix bucket).
	PrefixTokens int
	PrefixCount  int
	// PrefixBuckets is GuideLLM's general form (JSON only); it excludes
	// PrefixTokens and PrefixCount.
	PrefixBuckets []PrefixBucket
	// Session makes conversations (turns=N) and shapes them: think time
	// and tools (see session.go). Prompt and Output are then each later
	// turn's lengths.
	Session SessionSpec
	// Media are the synthetic images and audio of every request
	// (media.go).
	Media MediaSpec
	// Mix, when set, replaces Prompt and Output: each request draws one
	// pair in proportion to its weight, then its lengths (AIPerf's
	// --sequence-distribution; JSON key sequence_distribution).
	Mix []LengthPair
}

// specKeys lists the accepted keys, for error messages.
var specKeys = []string{
	"prompt_tokens", "prompt_tokens_stdev", "prompt_tokens_min", "prompt_tokens_max",
	"output_tokens", "output_tokens_stdev", "output_tokens_min", "output_tokens_max",
	"samples", "prefix_tokens", "prefix_count", "prefix_buckets", "sequence_distribution",
}

// ParseSpec parses a synthetic data spec, "prompt_tokens=256,output_tokens=128,…"
// or GuideLLM's JSON object {"prompt_tokens":256,…}; "kind=synthetic_text" /
// "kind":"synthetic_text" may be included. Errors are one line naming the key
// and the accepted form.
func ParseSpec(s string) (Spec, error) {
	ps, err := parseParams(s)
	if err != nil {
		return Spec{}, err
	}
	if p, ok := ps.get("kind"); ok {
		if p.val != kindSynthetic {
			return Spec{}, fmt.Errorf("kind=%s is not a synthetic data spec (want kind=%s)", p.shown(), kindSynthetic)
		}
	}
	return specFromParams(ps)
}

func specFromParams(ps params) (Spec, error) {
	var sp Spec
	for _, p := range ps {
		if p.key == "kind" {
			continue
		}
		if p.key == "prefix_buckets" {
			if err := sp.parseBuckets(p); err != nil {
				return sp, err
			}
			continue
		}
		if p.key == "sequence_distribution" {
			if err := sp.parseMix(p); err != nil {
				return sp, err
			}
			continue
		}
		if ok, err := sp.Session.parseSessionParam(p); ok {
			if err != nil {
				return sp, err
			}
			continue
		}
		if ok, err := sp.Media.param(p); ok {
			if err != nil {
				return sp, err
			}
			continue
		}
		dst := sp.intField(p.key)
		if dst == nil {
			return sp, fmt.Errorf("unknown key %q (keys: %s)", p.key, strings.Join(append(append(append([]string{"kind"}, specKeys...), sessionKeys...), mediaKeys...), ", "))
		}
		lo := 1
		if p.key == "prefix_tokens" {
			lo = 0
		}
		n, err := intParam(p, lo)
		if err != nil {
			return sp, err
		}
		*dst = n
	}
	return sp, sp.validate()
}

// intField maps a key to the Spec field it sets.
func (sp *Spec) intField(key string) *int {
	switch key {
	case "prompt_tokens":
		return &sp.Prompt.Mean
	case "prompt_tokens_stdev":
		return &sp.Prompt.Stdev
	case "prompt_tokens_min":
		return &sp.Prompt.Min
	case "prompt_tokens_max":
		return &sp.Prompt.Max
	case "output_tokens":
		return &sp.Output.Mean
	case "output_tokens_stdev":
		return &sp.Output.Stdev
	case "output_tokens_min":
		return &sp.Output.Min
	case "output_tokens_max":
		return &sp.Output.Max
	case "samples":
		return &sp.Samples
	case "prefix_tokens":
		return &sp.PrefixTokens
	case "prefix_count":
		return &sp.PrefixCount
	}
	return nil
}

// intParam parses a non-negative decimal integer ≥ lo.
func intParam(p param, lo int) (int, error) {
	want := "a positive integer"
	if lo == 0 {
		want = "an integer ≥ 0"
	}
	v := p.val
	if v == "" || len(v) > 10 || strings.TrimLeft(v, "0123456789") != "" {
		return 0, fmt.Errorf("%s=%s: want %s", p.key, p.shown(), want)
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo {
		return 0, fmt.Errorf("%s=%s: want %s", p.key, p.shown(), want)
	}
	return n, nil
}

func (sp *Spec) parseBuckets(p param) error {
	const form = `want a JSON list such as [{"bucket_weight":100,"prefix_count":1,"prefix_tokens":256}]`
	if !p.raw || !strings.HasPrefix(p.val, "[") {
		return fmt.Errorf("prefix_buckets=%s: %s", p.shown(), form)
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(p.val)))
	dec.DisallowUnknownFields()
	var raw []struct {
		Weight *int `json:"bucket_weight"`
		Count  *int `json:"prefix_count"`
		Tokens *int `json:"prefix_tokens"`
	}
	if err := dec.Decode(&raw); err != nil {
		return fmt.Errorf("prefix_buckets: %s: %s", jsonErr(err), form)
	}
	if len(raw) == 0 {
		return fmt.Errorf("prefix_buckets is empty: %s", form)
	}
	for i, b := range raw {
		pb := PrefixBucket{Weight: 100, Count: 1}
		if b.Weight != nil {
			pb.Weight = *b.Weight
		}
		if b.Count != nil {
			pb.Count = *b.Count
		}
		if b.Tokens != nil {
			pb.Tokens = *b.Tokens
		}
		if pb.Weight < 1 || pb.Count < 1 || pb.Tokens < 0 || pb.Weight > 1_000_000 || pb.Count > 1_000_000 {
			return fmt.Errorf("prefix_buckets[%d]: bucket_weight and prefix_count must be positive integers up to 1000000, prefix_tokens ≥ 0", i)
		}
		sp.PrefixBuckets = append(sp.PrefixBuckets, pb)
	}
	return nil
}

// validate checks the spec as a whole.
func (sp *Spec) validate() error {
	type named struct {
		name string
		d    Dist
	}
	dists := []named{{"prompt_tokens", sp.Prompt}, {"output_tokens", sp.Output}}
	switch {
	case len(sp.Mix) > 0 && (sp.Prompt.Set() || sp.Output.Set()):
		return fmt.Errorf("sequence_distribution and prompt_tokens/output_tokens: give one")
	case len(sp.Mix) > 0 && sp.Session.Turns > 0:
		return fmt.Errorf("sequence_distribution shapes single requests: not with turns=%d", sp.Session.Turns)
	case len(sp.Mix) > 0:
		dists = dists[:0]
		for i, p := range sp.Mix {
			dists = append(dists, named{fmt.Sprintf("sequence_distribution[%d] ISL", i), p.Prompt}, named{fmt.Sprintf("sequence_distribution[%d] OSL", i), p.Output})
		}
	case sp.Prompt.Mean == 0:
		return fmt.Errorf("prompt_tokens is required, e.g. prompt_tokens=256,output_tokens=128")
	case sp.Output.Mean == 0 && sp.Output.Set():
		return fmt.Errorf("output_tokens_stdev/min/max need output_tokens (the mean), e.g. output_tokens=128,output_tokens_max=256")
	}
	for _, d := range dists {
		if !d.d.Set() {
			continue
		}
		lo, hi := d.d.Bounds()
		if lo > hi {
			var hints []string
			if d.d.Max == 0 {
				hints = append(hints, fmt.Sprintf("with no %s_max the maximum is %s", d.name, boundDefault(d.d.Stdev, "+")))
			}
			if d.d.Min == 0 {
				hints = append(hints, fmt.Sprintf("with no %s_min the minimum is %s", d.name, boundDefault(d.d.Stdev, "-")))
			}
			msg := fmt.Sprintf("%s: minimum %d is above maximum %d", d.name, lo, hi)
			if len(hints) > 0 {
				msg += " (" + strings.Join(hints, "; ") + ")"
			}
			return errors.New(msg)
		}
		if hi > maxTokensPerPrompt {
			return fmt.Errorf("%s: maximum %d is above the supported %d", d.name, hi, maxTokensPerPrompt)
		}
	}
	if err := sp.Media.validate(); err != nil {
		return err
	}
	if sp.Samples > maxSamples {
		return fmt.Errorf("samples=%d: at most %d", sp.Samples, maxSamples)
	}
	if err := sp.Session.validate(); err != nil {
		return err
	}
	if sp.Session.ServerToolMode || sp.Session.ToolMessages {
		return fmt.Errorf("tool_call_mode and tool_messages are keys of a data file with a tools_column; synthetic conversations name their server tool-call turns with server_tool_call_turns")
	}
	if sp.Session.set() && sp.Session.Turns == 0 {
		return fmt.Errorf("session keys (delay, tools, server_history, …) need turns=N in a synthetic spec, e.g. turns=4,prompt_tokens=128,delay=1")
	}
	if len(sp.PrefixBuckets) > 0 && (sp.PrefixTokens > 0 || sp.PrefixCount > 0) {
		return fmt.Errorf("prefix_buckets excludes prefix_tokens and prefix_count (GuideLLM's rule)")
	}
	if sp.PrefixCount > 0 && sp.PrefixTokens == 0 {
		return fmt.Errorf("prefix_count=%d needs prefix_tokens, e.g. prefix_tokens=512,prefix_count=%d", sp.PrefixCount, sp.PrefixCount)
	}
	total := 0
	for _, b := range sp.buckets() {
		if b.Tokens > maxTokensPerPrompt {
			return fmt.Errorf("prefix_tokens=%d: at most %d", b.Tokens, maxTokensPerPrompt)
		}
		total += b.Count * b.Tokens
		if total > maxPrefixTotal {
			return fmt.Errorf("prefixes need %d tokens in all (prefix_count × prefix_tokens): at most %d", total, maxPrefixTotal)
		}
	}
	return nil
}

func boundDefault(stdev int, sign string) string {
	if stdev > 0 {
		return "the mean " + sign + " 5·stdev"
	}
	return "the mean"
}

// buckets returns the prefix buckets, the shorthand included; nil when no
// request has a prefix.
func (sp Spec) buckets() []PrefixBucket {
	if len(sp.PrefixBuckets) > 0 {
		return sp.PrefixBuckets
	}
	if sp.PrefixTokens > 0 {
		return []PrefixBucket{{Weight: 100, Count: max(1, sp.PrefixCount), Tokens: sp.PrefixTokens}}
	}
	return nil
}

// String renders the spec in key=value form, keys in a fixed order, or as
// GuideLLM's JSON object when it has prefix_buckets (which key=value cannot
// hold).
func (sp Spec) String() string {
	if len(sp.PrefixBuckets) > 0 || len(sp.Mix) > 0 || sp.Session.ToolsJSON != nil || sp.Session.Branches != nil || sp.Session.ToolCallTurnList != nil || sp.Session.ServerToolTurnList != nil || sp.Session.TurnLengths != nil {
		return string(sp.guideLLM())
	}
	parts := append(sp.Prompt.keys("prompt_tokens"), sp.Output.keys("output_tokens")...)
	if sp.Samples > 0 {
		parts = append(parts, "samples="+strconv.Itoa(sp.Samples))
	}
	if sp.PrefixTokens > 0 {
		parts = append(parts, "prefix_tokens="+strconv.Itoa(sp.PrefixTokens))
	}
	if sp.PrefixCount > 0 {
		parts = append(parts, "prefix_count="+strconv.Itoa(sp.PrefixCount))
	}
	parts = append(parts, sp.Session.keys()...)
	parts = append(parts, sp.Media.keys()...)
	return strings.Join(parts, ",")
}

// guideLLM returns the spec as GuideLLM's synthetic_text data object, for
// a report's config.
func (sp Spec) guideLLM() json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"kind":"synthetic_text"`)
	for _, kv := range append(sp.Prompt.keys("prompt_tokens"), sp.Output.keys("output_tokens")...) {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&b, `,%q:%s`, k, v)
	}
	if len(sp.Mix) > 0 {
		fmt.Fprintf(&b, `,"sequence_distribution":%s`, mixJSON(sp.Mix))
	}
	if sp.Samples > 0 {
		fmt.Fprintf(&b, `,"samples":%d`, sp.Samples)
	}
	if bk := sp.buckets(); bk != nil {
		j, _ := json.Marshal(bk)
		fmt.Fprintf(&b, `,"prefix_buckets":%s`, j)
	}
	if sp.Session.ToolsJSON != nil {
		fmt.Fprintf(&b, `,"tools":%s`, sp.Session.ToolsJSON)
	}
	if sp.Session.Branches != nil {
		j, _ := json.Marshal(sp.Session.Branches)
		fmt.Fprintf(&b, `,"branches":%s`, j)
	}
	if l := sp.Session.ToolCallTurnList; l != nil {
		j, _ := json.Marshal(l)
		fmt.Fprintf(&b, `,"tool_call_turns":%s`, j)
	}
	if l := sp.Session.TurnLengths; l != nil {
		fmt.Fprintf(&b, `,"turn_lengths":%s`, turnLengthsJSON(l))
	}
	if l := sp.Session.ServerToolTurnList; l != nil {
		j, _ := json.Marshal(l)
		fmt.Fprintf(&b, `,"server_tool_call_turns":%s`, j)
	}
	for _, kv := range sp.Session.keys() {
		k, v, _ := strings.Cut(kv, "=")
		if _, err := strconv.ParseFloat(v, 64); err != nil && v != "true" {
			v = strconv.Quote(v)
		}
		fmt.Fprintf(&b, `,%q:%s`, k, v)
	}
	b.WriteByte('}')
	return json.RawMessage(b.Bytes())
}
