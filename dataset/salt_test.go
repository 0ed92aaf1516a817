package dataset

import (
	"testing"
)

// TestPromptSalt: a salted source sends prompts of the same token counts
// as the unsalted one with the same seed, none of which starts like an
// unsalted prompt, and that stay distinct from each other; its shared
// prefixes stay shared within the run and differ from the unsalted ones.
func TestPromptSalt(t *testing.T) {
	tok := builtin(t, "o200k_base")
	sp := "prompt_tokens=80,prompt_tokens_stdev=20,prompt_tokens_min=40,prompt_tokens_max=120,output_tokens=16,prefix_tokens=64,prefix_count=2"
	open := func(salt uint64) *Dataset {
		t.Helper()
		d, err := Open(sp, Options{Tokenizer: tok, Seed: 42, Salt: salt})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	plain, salted, other := open(0), open(0x5eed), open(7)
	if salted.Description.Salt != 0x5eed || plain.Description.Salt != 0 {
		t.Errorf("descriptions' salts %#x and %#x, want 0x5eed and 0", salted.Description.Salt, plain.Description.Salt)
	}
	width := salted.synth.gen.dmin[ctxJoin]
	seen := map[string]bool{}
	sys := map[string]bool{}
	for i := range uint64(200) {
		a, _ := plain.Source.Request(i)
		b, _ := salted.Source.Request(i)
		c, _ := other.Source.Request(i)
		if a.TargetPromptTokens != b.TargetPromptTokens || b.PromptTokens != a.PromptTokens || b.MaxTokens != a.MaxTokens {
			t.Fatalf("request %d: salted %d/%d tokens (max %d), unsalted %d/%d (max %d)", i,
				b.PromptTokens, b.TargetPromptTokens, b.MaxTokens, a.PromptTokens, a.TargetPromptTokens, a.MaxTokens)
		}
		if n := tok.Count(b.Text()); n != b.TargetPromptTokens {
			t.Fatalf("request %d: salted prompt encodes to %d tokens, want %d", i, n, b.TargetPromptTokens)
		}
		if b.Messages[0].Content == a.Messages[0].Content || b.Messages[0].Content == c.Messages[0].Content {
			t.Fatalf("request %d: the salted system prefix is another run's", i)
		}
		ua, ub, uc := tok.Encode(a.Messages[1].Content), tok.Encode(b.Messages[1].Content), tok.Encode(c.Messages[1].Content)
		if longestCommonPrefix([][]int{ua, ub}) >= width || longestCommonPrefix([][]int{ub, uc}) >= width {
			t.Fatalf("request %d: the salted prompt starts like another run's", i)
		}
		if seen[b.Messages[1].Content] {
			t.Fatalf("request %d: salted prompt repeats an earlier one", i)
		}
		seen[b.Messages[1].Content] = true
		sys[b.Messages[0].Content] = true
	}
	if len(sys) != 2 {
		t.Errorf("%d distinct salted prefixes, want prefix_count=2", len(sys))
	}
}
