package dataset

import (
	"testing"

	"github.com/goodput-dev/goodput/loadgen"
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

// A salted Mooncake trace keeps every request's token count and the
// blocks its hash ids share within the run (requests 0 and 1 share id 0:
// their first 512 tokens), while no block is the unsalted run's.
func TestPromptSaltTrace(t *testing.T) {
	tok := builtin(t, "o200k_base")
	open := func(salt uint64) []*loadgen.Request {
		t.Helper()
		d, err := Open("testdata/mooncake.jsonl", Options{Tokenizer: tok, Trace: true, Seed: 3, Salt: salt})
		if err != nil {
			t.Fatal(err)
		}
		return requests(t, d.Source)
	}
	plain, salted := open(0), open(99)
	if len(plain) != len(salted) {
		t.Fatalf("%d salted requests, %d unsalted", len(salted), len(plain))
	}
	ids := make([][]int, len(salted))
	for i, r := range salted {
		ids[i] = tok.Encode(r.Text())
		if len(ids[i]) != plain[i].TargetPromptTokens || r.PromptTokens != plain[i].PromptTokens {
			t.Errorf("request %d: salted %d tokens encoded (PromptTokens %d), unsalted %d", i, len(ids[i]), r.PromptTokens, plain[i].PromptTokens)
		}
		if r.Text()[:64] == plain[i].Text()[:64] {
			t.Errorf("request %d starts like the unsalted run's", i)
		}
	}
	if lcp := longestCommonPrefix(ids[:2]); lcp < 512 {
		t.Errorf("requests 0 and 1 share %d tokens, want their common block of 512", lcp)
	}
}
