package tokenize

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tiktoken-go/tokenizer/codec"
)

// encoding describes a built-in OpenAI encoding. The merge ranks come from
// tiktoken-go's compiled-in tables; its pre-tokenizer and special-token handling
// are not used (see doc.go).
type encoding struct {
	name     string
	pattern  string
	ranks    int    // number of mergeable ranks, ids 0..ranks-1
	rankHash string // sha256 of the ranks in tiktoken's file format (OpenAI's published file)
	specials []addedToken
	codec    func() *codec.Codec
}

var encodings = map[string]encoding{
	"o200k_base": {
		name:     "o200k_base",
		pattern:  `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
		ranks:    199998,
		rankHash: "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
		specials: []addedToken{
			{content: "<|endoftext|>", id: 199999},
			{content: "<|endofprompt|>", id: 200018},
		},
		codec: codec.NewO200kBase,
	},
	"cl100k_base": {
		name:     "cl100k_base",
		pattern:  `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
		ranks:    100256,
		rankHash: "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
		specials: []addedToken{
			{content: "<|endoftext|>", id: 100257},
			{content: "<|fim_prefix|>", id: 100258},
			{content: "<|fim_middle|>", id: 100259},
			{content: "<|fim_suffix|>", id: 100260},
			{content: "<|endofprompt|>", id: 100276},
		},
		codec: codec.NewCl100kBase,
	},
}

// encodingAliases maps model names to their encoding.
var encodingAliases = map[string]string{
	"o200k_base":    "o200k_base",
	"cl100k_base":   "cl100k_base",
	"gpt-4o":        "o200k_base",
	"gpt-4":         "cl100k_base",
	"gpt-3.5-turbo": "cl100k_base",
}

// BuiltinNames returns the names Builtin accepts, sorted.
func BuiltinNames() []string {
	names := make([]string, 0, len(encodingAliases))
	for n := range encodingAliases {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Builtin returns a built-in OpenAI encoding: o200k_base or cl100k_base, or one
// of the aliases gpt-4o, gpt-4 and gpt-3.5-turbo. No file is needed. Its ids are
// those of tiktoken, special tokens in the text are recognised (as with the
// Hugging Face conversions of these encodings), and Name is the encoding name.
// Each call builds a new tokenizer (about 0.1–0.3 s); keep and share the result.
func Builtin(name string) (*Tokenizer, error) {
	canon, ok := encodingAliases[name]
	if !ok {
		return nil, fmt.Errorf("unknown built-in encoding %q (known: %s)", name, strings.Join(BuiltinNames(), ", "))
	}
	t, err := buildEncoding(encodings[canon])
	if err != nil {
		return nil, fmt.Errorf("building encoding %s: %w", canon, err)
	}
	return t, nil
}

func buildEncoding(enc encoding) (*Tokenizer, error) {
	c := enc.codec()
	m := &bpe{
		vocab:        make(map[string]int32, enc.ranks),
		unk:          -1,
		ignoreMerges: true, // tiktoken returns a whole piece that is a token as is
		inputMode:    inputRawBytes,
	}
	var text strings.Builder
	ends := make([]int, enc.ranks)
	h := sha256.New()
	line := make([]byte, 0, 128)
	for id := 0; id < enc.ranks; id++ {
		tok, err := c.Decode([]uint{uint(id)})
		if err != nil {
			return nil, fmt.Errorf("rank %d missing from tiktoken-go's table: %w", id, err)
		}
		text.WriteString(tok)
		ends[id] = text.Len()
		line = base64.StdEncoding.AppendEncode(line[:0], []byte(tok))
		line = append(line, ' ')
		line = strconv.AppendInt(line, int64(id), 10)
		line = append(line, '\n')
		h.Write(line)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if sum != enc.rankHash {
		return nil, fmt.Errorf("tiktoken-go's ranks hash to sha256:%s, not to OpenAI's sha256:%s", sum, enc.rankHash)
	}
	all := text.String()
	t := &Tokenizer{
		name:       enc.name,
		hash:       "sha256:" + sum,
		model:      m,
		idToToken:  make([]string, enc.ranks),
		idKnown:    make([]bool, enc.ranks),
		decoders:   []decoderStep{rawBytesDecoder{}},
		hasDecoder: true,
	}
	start := 0
	for id, end := range ends {
		tok := all[start:end]
		start = end
		if _, dup := m.vocab[tok]; dup {
			return nil, fmt.Errorf("rank %d duplicates token %q", id, tok)
		}
		m.vocab[tok] = int32(id)
		t.idToToken[id] = tok
		t.idKnown[id] = true
	}
	// A pair of tokens merges into their concatenation when it is a token, at the
	// rank of that token: tiktoken's rule, in the form the BPE engine uses. The
	// pairs are collected first so that the map is made at its exact size.
	var pairs []uint64 // pairKey, then rank, for each pair
	for id, tok := range t.idToToken {
		for k := 1; k < len(tok); k++ {
			a, ok := m.vocab[tok[:k]]
			if !ok {
				continue
			}
			b, ok := m.vocab[tok[k:]]
			if !ok {
				continue
			}
			pairs = append(pairs, pairKey(a, b), uint64(id))
		}
	}
	m.merges = make(map[uint64]uint64, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		m.merges[pairs[i]] = pairs[i+1]<<32 | pairs[i+1]
	}
	m.prepare()
	if !m.byteFast {
		return nil, fmt.Errorf("not every byte is a token")
	}
	re, err := compileHFRegex(enc.pattern)
	if err != nil {
		return nil, err
	}
	t.steps = []preStep{&splitStep{m: &regexMatcher{re: re}, behavior: behaviorRemoved, invert: true}}

	av := &addedVocab{byID: map[int32]*addedToken{}, byContent: map[string]int32{}, raw: newTokenTrie()}
	maxID := int32(enc.ranks - 1)
	for i := range enc.specials {
		tok := enc.specials[i]
		tok.special = true
		av.byID[tok.id] = &tok
		av.byContent[tok.content] = tok.id
		av.raw.add(tok.content, tok.id)
		maxID = max(maxID, tok.id)
	}
	t.added = av
	t.vocabSize = int(maxID) + 1
	return t, nil
}
