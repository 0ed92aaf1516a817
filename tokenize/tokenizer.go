package tokenize

import (
	"strings"
	"sync"
)

// Tokenizer encodes text to token ids and decodes ids to text. It is immutable
// after loading and safe for concurrent use by many goroutines: per-call working
// memory comes from a sync.Pool.
type Tokenizer struct {
	name      string
	hash      string
	vocabSize int

	added *addedVocab // nil when the tokenizer has no added tokens
	norm  normalizer  // nil when there is no normalizer
	steps []preStep   // pre-tokenizer, flattened
	model *bpe
	// offsets is set when a component needs original offsets (Metaspace with
	// prepend_scheme "first"); the pipeline then tracks them.
	offsets bool

	// template is the post-processor's single-sequence template; nil means the
	// post-processor adds nothing.
	template []templateItem

	decoders   []decoderStep // nil with hasDecoder == false: tokens joined by spaces
	hasDecoder bool
	idToToken  []string // model vocabulary by id ("" where unused)
	idKnown    []bool   // whether the model vocabulary holds the id

	// server, when set, does all the work (--processor server): the fields
	// above are then empty.
	server *serverTokenizer

	pool sync.Pool
}

// templateItem is one element of a TemplateProcessing "single" template: either
// the encoded sequence (ids == nil) or special-token ids.
type templateItem struct {
	ids      []int32
	sequence bool
}

// scratch is the per-call working memory.
type scratch struct {
	runes    []rune
	runeOffs []int32
	spans    []span
	segs     []piece
	subs     []piece
	bufA     []piece
	bufB     []piece
	ids      []int32
	syms     []int32
	next     []int32
	prev     []int32
	stamp    []int32
	heap     []heapEntry
	buf      []byte
}

// maxPooledLen bounds the buffers kept in the pool, so that one huge input does
// not pin its working memory for the life of the process.
const maxPooledLen = 1 << 20

func (t *Tokenizer) getScratch() *scratch {
	if sc, ok := t.pool.Get().(*scratch); ok {
		return sc
	}
	return &scratch{}
}

func (t *Tokenizer) putScratch(sc *scratch) {
	if cap(sc.runes) > maxPooledLen || cap(sc.ids) > maxPooledLen || cap(sc.syms) > maxPooledLen ||
		cap(sc.spans) > maxPooledLen || cap(sc.buf) > maxPooledLen || cap(sc.heap) > maxPooledLen {
		return
	}
	clear(sc.segs[:cap(sc.segs)])
	clear(sc.subs[:cap(sc.subs)])
	clear(sc.bufA[:cap(sc.bufA)])
	clear(sc.bufB[:cap(sc.bufB)])
	t.pool.Put(sc)
}

// Encode returns the token ids of text without any special tokens added by the
// post-processor. Added and special tokens that appear in the text (for example
// "<|eot_id|>") are recognised, as Hugging Face does with add_special_tokens=False.
// Invalid UTF-8 is tokenized as its raw bytes (byte-level models) or through byte
// fallback / the unknown token (SentencePiece-style models).
func (t *Tokenizer) Encode(text string) []int {
	if t.server != nil {
		return t.server.encode(text, false)
	}
	sc := t.getScratch()
	ids := t.encode(text, sc)
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = int(id)
	}
	t.putScratch(sc)
	return out
}

// EncodeWithSpecial returns the token ids of text with the special tokens that
// the post-processor adds to a single sequence (for example the BOS token of a
// TemplateProcessing), as Hugging Face does with add_special_tokens=True.
func (t *Tokenizer) EncodeWithSpecial(text string) []int {
	if t.server != nil {
		return t.server.encode(text, true)
	}
	if t.template == nil {
		return t.Encode(text)
	}
	sc := t.getScratch()
	ids := t.encode(text, sc)
	n := 0
	for _, it := range t.template {
		if it.sequence {
			n += len(ids)
		} else {
			n += len(it.ids)
		}
	}
	out := make([]int, 0, n)
	for _, it := range t.template {
		src := it.ids
		if it.sequence {
			src = ids
		}
		for _, id := range src {
			out = append(out, int(id))
		}
	}
	t.putScratch(sc)
	return out
}

