package dataset

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Dist is a token-length distribution in GuideLLM's terms: with a stdev, a
// normal distribution clamped to [Min, Max] (defaults mean ± 5·stdev, at
// least 1); without a stdev but with a min or max, a uniform integer in
// [Min, Max]; otherwise the constant Mean.
type Dist struct {
	Mean, Stdev, Min, Max int
}

// Set reports whether the distribution was given at all.
func (d Dist) Set() bool { return d.Mean > 0 || d.Min > 0 || d.Max > 0 }

// Spec is a synthetic data spec (GuideLLM's synthetic_text keys).
type Spec struct {
	Prompt  Dist // prompt_tokens, prompt_tokens_stdev/min/max
	Output  Dist // output_tokens, output_tokens_stdev/min/max; unset = no max_tokens sent
	Samples int  // samples: number of distinct prompt bodies (0 = one per request)
	// PrefixTokens and PrefixCount describe a shared system prefix: PrefixCount
	// distinct prefixes of PrefixTokens tokens, assigned round robin.
	PrefixTokens int
	PrefixCount  int
}

// specKeys lists accepted keys, for error messages.
var specKeys = []string{
	"prompt_tokens", "prompt_tokens_stdev", "prompt_tokens_min", "prompt_tokens_max",
	"output_tokens", "output_tokens_stdev", "output_tokens_min", "output_tokens_max",
	"samples", "prefix_tokens", "prefix_count",
}

// ParseSpec parses "prompt_tokens=256,output_tokens=128,…" (also accepting
// GuideLLM's JSON object form {"prompt_tokens":256,…}). Errors name the key
// and the accepted form.
func ParseSpec(s string) (Spec, error) {
	var sp Spec
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "{") {
		var err error
		if s, err = jsonToKV(s); err != nil {
			return sp, err
		}
	}
	if s == "" {
		return sp, fmt.Errorf("data spec is empty: want e.g. prompt_tokens=256,output_tokens=128")
	}
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return sp, fmt.Errorf("data spec %q: %q is not key=value (keys: %s)", s, part, strings.Join(specKeys, ", "))
		}
		if seen[k] {
			return sp, fmt.Errorf("data spec: key %q given twice", k)
		}
		seen[k] = true
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 {
			return sp, fmt.Errorf("data spec: %s=%q: want a non-negative integer", k, v)
		}
		switch k {
		case "prompt_tokens":
			sp.Prompt.Mean = n
		case "prompt_tokens_stdev":
			sp.Prompt.Stdev = n
		case "prompt_tokens_min":
			sp.Prompt.Min = n
		case "prompt_tokens_max":
			sp.Prompt.Max = n
		case "output_tokens":
			sp.Output.Mean = n
		case "output_tokens_stdev":
			sp.Output.Stdev = n
		case "output_tokens_min":
			sp.Output.Min = n
		case "output_tokens_max":
			sp.Output.Max = n
		case "samples":
			sp.Samples = n
		case "prefix_tokens":
			sp.PrefixTokens = n
		case "prefix_count":
			sp.PrefixCount = n
		default:
			return sp, fmt.Errorf("data spec: unknown key %q (keys: %s)", k, strings.Join(specKeys, ", "))
		}
	}
	if !sp.Prompt.Set() {
		return sp, fmt.Errorf("data spec %q: prompt_tokens is required, e.g. prompt_tokens=256,output_tokens=128", s)
	}
	for _, d := range []struct {
		name string
		d    Dist
	}{{"prompt_tokens", sp.Prompt}, {"output_tokens", sp.Output}} {
		if d.d.Min > 0 && d.d.Max > 0 && d.d.Min > d.d.Max {
			return sp, fmt.Errorf("data spec: %s_min=%d is above %s_max=%d", d.name, d.d.Min, d.name, d.d.Max)
		}
	}
	if sp.PrefixTokens > 0 && sp.PrefixCount == 0 {
		sp.PrefixCount = 1
	}
	return sp, nil
}

// String renders the spec back in key=value form, keys in a fixed order.
func (sp Spec) String() string {
	var parts []string
	add := func(k string, v int) {
		if v > 0 {
			parts = append(parts, k+"="+strconv.Itoa(v))
		}
	}
	add("prompt_tokens", sp.Prompt.Mean)
	add("prompt_tokens_stdev", sp.Prompt.Stdev)
	add("prompt_tokens_min", sp.Prompt.Min)
	add("prompt_tokens_max", sp.Prompt.Max)
	add("output_tokens", sp.Output.Mean)
	add("output_tokens_stdev", sp.Output.Stdev)
	add("output_tokens_min", sp.Output.Min)
	add("output_tokens_max", sp.Output.Max)
	add("samples", sp.Samples)
	add("prefix_tokens", sp.PrefixTokens)
	add("prefix_count", sp.PrefixCount)
	return strings.Join(parts, ",")
}

// jsonToKV turns a flat JSON object of integers into key=value form.
func jsonToKV(s string) (string, error) {
	var m map[string]json.Number
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return "", fmt.Errorf("data spec %s: want a flat JSON object of integers: %v", s, err)
	}
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v.String())
	}
	sort.Strings(out)
	return strings.Join(out, ","), nil
}
