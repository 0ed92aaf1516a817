package tokenize

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

// FuzzEncode checks that encoding never panics on any input, valid UTF-8 or
// not, that Count agrees with Encode, and that byte-level tokenizers decode
// valid UTF-8 back to the exact input.
func FuzzEncode(f *testing.F) {
	byteLevelTok := loadFixture(f, "bytelevel.json", nil)
	spmTok := loadFixture(f, "spm.json", nil)
	metaTok := loadFixture(f, "metaspace.json", nil)
	prefixTok := loadFixture(f, "prefix.json", nil)
	for _, s := range []string{"", "hello there", "<|bos|>x<|eot|>", "\xff\xfe\x00", "é", "a  b\n\n\r\n", "▁▁a", "<s></s>",
		"👩‍👩‍👧‍👦🇫🇷", "it's 12345", "\u00a0\u3000 x", "<sep>ab ab", "un run ux"} {
		f.Add(s)
	}
	for i, r := range readCorpus(f) {
		if i%20 == 0 && len(r.Text) < 2000 {
			f.Add(r.Text)
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tok := range []*Tokenizer{byteLevelTok, spmTok, metaTok, prefixTok} {
			ids := tok.Encode(s)
			if n := tok.Count(s); n != len(ids) {
				t.Fatalf("%s: Count(%q) = %d, len(Encode) = %d", tok.Name(), s, n, len(ids))
			}
			if sp := tok.EncodeWithSpecial(s); len(sp) < len(ids) {
				t.Fatalf("%s: EncodeWithSpecial shorter than Encode", tok.Name())
			}
			_ = tok.Decode(ids)
		}
		if utf8.ValidString(s) {
			if got := byteLevelTok.Decode(byteLevelTok.Encode(s)); got != s {
				t.Fatalf("byte-level round trip of %q gave %q", s, got)
			}
		}
	})
}

// FuzzParse checks that loading never panics on malformed tokenizer.json input
// and that whatever loads can encode and decode.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"bytelevel.json", "spm.json", "metaspace.json", "prefix.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", "fixtures", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"model":{"vocab":{"a":0,"b":1,"ab":2},"merges":[["a","b"]]}}`))
	f.Add([]byte(`{"model":{"type":"BPE","vocab":{},"merges":[]},"added_tokens":[{"id":0,"content":"x"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tok, err := Parse(data, "fuzz.json")
		if err != nil {
			return
		}
		for _, s := range []string{"hello world", "\xff<s> ab", ""} {
			ids := tok.Encode(s)
			_ = tok.Decode(ids)
			_ = tok.EncodeWithSpecial(s)
		}
		_ = tok.Decode([]int{0, 1, 2, -1, tok.VocabSize()})
	})
}

// FuzzRunCount checks that the JSON Lines reader never panics.
func FuzzRunCount(f *testing.F) {
	tok := loadFixture(f, "bytelevel.json", nil)
	f.Add([]byte("{\"text\":\"hello\"}\n\n{\"text\":\"<|bos|>\"}\n"))
	f.Add([]byte("{\"text\":5}\n"))
	f.Add([]byte("not json\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = RunCount(tok, bytes.NewReader(data), io.Discard, true, true)
		_ = RunCount(tok, bytes.NewReader(data), io.Discard, false, false)
	})
}
