package report

import "testing"

// Two shards: 80 of 100 and 20 of 100 cached (100 of 200, 0.5); short
// outputs 1 of 4 by 10 tokens (stop) and 3 of 4 by 2, 2, 8 (stop 2 by 5
// on average, length 1 by 2): 4 of 8 short, (10 + 12) / 4 = 5.5 tokens;
// stop 3 by (10 + 10) / 3.
func TestMergeHonesty(t *testing.T) {
	a := &Extras{PromptCache: &PromptCache{CacheCounts: CacheCounts{Requests: 4, PromptTokens: 100, CachedTokens: 80, HitRate: 0.8}},
		OutputShortfall: &OutputShortfall{Requests: 4, Short: 1, ShortFraction: 0.25, MeanShortfall: 10,
			ByFinishReason: map[string]*ShortfallCounts{"stop": {Short: 1, MeanShortfall: 10}}}}
	b := &Extras{PromptCache: &PromptCache{CacheCounts: CacheCounts{Requests: 4, PromptTokens: 100, CachedTokens: 20, HitRate: 0.2}},
		OutputShortfall: &OutputShortfall{Requests: 4, Short: 3, ShortFraction: 0.75, MeanShortfall: 4,
			ByFinishReason: map[string]*ShortfallCounts{"stop": {Short: 2, MeanShortfall: 5}, "length": {Short: 1, MeanShortfall: 2}}}}
	var into Extras
	MergeHonesty(&into, []*Extras{a, nil, b})
	if pc := into.PromptCache; pc == nil || pc.CacheCounts != (CacheCounts{Requests: 8, PromptTokens: 200, CachedTokens: 100, HitRate: 0.5}) || pc.Standalone != nil {
		t.Errorf("prompt cache %+v", pc)
	}
	sh := into.OutputShortfall
	if sh == nil || sh.Requests != 8 || sh.Short != 4 || sh.ShortFraction != 0.5 || sh.MeanShortfall != 5.5 {
		t.Fatalf("shortfall %+v", sh)
	}
	if st := sh.ByFinishReason["stop"]; st.Short != 3 || float64(st.MeanShortfall) != 20.0/3 {
		t.Errorf("stop %+v", st)
	}
	if l := sh.ByFinishReason["length"]; *l != (ShortfallCounts{Short: 1, MeanShortfall: 2}) {
		t.Errorf("length %+v", l)
	}
	MergeHonesty(&into, []*Extras{{}, {}})
	if into.PromptCache != nil || into.OutputShortfall != nil {
		t.Errorf("no figures: %+v %+v", into.PromptCache, into.OutputShortfall)
	}
}
