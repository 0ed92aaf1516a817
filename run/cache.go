package run

import (
	"fmt"

	"github.com/goodput-dev/goodput/report"
)

// cacheWarmShare is the share of the prompt tokens outside sessions the
// server may serve from its prefix cache before a run's figures are
// called cache-warm.
const cacheWarmShare = 0.5

// cacheNote is the run's warning when most prompt tokens outside sessions
// came from the server's prefix cache, by its usage (cached_tokens) or,
// where no request reported that, by its metrics over the benchmarks
// without sessions; "" otherwise. salted says the prompts carried a
// --prompt-salt, which rules out a rerun's prompts as the cause.
func cacheNote(benches []*report.Benchmark, salted bool) string {
	var prompt, cached float64
	src := "the server's usage (cached_tokens)"
	for _, b := range benches {
		if g := b.Extras; g != nil && g.PromptCache != nil {
			c := g.PromptCache.CacheCounts
			if s := g.PromptCache.Standalone; s != nil {
				c = *s
			}
			prompt += float64(c.PromptTokens)
			cached += float64(c.CachedTokens)
		}
	}
	if prompt == 0 {
		src = "the server's prefix-cache metrics"
		for _, b := range benches {
			g := b.Extras
			if g == nil || g.Sessions != nil || g.Telemetry == nil || g.Telemetry.Server == nil {
				continue
			}
			if pc := g.Telemetry.Server.PrefixCache; pc != nil && pc.Queries != nil && pc.Hits != nil {
				prompt += float64(*pc.Queries)
				cached += float64(*pc.Hits)
			}
		}
	}
	if prompt <= 0 || cached <= cacheWarmShare*prompt {
		return ""
	}
	why := "the server has seen these prompts before (a rerun with the same --random-seed sends the same prompts: --prompt-salt auto makes them new, keeping their lengths) or they share a long prefix (prefix_tokens, a system prompt)"
	if salted {
		why = "the prompts were salted (--prompt-salt), so they share a long prefix (prefix_tokens, a system prompt) or the data repeats itself"
	}
	return fmt.Sprintf("prompt cache: %.0f of %.0f prompt tokens outside sessions (%.1f %%) were served from the server's prefix cache, by %s; the latency and throughput figures are cache-warm: %s",
		cached, prompt, 100*cached/prompt, src, why)
}
