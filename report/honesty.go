package report

// PromptCache is how much of the benchmark's prompts the server served
// from its prefix cache, by its own usage
// (usage.prompt_tokens_details.cached_tokens and the other APIs'
// equivalents), over the successful in-window requests that reported a
// cached count.
type PromptCache struct {
	CacheCounts
	// Standalone is the same over the requests outside sessions (whose
	// turns are meant to hit the cache); nil when the benchmark ran no
	// sessions.
	Standalone *CacheCounts `json:"standalone,omitempty"`
}

// CacheCounts are prompt and cached token sums and their ratio.
type CacheCounts struct {
	Requests     Int   `json:"requests"`
	PromptTokens Int   `json:"prompt_tokens"`
	CachedTokens Int   `json:"cached_tokens"`
	HitRate      Float `json:"hit_rate"` // CachedTokens / PromptTokens, 0..1
}

// OutputShortfall counts the successful in-window requests that asked for
// an output length (max_tokens) and got fewer tokens: an early stop (an
// EOS the server did not ignore, a stop sequence) or a cut (the context
// limit).
type OutputShortfall struct {
	// Requests is the requests that asked for a length; Short those that
	// got fewer tokens, ShortFraction their share, and MeanShortfall the
	// mean of (asked − got) tokens over the short ones.
	Requests      Int   `json:"requests"`
	Short         Int   `json:"short"`
	ShortFraction Float `json:"short_fraction"`
	MeanShortfall Float `json:"mean_shortfall_tokens"`
	// ByFinishReason breaks the short requests down by the server's
	// finish_reason ("unknown" when it gave none).
	ByFinishReason map[string]*ShortfallCounts `json:"by_finish_reason"`
}

// ShortfallCounts are the short requests of one finish reason.
type ShortfallCounts struct {
	Short         Int   `json:"short"`
	MeanShortfall Float `json:"mean_shortfall_tokens"`
}

// MergeHonesty sets into's PromptCache and OutputShortfall to the sums of
// parts' (shards of one benchmark): token and request counts add up,
// ratios and means are recomputed from them. Parts without a figure add
// nothing; nil when none has it.
func MergeHonesty(into *Extras, parts []*Extras) {
	var pc *PromptCache
	var sh *OutputShortfall
	var shortTokens float64
	byTokens := map[string]float64{}
	for _, g := range parts {
		if g == nil {
			continue
		}
		if p := g.PromptCache; p != nil {
			if pc == nil {
				pc = &PromptCache{}
			}
			pc.CacheCounts.add(p.CacheCounts)
			if p.Standalone != nil {
				if pc.Standalone == nil {
					pc.Standalone = &CacheCounts{}
				}
				pc.Standalone.add(*p.Standalone)
			}
		}
		if s := g.OutputShortfall; s != nil {
			if sh == nil {
				sh = &OutputShortfall{ByFinishReason: map[string]*ShortfallCounts{}}
			}
			sh.Requests += s.Requests
			sh.Short += s.Short
			shortTokens += float64(s.MeanShortfall) * float64(s.Short)
			for k, c := range s.ByFinishReason {
				x := sh.ByFinishReason[k]
				if x == nil {
					x = &ShortfallCounts{}
					sh.ByFinishReason[k] = x
				}
				x.Short += c.Short
				byTokens[k] += float64(c.MeanShortfall) * float64(c.Short)
			}
		}
	}
	if sh != nil && sh.Short > 0 {
		sh.ShortFraction = Float(float64(sh.Short) / float64(sh.Requests))
		sh.MeanShortfall = Float(shortTokens / float64(sh.Short))
		for k, x := range sh.ByFinishReason {
			x.MeanShortfall = Float(byTokens[k] / float64(x.Short))
		}
	}
	into.PromptCache, into.OutputShortfall = pc, sh
}

func (c *CacheCounts) add(o CacheCounts) {
	c.Requests += o.Requests
	c.PromptTokens += o.PromptTokens
	c.CachedTokens += o.CachedTokens
	c.HitRate = 0
	if c.PromptTokens > 0 {
		c.HitRate = Float(float64(c.CachedTokens) / float64(c.PromptTokens))
	}
}
