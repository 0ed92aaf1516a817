package mock

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/sse"
)

const (
	chatTools = `"tools":[{"type":"function","function":{"name":"get_weather","description":"weather","parameters":{"type":"object","properties":{"location":{"type":"string"},"unit":{"type":"string"}}}}},` +
		`{"type":"function","function":{"name":"search","parameters":{"type":"object","properties":{"query":{"type":"string"}}}}}]`
	respTools = `"tools":[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"location":{"type":"string"}}}}]`
	msgTools  = `"tools":[{"name":"get_weather","description":"weather","input_schema":{"type":"object","properties":{"location":{"type":"string"}}}}]`
)

// sseEvent is one event of a stream: its event line (if any) and data,
// decoded with encoding/json.
type sseEvent struct {
	event string
	data  map[string]any
	raw   []byte
}

// readJSONEvents reads a stream, decoding every data payload but [DONE]
// with encoding/json (failing the test if one does not parse).
func readJSONEvents(t *testing.T, resp *http.Response) []sseEvent {
	t.Helper()
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	var out []sseEvent
	var event string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if e, ok := strings.CutPrefix(line, "event: "); ok {
			event = e
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		ev := sseEvent{event: event, raw: []byte(data)}
		if err := json.Unmarshal(ev.raw, &ev.data); err != nil {
			t.Fatalf("payload does not parse: %v: %s", err, data)
		}
		out = append(out, ev)
		event = ""
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// get walks a decoded JSON value by keys and indices.
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// checkArgs checks that args is a JSON object whose one property, key,
// holds n words.
func checkArgs(t *testing.T, args, key string, n int) {
	t.Helper()
	var obj map[string]string
	if err := json.Unmarshal([]byte(args), &obj); err != nil {
		t.Fatalf("arguments %q are not a JSON object of strings: %v", args, err)
	}
	if len(obj) != 1 || len(strings.Fields(obj[key])) != n {
		t.Errorf("arguments %s: want one property %q of %d words", args, key, n)
	}
}

func TestChatToolCallStream(t *testing.T) {
	s := startServer(t, fastConfig())
	body := `{"messages":[{"role":"user","content":"weather?"}],` + chatTools + `,"tool_choice":{"type":"function","function":{"name":"get_weather"}},"max_tokens":6,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`
	evs := readJSONEvents(t, post(t, nil, s.URL()+"/v1/chat/completions", body))
	var args, id, finish string
	deltas := 0
	var c sse.Chunk
	calls := 0
	for i, ev := range evs {
		if err := sse.DecodeChunk(ev.raw, &c); err != nil {
			t.Fatalf("client decoder: %v: %s", err, ev.raw)
		}
		calls += c.ToolCalls
		tc := get(ev.data, "choices", 0, "delta", "tool_calls", 0)
		if f, _ := get(ev.data, "choices", 0, "finish_reason").(string); f != "" {
			finish = f
		}
		if tc == nil {
			continue
		}
		deltas++
		if idx := get(tc, "index"); idx != float64(0) {
			t.Errorf("chunk %d: tool call index %v", i, idx)
		}
		if deltas == 1 {
			id, _ = get(tc, "id").(string)
			if get(tc, "type") != "function" || get(tc, "function", "name") != "get_weather" || !strings.HasPrefix(id, "chatcmpl-tool-") {
				t.Errorf("first tool-call delta %s: want id, type function, name get_weather", ev.raw)
			}
		} else if get(tc, "id") != nil || get(tc, "function", "name") != nil {
			t.Errorf("later delta %s repeats the id or name", ev.raw)
		}
		a, _ := get(tc, "function", "arguments").(string)
		args += a
	}
	if deltas != 6 || finish != "tool_calls" || calls != 6 {
		t.Errorf("%d tool-call deltas (client counted %d), finish %q; want 6, tool_calls", deltas, calls, finish)
	}
	checkArgs(t, args, "location", 6)
	last := evs[len(evs)-1]
	if get(last.data, "usage", "completion_tokens") != float64(6) {
		t.Errorf("usage %s", last.raw)
	}
}

func TestChatToolChoiceModes(t *testing.T) {
	cfg := fastConfig()
	cfg.ToolCallRate = 0.5
	s := startServer(t, cfg)
	ask := func(choice string) (calls int, names map[string]int) {
		names = map[string]int{}
		for range 40 {
			body := `{"messages":[{"role":"user","content":"hi"}],` + chatTools + choice + `,"max_tokens":3}`
			b := readAll(t, post(t, nil, s.URL()+"/v1/chat/completions", body))
			var r map[string]any
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatalf("%v: %s", err, b)
			}
			tc := get(r, "choices", 0, "message", "tool_calls", 0)
			if tc == nil {
				if f := get(r, "choices", 0, "finish_reason"); f == "tool_calls" {
					t.Errorf("finish tool_calls without a call: %s", b)
				}
				continue
			}
			calls++
			name, _ := get(tc, "function", "name").(string)
			names[name]++
			args, _ := get(tc, "function", "arguments").(string)
			key := map[string]string{"get_weather": "location", "search": "query"}[name]
			checkArgs(t, args, key, 3)
			if get(r, "choices", 0, "finish_reason") != "tool_calls" || get(r, "choices", 0, "message", "content") != nil {
				t.Errorf("a tool-call body: %s", b)
			}
		}
		return calls, names
	}
	if n, names := ask(`,"tool_choice":"required"`); n != 40 || names["get_weather"] == 0 || names["search"] == 0 {
		t.Errorf("required: %d calls of 40, %v; want every request, both tools drawn", n, names)
	}
	if n, _ := ask(`,"tool_choice":"none"`); n != 0 {
		t.Errorf("none: %d calls", n)
	}
	if n, _ := ask(``); n < 8 || n > 32 {
		t.Errorf("auto at rate 0.5: %d calls of 40", n)
	}
	if n, names := ask(`,"tool_choice":{"type":"function","function":{"name":"search"}}`); n != 40 || names["search"] != 40 {
		t.Errorf("named: %d calls, %v", n, names)
	}
	for _, bad := range []string{
		`{"messages":[{"role":"user","content":"hi"}],"tool_choice":"required"}`,
		`{"messages":[{"role":"user","content":"hi"}],` + chatTools + `,"tool_choice":{"type":"function","function":{"name":"nope"}}}`,
		`{"messages":[{"role":"user","content":"hi"}],` + chatTools + `,"tool_choice":"sometimes"}`,
	} {
		if resp := post(t, nil, s.URL()+"/v1/chat/completions", bad); readAll(t, resp) != nil && resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", bad, resp.StatusCode)
		}
	}

	// At rate 0, auto never calls.
	cfg.ToolCallRate = 0
	s0 := startServer(t, cfg)
	b := readAll(t, post(t, nil, s0.URL()+"/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}],`+chatTools+`,"tool_choice":"auto","max_tokens":3}`))
	if bytes.Contains(b, []byte("tool_calls\":[{")) {
		t.Errorf("auto at rate 0 called a tool: %s", b)
	}
}

func TestResponsesFunctionCallStream(t *testing.T) {
	s := startServer(t, fastConfig())
	body := `{"input":"weather?",` + respTools + `,"tool_choice":"required","max_output_tokens":5,"stream":true}`
	evs := readJSONEvents(t, post(t, nil, s.URL()+"/v1/responses", body))
	var types []string
	var args, done, callID string
	var c sse.Chunk
	for i, ev := range evs {
		if err := sse.DecodeResponsesEvent(ev.raw, &c); err != nil {
			t.Fatalf("client decoder: %v: %s", err, ev.raw)
		}
		if ev.event != ev.data["type"] || ev.data["sequence_number"] != float64(i) {
			t.Errorf("event %d: %s %s", i, ev.event, ev.raw)
		}
		types = append(types, ev.event)
		switch ev.event {
		case "response.output_item.added":
			if get(ev.data, "item", "type") != "function_call" || get(ev.data, "item", "name") != "get_weather" || get(ev.data, "item", "arguments") != "" {
				t.Errorf("added %s", ev.raw)
			}
			callID, _ = get(ev.data, "item", "call_id").(string)
		case "response.function_call_arguments.delta":
			d, _ := ev.data["delta"].(string)
			args += d
		case "response.function_call_arguments.done":
			done, _ = ev.data["arguments"].(string)
		case "response.completed":
			item := get(ev.data, "response", "output", 0)
			if get(item, "type") != "function_call" || get(item, "arguments") != args || get(item, "call_id") != callID || get(item, "status") != "completed" {
				t.Errorf("completed %s", ev.raw)
			}
		}
	}
	want := "response.created,response.in_progress,response.output_item.added," + strings.Repeat("response.function_call_arguments.delta,", 5) +
		"response.function_call_arguments.done,response.output_item.done,response.completed"
	if got := strings.Join(types, ","); got != want {
		t.Errorf("events\n%s\nwant\n%s", got, want)
	}
	if done != args || !strings.HasPrefix(callID, "call_") {
		t.Errorf("done arguments %q, deltas %q, call_id %q", done, args, callID)
	}
	checkArgs(t, args, "location", 5)

	// The call is stored: the next turn sends its output.
	var id string
	for _, ev := range evs {
		if ev.event == "response.completed" {
			id, _ = get(ev.data, "response", "id").(string)
		}
	}
	_, r := respond(t, s.URL(), `{"previous_response_id":"`+id+`","input":[{"type":"function_call_output","call_id":"`+callID+`","output":"sunny"}],"max_output_tokens":3}`)
	if want := ApproxTokenCount("weather?") + ApproxTokenCount("get_weather") + ApproxTokenCount(args) + ApproxTokenCount("sunny"); r.Usage.InputTokens != want {
		t.Errorf("the turn after a call: %d input tokens, want %d (input, call name and arguments, output)", r.Usage.InputTokens, want)
	}
}

func TestMessagesToolUseStream(t *testing.T) {
	s := startServer(t, fastConfig())
	body := `{"messages":[{"role":"user","content":"weather?"}],` + msgTools + `,"tool_choice":{"type":"any"},"max_tokens":4,"stream":true}`
	evs := readJSONEvents(t, post(t, nil, s.URL()+"/v1/messages", body))
	var types []string
	var partial, stop string
	var c sse.Chunk
	for _, ev := range evs {
		if err := sse.DecodeMessagesEvent(ev.raw, &c); err != nil {
			t.Fatalf("client decoder: %v: %s", err, ev.raw)
		}
		types = append(types, ev.event)
		switch ev.event {
		case "content_block_start":
			cb := ev.data["content_block"]
			if get(cb, "type") != "tool_use" || get(cb, "name") != "get_weather" || !strings.HasPrefix(get(cb, "id").(string), "toolu_") {
				t.Errorf("start %s", ev.raw)
			}
		case "content_block_delta":
			if get(ev.data, "delta", "type") != "input_json_delta" {
				t.Errorf("delta %s", ev.raw)
			}
			p, _ := get(ev.data, "delta", "partial_json").(string)
			partial += p
		case "message_delta":
			stop, _ = get(ev.data, "delta", "stop_reason").(string)
			if string(c.FinishReason) != "tool_calls" {
				t.Errorf("client finish %q", c.FinishReason)
			}
		}
	}
	want := "message_start,content_block_start,ping," + strings.Repeat("content_block_delta,", 4) + "content_block_stop,message_delta,message_stop"
	if got := strings.Join(types, ","); got != want || stop != "tool_use" {
		t.Errorf("events %s, stop %q", got, stop)
	}
	checkArgs(t, partial, "location", 4)

	// Non-streaming: the input is the object itself.
	b := readAll(t, post(t, nil, s.URL()+"/v1/messages", strings.Replace(body, `,"stream":true`, "", 1)))
	var r map[string]any
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if get(r, "content", 0, "type") != "tool_use" || get(r, "stop_reason") != "tool_use" || len(strings.Fields(get(r, "content", 0, "input", "location").(string))) != 4 {
		t.Errorf("body %s", b)
	}
	// The next turn's tool_use and tool_result blocks count as prompt.
	next := `{"messages":[{"role":"user","content":"weather?"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"location":"x"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"sunny"}]}],"max_tokens":2}`
	b = readAll(t, post(t, nil, s.URL()+"/v1/messages", next))
	want = `"input_tokens":` + itoa(ApproxTokenCount("weather?")+ApproxTokenCount("get_weather")+ApproxTokenCount(`{"location":"x"}`)+ApproxTokenCount("sunny"))
	if !bytes.Contains(b, []byte(want)) {
		t.Errorf("tool_use and tool_result history: %s, want %s", b, want)
	}
}

// A built-in Responses tool (type shell, not function) is the server's to
// run: asked for, the server runs it for ServerToolTime and answers in
// text, the tool's time inside the time to its first byte; not called,
// nothing waits. A named built-in is chosen by its type.
func TestResponsesHostedTool(t *testing.T) {
	cfg := fastConfig()
	cfg.ServerToolTime = 150 * time.Millisecond
	s := startServer(t, cfg)
	const shell = `"tools":[{"type":"shell","environment":{"type":"container_auto"}}]`
	for _, c := range []struct {
		choice string
		wait   bool
	}{{`"required"`, true}, {`{"type":"shell"}`, true}, {`"none"`, false}} {
		start := time.Now()
		body := `{"input":"list the files",` + shell + `,"tool_choice":` + c.choice + `,"max_output_tokens":5,"stream":true}`
		evs := readJSONEvents(t, post(t, nil, s.URL()+"/v1/responses", body))
		took := time.Since(start)
		var text bool
		for _, ev := range evs {
			text = text || ev.event == "response.output_text.delta"
			if ev.event == "response.function_call_arguments.delta" {
				t.Errorf("%s: a function call streamed to the client: %s", c.choice, ev.raw)
			}
		}
		if !text || (c.wait && took < cfg.ServerToolTime) || (!c.wait && took >= cfg.ServerToolTime) {
			t.Errorf("tool_choice %s: text %v after %s; want text, after the tool's %s only when it ran", c.choice, text, took, cfg.ServerToolTime)
		}
	}
	resp := post(t, nil, s.URL()+"/v1/responses", `{"input":"x",`+shell+`,"tool_choice":{"type":"web_search"},"max_output_tokens":5}`)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a built-in tool_choice naming a tool not offered: status %d, want 400", resp.StatusCode)
	}
}
