package sse

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// The streams below are written by hand from the providers' published
// examples: OpenAI's "Streaming API responses" guide and Responses API
// reference (streaming events), and Anthropic's "Streaming Messages" and
// "Extended thinking" pages. Long ids and unread fields are kept as the
// documentation shows them.

const responsesTextStream = `event: response.created
data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_67c9fdcecf488190bdd9a0409de3a1ec07b8b0ad4e5eb654","object":"response","created_at":1741290958,"status":"in_progress","error":null,"incomplete_details":null,"instructions":"You are a helpful assistant.","max_output_tokens":null,"model":"gpt-4.1-2025-04-14","output":[],"parallel_tool_calls":true,"previous_response_id":null,"reasoning":{"effort":null,"summary":null},"store":true,"temperature":1.0,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[],"top_p":1.0,"truncation":"disabled","usage":null,"user":null,"metadata":{}}}

event: response.in_progress
data: {"type":"response.in_progress","sequence_number":1,"response":{"id":"resp_67c9fdcecf488190bdd9a0409de3a1ec07b8b0ad4e5eb654","object":"response","created_at":1741290958,"status":"in_progress","error":null,"output":[],"usage":null}}

event: response.output_item.added
data: {"type":"response.output_item.added","sequence_number":2,"output_index":0,"item":{"id":"msg_67c9fdcf37fc8190ba82116e33fb28c507b8b0ad4e5eb654","type":"message","status":"in_progress","role":"assistant","content":[]}}

event: response.content_part.added
data: {"type":"response.content_part.added","sequence_number":3,"item_id":"msg_67c9fdcf37fc8190ba82116e33fb28c507b8b0ad4e5eb654","output_index":0,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}}

event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_67c9fdcf37fc8190ba82116e33fb28c507b8b0ad4e5eb654","output_index":0,"content_index":0,"delta":"Hi"}

event: response.output_text.delta
data: {"type":"response.output_text.delta","sequence_number":5,"item_id":"msg_67c9fdcf37fc8190ba82116e33fb28c507b8b0ad4e5eb654","output_index":0,"content_index":0,"delta":" there! How can I assist you today?"}

event: response.output_text.done
data: {"type":"response.output_text.done","sequence_number":6,"item_id":"msg_67c9fdcf37fc8190ba82116e33fb28c507b8b0ad4e5eb654","output_index":0,"content_index":0,"text":"Hi there! How can I assist you today?"}

event: response.content_part.done
data: {"type":"response.content_part.done","sequence_number":7,"item_id":"msg_67c9fdcf37fc8190ba82116e33fb28c507b8b0ad4e5eb654","output_index":0,"content_index":0,"part":{"type":"output_text","text":"Hi there! How can I assist you today?","annotations":[]}}

event: response.output_item.done
data: {"type":"response.output_item.done","sequence_number":8,"output_index":0,"item":{"id":"msg_67c9fdcf37fc8190ba82116e33fb28c507b8b0ad4e5eb654","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Hi there! How can I assist you today?","annotations":[]}]}}

event: response.completed
data: {"type":"response.completed","sequence_number":9,"response":{"id":"resp_67c9fdcecf488190bdd9a0409de3a1ec07b8b0ad4e5eb654","object":"response","created_at":1741290958,"status":"completed","error":null,"incomplete_details":null,"output":[{"id":"msg_67c9fdcf37fc8190ba82116e33fb28c507b8b0ad4e5eb654","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Hi there! How can I assist you today?","annotations":[]}]}],"usage":{"input_tokens":37,"input_tokens_details":{"cached_tokens":0},"output_tokens":11,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":48},"user":null,"metadata":{}}}

`

const responsesReasoningToolStream = `event: response.created
data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1234xyz","object":"response","status":"in_progress","output":[],"usage":null}}

event: response.output_item.added
data: {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"rs_6806bfca0b2481918a5748308061a2600d3ce51bdffd5476","type":"reasoning","summary":[]}}

event: response.reasoning_summary_text.delta
data: {"type":"response.reasoning_summary_text.delta","item_id":"rs_6806bfca0b2481918a5748308061a2600d3ce51bdffd5476","output_index":0,"summary_index":0,"delta":"**Responding to a greeting**\n\nThe user just said, \"Hello!\"","sequence_number":2}

event: response.reasoning_text.delta
data: {"type":"response.reasoning_text.delta","item_id":"rs_123","output_index":0,"content_index":0,"delta":" The","sequence_number":3}

event: response.output_item.added
data: {"type":"response.output_item.added","response_id":"resp_1234xyz","output_index":1,"item":{"type":"function_call","id":"fc_1234xyz","call_id":"call_1234xyz","name":"get_weather","arguments":""},"sequence_number":4}

event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","response_id":"resp_1234xyz","item_id":"fc_1234xyz","output_index":1,"delta":"{\"location\":","sequence_number":5}

event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","response_id":"resp_1234xyz","item_id":"fc_1234xyz","output_index":1,"delta":"\"Paris, France\"}","sequence_number":6}

event: response.function_call_arguments.done
data: {"type":"response.function_call_arguments.done","response_id":"resp_1234xyz","item_id":"fc_1234xyz","output_index":1,"arguments":"{\"location\":\"Paris, France\"}","sequence_number":7}

event: response.incomplete
data: {"type":"response.incomplete","sequence_number":8,"response":{"id":"resp_1234xyz","object":"response","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":75,"input_tokens_details":{"cached_tokens":64},"output_tokens":1186,"output_tokens_details":{"reasoning_tokens":1024},"total_tokens":1261}}}

`

