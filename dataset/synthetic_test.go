package dataset

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/tokenize"
)

// checkExact re-encodes request i of round r and checks PromptTokens, the
// target and the fresh count agree, and the target is what was drawn.
func checkExact(t *testing.T, tok *tokenize.Tokenizer, s *Synthetic, round uint32, i uint64) *loadgen.Request {
	t.Helper()
	r := s.request(round, i)
	var d draw
	if s.pool != nil {
		d = s.pool[i%uint64(len(s.pool))]
	} else {
		d = s.draw(i)
	}
	want := d.n
	if d.prefix >= 0 {
		want += s.prefixes[d.prefix].tokens
	}
	got := tok.Count(r.Text())
	if got != want || r.PromptTokens != want || r.TargetPromptTokens != want || r.MaxTokens != d.out {
		t.Fatalf("request %d round %d: fresh encode %d tokens, PromptTokens %d, TargetPromptTokens %d, drawn %d; MaxTokens %d, drawn %d\ntext: %.300q",
			i, round, got, r.PromptTokens, r.TargetPromptTokens, want, r.MaxTokens, d.out, r.Text())
	}
	return r
}

// TestExactSynthetic re-encodes sampled requests of several specs with every
// test tokenizer: prompt lengths 1..4096, with and without shared prefixes,
// in several sweep rounds.
func TestExactSynthetic(t *testing.T) {
	specs := []string{
		// Every length from 1 to 24 (marker widths 1..4 and beyond).
		"prompt_tokens=12,prompt_tokens_min=1,prompt_tokens_max=24,output_tokens=16",
		// Lengths spread over 1..4096.
		"prompt_tokens=2048,prompt_tokens_min=1,prompt_tokens_max=4096,output_tokens=128,output_tokens_stdev=64",
		"prompt_tokens=4096",
		// Prefixes: one bucket, and several with a no-prefix share.
		"prompt_tokens=200,prompt_tokens_stdev=150,prefix_tokens=300,prefix_count=3",
		`{"prompt_tokens":64,"prompt_tokens_min":1,"prompt_tokens_max":128,"prefix_buckets":[{"bucket_weight":2,"prefix_count":2,"prefix_tokens":1000},{"bucket_weight":1,"prefix_tokens":0},{"bucket_weight":1,"prefix_count":1,"prefix_tokens":17}]}`,
		"prompt_tokens=50,samples=7,prefix_tokens=40",
	}
	if raceEnabled {
		t.Skip("one goroutine, checked by make test without the race detector (TestUniqueMarkers runs under it)")
	}
	samples, short := 40, 400
	for _, nt := range exactTokenizers(t) {
		t.Run(nt.name, func(t *testing.T) {
			// The vocabulary proof is shared by the specs (NewExactSynthetic
			// redoes it each time; it is tested on its own below).
			v, err := newExactVocab(nt.tok, true)
			if err != nil {
				t.Fatal(err)
			}
			for _, spec := range specs {
				sp, err := ParseSpec(spec)
				if err != nil {
					t.Fatal(err)
				}
				s, err := newSynthetic(sp, v, 7, 0)
				if err != nil {
					t.Fatalf("%s: %v", spec, err)
				}
				rng := rand.New(rand.NewPCG(1, 2))
				idx := []uint64{0, 1, 2, 3, markerRequests - 1, markerRequests, 1<<32 - 1}
				for len(idx) < samples {
					idx = append(idx, rng.Uint64N(1<<40))
				}
				lengths := map[int]bool{}
				for k, i := range idx {
					r := checkExact(t, nt.tok, s, uint32(k%3)*(markerRounds-1), i)
					lengths[r.PromptTokens] = true
				}
				if strings.Contains(spec, "max=24") {
					for i := range uint64(short) {
						lengths[checkExact(t, nt.tok, s, 0, i).PromptTokens] = true
					}
					for n := 1; n <= 24; n++ {
						if !lengths[n] {
							t.Errorf("%s: no request of %d tokens among %d", spec, n, short+samples)
						}
					}
				}
			}
			// The constructor's own proof and checks, with prefixes.
			if _, err := NewExactSynthetic(Spec{Prompt: Dist{Mean: 30}, PrefixTokens: 20, PrefixCount: 2}, nt.tok, 1); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestExactPrefixes checks that each shared prefix, with the join, has
// exactly prefix_tokens tokens and that requests carry it as their system
// message.
func TestExactPrefixes(t *testing.T) {
	tok := builtin(t, "o200k_base")
	sp := Spec{Prompt: Dist{Mean: 100}, PrefixTokens: 512, PrefixCount: 4}
	s, err := NewExactSynthetic(sp, tok, 3)
	if err != nil {
		t.Fatal(err)
	}
	systems := map[string]bool{}
	for i := range uint64(8) {
		r, _ := s.Request(i)
		if len(r.Messages) != 2 || r.Messages[0].Role != "system" || r.Messages[1].Role != "user" {
			t.Fatalf("request %d: messages %+v, want system then user", i, r.Messages)
		}
		sys := r.Messages[0].Content
		if n := tok.Count(sys + "\n\n"); n != 512 {
			t.Errorf("request %d: system prefix + join is %d tokens, want 512", i, n)
		}
		if n := tok.Count(r.Messages[1].Content); n != 100 {
			t.Errorf("request %d: user message alone is %d tokens, want 100", i, n)
		}
		if want := s.prefixes[i%4].text; sys != want {
			t.Errorf("request %d: system prefix %d not used in turn", i, i%4)
		}
		systems[sys] = true
	}
	if len(systems) != 4 {
		t.Errorf("%d distinct prefixes, want 4", len(systems))
	}
	// prefix_tokens too short for the join.
	_, err = NewExactSynthetic(Spec{Prompt: Dist{Mean: 10}, PrefixTokens: 2}, tok, 1)
	if err == nil || !strings.Contains(err.Error(), "prefix_tokens=2 is too short") {
		t.Errorf("prefix_tokens=2: error %v, want too short", err)
	}
}

// longestCommonPrefix returns the longest shared leading run of token ids
// between any two of seqs.
func longestCommonPrefix(seqs [][]int) int {
	slices.SortFunc(seqs, slices.Compare)
	best := 0
	for i := 1; i < len(seqs); i++ {
		a, b := seqs[i-1], seqs[i]
		n := 0
		for n < len(a) && n < len(b) && a[n] == b[n] {
			n++
		}
		best = max(best, n)
	}
	return best
}

// TestUniqueMarkers checks that no two requests share a cache prefix by
// accident: among 3,000 requests of each of three sweep rounds (the first,
// second and last of the rounds that share a marker class), no two share
// their first marker-width tokens; with a shared system prefix, no two share
// more than the prefix and fewer than marker-width tokens after it.
func TestUniqueMarkers(t *testing.T) {
	for _, nt := range []namedTokenizer{{"o200k_base", builtin(t, "o200k_base")}, {"fixture bytelevel", fixture(t, "bytelevel")}} {
		t.Run(nt.name, func(t *testing.T) {
			s, err := NewExactSynthetic(Spec{Prompt: Dist{Mean: 64}}, nt.tok, 11)
			if err != nil {
				t.Fatal(err)
			}
			width := s.gen.dmin[ctxStart]
			n := uint64(3000)
			if raceEnabled {
				n = 500
			}
			var seqs [][]int
			for _, round := range []uint32{0, 1, markerRounds - 1} {
				src := s.Round(round)
				for i := range n {
					r, _ := src.Request(i)
					seqs = append(seqs, nt.tok.Encode(r.Text()))
				}
			}
			if lcp := longestCommonPrefix(seqs); lcp >= width {
				t.Errorf("two requests share their first %d tokens; the marker is %d tokens wide", lcp, width)
			}

			p, err := NewExactSynthetic(Spec{Prompt: Dist{Mean: 64}, PrefixTokens: 100, PrefixCount: 2}, nt.tok, 11)
			if err != nil {
				t.Fatal(err)
			}
			width = p.gen.dmin[ctxJoin]
			byPrefix := map[string][][]int{}
			for i := range 2 * n / 3 {
				r, _ := p.Request(i)
				ids := nt.tok.Encode(r.Text())
				if !slices.Equal(ids[:100], nt.tok.Encode(r.Messages[0].Content+"\n\n")) {
					t.Fatalf("request %d: the first 100 tokens are not its system prefix and join", i)
				}
				byPrefix[r.Messages[0].Content] = append(byPrefix[r.Messages[0].Content], ids[100:])
			}
			if len(byPrefix) != 2 {
				t.Fatalf("%d distinct prefixes, want 2", len(byPrefix))
			}
			for _, users := range byPrefix {
				if lcp := longestCommonPrefix(users); lcp >= width {
					t.Errorf("two requests share %d tokens after their common prefix; the marker is %d tokens wide", lcp, width)
				}
			}
		})
	}
}

func TestSyntheticReproducible(t *testing.T) {
	tok := builtin(t, "cl100k_base")
	sp := Spec{Prompt: Dist{Mean: 300, Stdev: 100}, Output: Dist{Mean: 50, Min: 10, Max: 90}, PrefixTokens: 64, PrefixCount: 2}
	texts := func(seed uint64, exact bool) []string {
		var s *Synthetic
		if exact {
			var err error
			if s, err = NewExactSynthetic(sp, tok, seed); err != nil {
				t.Fatal(err)
			}
		} else {
			s = NewSynthetic(sp, seed)
		}
		var out []string
		for i := range uint64(50) {
			r, _ := s.Request(i)
			out = append(out, fmt.Sprintf("%d|%d|%s", r.PromptTokens, r.MaxTokens, r.Text()))
		}
		return out
	}
	for _, exact := range []bool{true, false} {
		a, b, c := texts(5, exact), texts(5, exact), texts(6, exact)
		if !slices.Equal(a, b) {
			t.Errorf("exact=%v: the same seed gave different requests", exact)
		}
		same := 0
		for i := range a {
			if a[i] == c[i] {
				same++
			}
		}
		if same > 0 {
			t.Errorf("exact=%v: seeds 5 and 6 gave %d identical requests of 50", exact, same)
		}
	}
}

func TestSyntheticSamples(t *testing.T) {
	tok := builtin(t, "o200k_base")
	s, err := NewExactSynthetic(Spec{Prompt: Dist{Mean: 100, Stdev: 40}, Output: Dist{Mean: 20, Stdev: 5}, Samples: 5}, tok, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := range uint64(5) {
		a, _ := s.Request(i)
		b, _ := s.Request(i + 5)
		if a.PromptTokens != b.PromptTokens || a.MaxTokens != b.MaxTokens {
			t.Errorf("requests %d and %d: lengths %d/%d and %d/%d, want sample %d's for both", i, i+5, a.PromptTokens, a.MaxTokens, b.PromptTokens, b.MaxTokens, i)
		}
		if a.Text() == b.Text() {
			t.Errorf("requests %d and %d have the same text; each needs its own marker", i, i+5)
		}
		w := s.gen.dmin[ctxStart]
		aw, bw := strings.Fields(a.Text()), strings.Fields(b.Text())
		if !slices.Equal(aw[w:], bw[w:]) {
			t.Errorf("requests %d and %d: bodies differ after the marker; a sample has one body", i, i+5)
		}
	}
}

func TestApproximateSynthetic(t *testing.T) {
	s := NewSynthetic(Spec{Prompt: Dist{Mean: 40, Min: 1, Max: 80}, PrefixTokens: 30, PrefixCount: 2}, 9)
	if s.Exact() {
		t.Fatal("NewSynthetic is exact")
	}
	for i := range uint64(200) {
		r, _ := s.Request(i)
		if r.PromptTokens != -1 || r.MaxTokens != -1 {
			t.Fatalf("request %d: PromptTokens %d MaxTokens %d, want -1 and -1 (approximate, no output spec)", i, r.PromptTokens, r.MaxTokens)
		}
		// One word per token: 29 words of prefix plus the join's one token.
		sys, user := len(strings.Fields(r.Messages[0].Content)), len(strings.Fields(r.Messages[1].Content))
		if sys != 29 || sys+1+user != r.TargetPromptTokens {
			t.Fatalf("request %d: %d system words, %d user words, target %d; want 29 + 1 + user = target", i, sys, user, r.TargetPromptTokens)
		}
	}
	if err := s.Check(0, 3); err != nil {
		t.Errorf("Check on an approximate source: %v", err)
	}
}

// TestExactSyntheticNoTokenizer: the exact constructor needs a tokenizer.
func TestExactSyntheticNoTokenizer(t *testing.T) {
	if _, err := NewExactSynthetic(Spec{Prompt: Dist{Mean: 1}}, nil, 1); err == nil {
		t.Error("NewExactSynthetic(nil tokenizer) succeeded")
	}
}

// TestDeBruijn checks that the walk covers every ordered pair.
func TestDeBruijn(t *testing.T) {
	for _, k := range []int{1, 2, 3, 16, 256} {
		seq := deBruijn2(k)
		if len(seq) != k*k+1 {
			t.Errorf("k=%d: length %d, want %d", k, len(seq), k*k+1)
		}
		seen := map[[2]int]bool{}
		for i := 1; i < len(seq); i++ {
			seen[[2]int{seq[i-1], seq[i]}] = true
		}
		if len(seen) != k*k {
			t.Errorf("k=%d: %d distinct pairs, want %d", k, len(seen), k*k)
		}
	}
}

// TestScramble checks that scramble is a bijection on small capacities and
// spreads consecutive values.
func TestScramble(t *testing.T) {
	for _, c := range []uint64{1, 2, 3, 16, 100, 4096, 16 * 255 * 255} {
		seen := make(map[uint64]bool, c)
		for m := range c {
			x := scramble(m, c)
			if x >= c || seen[x] {
				t.Fatalf("capacity %d: scramble(%d) = %d repeats or is out of range", c, m, x)
			}
			seen[x] = true
		}
	}
	same := 0
	for m := range uint64(1000) {
		if scramble(m, 1<<28)%16 == scramble(m+1, 1<<28)%16 {
			same++
		}
	}
	if same > 1000/16*2 {
		t.Errorf("consecutive values share their first digit %d times in 1000, want about %d", same, 1000/16)
	}
}

// With a prompt overhead (a server's chat template) exact prompts are built
// that much shorter: the requested count stays the target, PromptTokens and
// a fresh encode count the shorter content, and a prompt shorter than the
// overhead keeps one token. Approximate sources ignore the overhead.
func TestExactSyntheticOverhead(t *testing.T) {
	tok, err := tokenize.Builtin("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	d, err := Open("prompt_tokens=128,prompt_tokens_min=3,prompt_tokens_max=200,prompt_tokens_stdev=60,output_tokens=16", Options{Tokenizer: tok, Seed: 1, PromptOverhead: 5})
	if err != nil {
		t.Fatal(err)
	}
	if d.Description.PromptOverhead != 5 || d.Description.PromptTokens.Min < 3 {
		t.Errorf("description %+v", d.Description)
	}
	for i := range uint64(200) {
		r, _ := d.Source.Request(i)
		got := tok.Count(r.Text())
		want := max(r.TargetPromptTokens-5, 1)
		if got != want || r.PromptTokens != want {
			t.Fatalf("request %d: target %d, PromptTokens %d, fresh encode %d, want %d", i, r.TargetPromptTokens, r.PromptTokens, got, want)
		}
	}
	if _, err := d.synth.WithOverhead(-1); err == nil {
		t.Error("a negative overhead was accepted")
	}
	a, err := Open("prompt_tokens=128", Options{Seed: 1, PromptOverhead: 5})
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := a.Source.Request(0); a.Description.PromptOverhead != 0 || r.TargetPromptTokens != 128 {
		t.Errorf("approximate source: overhead %d, target %d", a.Description.PromptOverhead, r.TargetPromptTokens)
	}
	// The probe request is shaped like request 0 but is not one a
	// benchmark sends; approximate data has none.
	e, err := Open("prompt_tokens=64,prefix_tokens=32", Options{Tokenizer: tok, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	p, r0 := e.ProbeRequest(), e.synth.request(0, 0)
	if p == nil || p.PromptTokens != r0.PromptTokens || len(p.Messages) != 2 || p.Text() == r0.Text() || tok.Count(p.Text()) != p.PromptTokens {
		t.Errorf("probe request %+v, request 0 %+v", p, r0)
	}
	if a.ProbeRequest() != nil {
		t.Error("approximate data has a probe request")
	}
}
