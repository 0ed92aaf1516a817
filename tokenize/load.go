package tokenize

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"unicode/utf8"
)

// Load reads a Hugging Face tokenizer.json file. The tokenizer is named after path.
func Load(path string) (*Tokenizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading tokenizer %s: %w", path, err)
	}
	return Parse(data, path)
}

// Parse builds a tokenizer from the bytes of a tokenizer.json; name is what Name
// reports. Components or options that are not implemented are refused with an
// error naming their JSON path.
func Parse(data []byte, name string) (*Tokenizer, error) {
	t, err := parse(data, name)
	if err != nil {
		return nil, fmt.Errorf("loading tokenizer %s: %w", name, err)
	}
	sum := sha256.Sum256(data)
	t.hash = "sha256:" + hex.EncodeToString(sum[:])
	return t, nil
}

func parse(data []byte, name string) (*Tokenizer, error) {
	doc, err := parseObject(data, "")
	if err != nil {
		return nil, fmt.Errorf("not a tokenizer.json document: %w", err)
	}
	at := func(k string) string { return k }

	if v, err := doc.str("version", "1.0"); err != nil {
		return nil, err
	} else if v != "1.0" {
		return nil, loadError("version", "unsupported tokenizer.json version %q (supported: \"1.0\")", v)
	}
	// Truncation and padding are per-call settings of the Hugging Face library,
	// not part of tokenization: counts here are always of the whole text.
	for _, k := range []string{"truncation", "padding"} {
		if v, ok := doc.get(k); ok && !json.Valid(v) {
			return nil, loadError(k, "malformed JSON")
		}
	}

	t := &Tokenizer{name: name}

	modelRaw, ok := doc.get("model")
	if !ok {
		return nil, loadError("model", "missing")
	}
	model, entries, err := parseModel(modelRaw, at("model"))
	if err != nil {
		return nil, err
	}
	t.model = model

	if raw, ok := doc.get("normalizer"); ok {
		if t.norm, err = parseNormalizer(raw, at("normalizer")); err != nil {
			return nil, err
		}
	}
	if raw, ok := doc.get("pre_tokenizer"); ok {
		if t.steps, err = parsePreTokenizer(raw, at("pre_tokenizer"), nil); err != nil {
			return nil, err
		}
	}
	// A final ByteLevel mapping is done inside the model, on raw bytes.
	if n := len(t.steps); n > 0 {
		if _, ok := t.steps[n-1].(byteMapStep); ok {
			t.steps = t.steps[:n-1]
			model.inputMode = inputByteLevel
		}
	}
	for _, st := range t.steps {
		if ms, ok := st.(*metaspaceStep); ok && ms.scheme == prependFirst {
			t.offsets = true
		}
	}
	model.prepare()

	maxID := int32(-1)
	for _, e := range entries {
		maxID = max(maxID, e.id)
	}
	t.idToToken = make([]string, maxID+1)
	t.idKnown = make([]bool, maxID+1)
	for _, e := range entries {
		t.idToToken[e.id] = e.tok
		t.idKnown[e.id] = true
	}

	if raw, ok := doc.get("added_tokens"); ok {
		if t.added, err = parseAddedTokens(raw, "added_tokens", model, t.norm); err != nil {
			return nil, err
		}
		if t.added != nil {
			for id := range t.added.byID {
				maxID = max(maxID, id)
			}
		}
	}
	t.vocabSize = int(maxID) + 1

	if raw, ok := doc.get("post_processor"); ok {
		tpl, err := parsePostProcessor(raw, at("post_processor"))
		if err != nil {
			return nil, err
		}
		if !isIdentityTemplate(tpl) {
			t.template = tpl
		}
	}
	if raw, ok := doc.get("decoder"); ok {
		if t.decoders, err = parseDecoder(raw, at("decoder"), nil); err != nil {
			return nil, err
		}
		t.hasDecoder = true
	}
	if err := doc.check("the tokenizer"); err != nil {
		return nil, err
	}
	return t, nil
}

