package tokenize

import (
	"strings"
	"unicode/utf8"
)

// bpe is a byte-pair-encoding model with Hugging Face's semantics (models/bpe in
// the tokenizers crate): a word is split into characters, each looked up in the
// vocabulary (with continuing-subword prefix, end-of-word suffix, byte fallback and
// unknown-token handling), then adjacent symbols are merged, lowest merge rank first
// and leftmost first among equal ranks, until no pair can be merged.
type bpe struct {
	vocab map[string]int32
	// merges maps a pair of ids (left<<32 | right) to (rank<<32 | merged id).
	merges map[uint64]uint64

	unk          int32 // id of unk_token, -1 when there is none
	fuseUnk      bool
	byteFallback bool
	byteTokens   [256]int32 // ids of <0x00>..<0xFF>, -1 where missing
	ignoreMerges bool
	prefix       string // continuing_subword_prefix
	suffix       string // end_of_word_suffix

	// inputMode says what the pieces handed to the model are: text to look up as
	// is, or raw bytes to see through the GPT-2 byte-level mapping (the last
	// ByteLevel pre-tokenizer step, deferred into the model), or raw bytes looked
	// up as bytes (tiktoken rank files).
	inputMode inputMode
	// byteIDs holds the initial symbol of every byte when the byte-wise fast path
	// applies (byteFast); it is exact because each byte is one character of the
	// mapped text and no prefix or suffix is added.
	byteIDs  [256]int32
	byteFast bool

	cache *wordCache // recent short words; nil disables caching

	// splitAtMeta says that a word may be cut before a "▁" that follows a
	// character c other than "▁" without changing the result, unless c is in
	// metaJoiners (or, with metaFallbackJoins, is not a token itself). This holds
	// because the symbol after such a cut always starts with "▁" (a token), the
	// one before it ends with c, and the only merges joining a left symbol that
	// does not end with "▁" to a right one that starts with it have left symbols
	// ending with a character of metaJoiners (collected from the merges at load
	// time). A character that is not a token becomes byte-fallback or unknown
	// tokens, or is dropped; metaFallbackJoins is set when that could bring a
	// joining symbol next to the cut, and then such characters never allow one.
	// SentencePiece-style models have no pre-tokenizer, so without this cut a
	// whole paragraph would be one BPE word.
	splitAtMeta       bool
	metaJoiners       map[rune]bool
	metaFallbackJoins bool
}

const metaspace = "\u2581" // ▁

type inputMode uint8

const (
	inputText inputMode = iota
	inputByteLevel
	inputRawBytes
)

func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// prepare computes the byte-wise fast path tables once the vocabulary is known.
func (m *bpe) prepare() {
	for i := range m.byteTokens {
		m.byteTokens[i] = -1
		if m.byteFallback {
			if id, ok := m.vocab[byteFallbackToken(byte(i))]; ok {
				m.byteTokens[i] = id
			}
		}
	}
	m.cache = newWordCache()
	if m.inputMode != inputText {
		m.splitAtMeta = false
	}
	m.byteFast = false
	if m.inputMode == inputText || m.prefix != "" || m.suffix != "" {
		return
	}
	for b := 0; b < 256; b++ {
		key := string([]byte{byte(b)})
		if m.inputMode == inputByteLevel {
			key = byteLevel.byteToStr[b]
		}
		id, ok := m.vocab[key]
		if !ok {
			return
		}
		m.byteIDs[b] = id
	}
	m.byteFast = true
}

func byteFallbackToken(b byte) string {
	const hex = "0123456789ABCDEF"
	return string([]byte{'<', '0', 'x', hex[b>>4], hex[b&15], '>'})
}

// tokenize appends the ids of one pre-tokenized word.
func (m *bpe) tokenize(w string, sc *scratch, out []int32) []int32 {
	if !m.splitAtMeta {
		return m.tokenizeCached(w, sc, out)
	}
	start := 0
	for i := 1; i < len(w); {
		j := strings.Index(w[i:], metaspace)
		if j < 0 {
			break
		}
		i += j
		if m.canCutBefore(w[:i]) {
			out = m.tokenizeCached(w[start:i], sc, out)
			start = i
		}
		i += len(metaspace)
	}
	return m.tokenizeCached(w[start:], sc, out)
}

// canCutBefore reports whether a word may be cut after head, before a "▁".
func (m *bpe) canCutBefore(head string) bool {
	c, size := utf8.DecodeLastRuneInString(head)
	if c == '\u2581' || m.metaJoiners[c] {
		return false
	}
	if m.metaFallbackJoins {
		if _, ok := m.vocab[head[len(head)-size:]]; !ok {
			return false
		}
	}
	return true
}

// tokenizeCached is tokenizeWord behind the word cache.
func (m *bpe) tokenizeCached(w string, sc *scratch, out []int32) []int32 {
	if w == "" {
		return out
	}
	if m.cache == nil || len(w) > maxCachedWordLen {
		return m.tokenizeWord(w, sc, out)
	}
	if res, ok := m.cache.get(w, out); ok {
		return res
	}
	start := len(out)
	out = m.tokenizeWord(w, sc, out)
	m.cache.put(w, out[start:])
	return out
}

