package tokenize

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// ggufKV is one key/value for writeGGUF: string, bool, uint32, int32,
// []string, []int32 or []float32.
type ggufKV struct {
	key string
	val any
}

// writeGGUF returns the bytes of a GGUF v3 file with no tensors and the
// given metadata, as gguf-py's GGUFWriter lays them out.
func writeGGUF(kvs []ggufKV) []byte {
	var b bytes.Buffer
	le := binary.LittleEndian
	u32 := func(v uint32) { _ = binary.Write(&b, le, v) }
	u64 := func(v uint64) { _ = binary.Write(&b, le, v) }
	str := func(s string) { u64(uint64(len(s))); b.WriteString(s) }
	b.WriteString("GGUF")
	u32(3)
	u64(0)
	u64(uint64(len(kvs)))
	for _, kv := range kvs {
		str(kv.key)
		switch v := kv.val.(type) {
		case string:
			u32(ggufString)
			str(v)
		case bool:
			u32(ggufBool)
			if v {
				b.WriteByte(1)
			} else {
				b.WriteByte(0)
			}
		case uint32:
			u32(ggufUint32)
			u32(v)
		case int32:
			u32(ggufInt32)
			u32(uint32(v))
		case []string:
			u32(ggufArray)
			u32(ggufString)
			u64(uint64(len(v)))
			for _, s := range v {
				str(s)
			}
		case []int32:
			u32(ggufArray)
			u32(ggufInt32)
			u64(uint64(len(v)))
			for _, x := range v {
				u32(uint32(x))
			}
		case []float32:
			u32(ggufArray)
			u32(ggufFloat32)
			u64(uint64(len(v)))
			for _, x := range v {
				u32(math.Float32bits(x))
			}
		default:
			panic("writeGGUF: unsupported value type")
		}
	}
	return b.Bytes()
}