func parseModel(raw rawJSON, path string) (*bpe, []vocabEntry, error) {
	o, err := parseObject(raw, path)
	if err != nil {
		return nil, nil, err
	}
	typ, err := o.str("type", "BPE")
	if err != nil {
		return nil, nil, err
	}
	if typ != "BPE" {
		return nil, nil, loadError(o.at("type"), "unsupported model type %q (supported: \"BPE\")", typ)
	}
	if v, ok := o.get("dropout"); ok {
		if f, err := strconv.ParseFloat(string(v), 64); err != nil || f != 0 {
			return nil, nil, loadError(o.at("dropout"), "BPE dropout %s is not supported (only null or 0: tokenization must be deterministic)", abbreviate(v))
		}
	}
	m := &bpe{unk: -1}
	if m.fuseUnk, err = o.boolean("fuse_unk", false); err != nil {
		return nil, nil, err
	}
	if m.byteFallback, err = o.boolean("byte_fallback", false); err != nil {
		return nil, nil, err
	}
	if m.ignoreMerges, err = o.boolean("ignore_merges", false); err != nil {
		return nil, nil, err
	}
	if m.prefix, err = o.str("continuing_subword_prefix", ""); err != nil {
		return nil, nil, err
	}
	if m.suffix, err = o.str("end_of_word_suffix", ""); err != nil {
		return nil, nil, err
	}
	unk, hasUnk, err := o.optStr("unk_token")
	if err != nil {
		return nil, nil, err
	}

	vraw, ok := o.get("vocab")
	if !ok {
		return nil, nil, loadError(o.at("vocab"), "missing")
	}
	entries, err := parseVocab(vraw)
	if err != nil {
		return nil, nil, loadError(o.at("vocab"), "%v", err)
	}
	m.vocab = make(map[string]int32, len(entries))
	for _, e := range entries {
		m.vocab[e.tok] = e.id
	}
	if hasUnk {
		id, ok := m.vocab[unk]
		if !ok {
			return nil, nil, loadError(o.at("unk_token"), "unknown token %q is not in the vocabulary", unk)
		}
		m.unk = id
	}

	mraw, ok := o.get("merges")
	if !ok {
		mraw = rawJSON("[]")
	}
	// The merges are collected first so that the map is made at its exact size.
	type mergeRec struct{ key, val uint64 }
	var recs []mergeRec
	var buf []byte
	prefixLen := len(m.prefix)
	m.metaJoiners = map[rune]bool{}
	err = parseMerges(mraw, func(rank int, a, b []byte) error {
		if !bytes.HasSuffix(a, []byte(metaspace)) && bytes.HasPrefix(b, []byte(metaspace)) {
			c, _ := utf8.DecodeLastRune(a)
			m.metaJoiners[c] = true
		}
		ida, ok := m.vocab[string(a)]
		if !ok {
			return fmt.Errorf("merge %d: token %q is not in the vocabulary", rank, a)
		}
		idb, ok := m.vocab[string(b)]
		if !ok {
			return fmt.Errorf("merge %d: token %q is not in the vocabulary", rank, b)
		}
		if len(b) < prefixLen || !utf8.Valid(b[prefixLen:]) {
			return fmt.Errorf("merge %d: token %q is shorter than the continuing_subword_prefix", rank, b)
		}
		buf = append(append(buf[:0], a...), b[prefixLen:]...)
		idm, ok := m.vocab[string(buf)]
		if !ok {
			return fmt.Errorf("merge %d: merged token %q is not in the vocabulary", rank, buf)
		}
		recs = append(recs, mergeRec{pairKey(ida, idb), uint64(rank)<<32 | uint64(uint32(idm))})
		return nil
	})
	if err != nil {
		return nil, nil, loadError(o.at("merges"), "%v", err)
	}
	// As in Hugging Face, a pair listed twice keeps its last rank.
	m.merges = make(map[uint64]uint64, len(recs))
	for _, r := range recs {
		m.merges[r.key] = r.val
	}
	if err := o.check("the BPE model"); err != nil {
		return nil, nil, err
	}
	// See bpe.splitAtMeta: "▁" must be a token, so that the symbol after a cut
	// always starts with it, and no option may change how words start or end.
	_, metaKnown := m.vocab[metaspace]
	m.splitAtMeta = metaKnown && !m.ignoreMerges && m.prefix == "" && m.suffix == ""
	allBytes := m.byteFallback
	for b := 0; b < 256 && allBytes; b++ {
		_, allBytes = m.vocab[byteFallbackToken(byte(b))]
	}
	switch {
	case m.byteFallback && m.metaJoiners['>']: // byte tokens are "<0xXX>"
		m.metaFallbackJoins = true
	case !hasUnk && !allBytes:
		// Characters that are not tokens are dropped, which can bring the
		// symbols around them together.
		m.metaFallbackJoins = true
	case hasUnk:
		if c, _ := utf8.DecodeLastRuneInString(unk); m.metaJoiners[c] || c == '\u2581' {
			m.metaFallbackJoins = true
		}
	}
	return m, entries, nil
}