// tokenizeWord is tokenize without the cache.
func (m *bpe) tokenizeWord(w string, sc *scratch, out []int32) []int32 {
	text := w
	if m.inputMode == inputByteLevel && !m.byteFast {
		sc.buf = byteLevel.appendMapped(sc.buf[:0], w)
		text = string(sc.buf)
	}
	if m.ignoreMerges {
		var id int32
		var ok bool
		if m.inputMode == inputByteLevel && m.byteFast {
			sc.buf = byteLevel.appendMapped(sc.buf[:0], w)
			id, ok = m.vocab[string(sc.buf)]
		} else {
			id, ok = m.vocab[text]
		}
		if ok {
			return append(out, id)
		}
	}
	syms := sc.syms[:0]
	if m.byteFast {
		for i := 0; i < len(w); i++ {
			syms = append(syms, m.byteIDs[w[i]])
		}
	} else {
		syms = m.initialSymbols(text, sc, syms)
	}
	sc.syms = syms
	if len(syms) == 0 {
		return out
	}
	if len(syms) == 1 {
		return append(out, syms[0])
	}
	return m.merge(sc, out)
}

// initialSymbols is Hugging Face's BPE::merge_word up to (not including) the merges.
func (m *bpe) initialSymbols(w string, sc *scratch, syms []int32) []int32 {
	unkPending := false
	for i := 0; i < len(w); {
		_, size := utf8.DecodeRuneInString(w[i:])
		ch := w[i : i+size]
		isFirst := i == 0
		isLast := i+size == len(w)
		i += size

		key := ch
		if (!isFirst && m.prefix != "") || (isLast && m.suffix != "") {
			b := sc.buf[:0]
			if !isFirst {
				b = append(b, m.prefix...)
			}
			b = append(b, ch...)
			if isLast {
				b = append(b, m.suffix...)
			}
			sc.buf = b
			key = string(b)
		}
		if id, ok := m.vocab[key]; ok {
			if unkPending {
				syms = append(syms, m.unk)
				unkPending = false
			}
			syms = append(syms, id)
			continue
		}
		if m.byteFallback {
			all := true
			for k := 0; k < len(key); k++ {
				if m.byteTokens[key[k]] < 0 {
					all = false
					break
				}
			}
			if all {
				// As in Hugging Face, a pending fused unknown is not flushed here:
				// it is emitted after these bytes, when the next known character
				// or the end of the word arrives.
				for k := 0; k < len(key); k++ {
					syms = append(syms, m.byteTokens[key[k]])
				}
				continue
			}
		}
		if m.unk >= 0 {
			if unkPending && !m.fuseUnk {
				syms = append(syms, m.unk)
			}
			unkPending = true
		}
		// Without an unknown token the character is dropped, as in Hugging Face.
	}
	if unkPending {
		syms = append(syms, m.unk)
	}
	return syms
}

// merge applies the merges to sc.syms and appends the resulting ids to out.
//
// Candidate merges wait in a min-heap keyed by rank<<32|position (lowest rank
// first, then leftmost: Hugging Face's order). A heap entry goes stale when the
// pair at its position changes; instead of looking the pair up again, every
// position carries a stamp that is bumped whenever its pair changes, and an
// entry is valid only while the stamp it recorded is current.
func (m *bpe) merge(sc *scratch, out []int32) []int32 {
	syms := sc.syms
	n := len(syms)
	next := grow32(sc.next, n)
	prev := grow32(sc.prev, n)
	stamp := grow32(sc.stamp, n)
	for i := 0; i < n; i++ {
		next[i] = int32(i + 1)
		prev[i] = int32(i - 1)
		stamp[i] = 0
	}
	next[n-1] = -1
	h := sc.heap[:0]
	for i := 0; i+1 < n; i++ {
		if v, ok := m.merges[pairKey(syms[i], syms[i+1])]; ok {
			h = append(h, heapEntry{key: v&^0xFFFFFFFF | uint64(i), merged: int32(uint32(v))})
		}
	}
	heapInit(h)
	for len(h) > 0 {
		top := h[0]
		h = heapPop(h)
		pos := int32(uint32(top.key))
		if top.stamp != stamp[pos] || prev[pos] == -2 {
			continue // the pair at pos changed since this entry was pushed
		}
		nx := next[pos]
		syms[pos] = top.merged
		nn := next[nx]
		next[pos] = nn
		prev[nx] = -2
		stamp[pos]++
		if nn >= 0 {
			prev[nn] = pos
		}
		if p := prev[pos]; p >= 0 {
			stamp[p]++
			if v, ok := m.merges[pairKey(syms[p], syms[pos])]; ok {
				h = heapPush(h, heapEntry{key: v&^0xFFFFFFFF | uint64(p), merged: int32(uint32(v)), stamp: stamp[p]})
			}
		}
		if nn >= 0 {
			if v, ok := m.merges[pairKey(syms[pos], syms[nn])]; ok {
				h = heapPush(h, heapEntry{key: v&^0xFFFFFFFF | uint64(pos), merged: int32(uint32(v)), stamp: stamp[pos]})
			}
		}
	}
	sc.heap, sc.next, sc.prev, sc.stamp = h, next, prev, stamp
	for i := int32(0); i >= 0; i = next[i] {
		out = append(out, syms[i])
	}
	return out
}

// heapEntry is a candidate merge: key is rank<<32|position, merged the id the pair
// becomes, stamp the position's stamp when the entry was pushed.
type heapEntry struct {
	key    uint64
	merged int32
	stamp  int32
}

func grow32(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n, n+n/2)
	}
	return s[:n]
}

// The heap is a binary min-heap of rank<<32|position keys: lowest rank first,
// then leftmost position, which is Hugging Face's merge order.

func heapInit(h []heapEntry) {
	for i := len(h)/2 - 1; i >= 0; i-- {
		heapDown(h, i)
	}
}

func heapDown(h []heapEntry, i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && h[r].key < h[l].key {
			c = r
		}
		if h[i].key <= h[c].key {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

func heapPop(h []heapEntry) []heapEntry {
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	if n > 1 {
		heapDown(h, 0)
	}
	return h
}

func heapPush(h []heapEntry, v heapEntry) []heapEntry {
	h = append(h, v)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if h[p].key <= h[i].key {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
	return h
}