const responsesErrorStream = `event: response.created
data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_err","status":"in_progress","usage":null}}

event: response.output_text.delta
data: {"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hel","sequence_number":1}

event: error
data: {"type":"error","code":"ERR_SOMETHING","message":"Something went wrong","param":null,"sequence_number":2}

`

const responsesFailedEvent = `{"type":"response.failed","sequence_number":3,"response":{"id":"resp_123","object":"response","created_at":1740855869,"status":"failed","error":{"code":"server_error","message":"The model failed to generate a response."},"incomplete_details":null,"output":[],"usage":null}}`

const messagesTextStream = `event: message_start
data: {"type": "message_start", "message": {"id": "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY", "type": "message", "role": "assistant", "content": [], "model": "claude-opus-4-6", "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 25, "output_tokens": 1}}}

event: content_block_start
data: {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hello"}}

event: content_block_delta
data: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "!"}}

event: content_block_stop
data: {"type": "content_block_stop", "index": 0}

event: message_delta
data: {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence":null}, "usage": {"output_tokens": 15}}

event: message_stop
data: {"type": "message_stop"}

`

const messagesThinkingToolStream = `event: message_start
data: {"type":"message_start","message":{"id":"msg_014p7gG3wDgGV9EUtLvnow3U","type":"message","role":"assistant","model":"claude-opus-4-6","stop_sequence":null,"usage":{"input_tokens":472,"cache_creation_input_tokens":10,"cache_read_input_tokens":2048,"output_tokens":2},"content":[],"stop_reason":null}}

event: content_block_start
data: {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}

event: content_block_delta
data: {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Let me solve this step by step:\n\n1. First break down 27 * 453"}}

event: content_block_delta
data: {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds..."}}

event: content_block_stop
data: {"type": "content_block_stop", "index": 0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6","name":"get_weather","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"location\": \"San Fra"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"ncisco, CA\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}}

event: message_stop
data: {"type":"message_stop"}

`

const messagesErrorStream = `event: message_start
data: {"type": "message_start", "message": {"id": "msg_err", "type": "message", "role": "assistant", "content": [], "usage": {"input_tokens": 25, "output_tokens": 1}}}

event: content_block_delta
data: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hel"}}

event: error
data: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}

`

// streamSum is what a client takes from a whole stream.
type streamSum struct {
	ID, Content, Reasoning, Refusal, ToolArgs, Finish, Err string
	ToolCalls, TokenEvents                                 int
	Usage                                                  Usage
	Done                                                   bool
	Types                                                  []string
}

