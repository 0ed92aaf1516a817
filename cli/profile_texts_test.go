package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/clitest"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/record"
)

// bodyTap serves the mock and keeps the JSON bodies it was sent, by path.
type bodyTap struct {
	h      http.Handler
	mu     sync.Mutex
	bodies map[string][]map[string]any
}

func (b *bodyTap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var m map[string]any
	if json.Unmarshal(raw, &m) == nil {
		b.mu.Lock()
		b.bodies[r.URL.Path] = append(b.bodies[r.URL.Path], m)
		b.mu.Unlock()
	}
	r.Body = io.NopCloser(bytes.NewReader(raw))
	b.h.ServeHTTP(w, r)
}

// AIPerf's embeddings and rankings input files run with AIPerf's meaning,
// with the docs' own command lines and example files (ai-dynamo/aiperf's
// docs/tutorials/embeddings.md, "Profile with Custom Input File", and
// docs/tutorials/rankings.md, "Profile using Custom Inputs": the files are
// dataset/testdata/aiperf_*.jsonl): one request per record, its texts the
// embeddings input array, or the rankings query and passages under the
// endpoint's keys (TEI's texts, Cohere's documents, NIM's passages).
func TestProfileAIPerfTextsFiles(t *testing.T) {
	cfg := mock.DefaultConfig()
	cfg.TTFT, cfg.TTFTStdev, cfg.ITL, cfg.ITLStdev = 5*time.Millisecond, 0, time.Millisecond, 0
	m, err := mock.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	tap := &bodyTap{h: m.Handler(), bodies: map[string][]map[string]any{}}
	srv := httptest.NewServer(tap)
	t.Cleanup(srv.Close)
	embeddings := filepath.Join("..", "dataset", "testdata", "aiperf_embeddings.jsonl")
	rankings := filepath.Join("..", "dataset", "testdata", "aiperf_rankings.jsonl")
	query := func(i int) string { return "What is AI topic " + string(rune('0'+i)) + "?" }
	passages := func(i int) []any { return []any{"AI passage " + string(rune('0'+i))} }
	for _, c := range []struct {
		args  []string
		path  string
		check func(i int, body map[string]any) bool
	}{
		{[]string{"--endpoint-type", "embeddings", "--endpoint", "/v1/embeddings", "--input-file", embeddings, "--custom-dataset-type", "single_turn", "--request-count", "5"},
			"/v1/embeddings", func(i int, b map[string]any) bool {
				want := []string{"What is artificial intelligence?", "Explain machine learning.", "How do neural networks work?", "Define deep learning.", "What are transformers in AI?"}[i]
				return slices.Equal(toStrings(b["input"]), []string{want})
			}},
		{[]string{"--endpoint-type", "hf_tei_rankings", "--input-file", rankings, "--custom-dataset-type", "single_turn", "--request-count", "5"},
			"/rerank", func(i int, b map[string]any) bool {
				return b["query"] == query(i) && slices.Equal(toStrings(b["texts"]), toStrings(passages(i)))
			}},
		{[]string{"--endpoint-type", "cohere_rankings", "--input-file", rankings, "--custom-dataset-type", "single_turn", "--request-count", "5"},
			"/v1/rerank", func(i int, b map[string]any) bool {
				return b["query"] == query(i) && slices.Equal(toStrings(b["documents"]), toStrings(passages(i)))
			}},
		// NIM's body: the query and each passage as {"text": …}.
		{[]string{"--endpoint-type", "nim_rankings", "--input-file", rankings, "--custom-dataset-type", "single_turn", "--request-count", "5"},
			"/v1/ranking", func(i int, b map[string]any) bool {
				q, _ := b["query"].(map[string]any)
				var ps []any
				for _, p := range toObjects(b["passages"]) {
					ps = append(ps, p["text"])
				}
				return b["model"] == "goodput-mock" && q["text"] == query(i) && len(q) == 1 && slices.Equal(toStrings(ps), toStrings(passages(i)))
			}},
	} {
		dir := t.TempDir()
		code, _, stderr := runGoodput(t, append([]string{"profile", "--url", srv.URL, "--model", "goodput-mock", "--artifact-dir", dir,
			"--ui-type", "none", "--tokenizer", "builtin"}, c.args...)...)
		if code != ExitOK {
			t.Fatalf("%q: exit %d: %s", c.args, code, stderr)
		}
		recs := clitest.ReadRecords(t, filepath.Join(dir, "goodput.jsonl"))
		if len(recs) != 5 {
			t.Fatalf("%s: %d records, want one per record of the file (5)", c.path, len(recs))
		}
		for _, r := range recs {
			if r.Status != record.StatusSuccessful || r.Inputs != 1 || r.ClientPromptTokens < 1 {
				t.Errorf("%s: request %d: %s %s, %d inputs, %d client prompt tokens", c.path, r.ID, r.Status, r.Error, r.Inputs, r.ClientPromptTokens)
			}
		}
		tap.mu.Lock()
		got := tap.bodies[c.path]
		delete(tap.bodies, c.path)
		tap.mu.Unlock()
		if len(got) != 5 {
			t.Fatalf("%s: %d bodies, want 5", c.path, len(got))
		}
		for i, b := range got {
			if !c.check(i, b) {
				t.Errorf("%s: record %d sent %v", c.path, i+1, b)
			}
		}
	}
	// Several texts: one request of several inputs; a record that does not
	// fit the endpoint is refused naming its field.
	multi := writeFile(t, "multi.jsonl", `{"texts": ["a b c", "d e"]}`+"\n")
	dir := t.TempDir()
	code, _, stderr := runGoodput(t, "profile", "--url", srv.URL, "--model", "goodput-mock", "--artifact-dir", dir, "--ui-type", "none",
		"--endpoint-type", "embeddings", "--input-file", multi)
	if code != ExitOK {
		t.Fatalf("several texts: exit %d: %s", code, stderr)
	}
	if recs := clitest.ReadRecords(t, filepath.Join(dir, "goodput.jsonl")); len(recs) != 1 || recs[0].Inputs != 2 {
		t.Errorf("several texts: %d records, want one of 2 inputs", len(recs))
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--endpoint-type", "cohere_rankings", "--input-file", multi}, `multi.jsonl:1: field "texts[0]": a rankings request needs named texts`},
		{[]string{"--endpoint-type", "embeddings", "--input-file", embeddings, "-b", "2"}, "each record of " + embeddings + " gives its request's texts"},
	} {
		code, _, stderr := runGoodput(t, append([]string{"profile", "--url", srv.URL, "--model", "goodput-mock", "--ui-type", "none"}, c.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and one line with %q", c.args, code, stderr, c.want)
		}
	}
}

func toObjects(v any) []map[string]any {
	l, _ := v.([]any)
	out := make([]map[string]any, 0, len(l))
	for _, x := range l {
		m, _ := x.(map[string]any)
		out = append(out, m)
	}
	return out
}

func toStrings(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
