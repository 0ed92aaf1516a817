package tokenize_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/tokenize"
)

// startMock serves the mock on loopback with local's tokenizer behind its
// /tokenize and /detokenize, in the personality's form.
func startMock(t *testing.T, personality string, local *tokenize.Tokenizer) *mock.Server {
	t.Helper()
	cfg := mock.DefaultConfig()
	cfg.Personality = personality
	cfg.PromptTokenIDs, cfg.PromptTokenDecoder = local.Encode, local.Decode
	s, err := mock.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func corpusTexts(t *testing.T, n int) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "corpus.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() && len(out) < n {
		var r struct{ Text string }
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r.Text)
	}
	return out
}

// --processor server finds which form the server speaks and gives the
// server's ids, counts and texts.
func TestServerTokenizer(t *testing.T) {
	local, err := tokenize.Load(filepath.Join("testdata", "fixtures", "bytelevel.json"))
	if err != nil {
		t.Fatal(err)
	}
	texts := corpusTexts(t, 200)
	for _, c := range []struct{ personality, form string }{{mock.PersonalityVLLM, "vLLM"}, {mock.PersonalityLlamaCpp, "llama.cpp"}} {
		t.Run(c.personality, func(t *testing.T) {
			s := startMock(t, c.personality, local)
			tok, err := tokenize.Resolve("server", tokenize.ResolveOptions{Server: &tokenize.ServerOptions{URL: s.URL() + "/v1/", Model: "x"}})
			if err != nil {
				t.Fatal(err)
			}
			if want := s.URL() + "/tokenize (" + c.form + ")"; tok.Name() != want || !tok.Remote() || tok.VocabSize() != 0 || tok.Hash() != "" {
				t.Errorf("Name %q (want %q), Remote %v, VocabSize %d, Hash %q", tok.Name(), want, tok.Remote(), tok.VocabSize(), tok.Hash())
			}
			for i, text := range texts {
				ids := tok.Encode(text)
				if want := local.Encode(text); !slices.Equal(ids, want) {
					t.Fatalf("line %d: Encode = %v, local %v", i+1, ids, want)
				}
				if n := tok.Count(text); n != len(ids) {
					t.Fatalf("line %d: Count = %d, len(Encode) = %d", i+1, n, len(ids))
				}
				if got, want := tok.Decode(ids), local.Decode(ids); got != want {
					t.Fatalf("line %d: Decode = %q, local %q", i+1, got, want)
				}
			}
			// Encode, Count and Decode: three requests per line.
			if got := tok.ServerCalls(); got != int64(3*len(texts)) {
				t.Errorf("ServerCalls = %d, want %d", got, 3*len(texts))
			}
			if err := tok.Err(); err != nil {
				t.Fatal(err)
			}
			// A server that goes away: no tokens, and Err says why.
			_ = s.Close()
			if ids := tok.Encode("hello"); len(ids) != 0 {
				t.Errorf("Encode after the server closed = %v", ids)
			}
			if err := tok.Err(); err == nil || !strings.Contains(err.Error(), "POST /tokenize") {
				t.Errorf("Err = %v, want the failed POST /tokenize", err)
			}
		})
	}
}

func TestServerTokenizerRefused(t *testing.T) {
	local, err := tokenize.Load(filepath.Join("testdata", "fixtures", "bytelevel.json"))
	if err != nil {
		t.Fatal(err)
	}
	ollama := startMock(t, mock.PersonalityOllama, local)
	_, err = tokenize.Resolve("server", tokenize.ResolveOptions{Server: &tokenize.ServerOptions{URL: ollama.URL()}})
	if err == nil || !strings.HasPrefix(err.Error(), "--processor server: server tokenizer: "+ollama.URL()+"/tokenize answers neither llama.cpp's nor vLLM's form (llama.cpp form: POST /tokenize: 404 Not Found") {
		t.Errorf("Ollama: err = %v", err)
	}
	_, err = tokenize.Resolve("server", tokenize.ResolveOptions{Flag: "--tokenizer"})
	if err == nil || !strings.HasPrefix(err.Error(), "--tokenizer server: asks the target's /tokenize endpoint, so it needs a target") {
		t.Errorf("no target: err = %v", err)
	}
}
