package tokenize

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// LoadGGUF reads the tokenizer of a GGUF model file (llama.cpp's format)
// from its tokenizer.ggml.* metadata; tensors are never read. The tokenizer
// is named after path.
func LoadGGUF(path string) (*Tokenizer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading tokenizer %s: %w", path, err)
	}
	defer f.Close()
	return ParseGGUF(f, path)
}

// ParseGGUF builds a tokenizer from a GGUF file's metadata, read from r up
// to the end of the key/values. Two vocabularies are supported, each mapped
// onto the tokenizer.json model that Hugging Face's converters give the same
// model, so that counts equal the Hugging Face tokenizer's:
//
//   - tokenizer.ggml.model "gpt2": byte-level BPE from tokens, token_type and
//     merges, with the pre-tokenizer tokenizer.ggml.pre names (llama-bpe and
//     its aliases, qwen2, gpt-2);
//   - "llama": SentencePiece BPE with byte fallback, merges derived from
//     tokenizer.ggml.scores as Hugging Face's SentencePieceExtractor does.
//
// Control, unknown and user-defined tokens are added tokens; the BOS token
// (tokenizer.ggml.bos_token_id) is added by EncodeWithSpecial when
// tokenizer.ggml.add_bos_token (or the model's default) says so. Hash is the
// sha256 of the header and metadata bytes.
func ParseGGUF(r io.Reader, name string) (*Tokenizer, error) {
	m, err := readGGUFMeta(r)
	if err != nil {
		return nil, fmt.Errorf("loading tokenizer %s: %w", name, err)
	}
	doc, err := m.tokenizerJSON()
	if err != nil {
		return nil, fmt.Errorf("loading tokenizer %s: %w", name, err)
	}
	t, err := parse(doc, name)
	if err != nil {
		return nil, fmt.Errorf("loading tokenizer %s: from its tokenizer.ggml keys: %w", name, err)
	}
	t.hash = m.hash
	return t, nil
}

// llama.cpp's token types (llama_token_type).
const (
	ggmlTokNormal      = 1
	ggmlTokUnknown     = 2
	ggmlTokControl     = 3
	ggmlTokUserDefined = 4
	ggmlTokUnused      = 5
	ggmlTokByte        = 6
)

// ggufPre is a byte-level pre-tokenizer named by tokenizer.ggml.pre.
type ggufPre struct {
	regex        string // Split pattern before ByteLevel; "" means ByteLevel's own GPT-2 regex
	ignoreMerges bool   // as Hugging Face's file for the model says
	addBOS       bool   // llama.cpp's default when add_bos_token is absent
}

const (
	llama3Regex = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	qwen2Regex  = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
)

// ggufPres maps tokenizer.ggml.pre values to pre-tokenizers, as llama.cpp's
// llama-vocab.cpp groups them.
var ggufPres = map[string]ggufPre{
	"llama-bpe":        {regex: llama3Regex, ignoreMerges: true, addBOS: true},
	"llama3":           {regex: llama3Regex, ignoreMerges: true, addBOS: true},
	"llama-v3":         {regex: llama3Regex, ignoreMerges: true, addBOS: true},
	"smaug-bpe":        {regex: llama3Regex},
	"qwen2":            {regex: qwen2Regex},
	"deepseek-r1-qwen": {regex: qwen2Regex},
	"gpt-2":            {},
}