// fixtureVocab reads a fixture's vocabulary, added tokens and merges, with the
// tokens in id order.
func fixtureVocab(t testing.TB, name string) (tokens []string, added map[string]bool, merges [][2]string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "fixtures", name))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Model struct {
			Vocab  map[string]int    `json:"vocab"`
			Merges []json.RawMessage `json:"merges"`
		} `json:"model"`
		Added []struct {
			ID      int    `json:"id"`
			Content string `json:"content"`
		} `json:"added_tokens"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, id := range doc.Model.Vocab {
		n = max(n, id+1)
	}
	for _, a := range doc.Added {
		n = max(n, a.ID+1)
	}
	tokens = make([]string, n)
	for tok, id := range doc.Model.Vocab {
		tokens[id] = tok
	}
	added = map[string]bool{}
	for _, a := range doc.Added {
		tokens[a.ID] = a.Content
		added[a.Content] = true
	}
	for _, raw := range doc.Model.Merges {
		var pair [2]string
		var s string
		if json.Unmarshal(raw, &s) == nil {
			a, b, _ := strings.Cut(s, " ")
			pair = [2]string{a, b}
		} else if err := json.Unmarshal(raw, &pair); err != nil {
			t.Fatal(err)
		}
		merges = append(merges, pair)
	}
	return tokens, added, merges
}

// byteLevelGGUF is fixtures/bytelevel.json as convert_hf_to_gguf.py writes a
// Llama 3 vocabulary (make_tiny_gguf.py's --tokenizer-json path).
func byteLevelGGUF(t testing.TB) []byte {
	tokens, added, merges := fixtureVocab(t, "bytelevel.json")
	types := make([]int32, len(tokens))
	for i, tok := range tokens {
		types[i] = ggmlTokNormal
		if added[tok] {
			types[i] = ggmlTokControl
		}
	}
	ms := make([]string, len(merges))
	for i, m := range merges {
		ms[i] = m[0] + " " + m[1]
	}
	return writeGGUF([]ggufKV{
		{"general.architecture", "llama"},
		{"llama.block_count", uint32(1)},
		{"tokenizer.ggml.model", "gpt2"},
		{"tokenizer.ggml.pre", "llama-bpe"},
		{"tokenizer.ggml.tokens", tokens},
		{"tokenizer.ggml.token_type", types},
		{"tokenizer.ggml.merges", ms},
		{"tokenizer.ggml.bos_token_id", uint32(269)},
		{"tokenizer.ggml.eos_token_id", uint32(270)},
		{"tokenizer.ggml.add_bos_token", true},
		{"tokenizer.chat_template", "{{ messages }}"},
	})
}

// spmGGUF is fixtures/spm.json as a llama (SentencePiece) vocabulary: the
// scores rank each merged piece by its merge's rank.
func spmGGUF(t testing.TB) []byte {
	tokens, _, merges := fixtureVocab(t, "spm.json")
	rank := map[string]int{}
	for i, m := range merges {
		rank[m[0]+m[1]] = i
	}
	types := make([]int32, len(tokens))
	scores := make([]float32, len(tokens))
	for i, tok := range tokens {
		scores[i] = -1000
		switch {
		case tok == "<unk>":
			types[i] = ggmlTokUnknown
		case tok == "<s>" || tok == "</s>":
			types[i] = ggmlTokControl
		case strings.HasPrefix(tok, "<0x"):
			types[i] = ggmlTokByte
		default:
			types[i] = ggmlTokNormal
			if r, ok := rank[tok]; ok {
				scores[i] = float32(-r)
			}
		}
	}
	return writeGGUF([]ggufKV{
		{"general.architecture", "llama"},
		{"tokenizer.ggml.model", "llama"},
		{"tokenizer.ggml.tokens", tokens},
		{"tokenizer.ggml.scores", scores},
		{"tokenizer.ggml.token_type", types},
		{"tokenizer.ggml.bos_token_id", uint32(1)},
		{"tokenizer.ggml.eos_token_id", uint32(2)},
		{"tokenizer.ggml.unknown_token_id", uint32(0)},
	})
}

// TestGGUFMatchesTokenizerJSON checks that a GGUF holding a fixture's
// vocabulary tokenizes the whole corpus as the fixture's tokenizer.json does.
func TestGGUFMatchesTokenizerJSON(t *testing.T) {
	skipUnderRace(t)
	corpus := readCorpus(t)
	for _, c := range []struct {
		fixture string
		gguf    func(testing.TB) []byte
	}{
		{"bytelevel.json", byteLevelGGUF},
		{"spm.json", spmGGUF},
	} {
		t.Run(c.fixture, func(t *testing.T) {
			want := loadFixture(t, c.fixture, nil)
			data := c.gguf(t)
			got, err := ParseGGUF(bytes.NewReader(data), "tiny.gguf")
			if err != nil {
				t.Fatal(err)
			}
			if got.VocabSize() != want.VocabSize() {
				t.Errorf("VocabSize = %d, tokenizer.json's %d", got.VocabSize(), want.VocabSize())
			}
			diffs := 0
			for i, r := range corpus {
				if g, w := got.Count(r.Text), want.Count(r.Text); g != w {
					if diffs++; diffs <= 5 {
						t.Errorf("line %d (%s): %d tokens from the GGUF, %d from tokenizer.json", i+1, r.Kind, g, w)
					}
					continue
				}
				if g, w := got.Encode(r.Text), want.Encode(r.Text); !slices.Equal(g, w) {
					if diffs++; diffs <= 5 {
						t.Errorf("line %d (%s): ids %v from the GGUF, %v from tokenizer.json", i+1, r.Kind, g, w)
					}
				}
			}
			if diffs > 0 {
				t.Fatalf("%d of %d corpus lines differ", diffs, len(corpus))
			}
			// The BOS comes from bos_token_id and add_bos_token (bytelevel:
			// 269, spm: 1), as the fixture's TemplateProcessing adds it.
			for _, s := range []string{"hello", "ab hi", ""} {
				if g, w := got.EncodeWithSpecial(s), want.EncodeWithSpecial(s); !slices.Equal(g, w) {
					t.Errorf("EncodeWithSpecial(%q) = %v, tokenizer.json's %v", s, g, w)
				}
				if ids := want.Encode(s); got.Decode(ids) != want.Decode(ids) {
					t.Errorf("Decode(%v) = %q, tokenizer.json's %q", ids, got.Decode(ids), want.Decode(ids))
				}
			}
			if !strings.HasPrefix(got.Hash(), "sha256:") || got.Name() != "tiny.gguf" {
				t.Errorf("Name, Hash = %q, %q", got.Name(), got.Hash())
			}
		})
	}
}

// TestResolveGGUF checks that --processor (and a model id) naming a local
// .gguf file loads its tokenizer, whatever the file's extension.
func TestResolveGGUF(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tiny-llama3.gguf")
	if err := os.WriteFile(path, byteLevelGGUF(t), 0o644); err != nil {
		t.Fatal(err)
	}
	tok, err := Resolve(path, ResolveOptions{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	// "hello" is token 265 of fixtures/bytelevel.json, " the" 258.
	if got := tok.Encode("hello the"); !slices.Equal(got, []int{265, 258}) {
		t.Errorf("Encode(%q) = %v, want [265 258]", "hello the", got)
	}
	if tok.Name() != path {
		t.Errorf("Name = %q, want %q", tok.Name(), path)
	}
	// A model id that is a .gguf path on the server's machine only.
	_, err = Resolve("/models/tiny.gguf", ResolveOptions{Getenv: func(string) string { return "" }})
	if err == nil || !strings.Contains(err.Error(), "--processor /models/tiny.gguf: no such GGUF file here") || !strings.Contains(err.Error(), "--processor server") {
		t.Errorf("missing .gguf: err = %v", err)
	}
}

func TestGGUFErrors(t *testing.T) {
	full := byteLevelGGUF(t)
	header := func(version uint32) []byte {
		b := append([]byte("GGUF"), 0, 0, 0, 0)
		binary.LittleEndian.PutUint32(b[4:], version)
		return append(b, make([]byte, 16)...)
	}
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"not gguf", []byte(`{"model":{}}`), "not a GGUF file"},
		{"version 1", header(1), "GGUF version 1 is not supported (supported: 2, 3)"},
		{"big-endian", header(3 << 24), "big-endian GGUF files are not supported"},
		{"truncated", full[:len(full)/2], "unexpected EOF"},
		{"no tokenizer", writeGGUF([]ggufKV{{"general.architecture", "llama"}}), "no tokenizer.ggml.model key"},
		{"unknown model", writeGGUF([]ggufKV{{"tokenizer.ggml.model", "bert"}, {"tokenizer.ggml.tokens", []string{"a"}}}),
			`tokenizer.ggml.model "bert": unsupported vocabulary (supported: gpt2, llama)`},
		{"unknown pre", writeGGUF([]ggufKV{{"tokenizer.ggml.model", "gpt2"}, {"tokenizer.ggml.pre", "falcon"}, {"tokenizer.ggml.tokens", []string{"a"}}}),
			`tokenizer.ggml.pre "falcon": unsupported pre-tokenizer`},
		{"no scores", writeGGUF([]ggufKV{{"tokenizer.ggml.model", "llama"}, {"tokenizer.ggml.tokens", []string{"a", "b"}}}),
			"tokenizer.ggml.scores: 0 scores for 2 tokens"},
		{"bad merge", writeGGUF([]ggufKV{{"tokenizer.ggml.model", "gpt2"}, {"tokenizer.ggml.pre", "gpt-2"}, {"tokenizer.ggml.tokens", []string{"a", "b", "ab"}}, {"tokenizer.ggml.merges", []string{"a b", "ab"}}}),
			`tokenizer.ggml.merges[1] "ab": expected two tokens separated by a space`},
		{"wrong type", writeGGUF([]ggufKV{{"tokenizer.ggml.model", uint32(2)}}), "tokenizer.ggml.model: expected a string"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseGGUF(bytes.NewReader(c.data), "x.gguf")
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "loading tokenizer x.gguf: ") {
				t.Fatalf("err = %v, want one containing %q", err, c.want)
			}
		})
	}
}

// FuzzGGUF checks that reading GGUF metadata never panics or over-allocates
// on malformed input, and that whatever loads can encode and decode.
func FuzzGGUF(f *testing.F) {
	f.Add(byteLevelGGUF(f))
	f.Add(spmGGUF(f))
	f.Add(writeGGUF([]ggufKV{{"tokenizer.ggml.model", "gpt2"}, {"tokenizer.ggml.pre", "gpt-2"}, {"tokenizer.ggml.tokens", []string{"a", "b", "ab"}},
		{"tokenizer.ggml.merges", []string{"a b"}}, {"tokenizer.ggml.token_type", []int32{1, 1, 3}}}))
	f.Add(writeGGUF([]ggufKV{{"tokenizer.ggml.model", "llama"}, {"tokenizer.ggml.tokens", []string{"<unk>", "▁", "a", "▁a"}},
		{"tokenizer.ggml.scores", []float32{0, -1, -2, -3}}, {"tokenizer.ggml.token_type", []int32{2, 1, 1, 1}}}))
	f.Add([]byte("GGUF\x03\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tok, err := ParseGGUF(bytes.NewReader(data), "fuzz.gguf")
		if err != nil {
			return
		}
		for _, s := range []string{"", "hello there", "\xff a▁b"} {
			ids := tok.Encode(s)
			if tok.Count(s) != len(ids) {
				t.Fatalf("Count(%q) != len(Encode)", s)
			}
			_ = tok.Decode(ids)
		}
	})
}

// hfToGGUF converts a byte-level BPE tokenizer.json as make_tiny_gguf.py's
// --tokenizer-json does (convert_hf_to_gguf.py's layout): tokens by id,
// [PAD<i>] UNUSED in gaps, CONTROL for special added tokens, USER_DEFINED for
// the others, merges as "a b".
func hfToGGUF(t *testing.T, path, pre, bos string, addBOS bool) []byte {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Model struct {
			Vocab  map[string]int    `json:"vocab"`
			Merges []json.RawMessage `json:"merges"`
		} `json:"model"`
		Added []struct {
			ID      int    `json:"id"`
			Content string `json:"content"`
			Special bool   `json:"special"`
		} `json:"added_tokens"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	vocab := map[string]int{}
	for k, v := range doc.Model.Vocab {
		vocab[k] = v
	}
	special := map[string]bool{}
	for _, a := range doc.Added {
		vocab[a.Content], special[a.Content] = a.ID, a.Special
	}
	n := 0
	for _, id := range vocab {
		n = max(n, id+1)
	}
	tokens := make([]string, n)
	types := make([]int32, n)
	for i := range tokens {
		tokens[i], types[i] = fmt.Sprintf("[PAD%d]", i), ggmlTokUnused
	}
	for tok, id := range vocab {
		tokens[id], types[id] = tok, ggmlTokNormal
		if s, ok := special[tok]; ok {
			types[id] = ggmlTokUserDefined
			if s {
				types[id] = ggmlTokControl
			}
		}
	}
	ms := make([]string, len(doc.Model.Merges))
	for i, raw := range doc.Model.Merges {
		var s string
		var pair [2]string
		if json.Unmarshal(raw, &s) != nil {
			if err := json.Unmarshal(raw, &pair); err != nil {
				t.Fatal(err)
			}
			s = pair[0] + " " + pair[1]
		}
		ms[i] = s
	}
	kvs := []ggufKV{
		{"tokenizer.ggml.model", "gpt2"}, {"tokenizer.ggml.pre", pre}, {"tokenizer.ggml.tokens", tokens},
		{"tokenizer.ggml.token_type", types}, {"tokenizer.ggml.merges", ms}, {"tokenizer.ggml.add_bos_token", addBOS},
	}
	if id, ok := vocab[bos]; ok {
		kvs = append(kvs, ggufKV{"tokenizer.ggml.bos_token_id", uint32(id)})
	}
	return writeGGUF(kvs)
}

