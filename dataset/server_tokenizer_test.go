package dataset

import (
	"context"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/tokenize"
)

// Exact synthetic prompts built with --processor server: every prompt has
// the requested count by the server's tokenizer, the run's requests cost
// no tokenize request, and a server that fails while the prompts are built
// fails the open with its error.
func TestExactSyntheticServerTokenizer(t *testing.T) {
	local, err := tokenize.Builtin("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	cfg := mock.DefaultConfig()
	cfg.Personality = mock.PersonalityLlamaCpp
	cfg.PromptTokenIDs, cfg.PromptTokenDecoder = local.Encode, local.Decode
	srv, err := mock.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	tok, err := tokenize.NewServer(context.Background(), tokenize.ServerOptions{URL: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	spec, err := ParseSpec("prompt_tokens=300,output_tokens=10")
	if err != nil {
		t.Fatal(err)
	}
	d, err := OpenSynthetic(spec, Options{Tokenizer: tok, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("building exact prompts took %d tokenize requests", tok.ServerCalls())
	before := tok.ServerCalls()
	for i := uint64(0); i < 20; i++ {
		r, _ := d.Source.Request(i)
		if got := local.Count(r.Text()); got != 300 || r.PromptTokens != 300 {
			t.Fatalf("request %d: %d tokens by o200k_base, PromptTokens %d, want 300", i, got, r.PromptTokens)
		}
	}
	if after := tok.ServerCalls(); after != before {
		t.Errorf("20 requests sent %d tokenize requests, want none", after-before)
	}
	if !strings.Contains(d.Description.String(), tok.Name()) {
		t.Errorf("description %q does not name the tokenizer %q", d.Description.String(), tok.Name())
	}

	_ = srv.Close()
	spec2, _ := ParseSpec("prompt_tokens=301,output_tokens=10")
	if _, err := OpenSynthetic(spec2, Options{Tokenizer: tok, Seed: 7}); err == nil || !strings.Contains(err.Error(), "POST /tokenize") {
		t.Errorf("open after the server closed: err = %v, want the failed POST /tokenize", err)
	}
}