func sumStream(t *testing.T, stream string, decode func([]byte, *Chunk) error) streamSum {
	t.Helper()
	var s streamSum
	var c Chunk
	p := NewParser()
	each := func(ev *Event) error {
		if err := decode(ev.Data, &c); err != nil {
			return fmt.Errorf("event %s: %w", ev.Type, err)
		}
		if ev.Type != string(c.Type) {
			return fmt.Errorf("event field %q, data type %q", ev.Type, c.Type)
		}
		s.Types = append(s.Types, string(c.Type))
		if len(c.ID) > 0 {
			s.ID = string(c.ID)
		}
		if c.HasToken() {
			s.TokenEvents++
		}
		s.Content += string(c.Content)
		s.Reasoning += string(c.Reasoning)
		s.Refusal += string(c.Refusal)
		s.ToolArgs += string(c.ToolArgs)
		s.ToolCalls += c.ToolCalls
		if len(c.FinishReason) > 0 {
			s.Finish = string(c.FinishReason)
		}
		if c.Usage.Present {
			prompt := s.Usage.PromptTokens
			s.Usage = c.Usage
			if c.Usage.NoPrompt {
				s.Usage.PromptTokens = prompt
			}
		}
		if c.Err != nil {
			s.Err = c.Err.Error()
		}
		s.Done = s.Done || c.Done
		return nil
	}
	if err := p.Feed([]byte(stream), each); err != nil {
		t.Fatal(err)
	}
	if err := p.Finish(each); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestResponsesStreams(t *testing.T) {
	s := sumStream(t, responsesTextStream, DecodeResponsesEvent)
	if s.ID != "resp_67c9fdcecf488190bdd9a0409de3a1ec07b8b0ad4e5eb654" || s.Content != "Hi there! How can I assist you today?" ||
		s.TokenEvents != 2 || s.Finish != "stop" || !s.Done || s.Err != "" || s.Reasoning != "" || s.ToolCalls != 0 {
		t.Fatalf("text stream: %+v", s)
	}
	if want := (Usage{Present: true, PromptTokens: 37, CompletionTokens: 11, TotalTokens: 48, CachedTokens: 0, ReasoningTokens: 0}); s.Usage != want {
		t.Fatalf("text stream usage %+v, want %+v", s.Usage, want)
	}

	s = sumStream(t, responsesReasoningToolStream, DecodeResponsesEvent)
	if s.Reasoning != "**Responding to a greeting**\n\nThe user just said, \"Hello!\" The" || s.Content != "" ||
		s.ToolCalls != 1 || s.ToolArgs != `get_weather{"location":"Paris, France"}` || s.TokenEvents != 5 ||
		s.Finish != "length" || !s.Done {
		t.Fatalf("reasoning and tool stream: %+v", s)
	}
	if want := (Usage{Present: true, PromptTokens: 75, CompletionTokens: 1186, TotalTokens: 1261, CachedTokens: 64, ReasoningTokens: 1024}); s.Usage != want {
		t.Fatalf("usage %+v, want %+v", s.Usage, want)
	}

	s = sumStream(t, responsesErrorStream, DecodeResponsesEvent)
	if s.Content != "Hel" || s.Done || s.Finish != "" || s.Err != "server error: Something went wrong (code ERR_SOMETHING)" {
		t.Fatalf("error stream: %+v", s)
	}

	var c Chunk
	if err := DecodeResponsesEvent([]byte(responsesFailedEvent), &c); err != nil || c.Err == nil || c.Done ||
		c.Err.Error() != "server error: The model failed to generate a response. (code server_error)" || string(c.ID) != "resp_123" {
		t.Fatalf("response.failed: err %v, chunk %+v", err, viewOf(&c))
	}
	if err := DecodeResponsesEvent([]byte(`{"type":"response.failed","response":{"id":"r","status":"failed","error":null}}`), &c); err != nil || c.Err == nil || c.Err.Message != "response failed" {
		t.Fatalf("response.failed without error: err %v, %+v", err, c.Err)
	}
}

func TestMessagesStreams(t *testing.T) {
	s := sumStream(t, messagesTextStream, DecodeMessagesEvent)
	if s.ID != "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY" || s.Content != "Hello!" || s.TokenEvents != 2 || s.Finish != "stop" || !s.Done || s.Err != "" {
		t.Fatalf("text stream: %+v", s)
	}
	if want := (Usage{Present: true, PromptTokens: 25, CompletionTokens: 15, TotalTokens: 15, CachedTokens: -1, ReasoningTokens: -1, NoPrompt: true}); s.Usage != want {
		t.Fatalf("text stream usage %+v, want %+v", s.Usage, want)
	}
	if got := strings.Join(s.Types, ","); got != "message_start,content_block_start,ping,content_block_delta,content_block_delta,content_block_stop,message_delta,message_stop" {
		t.Fatalf("types %s", got)
	}

	s = sumStream(t, messagesThinkingToolStream, DecodeMessagesEvent)
	if s.Reasoning != "Let me solve this step by step:\n\n1. First break down 27 * 453" || s.Content != "" || s.ToolCalls != 1 ||
		s.ToolArgs != `get_weather{"location": "San Francisco, CA"}` || s.TokenEvents != 4 || s.Finish != "tool_calls" || !s.Done {
		t.Fatalf("thinking and tool stream: %+v", s)
	}
	if s.Usage.PromptTokens != 472+10+2048 || s.Usage.CachedTokens != -1 || s.Usage.CompletionTokens != 89 {
		// message_delta's usage replaces message_start's, the prompt kept.
		t.Fatalf("usage %+v", s.Usage)
	}

	s = sumStream(t, messagesErrorStream, DecodeMessagesEvent)
	if s.Content != "Hel" || s.Done || s.Err != "server error: Overloaded (type overloaded_error)" {
		t.Fatalf("error stream: %+v", s)
	}

	// message_start alone carries the cache split.
	var c Chunk
	if err := DecodeMessagesEvent([]byte(`{"type":"message_start","message":{"id":"m","usage":{"input_tokens":472,"cache_creation_input_tokens":10,"cache_read_input_tokens":2048,"output_tokens":2}}}`), &c); err != nil ||
		c.Usage != (Usage{Present: true, PromptTokens: 2530, CompletionTokens: 2, TotalTokens: 2532, CachedTokens: 2048, ReasoningTokens: -1}) {
		t.Fatalf("message_start usage %+v (err %v)", c.Usage, err)
	}
	for reason, want := range map[string]string{"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length", "tool_use": "tool_calls", "refusal": "content_filter", "pause_turn": "pause_turn"} {
		if err := DecodeMessagesEvent([]byte(`{"type":"message_delta","delta":{"stop_reason":"`+reason+`"},"usage":{"output_tokens":3}}`), &c); err != nil || string(c.FinishReason) != want {
			t.Errorf("stop_reason %s: finish %q (err %v), want %q", reason, c.FinishReason, err, want)
		}
	}
}

func TestEventBodies(t *testing.T) {
	var c Chunk
	// OpenAI's Responses reference, "The response object", with a
	// reasoning item and a function call added.
	body := `{"id":"resp_67ccd3a9da748190baa7f1570fe91ac604becb25c45c1d41","object":"response","created_at":1741476777,"status":"completed","error":null,"incomplete_details":null,
	"output":[{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Thinking. "}],"content":[{"type":"reasoning_text","text":"Deeply."}]},
	{"type":"message","id":"msg_67ccd3acc8d48190a77525dc6de64b4104becb25c45c1d41","status":"completed","role":"assistant","content":[{"type":"output_text","text":"The image depicts a scenic landscape.","annotations":[]}]},
	{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"{\"location\":\"Paris\"}"}],
	"usage":{"input_tokens":328,"input_tokens_details":{"cached_tokens":0},"output_tokens":52,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":380}}`
	if err := DecodeResponsesBody([]byte(body), &c); err != nil {
		t.Fatal(err)
	}
	if v := viewOf(&c); v.Content != "The image depicts a scenic landscape." || v.Reasoning != "Thinking. Deeply." || v.ToolCalls != 1 ||
		v.ToolArgs != `get_weather{"location":"Paris"}` || v.FinishReason != "stop" || v.Done || v.HasErr ||
		v.Usage != (Usage{Present: true, PromptTokens: 328, CompletionTokens: 52, TotalTokens: 380, CachedTokens: 0, ReasoningTokens: 0}) {
		t.Fatalf("responses body %+v", v)
	}
	if err := DecodeResponsesBody([]byte(`{"error":{"message":"The model 'x' does not exist","type":"invalid_request_error","param":"model","code":"model_not_found"}}`), &c); err != nil ||
		c.Err == nil || c.Err.Error() != "server error: The model 'x' does not exist (type invalid_request_error, code model_not_found)" {
		t.Fatalf("responses error body: %v %+v", err, c.Err)
	}

	// Anthropic's Messages reference, a response with thinking and tool use.
	body = `{"id":"msg_013Zva2CMHLNnXjNJJKqJ2EF","type":"message","role":"assistant","model":"claude-opus-4-6",
	"content":[{"type":"thinking","thinking":"Let me think.","signature":"abc"},{"type":"text","text":"Hi! My name is Claude."},
	{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"location": "San Francisco, CA"}}],
	"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":2095,"output_tokens":503}}`
	if err := DecodeMessagesBody([]byte(body), &c); err != nil {
		t.Fatal(err)
	}
	if v := viewOf(&c); v.ID != "msg_013Zva2CMHLNnXjNJJKqJ2EF" || v.Content != "Hi! My name is Claude." || v.Reasoning != "Let me think." ||
		v.ToolArgs != `get_weather{"location": "San Francisco, CA"}` || v.ToolCalls != 1 || v.FinishReason != "stop" || v.HasErr ||
		v.Usage.PromptTokens != 2095 || v.Usage.CompletionTokens != 503 || v.Usage.NoPrompt {
		t.Fatalf("messages body %+v", v)
	}
	if err := DecodeMessagesBody([]byte(`{"type":"error","error":{"type":"not_found_error","message":"model: claude-x"},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}`), &c); err != nil ||
		c.Err == nil || c.Err.Error() != "server error: model: claude-x (type not_found_error)" {
		t.Fatalf("messages error body: %v %+v", err, c.Err)
	}
}

func TestEventDecodeErrors(t *testing.T) {
	var c Chunk
	for _, tc := range []struct {
		data string
		resp bool
		want string
	}{
		{``, true, "empty payload"},
		{`[1]`, true, "want a JSON object"},
		{`{"type":"response.output_text.delta","delta":5}`, true, "delta: want a string"},
		{`{"type":"response.completed","response":{"usage":{"input_tokens":1.5}}}`, true, "usage.input_tokens: want an integer"},
		{`{"type":"response.output_text.delta","delta":"a"`, true, "malformed JSON"},
		{`{"type":"content_block_delta","delta":{"type":"text_delta","text":[]}}`, false, "delta.text: want a string"},
		{`{"type":"message_delta","usage":{"output_tokens":"3"}}`, false, "usage.output_tokens: want an integer"},
		{`{"type":"error","error":{"message":{}}}`, false, "error.message: want a string"},
		{`{"type":7}`, false, "type: want a string"},
	} {
		dec := DecodeMessagesEvent
		if tc.resp {
			dec = DecodeResponsesEvent
		}
		err := dec([]byte(tc.data), &c)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.data, err, tc.want)
		}
		if viewOf(&c) != viewOf(new(Chunk).reset()) || c.Type != nil {
			t.Errorf("%s: chunk not left Reset: %+v", tc.data, viewOf(&c))
		}
	}
	// A delta field that means nothing for the event type is not read.
	if err := DecodeResponsesEvent([]byte(`{"type":"response.mcp_call.arguments.delta","delta":{"a":1}}`), &c); err != nil {
		t.Fatal(err)
	}
}

