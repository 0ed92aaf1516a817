package tokenize

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goodput-dev/goodput/internal/redact"
)

// ServerOptions says where the tokenize endpoint of --processor server is.
type ServerOptions struct {
	// URL is the server's base URL (a trailing "/" or "/v1" is ignored).
	URL string
	// Model is sent to vLLM's endpoint; "" lets the server use its model.
	Model string
	// APIKey, when set, is sent as a Bearer token.
	APIKey string
	// Client makes the requests; nil means a client with a 30 s timeout.
	Client *http.Client
}

// Server forms of the tokenize endpoint.
const (
	formLlamaCpp = "llama.cpp"
	formVLLM     = "vLLM"
)

// serverTokenizer asks a server to tokenize: llama.cpp's
// POST /tokenize {"content", "add_special"} → {"tokens"} and
// POST /detokenize {"tokens"} → {"content"}, or vLLM's
// POST /tokenize {"model", "prompt", "add_special_tokens"} → {"count", "tokens"}
// and POST /detokenize {"model", "tokens"} → {"prompt"}.
type serverTokenizer struct {
	base, model, key, form string
	client                 *http.Client

	calls atomic.Int64
	mu    sync.Mutex
	err   error // the first failure; later calls then fail at once
}

// NewServer returns a tokenizer that asks the server at opts.URL, after
// finding which form of /tokenize it answers (llama.cpp's, then vLLM's).
// Every Encode, Count and Decode is one HTTP request; a failure is kept and
// reported by Err, and makes later calls return no tokens.
func NewServer(ctx context.Context, opts ServerOptions) (*Tokenizer, error) {
	base := strings.TrimRight(opts.URL, "/")
	base = strings.TrimRight(strings.TrimSuffix(base, "/v1"), "/")
	if !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
		return nil, fmt.Errorf("server tokenizer: target %q: want an http:// or https:// URL", redact.URL(opts.URL))
	}
	s := &serverTokenizer{base: base, model: opts.Model, key: opts.APIKey, client: opts.Client}
	if s.client == nil {
		s.client = &http.Client{Timeout: 30 * time.Second}
	}
	const probe = "Hello world"
	var tried []string
	for _, form := range []string{formLlamaCpp, formVLLM} {
		s.form = form
		ids, err := s.tokenize(ctx, probe, false)
		if err == nil && len(ids) > 0 {
			break
		}
		if err == nil {
			err = errors.New("no tokens for a non-empty text")
		}
		tried = append(tried, fmt.Sprintf("%s form: %v", form, err))
		s.form = ""
	}
	if s.form == "" {
		return nil, fmt.Errorf("server tokenizer: %s/tokenize answers neither llama.cpp's nor vLLM's form (%s)",
			redact.URL(base), strings.Join(tried, "; "))
	}
	s.calls.Store(0)
	return &Tokenizer{name: fmt.Sprintf("%s/tokenize (%s)", redact.URL(base), s.form), server: s}, nil
}

// post sends body as JSON to path and decodes the answer into out.
func (s *serverTokenizer) post(ctx context.Context, path string, body, out any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.base+path, bytes.NewReader(data))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if s.key != "" {
		req.Header.Set("Authorization", "Bearer "+s.key)
	}
	s.calls.Add(1)
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("POST %s: %w", path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("POST %s: reading the answer: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: %s: %s", path, resp.Status, abbreviate(rawJSON(bytes.TrimSpace(raw))))
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("POST %s: malformed answer %s: %v", path, abbreviate(rawJSON(raw)), err)
	}
	return nil
}

// tokenize asks for the ids of text, with the special tokens the model adds
// when special is set.
func (s *serverTokenizer) tokenize(ctx context.Context, text string, special bool) ([]int, error) {
	var out struct {
		Tokens []int `json:"tokens"`
		Count  *int  `json:"count"`
	}
	if s.form == formLlamaCpp {
		if err := s.post(ctx, "/tokenize", map[string]any{"content": text, "add_special": special}, &out); err != nil {
			return nil, err
		}
		if out.Count != nil {
			return nil, errors.New("the answer has vLLM's count field")
		}
	} else {
		body := map[string]any{"prompt": text, "add_special_tokens": special}
		if s.model != "" {
			body["model"] = s.model
		}
		if err := s.post(ctx, "/tokenize", body, &out); err != nil {
			return nil, err
		}
		if out.Count == nil || *out.Count != len(out.Tokens) {
			return nil, errors.New(`the answer's "count" is missing or differs from its tokens`)
		}
	}
	if out.Tokens == nil {
		out.Tokens = []int{}
	}
	return out.Tokens, nil
}

func (s *serverTokenizer) detokenize(ctx context.Context, ids []int) (string, error) {
	var out struct {
		Content *string `json:"content"` // llama.cpp
		Prompt  *string `json:"prompt"`  // vLLM
	}
	body := map[string]any{"tokens": ids}
	if s.form == formVLLM && s.model != "" {
		body["model"] = s.model
	}
	if err := s.post(ctx, "/detokenize", body, &out); err != nil {
		return "", err
	}
	switch {
	case s.form == formLlamaCpp && out.Content != nil:
		return *out.Content, nil
	case s.form == formVLLM && out.Prompt != nil:
		return *out.Prompt, nil
	}
	return "", errors.New("POST /detokenize: the answer has no text")
}

// fail keeps the first error.
func (s *serverTokenizer) fail(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
}

func (s *serverTokenizer) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *serverTokenizer) encode(text string, special bool) []int {
	if s.failed() != nil {
		return nil
	}
	ids, err := s.tokenize(context.Background(), text, special)
	if err != nil {
		s.fail(err)
		return nil
	}
	return ids
}

func (s *serverTokenizer) decode(ids []int) string {
	if s.failed() != nil || len(ids) == 0 {
		return ""
	}
	text, err := s.detokenize(context.Background(), ids)
	if err != nil {
		s.fail(err)
		return ""
	}
	return text
}

// Remote reports whether the tokenizer asks a server (--processor server):
// each call is then an HTTP request, which callers keep off the request path.
func (t *Tokenizer) Remote() bool { return t.server != nil }

// Err returns the first failure of a server tokenizer (nil for the others):
// Encode, Count and Decode cannot return errors, so callers that used a
// server tokenizer check Err before trusting what they built.
func (t *Tokenizer) Err() error {
	if t.server == nil {
		return nil
	}
	if err := t.server.failed(); err != nil {
		return fmt.Errorf("tokenizer %s: %w", t.name, err)
	}
	return nil
}

// ServerCalls returns how many requests a server tokenizer has sent since it
// was made (0 for the others).
func (t *Tokenizer) ServerCalls() int64 {
	if t.server == nil {
		return 0
	}
	return t.server.calls.Load()
}