// TestGGUFGolden converts real tokenizer.json files into GGUF metadata as
// llama.cpp's converter does and checks the result against Hugging Face's
// ids on the corpus (skipped, like the other golden tests, when the
// reference files cannot be fetched).
func TestGGUFGolden(t *testing.T) {
	skipUnderRace(t)
	for _, c := range []struct {
		golden, pre, bos string
		addBOS           bool
	}{
		{"llama3", "llama-bpe", "<|begin_of_text|>", false}, // the 3.0 file's template adds no BOS
		{"llama3_1", "llama-bpe", "<|begin_of_text|>", true},
		{"qwen3", "qwen2", "", false},
	} {
		t.Run(c.golden, func(t *testing.T) {
			path := fetchTokenizer(t, refTokenizerNamed(t, c.golden))
			tok, err := ParseGGUF(bytes.NewReader(hfToGGUF(t, path, c.pre, c.bos, c.addBOS)), c.golden+".gguf")
			if err != nil {
				t.Fatal(err)
			}
			if c.golden != "qwen3" {
				compareGolden(t, tok, c.golden)
				return
			}
			// Qwen's tokenizer.json normalizes to NFC; llama.cpp's qwen2
			// pre-tokenizer does not, nor does the GGUF tokenizer: the two
			// agree on NFC text (70 corpus lines are not NFC).
			corpus := readCorpus(t)
			for i, w := range readGolden(t, c.golden) {
				if got := tok.Encode(norm.NFC.String(corpus[i].Text)); !slices.Equal(got, w.IDs) {
					t.Fatalf("corpus line %d: %d ids, Hugging Face's %d", i+1, len(got), len(w.IDs))
				}
			}
		})
	}
}