func (c *Chunk) reset() *Chunk { c.Reset(); return c }

// A token event decodes without allocating.
func TestEventDecodersDoNotAllocate(t *testing.T) {
	var c Chunk
	for _, tc := range []struct {
		data   string
		decode func([]byte, *Chunk) error
	}{
		{`{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi \"there\"","sequence_number":4,"goodput_emit_ns":1}`, DecodeResponsesEvent},
		{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello\n"},"goodput_emit_ns":1}`, DecodeMessagesEvent},
		{`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}}`, DecodeMessagesEvent},
	} {
		data := []byte(tc.data)
		if err := tc.decode(data, &c); err != nil || !c.HasToken() && len(c.FinishReason) == 0 {
			t.Fatalf("%s: %v", tc.data, err)
		}
		if a := testing.AllocsPerRun(50, func() { _ = tc.decode(data, &c) }); a != 0 {
			t.Errorf("%s: %v allocations per decode", tc.data, a)
		}
	}
}

// --- the reference: encoding/json, maps (last member wins, names unescaped) ---

type refObj = map[string]json.RawMessage

func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(bytes.TrimSpace(raw)) == "null"
}

func refObject(raw json.RawMessage, path string) (refObj, error) {
	if isNull(raw) {
		return nil, nil
	}
	var m refObj
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return m, nil
}