func ggufPreNames() string {
	names := make([]string, 0, len(ggufPres))
	for k := range ggufPres {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// tokenizerJSON writes the tokenizer.json document equivalent to the
// metadata's tokenizer.
func (m *ggufMeta) tokenizerJSON() ([]byte, error) {
	model, ok, err := m.strVal("tokenizer.ggml.model")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errors.New("no tokenizer.ggml.model key: the file holds no tokenizer")
	}
	tokens, ok, err := m.strings("tokenizer.ggml.tokens")
	if err != nil {
		return nil, err
	}
	if !ok || len(tokens) == 0 {
		return nil, errors.New("tokenizer.ggml.tokens: missing or empty")
	}
	if len(tokens) > maxTokenID {
		return nil, fmt.Errorf("tokenizer.ggml.tokens: %d tokens (at most %d)", len(tokens), maxTokenID)
	}
	types, ok, err := m.ints("tokenizer.ggml.token_type")
	if err != nil {
		return nil, err
	}
	if !ok {
		types = make([]int64, len(tokens))
		for i := range types {
			types[i] = ggmlTokNormal
		}
	} else if len(types) != len(tokens) {
		return nil, fmt.Errorf("tokenizer.ggml.token_type: %d entries for %d tokens", len(types), len(tokens))
	}
	tokenID := func(key string) (int, bool, error) {
		id, ok, err := m.intVal(key)
		if err != nil || !ok {
			return 0, false, err
		}
		if id < 0 || id >= int64(len(tokens)) {
			// llama.cpp writes -1 (as uint32 max) for "none".
			return 0, false, nil
		}
		return int(id), true, nil
	}
	bos, hasBOS, err := tokenID("tokenizer.ggml.bos_token_id")
	if err != nil {
		return nil, err
	}
	addBOS, hasAddBOS, err := m.boolVal("tokenizer.ggml.add_bos_token")
	if err != nil {
		return nil, err
	}

	// The vocabulary: every token but unused ones; a token listed twice keeps
	// its last id, as llama.cpp's token_to_id does.
	ids := make(map[string]int, len(tokens))
	for i, tok := range tokens {
		if types[i] != ggmlTokUnused {
			ids[tok] = i
		}
	}
	inVocab := func(i int) bool { return types[i] != ggmlTokUnused && ids[tokens[i]] == i }

	var modelJSON, normalizer, preTok, decoder any
	var merges [][2]string
	switch model {
	case "gpt2":
		preName, ok, err := m.strVal("tokenizer.ggml.pre")
		if err != nil {
			return nil, err
		}
		pre, known := ggufPres[preName]
		if !ok || !known {
			return nil, fmt.Errorf("tokenizer.ggml.pre %q: unsupported pre-tokenizer (supported: %s)", preName, ggufPreNames())
		}
		ms, ok, err := m.strings("tokenizer.ggml.merges")
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, errors.New("tokenizer.ggml.merges: missing (a gpt2 vocabulary needs its merges)")
		}
		merges = make([][2]string, len(ms))
		for i, s := range ms {
			a, b, found := strings.Cut(s, " ")
			if !found {
				return nil, fmt.Errorf("tokenizer.ggml.merges[%d] %q: expected two tokens separated by a space", i, s)
			}
			merges[i] = [2]string{a, b}
		}
		if !hasAddBOS {
			addBOS = pre.addBOS
		}
		modelJSON = map[string]any{"type": "BPE", "ignore_merges": pre.ignoreMerges}
		byteLevel := map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": pre.regex == ""}
		preTok = byteLevel
		if pre.regex != "" {
			preTok = map[string]any{"type": "Sequence", "pretokenizers": []any{
				map[string]any{"type": "Split", "pattern": map[string]any{"Regex": pre.regex}, "behavior": "Isolated", "invert": false},
				byteLevel,
			}}
		}
		decoder = map[string]any{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}
	case "llama":
		scores, ok, err := m.floats("tokenizer.ggml.scores")
		if err != nil {
			return nil, err
		}
		if !ok || len(scores) != len(tokens) {
			return nil, fmt.Errorf("tokenizer.ggml.scores: %d scores for %d tokens (a llama vocabulary needs one per token)", len(scores), len(tokens))
		}
		spacePrefix, ok, err := m.boolVal("tokenizer.ggml.add_space_prefix")
		if err != nil {
			return nil, err
		}
		if !ok {
			spacePrefix = true
		}
		if !hasAddBOS {
			addBOS = true
		}
		merges = spmMerges(tokens, scores, ids, inVocab)
		bm := map[string]any{"type": "BPE", "fuse_unk": true, "byte_fallback": slices.Contains(types, ggmlTokByte)}
		unk, hasUnk, err := tokenID("tokenizer.ggml.unknown_token_id")
		if err != nil {
			return nil, err
		}
		if !hasUnk {
			if i := slices.Index(types, ggmlTokUnknown); i >= 0 {
				unk, hasUnk = i, true
			}
		}
		if hasUnk && inVocab(unk) {
			bm["unk_token"] = tokens[unk]
		}
		modelJSON = bm
		replace := map[string]any{"type": "Replace", "pattern": map[string]any{"String": " "}, "content": metaspace}
		decoders := []any{
			map[string]any{"type": "Replace", "pattern": map[string]any{"String": metaspace}, "content": " "},
			map[string]any{"type": "ByteFallback"},
			map[string]any{"type": "Fuse"},
		}
		if spacePrefix {
			normalizer = map[string]any{"type": "Sequence", "normalizers": []any{
				map[string]any{"type": "Prepend", "prepend": metaspace}, replace}}
			decoders = append(decoders, map[string]any{"type": "Strip", "content": " ", "start": 1, "stop": 0})
		} else {
			normalizer = replace
		}
		decoder = map[string]any{"type": "Sequence", "decoders": decoders}
	default:
		return nil, fmt.Errorf("tokenizer.ggml.model %q: unsupported vocabulary (supported: gpt2, llama)", model)
	}

	var added []any
	for i, tok := range tokens {
		switch types[i] {
		case ggmlTokControl, ggmlTokUnknown, ggmlTokUserDefined:
			if inVocab(i) && tok != "" {
				added = append(added, map[string]any{"id": i, "content": tok, "single_word": false, "lstrip": false,
					"rstrip": false, "normalized": false, "special": types[i] != ggmlTokUserDefined})
			}
		}
	}

	var b bytes.Buffer
	b.WriteString(`{"version":"1.0","model":`)
	mj, err := json.Marshal(modelJSON)
	if err != nil {
		return nil, err
	}
	b.Write(mj[:len(mj)-1]) // reopen the object for vocab and merges
	b.WriteString(`,"vocab":{`)
	first := true
	for i, tok := range tokens {
		if !inVocab(i) {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		if err := writeJSONString(&b, tok); err != nil {
			return nil, fmt.Errorf("tokenizer.ggml.tokens[%d]: %w", i, err)
		}
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(i))
	}
	b.WriteString(`},"merges":[`)
	for i, mg := range merges {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('[')
		if err := writeJSONString(&b, mg[0]); err != nil {
			return nil, fmt.Errorf("tokenizer.ggml.merges[%d]: %w", i, err)
		}
		b.WriteByte(',')
		if err := writeJSONString(&b, mg[1]); err != nil {
			return nil, fmt.Errorf("tokenizer.ggml.merges[%d]: %w", i, err)
		}
		b.WriteByte(']')
	}
	b.WriteString(`]}`)
	rest := map[string]any{"added_tokens": added}
	if normalizer != nil {
		rest["normalizer"] = normalizer
	}
	if preTok != nil {
		rest["pre_tokenizer"] = preTok
	}
	rest["decoder"] = decoder
	if addBOS && hasBOS {
		bosTok := tokens[bos]
		rest["post_processor"] = map[string]any{
			"type":   "TemplateProcessing",
			"single": []any{map[string]any{"SpecialToken": map[string]any{"id": bosTok, "type_id": 0}}, map[string]any{"Sequence": map[string]any{"id": "A", "type_id": 0}}},
			"pair": []any{map[string]any{"SpecialToken": map[string]any{"id": bosTok, "type_id": 0}}, map[string]any{"Sequence": map[string]any{"id": "A", "type_id": 0}},
				map[string]any{"SpecialToken": map[string]any{"id": bosTok, "type_id": 1}}, map[string]any{"Sequence": map[string]any{"id": "B", "type_id": 1}}},
			"special_tokens": map[string]any{bosTok: map[string]any{"id": bosTok, "ids": []int{bos}, "tokens": []string{bosTok}}},
		}
	}
	for _, k := range []string{"added_tokens", "normalizer", "pre_tokenizer", "post_processor", "decoder"} {
		v, ok := rest[k]
		if !ok {
			continue
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		b.WriteString(`,"` + k + `":`)
		b.Write(raw)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// writeJSONString writes s as a JSON string; invalid UTF-8 is refused rather
// than replaced, which could make two tokens one.
func writeJSONString(b *bytes.Buffer, s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("token %q is not valid UTF-8", s)
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return err
	}
	b.Write(raw)
	return nil
}

// spmMerges derives BPE merges from a SentencePiece vocabulary as Hugging
// Face's SentencePieceExtractor does: every split of a piece into two pieces
// of the vocabulary is a merge, ordered by the merged piece's score (highest
// first), then by the ids of the two halves.
func spmMerges(tokens []string, scores []float64, ids map[string]int, inVocab func(int) bool) [][2]string {
	type rec struct {
		a, b  string
		ia    int
		ib    int
		score float64
	}
	var recs []rec
	var local []rec
	for i, piece := range tokens {
		if !inVocab(i) {
			continue
		}
		local = local[:0]
		for j := range piece {
			if j == 0 {
				continue
			}
			ia, okA := ids[piece[:j]]
			ib, okB := ids[piece[j:]]
			if okA && okB {
				local = append(local, rec{piece[:j], piece[j:], ia, ib, scores[i]})
			}
		}
		sort.SliceStable(local, func(x, y int) bool {
			if local[x].ia != local[y].ia {
				return local[x].ia < local[y].ia
			}
			return local[x].ib < local[y].ib
		})
		recs = append(recs, local...)
	}
	sort.SliceStable(recs, func(x, y int) bool { return recs[x].score > recs[y].score })
	out := make([][2]string, len(recs))
	for i, r := range recs {
		out[i] = [2]string{r.a, r.b}
	}
	return out
}
