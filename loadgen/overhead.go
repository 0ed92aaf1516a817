package loadgen

import (
	"context"
	"fmt"
	"time"

	"github.com/goodput-dev/goodput/record"
)

// PromptOverhead sends req once (its output cut to one token) and returns
// how many prompt tokens the server adds to it: usage.prompt_tokens minus
// req.PromptTokens, the client's count of the raw prompt. That is a chat
// template's role markers and special tokens on /v1/chat/completions (a BOS
// token on /v1/completions). req.PromptTokens must be known; the server
// must report usage.
func (c *Client) PromptOverhead(ctx context.Context, req *Request) (int, error) {
	if req.PromptTokens < 0 {
		return 0, fmt.Errorf("prompt overhead probe: the probe's prompt has no token count (a tokenizer is needed)")
	}
	// A fresh request (its render caches are its own) asking for one token.
	probe := Request{Messages: req.Messages, PromptTokens: req.PromptTokens, TargetPromptTokens: req.TargetPromptTokens, MaxTokens: 1}
	rec := record.New()
	c.Do(ctx, &probe, rec, c.newConn())
	switch {
	case rec.Status != record.StatusSuccessful:
		return 0, fmt.Errorf("prompt overhead probe: the request failed (%s): %s", rec.ErrorClass, rec.Error)
	case rec.ServerPromptTokens < 0:
		return 0, fmt.Errorf("prompt overhead probe: the server's response has no usage.prompt_tokens (give the overhead as a number)")
	}
	return rec.ServerPromptTokens - req.PromptTokens, nil
}

// ProbeTTFT sends req once, its output cut to one token, and returns its
// time to first token (to the end of the response where nothing streams):
// the drain's idle probe. A fresh copy of req is sent, so req may be
// reused.
func (c *Client) ProbeTTFT(ctx context.Context, req *Request) (time.Duration, error) {
	probe := Request{Messages: req.Messages, PromptTokens: req.PromptTokens, TargetPromptTokens: req.TargetPromptTokens, MaxTokens: 1}
	rec := record.New()
	c.Do(ctx, &probe, rec, c.newConn())
	if rec.Status != record.StatusSuccessful {
		return 0, fmt.Errorf("idle probe: the request failed (%s): %s", rec.ErrorClass, rec.Error)
	}
	first := rec.FirstToken
	if first == 0 {
		first = rec.End
	}
	return time.Duration(first - rec.Dispatched), nil
}