func refStr(raw json.RawMessage, path string) (string, error) {
	if isNull(raw) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%s: %v", path, err)
	}
	return s, nil
}

func refInt(raw json.RawMessage, path string) (int64, bool, error) {
	if isNull(raw) {
		return 0, false, nil
	}
	var n int64
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, false, fmt.Errorf("%s: %v", path, err)
	}
	return n, true, nil
}

func refArray(raw json.RawMessage, path string) ([]json.RawMessage, error) {
	if isNull(raw) {
		return nil, nil
	}
	var a []json.RawMessage
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return a, nil
}

// rv is the reference's result, comparable with evView.
type rv struct {
	Type, ID, Content, Reasoning, Refusal, ToolArgs, Finish string
	ToolCalls                                               int
	Usage                                                   Usage
	Done, HasErr                                            bool
	ErrMessage, ErrType, ErrCode                            string
	EmitNS                                                  int64
}

func evView(c *Chunk) rv {
	v := rv{Type: string(c.Type), ID: string(c.ID), Content: string(c.Content), Reasoning: string(c.Reasoning), Refusal: string(c.Refusal),
		ToolArgs: string(c.ToolArgs), Finish: string(c.FinishReason), ToolCalls: c.ToolCalls, Usage: c.Usage, Done: c.Done, EmitNS: c.EmitNS}
	if c.Err != nil {
		v.HasErr, v.ErrMessage, v.ErrType, v.ErrCode = true, c.Err.Message, c.Err.Type, c.Err.Code
	}
	return v
}

// refError fills the error fields from an error object's members.
func refError(v *rv, m refObj, path string, force bool) error {
	msg, err := refStr(m["message"], path+".message")
	if err != nil {
		return err
	}
	typ, err := refStr(m["type"], path+".type")
	if err != nil {
		return err
	}
	code := ""
	if raw := bytes.TrimSpace(m["code"]); !isNull(raw) {
		switch raw[0] {
		case '"':
			code, _ = refStr(raw, "")
		case '{', '[', 't', 'f':
			return errors.New(path + ".code")
		default:
			code = string(raw)
		}
	}
	if force || msg != "" || typ != "" || code != "" {
		v.HasErr, v.ErrMessage, v.ErrType, v.ErrCode = true, msg, typ, code
	}
	return nil
}