func parseAddedTokens(raw rawJSON, path string, model *bpe, nz normalizer) (*addedVocab, error) {
	var items []rawJSON
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, loadError(path, "expected an array: %v", err)
	}
	av := &addedVocab{byID: map[int32]*addedToken{}, byContent: map[string]int32{}}
	var specials, others []*addedToken
	specialSet := map[string]bool{}
	vocabLen := int32(len(model.vocab))
	for i, it := range items {
		p := fmt.Sprintf("%s[%d]", path, i)
		o, err := parseObject(it, p)
		if err != nil {
			return nil, err
		}
		tok := &addedToken{}
		if _, err := o.integer("id", 0); err != nil {
			return nil, err
		}
		if tok.content, err = o.str("content", ""); err != nil {
			return nil, err
		}
		for _, f := range []struct {
			key string
			dst *bool
			def bool
		}{
			{"single_word", &tok.singleWord, false},
			{"lstrip", &tok.lstrip, false},
			{"rstrip", &tok.rstrip, false},
			{"normalized", &tok.normalized, true},
			{"special", &tok.special, false},
		} {
			if *f.dst, err = o.boolean(f.key, f.def); err != nil {
				return nil, err
			}
		}
		if err := o.check("an added token"); err != nil {
			return nil, err
		}
		// The rest reproduces AddedVocabulary::add_tokens: ids come from the
		// existing vocabularies, or are assigned after them, whatever "id" says.
		if tok.special && tok.content != "" && !specialSet[tok.content] {
			specials = append(specials, tok)
			specialSet[tok.content] = true
		}
		if tok.content == "" {
			continue
		}
		dup := false
		for _, old := range av.byID {
			if old.content == tok.content && old.singleWord == tok.singleWord && old.lstrip == tok.lstrip &&
				old.rstrip == tok.rstrip && old.normalized == tok.normalized && old.special == tok.special {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		id, ok := av.byContent[tok.content]
		if !ok {
			id, ok = model.vocab[tok.content]
		}
		if !ok {
			maxAdded := int32(-1)
			for _, v := range av.byContent {
				maxAdded = max(maxAdded, v)
			}
			switch {
			case maxAdded < 0:
				id = vocabLen
			case maxAdded >= vocabLen || vocabLen == 0:
				id = maxAdded + 1
			default:
				id = vocabLen
			}
			if id > maxTokenID {
				return nil, loadError(p, "too many added tokens")
			}
		}
		tok.id = id
		av.byContent[tok.content] = id
		av.byID[id] = tok
		if !specialSet[tok.content] {
			others = append(others, tok)
		}
	}
	raw2, normTrie := newTokenTrie(), newTokenTrie()
	var sc scratch
	for _, tok := range append(specials, others...) {
		id := av.byContent[tok.content]
		if tok.normalized {
			pat := tok.content
			if nz != nil {
				pat = nz.normalize(pat, &sc)
			}
			normTrie.add(pat, id)
		} else {
			raw2.add(tok.content, id)
		}
	}
	if len(av.byID) == 0 {
		return nil, nil
	}
	if !raw2.empty() {
		av.raw = raw2
	}
	if !normTrie.empty() {
		av.norm = normTrie
	}
	return av, nil
}
