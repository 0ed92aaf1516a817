package loadgen

import (
	"context"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/mock"
)

// The probe reads a chat template's tokens from the server's usage: 5 on
// chat completions against a mock that adds 5, none on completions, and an
// error when the server reports no usage.
func TestPromptOverhead(t *testing.T) {
	srv := startMock(t, func(c *mock.Config) { c.ChatTemplateTokens = 5 })
	text := "How many tokens does the server add to this prompt?"
	for _, c := range []struct {
		name    string
		cfg     ClientConfig
		want    int
		wantErr string
	}{
		{"chat", ClientConfig{Endpoint: EndpointChat}, 5, ""},
		{"chat, no stream", ClientConfig{Endpoint: EndpointChat, NoStream: true}, 5, ""},
		{"completions", ClientConfig{Endpoint: EndpointCompletions}, 0, ""},
		{"no usage", ClientConfig{Endpoint: EndpointChat, NoStreamUsage: true}, 0, "no usage.prompt_tokens"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.cfg.Target = srv.URL()
			cl, err := NewClient(c.cfg, NewClock())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cl.Ready(context.Background()); err != nil {
				t.Fatal(err)
			}
			req := NewRequest("", text, 64)
			req.PromptTokens = mock.ApproxTokenCount(text)
			got, err := cl.PromptOverhead(context.Background(), req)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("overhead %d, %v; want %d", got, err, c.want)
			}
		})
	}
	if _, err := (&Client{}).PromptOverhead(context.Background(), NewRequest("", text, 1)); err == nil {
		t.Error("a prompt without a token count was probed")
	}
}
