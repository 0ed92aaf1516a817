package tokenize

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// fixture reads a hand-made tokenizer.json from testdata/fixtures and applies
// patches: dotted JSON paths ("model.ignore_merges") set to new values.
func fixture(t testing.TB, name string, patches map[string]any) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "fixtures", name))
	if err != nil {
		t.Fatal(err)
	}
	if len(patches) == 0 {
		return data
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for path, v := range patches {
		keys := strings.Split(path, ".")
		cur := doc
		for _, k := range keys[:len(keys)-1] {
			next, ok := cur[k].(map[string]any)
			if !ok {
				t.Fatalf("patch %s: %s is not an object", path, k)
			}
			cur = next
		}
		cur[keys[len(keys)-1]] = v
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func loadFixture(t testing.TB, name string, patches map[string]any) *Tokenizer {
	t.Helper()
	tok, err := Parse(fixture(t, name, patches), name)
	if err != nil {
		t.Fatalf("loading %s: %v", name, err)
	}
	return tok
}

// jsonValue parses a JSON snippet for use in a patch.
func jsonValue(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad snippet %s: %v", s, err)
	}
	return v
}

// encodeCase is one input with the ids Hugging Face produces for it, worked out
// by hand from the fixture's vocabulary and merges.
type encodeCase struct {
	name    string
	fixture string
	patch   map[string]string // path -> JSON snippet
	text    string
	want    []int
	special []int  // EncodeWithSpecial; nil means the fixture's BOS (if any) + want
	decoded string // Decode(want); "" means text
}

// Ids in fixtures/bytelevel.json: a byte-level character has its byte's value
// (Ġ = ' ' = 32, Ċ = '\n' = 10); merges: Ġt 256, he 257, Ġthe 258, in 259,
// Ġa 260, er 261, ĠĠ 262, ll 263, hell 264, hello 265, ĊĊ 266, Ã© (é) 267;
// xyz 268 (no merge leads to it); added <|bos|> 269, <|eot|> 270.
//
// fixtures/spm.json: <unk> 0, <s> 1, </s> 2, <0x00>..<0xFF> 3..258, ▁ 259, a 260,
// b 261, h 262, i 263, ▁a 264, ab 265, ▁ab 266, hi 267, ▁hi 268.
//
// fixtures/metaspace.json: <unk> 0, ▁ 1, a 2, b 3, ▁a 4, ▁b 5, ab 6, ▁ab 7, <sep> 8.
//
// fixtures/prefix.json (continuing_subword_prefix "##", end_of_word_suffix "</w>"):
// [UNK] 0, u 1, ##n 2, r 3, ##u 4, ##n</w> 5, un</w> 6, ru 7, run</w> 8.
var encodeCases = []encodeCase{
	// Byte-level BPE: merges lowest rank first.
	{name: "merges", fixture: "bytelevel.json", text: "hello there", want: []int{265, 258, 114, 101}, special: []int{269, 265, 258, 114, 101}},
	{name: "empty", fixture: "bytelevel.json", text: "", want: []int{}, special: []int{269}},
	{name: "leftmost among equal ranks", fixture: "bytelevel.json", text: "the", want: []int{116, 257}},
	{name: "multi-byte character", fixture: "bytelevel.json", text: "café", want: []int{99, 97, 102, 267}},
	{name: "whitespace runs split before the last space", fixture: "bytelevel.json", text: "a  b", want: []int{97, 32, 32, 98}},
	{name: "newlines", fixture: "bytelevel.json", text: "\n\n", want: []int{266}},
	{name: "invalid UTF-8 kept as bytes", fixture: "bytelevel.json", text: "a\xffb", want: []int{97, 255, 98}, decoded: "a\uFFFDb"},
	{name: "special token in text", fixture: "bytelevel.json", text: "<|bos|>hello<|eot|>", want: []int{269, 265, 270}},
	{name: "special token text split", fixture: "bytelevel.json", text: "<|bo", want: []int{60, 124, 98, 111}},
	{name: "without ignore_merges", fixture: "bytelevel.json", text: "xyz", want: []int{120, 121, 122}},
	{name: "ignore_merges", fixture: "bytelevel.json", patch: map[string]string{"model.ignore_merges": "true"}, text: "xyz hello", want: []int{268, 32, 265}},
	{name: "merges as pairs", fixture: "bytelevel.json", patch: map[string]string{"model.merges": `[["h","e"],["l","l"],["he","ll"],["hell","o"]]`}, text: "hello", want: []int{265}},
	{name: "ByteLevel prefix space and regex", fixture: "bytelevel.json",
		patch: map[string]string{"pre_tokenizer": `{"type":"ByteLevel","add_prefix_space":true,"trim_offsets":true,"use_regex":true}`},
		text:  "hello there", want: []int{32, 265, 258, 114, 101}, decoded: " hello there"},
	// Without a ByteLevel step the model sees raw characters: ' ' is not in the
	// vocabulary (its byte-level form Ġ is) and, with no unk_token, is dropped.
	{name: "no pre-tokenizer", fixture: "bytelevel.json", patch: map[string]string{"pre_tokenizer": `null`}, text: "hello there", want: []int{265, 116, 257, 114, 101}, decoded: "hellothere"},
	{name: "ByteLevel mapping before another step", fixture: "bytelevel.json",
		patch: map[string]string{"pre_tokenizer": `{"type":"Sequence","pretokenizers":[{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":false},{"type":"Split","pattern":{"String":"Ġ"},"behavior":"MergedWithNext","invert":false}]}`},
		text:  "hello there", want: []int{265, 258, 114, 101}},
	{name: "lstrip", fixture: "bytelevel.json",
		patch: map[string]string{"added_tokens": `[{"id":269,"content":"<|bos|>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},{"id":270,"content":"<|eot|>","single_word":false,"lstrip":true,"rstrip":false,"normalized":false,"special":true}]`},
		text:  "a <|eot|> b", want: []int{97, 270, 32, 98}, decoded: "a<|eot|> b"},
	{name: "rstrip", fixture: "bytelevel.json",
		patch: map[string]string{"added_tokens": `[{"id":269,"content":"<|bos|>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},{"id":270,"content":"<|eot|>","single_word":false,"lstrip":false,"rstrip":true,"normalized":false,"special":true}]`},
		text:  "a <|eot|> b", want: []int{97, 32, 270, 98}, decoded: "a <|eot|>b"},
	{name: "single_word matches alone", fixture: "bytelevel.json",
		patch: map[string]string{"added_tokens": `[{"id":269,"content":"<|bos|>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},{"id":270,"content":"<|eot|>","single_word":true,"lstrip":false,"rstrip":false,"normalized":false,"special":true}]`},
		text:  "a <|eot|>", want: []int{97, 32, 270}},
	{name: "single_word not inside a word", fixture: "bytelevel.json",
		patch: map[string]string{"added_tokens": `[{"id":269,"content":"<|bos|>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},{"id":270,"content":"<|eot|>","single_word":true,"lstrip":false,"rstrip":false,"normalized":false,"special":true}]`},
		text:  "a<|eot|>", want: []int{97, 60, 124, 101, 111, 116, 124, 62}},
	{name: "normalized added token", fixture: "bytelevel.json",
		patch: map[string]string{
			"normalizer":   `{"type":"Lowercase"}`,
			"added_tokens": `[{"id":269,"content":"<|bos|>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},{"id":270,"content":"<|EOT|>","single_word":false,"lstrip":false,"rstrip":false,"normalized":true,"special":false}]`,
		},
		text: "<|EoT|>HELLO", want: []int{270, 265}, decoded: "<|EOT|>hello"},
	// Like Hugging Face, the id of an added token comes from the vocabulary (or is
	// assigned after it), not from its "id" field.
	{name: "added token already in the vocabulary", fixture: "bytelevel.json",
		patch: map[string]string{"added_tokens": `[{"id":5,"content":"hello","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":false}]`},
		text:  "xhello", want: []int{120, 265}},
	{name: "NFC normalizer", fixture: "bytelevel.json", patch: map[string]string{"normalizer": `{"type":"NFC"}`}, text: "cafe\u0301", want: []int{99, 97, 102, 267}, decoded: "café"},
	{name: "Digits", fixture: "bytelevel.json",
		patch: map[string]string{"pre_tokenizer": `{"type":"Sequence","pretokenizers":[{"type":"Digits","individual_digits":true},{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":false}]}`},
		text:  "12", want: []int{49, 50}},

	// SentencePiece-style BPE with byte fallback.
	{name: "spm merges", fixture: "spm.json", text: "ab hi", want: []int{266, 268}, special: []int{1, 266, 268}},
	{name: "spm byte fallback", fixture: "spm.json", text: "é", want: []int{259, 198, 172}, special: []int{1, 259, 198, 172}},
	{name: "spm special tokens split first", fixture: "spm.json", text: "a<s>b</s>", want: []int{264, 1, 259, 261, 2}, decoded: "a<s> b</s>"},
	{name: "spm fused unknown", fixture: "spm.json", patch: map[string]string{"model.byte_fallback": "false"}, text: "xyz a", want: []int{259, 0, 264}, decoded: "<unk> a"},
	{name: "spm unknown not fused", fixture: "spm.json", patch: map[string]string{"model.byte_fallback": "false", "model.fuse_unk": "false"}, text: "xy", want: []int{259, 0, 0}, decoded: "<unk><unk>"},

	// Metaspace pre-tokenizer and decoder.
	{name: "metaspace first", fixture: "metaspace.json", text: "ab ab", want: []int{7, 7}},
	{name: "metaspace first after a special token", fixture: "metaspace.json", text: "<sep>ab", want: []int{8, 6}},
	{name: "metaspace always", fixture: "metaspace.json",
		patch: map[string]string{"pre_tokenizer.prepend_scheme": `"always"`, "decoder.prepend_scheme": `"always"`},
		text:  "<sep>ab", want: []int{8, 7}, decoded: "<sep> ab"},
	{name: "metaspace never", fixture: "metaspace.json",
		patch: map[string]string{"pre_tokenizer.prepend_scheme": `"never"`, "decoder.prepend_scheme": `"never"`},
		text:  "ab b", want: []int{6, 5}},
	{name: "metaspace without split", fixture: "metaspace.json", patch: map[string]string{"pre_tokenizer.split": "false"}, text: "a a", want: []int{4, 4}},
	{name: "metaspace unknown", fixture: "metaspace.json", text: "x", want: []int{1, 0}, decoded: "<unk>"},
	{name: "metaspace first after a prepend normalizer", fixture: "metaspace.json",
		patch: map[string]string{"normalizer": `{"type":"Prepend","prepend":"b"}`},
		text:  "<sep>a a", want: []int{8, 3, 2, 4}, decoded: "<sep>ba a"},
	{name: "metaspace first with a prepend normalizer at the start", fixture: "metaspace.json",
		patch: map[string]string{"normalizer": `{"type":"Prepend","prepend":"b"}`},
		text:  "a a", want: []int{5, 2, 4}, decoded: "ba a"},

	// A merge joining "a" to "▁" means words cannot be cut before "▁".
	{name: "spm merge across ▁", fixture: "spm.json",
		patch: map[string]string{"model.vocab": `{"<unk>":0,"<s>":1,"</s>":2,"▁":3,"a":4,"a▁":5}`, "model.merges": `["a ▁"]`},
		text:  "a a", want: []int{3, 5, 4}},

	// Gemma 3 has one such merge, (">", "▁</"): cuts are still made elsewhere.
	{name: "spm merge across ▁ after one character", fixture: "spm.json",
		patch: map[string]string{"model.vocab": `{"<unk>":0,"▁":1,">":2,"▁<":3,"<":4,">▁<":5,"b":6}`, "model.merges": `["▁ <","> ▁<"]`, "model.byte_fallback": "false"},
		text:  "b > <", want: []int{1, 6, 1, 5}},
	// Without unk_token or full byte fallback, unknown characters are dropped,
	// which here makes two "▁" meet.
	{name: "spm dropped character", fixture: "spm.json",
		patch: map[string]string{"model.vocab": `{"▁":0,"a":1,"▁▁":2}`, "model.merges": `["▁ ▁"]`, "model.byte_fallback": "false", "model.unk_token": "null"},
		text:  "x a", want: []int{2, 1}, decoded: " a"},

	// continuing_subword_prefix and end_of_word_suffix.
	{name: "prefix and suffix", fixture: "prefix.json", text: "un run", want: []int{6, 8}},
	{name: "prefix unknown", fixture: "prefix.json", text: "ux", want: []int{1, 0}, decoded: "u[UNK]"},
	{name: "suffix on a single character", fixture: "prefix.json", text: "u", want: []int{0}, decoded: "[UNK]"},
}

// fixtureBOS is what each fixture's TemplateProcessing puts before the sequence.
var fixtureBOS = map[string][]int{"bytelevel.json": {269}, "spm.json": {1}}

func TestEncodeFixtures(t *testing.T) {
	for _, c := range encodeCases {
		t.Run(c.name, func(t *testing.T) {
			patches := map[string]any{}
			for k, v := range c.patch {
				patches[k] = jsonValue(t, v)
			}
			tok := loadFixture(t, c.fixture, patches)
			got := tok.Encode(c.text)
			if !slices.Equal(got, c.want) {
				t.Fatalf("Encode(%q) = %v, want %v", c.text, got, c.want)
			}
			if n := tok.Count(c.text); n != len(c.want) {
				t.Errorf("Count(%q) = %d, want %d", c.text, n, len(c.want))
			}
			wantSp := append(slices.Clone(fixtureBOS[c.fixture]), c.want...)
			if c.special != nil {
				wantSp = c.special
			}
			if got := tok.EncodeWithSpecial(c.text); !slices.Equal(got, wantSp) {
				t.Errorf("EncodeWithSpecial(%q) = %v, want %v", c.text, got, wantSp)
			}
			wantDec := c.text
			if c.decoded != "" {
				wantDec = c.decoded
			}
			if got := tok.Decode(c.want); got != wantDec {
				t.Errorf("Decode(%v) = %q, want %q", c.want, got, wantDec)
			}
		})
	}
}

func TestTokenizerMetadata(t *testing.T) {
	data := fixture(t, "bytelevel.json", nil)
	tok, err := Parse(data, "fixture-name")
	if err != nil {
		t.Fatal(err)
	}
	if got := tok.Name(); got != "fixture-name" {
		t.Errorf("Name = %q", got)
	}
	if got, want := tok.Hash(), "sha256:"+sha256Hex(data); got != want {
		t.Errorf("Hash = %q, want %q", got, want)
	}
	if got := tok.VocabSize(); got != 271 {
		t.Errorf("VocabSize = %d, want 271 (ids 0..270)", got)
	}
	if got := tok.Decode([]int{265, -1, 1 << 40, 99999, 32}); got != "hello " {
		t.Errorf("Decode skips unknown ids: got %q", got)
	}
	path := filepath.Join("testdata", "fixtures", "spm.json")
	spm, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if spm.Name() != path || spm.VocabSize() != 269 {
		t.Errorf("Load: name %q vocab %d", spm.Name(), spm.VocabSize())
	}
	if _, err := Load(filepath.Join("testdata", "fixtures", "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("Load of a missing file: %v", err)
	}
}

// TestConcurrentEncode runs many goroutines on one tokenizer (meaningful under
// -race) and checks that they all get the same answer.
func TestConcurrentEncode(t *testing.T) {
	for _, name := range []string{"bytelevel.json", "spm.json", "metaspace.json"} {
		tok := loadFixture(t, name, nil)
		texts := []string{"hello there the café", "ab hi é", "ab ab <sep>ab", strings.Repeat("hello there ", 200)}
		want := make([][]int, len(texts))
		for i, s := range texts {
			want[i] = tok.Encode(s)
		}
		var wg sync.WaitGroup
		errs := make(chan string, 64)
		for g := 0; g < 16; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := 0; k < 200; k++ {
					i := (g + k) % len(texts)
					if got := tok.Encode(texts[i]); !slices.Equal(got, want[i]) {
						errs <- name + ": " + texts[i]
						return
					}
					if n := tok.Count(texts[i]); n != len(want[i]) {
						errs <- name + ": count " + texts[i]
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Errorf("concurrent Encode differs: %s", e)
		}
	}
}
