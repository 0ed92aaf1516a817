package mock

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/sse"
)

// eventStream reads a Responses or Messages stream: the event types in
// order (each "event:" line must name its data's "type"), and the Chunks
// the client's decoder makes of them, summed.
type eventStream struct {
	types               []string
	text, id, finish    string
	usage               sse.Usage
	done, err, stamped  bool
	prompt, tokenEvents int
}

func readEvents(t *testing.T, r io.Reader, decode func([]byte, *sse.Chunk) error) eventStream {
	t.Helper()
	body, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	var s eventStream
	s.stamped = true
	var c sse.Chunk
	each := func(ev *sse.Event) error {
		if err := decode(ev.Data, &c); err != nil {
			t.Fatalf("event %s %s: %v", ev.Type, ev.Data, err)
		}
		if ev.Type != string(c.Type) {
			t.Fatalf("event: %s, data type %s", ev.Type, c.Type)
		}
		s.types = append(s.types, ev.Type)
		s.stamped = s.stamped && c.EmitNS > 0
		if c.HasToken() {
			s.tokenEvents++
		}
		s.text += string(c.Content)
		if len(c.ID) > 0 {
			s.id = string(c.ID)
		}
		if len(c.FinishReason) > 0 {
			s.finish = string(c.FinishReason)
		}
		if c.Usage.Present {
			if !c.Usage.NoPrompt {
				s.prompt = c.Usage.PromptTokens
			}
			s.usage = c.Usage
		}
		s.done = s.done || c.Done
		s.err = s.err || c.Err != nil
		return nil
	}
	p := sse.NewParser()
	if err := p.Feed(body, each); err != nil {
		t.Fatal(err)
	}
	if err := p.Finish(each); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestResponsesAndMessagesStreams(t *testing.T) {
	cfg := fastConfig()
	cfg.OutputTokens = 5
	s := startServer(t, cfg)
	for _, tc := range []struct {
		name, path, body string
		decode           func([]byte, *sse.Chunk) error
		types            string
		finish           string
		tokens           int
	}{
		{"responses stop", "/v1/responses", `{"model":"goodput-mock","input":[{"role":"user","content":"hello there"}],"stream":true,"max_output_tokens":8}`,
			sse.DecodeResponsesEvent, "response.created,response.in_progress,response.output_item.added,response.content_part.added," +
				strings.Repeat("response.output_text.delta,", 5) + "response.output_text.done,response.content_part.done,response.output_item.done,response.completed", "stop", 5},
		{"responses length", "/v1/responses", `{"input":"hello there","instructions":"be brief","stream":true,"max_output_tokens":3}`,
			sse.DecodeResponsesEvent, "response.created,response.in_progress,response.output_item.added,response.content_part.added," +
				strings.Repeat("response.output_text.delta,", 3) + "response.output_text.done,response.content_part.done,response.output_item.done,response.incomplete", "length", 3},
		{"messages stop", "/v1/messages", `{"model":"goodput-mock","system":"be brief","messages":[{"role":"user","content":[{"type":"text","text":"hello there"}]}],"stream":true,"max_tokens":8}`,
			sse.DecodeMessagesEvent, "message_start,content_block_start,ping," + strings.Repeat("content_block_delta,", 5) + "content_block_stop,message_delta,message_stop", "stop", 5},
		{"messages length", "/v1/messages", `{"messages":[{"role":"user","content":"hello there"}],"stream":true,"max_tokens":2}`,
			sse.DecodeMessagesEvent, "message_start,content_block_start,ping," + strings.Repeat("content_block_delta,", 2) + "content_block_stop,message_delta,message_stop", "length", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := post(t, nil, s.URL()+tc.path, tc.body)
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
				t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			ev := readEvents(t, resp.Body, tc.decode)
			if got := strings.Join(ev.types, ","); got != tc.types {
				t.Fatalf("events\n%s\nwant\n%s", got, tc.types)
			}
			if !ev.done || ev.err || !ev.stamped || ev.finish != tc.finish || ev.tokenEvents != tc.tokens || ev.id == "" ||
				len(strings.Fields(ev.text)) != tc.tokens || ev.usage.CompletionTokens != tc.tokens || ev.prompt <= 0 {
				t.Fatalf("stream %+v", ev)
			}
		})
	}
}

func TestResponsesAndMessagesBodiesAndErrors(t *testing.T) {
	cfg := fastConfig()
	cfg.OutputTokens = 4
	s := startServer(t, cfg)
	for _, tc := range []struct {
		path, body string
		status     int
		want       string // the body, with the text and ids left out where "…"
	}{
		{"/v1/responses", `{"model":"nope","input":"hi"}`, 404,
			`{"error":{"message":"The model ` + "`nope`" + ` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}`},
		{"/v1/messages", `{"model":"nope","messages":[{"role":"user","content":"hi"}],"max_tokens":4}`, 404,
			`{"type":"error","error":{"type":"not_found_error","message":"model: nope"}}`},
		{"/v1/messages", `{"messages":[{"role":"user","content":"hi"}]}`, 400,
			`{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"}}`},
		{"/v1/responses", `{"input":[]}`, 400,
			`{"error":{"message":"input must not be an empty array","type":"BadRequestError","param":"input","code":400}}`},
	} {
		resp := post(t, nil, s.URL()+tc.path, tc.body)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || string(b) != tc.want {
			t.Errorf("%s %s: %d %s\nwant %d %s", tc.path, tc.body, resp.StatusCode, b, tc.status, tc.want)
		}
	}

	for path, decode := range map[string]func([]byte, *sse.Chunk) error{"/v1/responses": sse.DecodeResponsesBody, "/v1/messages": sse.DecodeMessagesBody} {
		resp := post(t, nil, s.URL()+path, `{"input":"hi","messages":[{"role":"user","content":"hi"}],"max_tokens":9,"max_output_tokens":9}`)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var c sse.Chunk
		if err := decode(b, &c); err != nil || !json.Valid(b) || resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s: %v", path, resp.StatusCode, b, err)
		}
		if len(strings.Fields(string(c.Content))) != 4 || string(c.FinishReason) != "stop" || c.Usage.CompletionTokens != 4 || c.Usage.PromptTokens != 1 || c.EmitNS == 0 {
			t.Errorf("%s body %s", path, b)
		}
	}
}

func TestResponsesAndMessagesStreamError(t *testing.T) {
	cfg := fastConfig()
	cfg.StreamErrorRate = 1
	s := startServer(t, cfg)
	for path, decode := range map[string]func([]byte, *sse.Chunk) error{"/v1/responses": sse.DecodeResponsesEvent, "/v1/messages": sse.DecodeMessagesEvent} {
		resp := post(t, nil, s.URL()+path, `{"input":"hi","messages":[{"role":"user","content":"hi"}],"max_tokens":9,"max_output_tokens":9,"stream":true}`)
		ev := readEvents(t, resp.Body, decode)
		resp.Body.Close()
		if !ev.err || ev.done || ev.types[len(ev.types)-1] != "error" {
			t.Errorf("%s: %+v", path, ev)
		}
	}
}
