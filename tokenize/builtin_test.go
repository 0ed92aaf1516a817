package tokenize

import (
	"slices"
	"strings"
	"testing"
)

func TestBuiltin(t *testing.T) {
	cases := []struct {
		name      string
		canonical string
		hash      string // OpenAI's published sha256 of the .tiktoken rank file
		vocab     int
		hello     []int // "hello world"
		eot       []int // "<|endoftext|>x"
		spaces    []int // " \n  \n    \r\n", which tiktoken-go's own matcher splits wrongly
	}{
		{"o200k_base", "o200k_base", "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d", 200019, []int{24912, 2375}, []int{199999, 87}, []int{77815, 11907}},
		{"gpt-4o", "o200k_base", "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d", 200019, []int{24912, 2375}, []int{199999, 87}, []int{77815, 11907}},
		{"cl100k_base", "cl100k_base", "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7", 100277, []int{15339, 1917}, []int{100257, 87}, []int{49526, 6557}},
		{"gpt-4", "cl100k_base", "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7", 100277, []int{15339, 1917}, []int{100257, 87}, []int{49526, 6557}},
		{"gpt-3.5-turbo", "cl100k_base", "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7", 100277, []int{15339, 1917}, []int{100257, 87}, []int{49526, 6557}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tok, err := Builtin(c.name)
			if err != nil {
				t.Fatal(err)
			}
			if tok.Name() != c.canonical || tok.Hash() != "sha256:"+c.hash || tok.VocabSize() != c.vocab {
				t.Errorf("Name %q Hash %q VocabSize %d", tok.Name(), tok.Hash(), tok.VocabSize())
			}
			for _, e := range []struct {
				text string
				want []int
			}{{"hello world", c.hello}, {"<|endoftext|>x", c.eot}, {" \n  \n    \r\n", c.spaces}} {
				if got := tok.Encode(e.text); !slices.Equal(got, e.want) {
					t.Errorf("Encode(%q) = %v, want %v", e.text, got, e.want)
				}
				if got := tok.EncodeWithSpecial(e.text); !slices.Equal(got, e.want) {
					t.Errorf("EncodeWithSpecial(%q) = %v, want %v (no BOS for OpenAI encodings)", e.text, got, e.want)
				}
				if got := tok.Decode(e.want); got != e.text {
					t.Errorf("Decode(%v) = %q, want %q", e.want, got, e.text)
				}
			}
		})
	}
	if _, err := Builtin("p50k_base"); err == nil || !strings.Contains(err.Error(), `unknown built-in encoding "p50k_base" (known: cl100k_base, gpt-3.5-turbo, gpt-4, gpt-4o, o200k_base)`) {
		t.Errorf("unknown encoding: %v", err)
	}
}
