package dataset

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/goodput-dev/goodput/tokenize"
)

// Where a unit sits, which decides how it may tokenize.
const (
	ctxStart = iota // opens the text (a user prompt without a system prefix, or a system prefix)
	ctxJoin         // opens the user prompt after a system prefix and loadgen's "\n\n" join
	ctxMid          // follows another unit
	numCtx
)

// joinSep is what loadgen puts between the system prefix and the user prompt
// in Request.Text() and in /v1/completions prompts.
const joinSep = "\n\n"

// Alphabet sizes: up to maxMid single-token mid units (the digits of the
// marker after its first, and the words of every body) and up to maxFirst
// units that may open a text.
const (
	maxMid   = 256
	maxFirst = 16
)

// vocab is the set of text units prompts are built from. Every unit is one
// token in its context and, in exact mode, the tokenizer has been shown to
// tokenize any sequence of units as the concatenation of the units' own
// tokens (see newExactVocab).
type vocab struct {
	tok   *tokenize.Tokenizer // nil in approximate mode
	units [numCtx][]string    // units[ctxMid] are " word" units
	ids   [numCtx][]int       // token id of each unit (exact mode)
	// tail is the last unit of every system prefix and pad what follows it
	// before joinSep; sepIDs are the tokens of pad+joinSep after tail.
	tail   string
	pad    string
	sepIDs []int
}

// sepTokens is the number of tokens the join adds after a system prefix's
// last unit.
func (v *vocab) sepTokens() int {
	if v.tok == nil {
		return 1
	}
	return len(v.sepIDs)
}

// approxVocab is the vocabulary without a tokenizer: one common English word
// counts as one token, which holds for these words in the major BPE
// vocabularies but is not checked.
func approxVocab() *vocab {
	words := strings.Fields(englishWords)
	v := &vocab{tail: " the"}
	for _, w := range words {
		v.units[ctxMid] = append(v.units[ctxMid], " "+w)
	}
	for _, w := range words[:maxFirst] {
		v.units[ctxStart] = append(v.units[ctxStart], capitalize(w))
	}
	v.units[ctxJoin] = v.units[ctxStart]
	return v
}

func capitalize(w string) string {
	if w == "" {
		return w
	}
	return strings.ToUpper(w[:1]) + w[1:]
}

// newExactVocab selects units for tok and proves that they compose.
//
// Every unit is a word of ASCII letters, optionally with one leading space.
// The proof rests on a property of BPE: if no merge joins two adjacent units
// when a pair is tokenized on its own (in the same left context), none joins
// them in any longer text, because the merges inside each unit happen in the
// same rank order either way and the first merge across a boundary would
// already have happened in the pair. Pre-tokenizers of the supported models
// split before a space-and-letters word whatever precedes it, so they keep
// the units apart too. The checks, each comparing token ids (not counts):
//
//   - every mid unit is one token after an opening unit;
//   - every ordered pair of mid units (all K² of them, in one text that
//     walks a de Bruijn sequence) tokenizes as the two units' tokens;
//   - every opening unit of each context is one token there, and followed by
//     every mid unit tokenizes as the two tokens;
//   - with join, a system prefix's tail unit followed by pad+"\n\n" and each
//     opening unit of ctxJoin tokenizes as the parts.
//
// A unit involved in a failing check is dropped; too few units left is an
// error naming the tokenizer.
func newExactVocab(tok *tokenize.Tokenizer, join bool) (*vocab, error) {
	v := &vocab{tok: tok}
	cands := candidateWords(tok)

	// Opening units at the text start: capitalized words first, then
	// lowercase, then with a leading space.
	for _, form := range openingForms {
		for _, w := range cands {
			if len(v.units[ctxStart]) == 4*maxFirst {
				break
			}
			u := form(w)
			if ids := tok.Encode(u); len(ids) == 1 && !slices.Contains(v.ids[ctxStart], ids[0]) && v.decodes(ids[0], u) {
				v.units[ctxStart] = append(v.units[ctxStart], u)
				v.ids[ctxStart] = append(v.ids[ctxStart], ids[0])
			}
		}
	}
	if len(v.units[ctxStart]) == 0 {
		return nil, fmt.Errorf("tokenizer %s: no English word is a single token at the start of a text, so exact prompts cannot be built", tok.Name())
	}
	f0, f0id := v.units[ctxStart][0], v.ids[ctxStart][0]

	// Mid units: " word", one token after f0.
	seen := map[int]bool{}
	for _, w := range cands {
		if len(v.units[ctxMid]) == maxMid {
			break
		}
		u := " " + w
		if ids := tok.Encode(f0 + u); len(ids) == 2 && ids[0] == f0id && !seen[ids[1]] && v.decodes(ids[1], u) {
			seen[ids[1]] = true
			v.units[ctxMid] = append(v.units[ctxMid], u)
			v.ids[ctxMid] = append(v.ids[ctxMid], ids[1])
		}
	}
	// Short texts first: the tokenizer's pooled buffers grow to the longest
	// text encoded, and every later call pays for clearing them.
	if err := v.proveFirst(ctxStart, "", nil); err != nil {
		return nil, err
	}
	if join {
		if err := v.proveJoin(f0, f0id, cands); err != nil {
			return nil, err
		}
	}
	// Dropping mid units below keeps the checks above valid (they covered a
	// superset).
	if err := v.provePairs(f0, f0id); err != nil {
		return nil, err
	}
	return v, nil
}

