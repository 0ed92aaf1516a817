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