// Count returns len(Encode(text)) without building the result.
func (t *Tokenizer) Count(text string) int {
	if t.server != nil {
		return len(t.server.encode(text, false))
	}
	sc := t.getScratch()
	n := len(t.encode(text, sc))
	t.putScratch(sc)
	return n
}

// Name returns what the tokenizer was loaded from: a hub id, a file path, or an
// encoding name.
func (t *Tokenizer) Name() string { return t.name }

// Hash returns "sha256:<hex>" of the tokenizer.json bytes, of a GGUF file's
// metadata, or for a built-in encoding of its rank file in tiktoken's format,
// for run metadata; "" for a server's tokenizer.
func (t *Tokenizer) Hash() string { return t.hash }

// VocabSize returns the size of the id space: the highest token id plus one,
// counting added tokens. Some ids below it may be unused (o200k_base: 200019).
// It is 0 for a server's tokenizer, whose vocabulary is not known.
func (t *Tokenizer) VocabSize() int { return t.vocabSize }

// encode runs the whole pipeline and returns the ids in sc.ids.
func (t *Tokenizer) encode(text string, sc *scratch) []int32 {
	ids := sc.ids[:0]
	whole := piece{s: text, id: -1}
	var segs []piece
	if t.added != nil {
		segs = t.added.split(whole, t.added.raw, sc.segs[:0])
	} else if text != "" {
		segs = append(sc.segs[:0], whole)
	}
	for i := range segs {
		seg := segs[i]
		if seg.id >= 0 {
			ids = append(ids, seg.id)
			continue
		}
		if t.norm != nil {
			if t.offsets {
				seg.s, seg.align = t.norm.normalizeAligned(seg.s, seg.alignment(), sc)
				if len(seg.align) > 0 {
					seg.orig = seg.align[0]
				}
			} else {
				seg.s = t.norm.normalize(seg.s, sc)
			}
		}
		if t.added != nil && t.added.norm != nil {
			subs := t.added.split(seg, t.added.norm, sc.subs[:0])
			for j := range subs {
				if subs[j].id >= 0 {
					ids = append(ids, subs[j].id)
					continue
				}
				ids = t.preTokenize(subs[j], sc, ids)
			}
			sc.subs = subs
		} else if seg.s != "" {
			ids = t.preTokenize(seg, sc, ids)
		}
	}
	sc.segs = segs
	sc.ids = ids
	return ids
}

// preTokenize runs the pre-tokenizer steps on one normalized piece and the model
// on the resulting words, appending their ids.
func (t *Tokenizer) preTokenize(p piece, sc *scratch, ids []int32) []int32 {
	if len(t.steps) == 0 {
		return t.model.tokenize(p.s, sc, ids)
	}
	cur := append(sc.bufA[:0], p)
	other := sc.bufB[:0]
	for _, st := range t.steps {
		other = other[:0]
		for _, q := range cur {
			other = st.apply(q, sc, t.offsets, other)
		}
		cur, other = other, cur
	}
	for _, q := range cur {
		ids = t.model.tokenize(q.s, sc, ids)
	}
	sc.bufA, sc.bufB = cur, other
	return ids
}

// Decode returns the text of ids, as Hugging Face's decode with
// skip_special_tokens=False: special tokens are rendered as their text and ids
// outside the vocabulary are skipped.
func (t *Tokenizer) Decode(ids []int) string {
	if t.server != nil {
		return t.server.decode(ids)
	}
	toks := make([]string, 0, len(ids))
	for _, id := range ids {
		if tok, ok := t.idToText(id); ok {
			toks = append(toks, tok)
		}
	}
	if !t.hasDecoder {
		return strings.Join(toks, " ")
	}
	for _, d := range t.decoders {
		toks = d.decode(toks)
	}
	return strings.Join(toks, "")
}

func (t *Tokenizer) idToText(id int) (string, bool) {
	if id < 0 || id > maxTokenID {
		return "", false
	}
	if t.added != nil {
		if tok, ok := t.added.byID[int32(id)]; ok {
			return tok.content, true
		}
	}
	if id < len(t.idKnown) && t.idKnown[id] {
		return t.idToToken[id], true
	}
	return "", false
}