// openingForms are the spellings tried for units that open a text.
var openingForms = [...]func(string) string{
	capitalize,
	func(w string) string { return w },
	func(w string) string { return " " + w },
}

// decodes reports whether token id decodes to the unit's word, so that no
// unit is an unknown-token stand-in.
func (v *vocab) decodes(id int, unit string) bool {
	trim := func(s string) string {
		return strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '▁' })
	}
	return trim(v.tok.Decode([]int{id})) == trim(unit)
}

// candidateWords returns the English word list, and when few of its words are
// single tokens (small test vocabularies), the all-letter tokens of the
// vocabulary too.
func candidateWords(tok *tokenize.Tokenizer) []string {
	words := strings.Fields(englishWords)
	single, base := 0, tok.Count("a")
	for _, w := range words[:64] {
		if tok.Count("a "+w) == base+1 {
			single++
		}
	}
	if single >= 32 || tok.VocabSize() > 1<<20 {
		return words
	}
	have := make(map[string]bool, len(words))
	for _, w := range words {
		have[w] = true
	}
	for id := 0; id < tok.VocabSize(); id++ {
		w := strings.TrimFunc(tok.Decode([]int{id}), func(r rune) bool { return unicode.IsSpace(r) || r == '▁' })
		if w != "" && !have[w] && isASCIILetters(w) {
			have[w] = true
			words = append(words, w)
		}
	}
	return words
}

func isASCIILetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// provePairs checks every ordered pair of mid units, dropping units until
// the whole de Bruijn walk tokenizes as its units. The walk is encoded in
// chunks of pairsChunk units that overlap by one unit, each after f0, so
// every adjacent pair is inside a chunk.
func (v *vocab) provePairs(f0 string, f0id int) error {
	for attempt := 0; ; attempt++ {
		k := len(v.units[ctxMid])
		if k < 2 {
			return fmt.Errorf("tokenizer %s: fewer than two words are single tokens that never merge with each other, so exact prompts cannot be built", v.tok.Name())
		}
		seq := deBruijn2(k)
		bad := -1
		for lo := 0; lo < len(seq)-1 && bad < 0; lo += pairsChunk - 1 {
			hi := min(lo+pairsChunk, len(seq))
			if j := v.diffUnits(f0, f0id, seq[lo:hi]); j >= 0 {
				bad = lo + j
			}
		}
		if bad < 0 {
			return nil
		}
		if attempt == 16 {
			return fmt.Errorf("tokenizer %s: words keep merging across word boundaries, so exact prompts cannot be built", v.tok.Name())
		}
		// Unit seq[bad] tokenized differently: drop it and its neighbours.
		drop := map[int]bool{}
		for _, p := range []int{bad - 1, bad, bad + 1} {
			if p >= 0 && p < len(seq) {
				drop[seq[p]] = true
			}
		}
		v.dropMid(drop)
	}
}

// pairsChunk is the number of units encoded at once by provePairs and
// verifyBody.
const pairsChunk = 2048

// diffUnits encodes f0 followed by the mid units seq and returns the index in
// seq of the first unit whose token differs from its own, -1 when none does.
func (v *vocab) diffUnits(f0 string, f0id int, seq []int) int {
	var b strings.Builder
	b.WriteString(f0)
	want := make([]int, 0, len(seq)+1)
	want = append(want, f0id)
	for _, u := range seq {
		b.WriteString(v.units[ctxMid][u])
		want = append(want, v.ids[ctxMid][u])
	}
	j := firstDiff(v.tok.Encode(b.String()), want)
	if j < 0 {
		return -1
	}
	return max(0, min(j-1, len(seq)-1))
}

