package loadgen

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/sse"
)

// GuideLLM's extras.content: every user text, history included, is a
// content part with the extras' members (chat: text, Responses:
// input_text); system, assistant and tool messages stay plain; the media
// follow the last user text.
func TestContentExtras(t *testing.T) {
	const extras = `{"target_lang_code":"es","source_lang_code":"en"}`
	msgs := []Message{{Role: "system", Content: "sys"}, {Role: "user", Content: "q"}, {Role: "assistant", Content: "a"}, {Role: "user", Content: "q2"}}
	tools := []Message{{Role: "user", Content: "q"}, {Role: "assistant", ToolCalls: []sse.ToolCall{{ID: "c1", Name: "f", Arguments: "{}"}}},
		{Role: "tool", Content: "res", ToolCallID: "c1"}, {Role: "user", Content: "q2"}}
	const lang = `"source_lang_code":"en","target_lang_code":"es"`
	for _, c := range []struct {
		ep    Endpoint
		msgs  []Message
		media []Media
		want  string
	}{
		{EndpointChat, msgs, nil, `"messages":[{"role":"system","content":"sys"},{"role":"user","content":[{"type":"text","text":"q",` + lang + `}]},{"role":"assistant","content":"a"},{"role":"user","content":[{"type":"text","text":"q2",` + lang + `}]}]`},
		{EndpointResponses, msgs, nil, `"input":[{"role":"system","content":"sys"},{"role":"user","content":[{"type":"input_text","text":"q",` + lang + `}]},{"role":"assistant","content":"a"},{"role":"user","content":[{"type":"input_text","text":"q2",` + lang + `}]}]`},
		{EndpointChat, tools, nil, `"messages":[{"role":"user","content":[{"type":"text","text":"q",` + lang + `}]},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"res"},{"role":"user","content":[{"type":"text","text":"q2",` + lang + `}]}]`},
		{EndpointResponses, tools, nil, `"input":[{"role":"user","content":[{"type":"input_text","text":"q",` + lang + `}]},{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"res"},{"role":"user","content":[{"type":"input_text","text":"q2",` + lang + `}]}]`},
		{EndpointChat, msgs[:2], []Media{{Kind: "image", MIME: "image/png", Data: []byte{1}}}, `{"role":"user","content":[{"type":"text","text":"q",` + lang + `},{"type":"image_url","image_url":{"url":"data:image/png;base64,AQ=="}}]}]`},
	} {
		cl, err := NewClient(ClientConfig{Target: "http://127.0.0.1:1", Model: "m", Endpoint: c.ep, ContentExtras: extras}, NewClock())
		if err != nil {
			t.Fatal(err)
		}
		req := NewChatRequest(c.msgs, 8)
		req.Media = c.media
		body := string(cl.appendBody(nil, req, cl.models.json[0]))
		if !strings.Contains(body, c.want) || !json.Valid([]byte(body)) {
			t.Errorf("%s: body %s\nwant it to contain %s", c.ep, body, c.want)
		}
	}
	for _, bad := range []struct {
		ep           Endpoint
		extras, want string
	}{
		{EndpointCompletions, extras, "only chat completions and Responses requests have text content objects"},
		{EndpointChat, `["en"]`, "want a JSON object"},
		{EndpointChat, `{"text":"x"}`, `"text" is the content part's own field`},
	} {
		if _, err := NewClient(ClientConfig{Target: "http://127.0.0.1:1", Model: "m", Endpoint: bad.ep, ContentExtras: bad.extras}, NewClock()); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s %s: %v, want %q", bad.ep, bad.extras, err, bad.want)
		}
	}
}
