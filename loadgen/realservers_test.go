package loadgen

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/record"
)

// Against a server that closes its connection after every streamed
// response while advertising keep-alive (the mock's llamacpp personality,
// as llama-server), an open-loop run at 5 req/s makes no error of its
// own: the closed connections are found before reuse or retried on a new
// one, and counted in the client load block. The TTFT's spread makes
// responses end together now and then, so that several closed
// connections wait in the pool at once.
func TestClosingServerAtFiveRequestsPerSecond(t *testing.T) {
	srv := startMock(t, func(c *mock.Config) {
		c.Personality = mock.PersonalityLlamaCpp
		c.TTFT, c.TTFTStdev, c.ITL = 300*time.Millisecond, 200*time.Millisecond, 5*time.Millisecond
	})
	e := newEngine(t, ClientConfig{Target: srv.URL(), HTTPClient: HTTPClientGoodput})
	const n = 40
	res, recs := collect(t, e, context.Background(), Benchmark{
		Strategy:    Strategy{Kind: Constant, Rate: 5},
		Constraints: Constraints{MaxRequests: n},
		Source:      fixedSource{NewRequest("", "x", 8)},
	})
	errs := map[string]int{}
	for _, r := range recs {
		if r.Status != record.StatusSuccessful {
			errs[string(r.ErrorClass)+": "+r.Error]++
		}
	}
	cl := res.Client
	t.Logf("%d requests: %d successful, %d errored %v; client load: %d closed idle connections, %d retries",
		len(recs), res.Successful, res.Errored, errs, cl.ClosedIdleConns, cl.ConnRetries)
	if len(recs) != n || res.Successful != n || res.Errored != 0 {
		t.Fatalf("%d records, %d successful, %d errored: %v", len(recs), res.Successful, res.Errored, errs)
	}
	// Every connection is closed by the server: each one taken again was
	// either found closed or retried.
	if cl.ClosedIdleConns+cl.ConnRetries == 0 {
		t.Fatalf("no closed connection counted: %+v", cl)
	}
	if st := srv.Stats(); st.Requests != n {
		t.Fatalf("the server saw %d requests, want %d (none sent twice)", st.Requests, n)
	}
}

// The output limit goes as both max_tokens and max_completion_tokens by
// default, so a server that reads only max_tokens (Ollama) stops at it;
// narrowed to max_completion_tokens, the stream overruns and the error
// names the flag that fixes it.
func TestOutputLimitReadByOllama(t *testing.T) {
	srv := startMock(t, func(c *mock.Config) {
		c.Personality, c.OutputTokens, c.ITL = mock.PersonalityOllama, 200, 0
	})
	do := func(field string) *record.Record {
		t.Helper()
		c, err := NewClient(ClientConfig{Target: srv.URL(), Model: srv.Config().Model, MaxTokensField: field}, NewClock())
		if err != nil {
			t.Fatal(err)
		}
		rec := record.New()
		c.Do(context.Background(), NewRequest("", "hi", 8), rec, newConn())
		return rec
	}
	if rec := do(""); rec.Status != record.StatusSuccessful || rec.OutputTokens != 8 {
		t.Fatalf("default fields: %s %d tokens (%s)", rec.Status, rec.OutputTokens, rec.Error)
	}
	if rec := do("max_tokens"); rec.Status != record.StatusSuccessful || rec.OutputTokens != 8 {
		t.Fatalf("max_tokens: %s %d tokens (%s)", rec.Status, rec.OutputTokens, rec.Error)
	}
	// 2×8+64 chunks are allowed before the stream is stopped.
	rec := do("max_completion_tokens")
	if rec.Status != record.StatusErrored || rec.ErrorClass != record.ErrProtocol ||
		rec.Error != "server streamed more than 80 token chunks for an output limit of 8 sent as max_completion_tokens, which it does not read: --max-tokens-field max_tokens sends it in the form Ollama and other compatible servers read" {
		t.Fatalf("%s %s: %s", rec.Status, rec.ErrorClass, rec.Error)
	}
}

// --model tiny against a server that lists only tiny:latest (Ollama) is
// that model: requests name the listed id. A tagged name is not
// resolved, and an unknown one is still refused.
func TestModelResolvedToLatest(t *testing.T) {
	srv := startMock(t, func(c *mock.Config) { c.Personality, c.Model = mock.PersonalityOllama, "tiny" })
	c, err := NewClient(ClientConfig{Target: srv.URL(), Model: "tiny"}, NewClock())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	if c.Model() != "tiny:latest" || strings.Join(c.SentModels(), ",") != "tiny:latest" {
		t.Fatalf("model %q, sent %v", c.Model(), c.SentModels())
	}
	rec := record.New()
	c.Do(context.Background(), NewRequest("", "hi", 2), rec, newConn())
	if rec.Status != record.StatusSuccessful {
		t.Fatalf("%s: %s", rec.Status, rec.Error)
	}
	several, _ := NewClient(ClientConfig{Target: srv.URL(), Models: []string{"tiny", "tiny:latest"}}, NewClock())
	if _, err := several.Ready(context.Background()); err != nil || strings.Join(several.SentModels(), ",") != "tiny:latest,tiny:latest" {
		t.Fatalf("%v, sent %v", err, several.SentModels())
	}
	for _, name := range []string{"tiny:q4", "other"} {
		bad, _ := NewClient(ClientConfig{Target: srv.URL(), Model: name}, NewClock())
		if _, err := bad.Ready(context.Background()); err == nil || !strings.Contains(err.Error(), `model "`+name+`" is not served by`) || !strings.Contains(err.Error(), "(it serves: tiny:latest)") {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

// Ollama's text completion chunks carry a usage of zeros (the real one
// comes last): a stream cut before its end has no server counts, not
// zeros, and a whole one no per-chunk token counts of 0.
func TestOllamaZeroUsageChunks(t *testing.T) {
	srv := startMock(t, func(c *mock.Config) {
		c.Personality, c.OutputTokens, c.TTFT, c.TTFTStdev, c.ITL = mock.PersonalityOllama, 8, 0, 0, 40*time.Millisecond
	})
	c, err := NewClient(ClientConfig{Target: srv.URL(), Model: srv.Config().Model, Endpoint: EndpointCompletions}, NewClock())
	if err != nil {
		t.Fatal(err)
	}
	rec := record.New()
	c.Do(context.Background(), NewRequest("", "hi", 8), rec, newConn())
	if rec.Status != record.StatusSuccessful || rec.ServerOutputTokens != 8 || rec.ServerPromptTokens <= 0 || len(rec.ChunkTokens) != 0 {
		t.Fatalf("whole stream: %s, server tokens %d/%d, chunk tokens %v (%s)", rec.Status, rec.ServerPromptTokens, rec.ServerOutputTokens, rec.ChunkTokens, rec.Error)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	rec = record.New()
	c.Do(ctx, NewRequest("", "hi", 8), rec, newConn())
	if rec.Status == record.StatusSuccessful || rec.ServerPromptTokens != -1 || rec.ServerOutputTokens != -1 || len(rec.ChunkTokens) != 0 {
		t.Fatalf("cut stream: %s, server tokens %d/%d, chunk tokens %v, want none", rec.Status, rec.ServerPromptTokens, rec.ServerOutputTokens, rec.ChunkTokens)
	}
}