func (v *vocab) dropMid(drop map[int]bool) {
	var units []string
	var ids []int
	for i, u := range v.units[ctxMid] {
		if !drop[i] {
			units = append(units, u)
			ids = append(ids, v.ids[ctxMid][i])
		}
	}
	v.units[ctxMid], v.ids[ctxMid] = units, ids
}

// proveFirst keeps the opening units of ctx (already one token after left,
// whose tokens are leftIDs) that, followed by any mid unit, tokenize as the
// two tokens; at most maxFirst are kept.
func (v *vocab) proveFirst(ctx int, left string, leftIDs []int) error {
	var units []string
	var ids []int
	want := make([]int, 0, len(leftIDs)+2)
	for i, f := range v.units[ctx] {
		if len(units) == maxFirst {
			break
		}
		ok := true
		for a, u := range v.units[ctxMid] {
			want = append(append(want[:0], leftIDs...), v.ids[ctx][i], v.ids[ctxMid][a])
			if !slices.Equal(v.tok.Encode(left+f+u), want) {
				ok = false
				break
			}
		}
		if ok {
			units = append(units, f)
			ids = append(ids, v.ids[ctx][i])
		}
	}
	if len(units) == 0 {
		where := "at the start of a text"
		if ctx == ctxJoin {
			where = "after a system prefix"
		}
		return fmt.Errorf("tokenizer %s: no word can open a prompt %s without merging with the next word, so exact prompts cannot be built", v.tok.Name(), where)
	}
	v.units[ctx], v.ids[ctx] = units, ids
	return nil
}

// proveJoin finds a tail unit and pad for system prefixes and the opening
// units of a user prompt after them.
func (v *vocab) proveJoin(f0 string, f0id int, cands []string) error {
	for ti, tail := range v.units[ctxMid] {
		if ti == 8 {
			break
		}
		tailID := v.ids[ctxMid][ti]
		for _, pad := range []string{"", " "} {
			left := f0 + tail + pad + joinSep
			got := v.tok.Encode(left)
			if len(got) < 3 || got[0] != f0id || got[1] != tailID {
				continue
			}
			sep := got[2:]
			v.units[ctxJoin], v.ids[ctxJoin] = nil, nil
			for _, w := range cands {
				if len(v.units[ctxJoin]) == 4*maxFirst {
					break
				}
				for _, form := range openingForms {
					u := form(w)
					ids := v.tok.Encode(left + u)
					if len(ids) == len(got)+1 && slices.Equal(ids[:len(got)], got) && !slices.Contains(v.ids[ctxJoin], ids[len(got)]) && v.decodes(ids[len(got)], u) {
						v.units[ctxJoin] = append(v.units[ctxJoin], u)
						v.ids[ctxJoin] = append(v.ids[ctxJoin], ids[len(got)])
						break
					}
				}
			}
			if len(v.units[ctxJoin]) == 0 {
				continue
			}
			if v.proveFirst(ctxJoin, left, got) != nil {
				continue
			}
			v.tail, v.pad, v.sepIDs = tail, pad, sep
			return nil
		}
	}
	return fmt.Errorf("tokenizer %s: no word can follow a system prefix joined by a blank line without merging, so exact prompts with prefix_tokens cannot be built", v.tok.Name())
}

// firstDiff returns the first index where a and b differ, -1 when equal.
func firstDiff(a, b []int) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// deBruijn2 returns a sequence over 0..k-1 in which every ordered pair (with
// repeats) appears as adjacent elements: the de Bruijn sequence B(k, 2)
// followed by its first element, k²+1 long.
func deBruijn2(k int) []int {
	a := make([]int, 2*k+2)
	seq := make([]int, 0, k*k+1)
	var db func(t, p int)
	db = func(t, p int) {
		if t > 2 {
			if 2%p == 0 {
				seq = append(seq, a[1:p+1]...)
			}
			return
		}
		a[t] = a[t-p]
		db(t+1, p)
		for j := a[t-p] + 1; j < k; j++ {
			a[t] = j
			db(t+1, t)
		}
	}
	db(1, 1)
	return append(seq, seq[0])
}