func refResponsesUsage(v *rv, raw json.RawMessage) error {
	u, err := refObject(raw, "usage")
	if err != nil || u == nil {
		return err
	}
	v.Usage.Present = true
	for k, dst := range map[string]*int{"input_tokens": &v.Usage.PromptTokens, "output_tokens": &v.Usage.CompletionTokens, "total_tokens": &v.Usage.TotalTokens} {
		n, _, err := refInt(u[k], k)
		if err != nil {
			return err
		}
		*dst = int(n)
	}
	for k, d := range map[string]struct {
		key string
		dst *int
	}{"input_tokens_details": {"cached_tokens", &v.Usage.CachedTokens}, "output_tokens_details": {"reasoning_tokens", &v.Usage.ReasoningTokens}} {
		o, err := refObject(u[k], k)
		if err != nil {
			return err
		}
		if o != nil {
			n, ok, err := refInt(o[d.key], d.key)
			if err != nil {
				return err
			}
			if ok {
				*d.dst = int(n)
			}
		}
	}
	return nil
}

func refMessagesUsage(v *rv, raw json.RawMessage) error {
	u, err := refObject(raw, "usage")
	if err != nil || u == nil {
		return err
	}
	var n [4]int64
	var has [4]bool
	for i, k := range []string{"input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"} {
		if n[i], has[i], err = refInt(u[k], k); err != nil {
			return err
		}
	}
	v.Usage.Present = true
	v.Usage.PromptTokens = int(n[0] + n[2] + n[3])
	v.Usage.NoPrompt = !has[0]
	v.Usage.CompletionTokens = int(n[1])
	v.Usage.TotalTokens = v.Usage.PromptTokens + v.Usage.CompletionTokens
	if has[3] {
		v.Usage.CachedTokens = int(n[3])
	}
	return nil
}

func refStop(v *rv, raw json.RawMessage) error {
	r, err := refStr(raw, "stop_reason")
	switch r {
	case "end_turn", "stop_sequence":
		r = "stop"
	case "max_tokens":
		r = "length"
	case "tool_use":
		r = "tool_calls"
	case "refusal":
		r = "content_filter"
	}
	v.Finish = r
	return err
}

func refTop(data []byte) (refObj, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, ErrEmptyPayload
	}
	var top refObj
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, err
	}
	if top == nil {
		return nil, errors.New("null")
	}
	return top, nil
}

func refResponse(v *rv, r refObj, body bool) error {
	var err error
	if v.ID, err = refStr(r["id"], "id"); err != nil {
		return err
	}
	typ := v.Type
	if !body && typ != "response.completed" && typ != "response.incomplete" && typ != "response.failed" {
		return nil
	}
	if err := refResponsesUsage(v, r["usage"]); err != nil {
		return err
	}
	e, err := refObject(r["error"], "error")
	if err != nil {
		return err
	}
	status, err := refStr(r["status"], "status")
	if err != nil {
		return err
	}
	if body {
		if v.EmitNS, _, err = refInt(r["goodput_emit_ns"], "emit"); err != nil {
			return err
		}
		items, err := refArray(r["output"], "output")
		if err != nil {
			return err
		}
		for _, it := range items {
			o, err := refObject(it, "item")
			if err != nil {
				return err
			}
			kind, err := refStr(o["type"], "type")
			if err != nil {
				return err
			}
			texts := func(key, field string, dst *string, want string) error {
				parts, err := refArray(o[key], key)
				if err != nil {
					return err
				}
				for _, p := range parts {
					po, err := refObject(p, key)
					if err != nil {
						return err
					}
					pk, err := refStr(po["type"], "type")
					if err != nil {
						return err
					}
					if want != "" && pk != want {
						if pk == "refusal" && want == "output_text" {
							s, err := refStr(po["refusal"], "refusal")
							v.Refusal += s
							if err != nil {
								return err
							}
						}
						continue
					}
					s, err := refStr(po[field], field)
					*dst += s
					if err != nil {
						return err
					}
				}
				return nil
			}
			switch kind {
			case "message":
				err = texts("content", "text", &v.Content, "output_text")
			case "reasoning":
				if err = texts("summary", "text", &v.Reasoning, ""); err == nil {
					err = texts("content", "text", &v.Reasoning, "")
				}
			case "function_call":
				v.ToolCalls++
				var s string
				s, err = refStr(o["name"], "name")
				v.ToolArgs += s
				if err == nil {
					s, err = refStr(o["arguments"], "arguments")
					v.ToolArgs += s
				}
			}
			if err != nil {
				return err
			}
		}
		typ = "response." + status
	}
	switch typ {
	case "response.completed":
		v.Finish, v.Done = "stop", !body
	case "response.incomplete":
		d, err := refObject(r["incomplete_details"], "incomplete_details")
		if err != nil {
			return err
		}
		reason, err := refStr(d["reason"], "reason")
		if err != nil {
			return err
		}
		switch reason {
		case "max_output_tokens":
			reason = "length"
		case "content_filter":
			reason = "content_filter"
		}
		v.Finish, v.Done = reason, !body
	case "response.failed":
		if isNull(e["message"]) {
			v.HasErr, v.ErrMessage = true, "response failed"
			return nil
		}
	}
	return refError(v, e, "error", false)
}

func refResponsesEvent(data []byte) (rv, error) {
	v := rv{Usage: noUsage()}
	top, err := refTop(data)
	if err != nil {
		return v, err
	}
	if v.Type, err = refStr(top["type"], "type"); err != nil {
		return v, err
	}
	if v.EmitNS, _, err = refInt(top["goodput_emit_ns"], "emit"); err != nil {
		return v, err
	}
	delta := func(dst *string) error { s, err := refStr(top["delta"], "delta"); *dst = s; return err }
	switch v.Type {
	case "response.output_text.delta":
		err = delta(&v.Content)
	case "response.refusal.delta":
		err = delta(&v.Refusal)
	case "response.reasoning_text.delta", "response.reasoning_summary_text.delta":
		err = delta(&v.Reasoning)
	case "response.function_call_arguments.delta":
		err = delta(&v.ToolArgs)
	case "response.output_item.added":
		var it refObj
		if it, err = refObject(top["item"], "item"); err == nil && it != nil {
			var kind string
			if kind, err = refStr(it["type"], "type"); err == nil && kind == "function_call" {
				v.ToolCalls = 1
				v.ToolArgs, err = refStr(it["name"], "name")
			}
		}
	case "response.created", "response.in_progress", "response.completed", "response.incomplete", "response.failed":
		var r refObj
		if r, err = refObject(top["response"], "response"); err == nil && r != nil {
			err = refResponse(&v, r, false)
		}
	case "error":
		var e refObj
		if e, err = refObject(top["error"], "error"); err == nil {
			if isNull(e["message"]) {
				e = refObj{"message": top["message"], "code": top["code"], "type": e["type"]}
			}
			err = refError(&v, e, "error", true)
		}
	}
	return v, err
}

func refResponsesBody(data []byte) (rv, error) {
	v := rv{Usage: noUsage()}
	top, err := refTop(data)
	if err != nil {
		return v, err
	}
	return v, refResponse(&v, top, true)
}

func refMessagesEvent(data []byte) (rv, error) {
	v := rv{Usage: noUsage()}
	top, err := refTop(data)
	if err != nil {
		return v, err
	}
	if v.Type, err = refStr(top["type"], "type"); err != nil {
		return v, err
	}
	if v.EmitNS, _, err = refInt(top["goodput_emit_ns"], "emit"); err != nil {
		return v, err
	}
	switch v.Type {
	case "message_start":
		m, err := refObject(top["message"], "message")
		if err != nil || m == nil {
			return v, err
		}
		if v.ID, err = refStr(m["id"], "id"); err != nil {
			return v, err
		}
		return v, refMessagesUsage(&v, m["usage"])
	case "content_block_start", "content_block_delta":
		key := "content_block"
		if v.Type == "content_block_delta" {
			key = "delta"
		}
		b, err := refObject(top[key], key)
		if err != nil || b == nil {
			return v, err
		}
		kind, err := refStr(b["type"], "type")
		if err != nil {
			return v, err
		}
		switch kind {
		case "text", "text_delta":
			v.Content, err = refStr(b["text"], "text")
		case "thinking", "thinking_delta":
			v.Reasoning, err = refStr(b["thinking"], "thinking")
		case "input_json_delta":
			v.ToolArgs, err = refStr(b["partial_json"], "partial_json")
		case "tool_use", "server_tool_use":
			v.ToolCalls = 1
			v.ToolArgs, err = refStr(b["name"], "name")
		}
		return v, err
	case "message_delta":
		d, err := refObject(top["delta"], "delta")
		if err != nil {
			return v, err
		}
		if err := refStop(&v, d["stop_reason"]); err != nil {
			return v, err
		}
		return v, refMessagesUsage(&v, top["usage"])
	case "message_stop":
		v.Done = true
	case "error":
		e, err := refObject(top["error"], "error")
		if err != nil {
			return v, err
		}
		return v, refError(&v, e, "error", true)
	}
	return v, nil
}

func refMessagesBody(data []byte) (rv, error) {
	v := rv{Usage: noUsage()}
	top, err := refTop(data)
	if err != nil {
		return v, err
	}
	if v.ID, err = refStr(top["id"], "id"); err != nil {
		return v, err
	}
	if v.Type, err = refStr(top["type"], "type"); err != nil {
		return v, err
	}
	if v.EmitNS, _, err = refInt(top["goodput_emit_ns"], "emit"); err != nil {
		return v, err
	}
	e, err := refObject(top["error"], "error")
	if err != nil {
		return v, err
	}
	if err := refError(&v, e, "error", v.Type == "error"); err != nil {
		return v, err
	}
	if err := refStop(&v, top["stop_reason"]); err != nil {
		return v, err
	}
	if err := refMessagesUsage(&v, top["usage"]); err != nil {
		return v, err
	}
	blocks, err := refArray(top["content"], "content")
	if err != nil {
		return v, err
	}
	for _, raw := range blocks {
		b, err := refObject(raw, "block")
		if err != nil {
			return v, err
		}
		kind, err := refStr(b["type"], "type")
		if err != nil {
			return v, err
		}
		var s string
		switch kind {
		case "text":
			s, err = refStr(b["text"], "text")
			v.Content += s
		case "thinking":
			s, err = refStr(b["thinking"], "thinking")
			v.Reasoning += s
		case "tool_use", "server_tool_use":
			v.ToolCalls++
			s, err = refStr(b["name"], "name")
			v.ToolArgs += s
			if !isNull(b["input"]) {
				v.ToolArgs += string(b["input"])
			}
		}
		if err != nil {
			return v, err
		}
	}
	return v, nil
}

// depth is the deepest nesting of arrays and objects in data.
func depth(data []byte) int {
	d, maxD, inStr := 0, 0, false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case inStr && c == '\\':
			i++
		case c == '"':
			inStr = !inStr
		case !inStr && (c == '{' || c == '['):
			d++
			maxD = max(maxD, d)
		case !inStr && (c == '}' || c == ']'):
			d--
		}
	}
	return maxD
}

var eventDecoders = []struct {
	name string
	fast func([]byte, *Chunk) error
	ref  func([]byte) (rv, error)
}{
	{"responses event", DecodeResponsesEvent, refResponsesEvent},
	{"responses body", DecodeResponsesBody, refResponsesBody},
	{"messages event", DecodeMessagesEvent, refMessagesEvent},
	{"messages body", DecodeMessagesBody, refMessagesBody},
}

// compareEventDecoders checks each decoder against its reference on data:
// both accept with the same result, or both refuse (the scanner may
// also refuse what nests deeper than it reads).
func compareEventDecoders(t *testing.T, data []byte) {
	t.Helper()
	for _, d := range eventDecoders {
		var c Chunk
		errFast := d.fast(data, &c)
		want, errRef := d.ref(data)
		switch {
		case errFast == nil && errRef == nil:
			if got := evView(&c); got != want {
				t.Fatalf("%s %q:\nfast      %+v\nreference %+v", d.name, data, got, want)
			}
		case errFast != nil && errRef != nil:
			if evView(&c) != evView(new(Chunk).reset()) {
				t.Fatalf("%s %q: failed decode left %+v", d.name, data, evView(&c))
			}
		case errFast != nil && depth(data) > maxSkipDepth-4:
		default:
			t.Fatalf("%s %q: fast error %v, reference error %v", d.name, data, errFast, errRef)
		}
	}
}

func eventSeeds() []string {
	var out []string
	for _, s := range []string{responsesTextStream, responsesReasoningToolStream, responsesErrorStream, messagesTextStream, messagesThinkingToolStream, messagesErrorStream} {
		for _, line := range strings.Split(s, "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				out = append(out, d)
			}
		}
	}
	return append(out, responsesFailedEvent,
		`{"type":"response.completed","response":{"status":"incomplete","usage":{"input_tokens":1,"input_tokens":2}}}`,
		`{"typ\u0065":"message_stop","type":null}`, `{"type":"error","error":{"message":"m","code":429}}`,
		`{"id":"m","type":"message","content":[{"type":"tool_use","name":"f","input":[1, {}]}],"stop_reason":"max_tokens"}`,
		`{"status":"incomplete","incomplete_details":{"reason":"content_filter"},"output":[{"type":"message","content":[{"type":"refusal","refusal":"no"}]}]}`,
		"null", "[]", "{}", `{"type":"content_block_delta","delta":{"type":"text_delta","text":"\ud83d\xff"}}`)
}

func TestEventDecodersAgreeWithReference(t *testing.T) {
	for _, s := range eventSeeds() {
		compareEventDecoders(t, []byte(s))
	}
}

func FuzzDecodeEvents(f *testing.F) {
	for _, s := range eventSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		compareEventDecoders(t, data)
	})
}
