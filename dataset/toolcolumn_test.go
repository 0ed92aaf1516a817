package dataset

import (
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/loadgen"
)

// glaiveLines are records shaped like madroid/glaive-function-calling-openai
// (tool_calling.md's Hub example): a messages list and a tools list, the
// second record with tools as a JSON string, the third without tools.
const glaiveLines = `{"messages":[{"role":"system","content":"You help."},{"role":"user","content":"Weather in Paris?"},{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"get_weather","arguments":"{}"}}]},{"role":"tool","content":"{\"temp\":21}"},{"role":"user","content":"And tomorrow?"}],"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]}
{"messages":[{"role":"user","content":"Convert 5 USD"}],"tools":"[{\"type\":\"function\",\"function\":{\"name\":\"convert\",\"parameters\":{\"type\":\"object\"}}}]"}
{"messages":[{"role":"user","content":"Hello"}],"tools":""}
`

// A tools_column sends each record's own tools (client mode: a tool-call
// turn with the record's tool result), and GuideLLM's
// tool_calling_message_extractor reads the messages as one request; in
// server mode a record's tools are the server's: not sent, its turn a
// server tool-call turn.
func TestToolsColumn(t *testing.T) {
	path := writeFile(t, "glaive.jsonl", glaiveLines)
	const mapper = `{"kind":"generative_column_mapper","column_mappings":{"text_column":"messages","tools_column":"tools"}}`
	open := func(keys string) []*loadgen.Session {
		t.Helper()
		d, err := Open("kind=json_file,path="+path+keys, Options{ColumnMapper: mapper})
		if err != nil {
			t.Fatal(err)
		}
		ss, ok := d.Source.(loadgen.SessionSource)
		if !ok || d.Description.Sessions != 3 {
			t.Fatalf("%s: source %T, %d sessions; want 3 sessions", keys, d.Source, d.Description.Sessions)
		}
		var out []*loadgen.Session
		for i := range uint64(3) {
			s, _ := ss.Session(i)
			out = append(out, s)
		}
		return out
	}

	ss := open(",tool_messages=true")
	s0, s1, s2 := ss[0], ss[1], ss[2]
	if len(s0.Turns) != 1 || s0.Turns[0].Prompt != "Weather in Paris? And tomorrow?" || s0.System != "You help." || s0.Turns[0].MaxTokens != -1 {
		t.Errorf("record 1: system %q, turns %+v; want one turn of both user texts joined, under the system text, no output limit", s0.System, s0.Turns)
	}
	if len(s0.Tools) != 1 || s0.Tools[0].Name != "get_weather" || !s0.Turns[0].ToolCall || s0.ToolResult != `{"temp":21}` {
		t.Errorf("record 1: tools %+v, tool call %v, result %q; want get_weather offered on a tool-call turn, the record's tool message as result", s0.Tools, s0.Turns[0].ToolCall, s0.ToolResult)
	}
	if len(s1.Tools) != 1 || s1.Tools[0].Name != "convert" || !s1.Turns[0].ToolCall {
		t.Errorf("record 2: tools %+v; want convert (a JSON string cell) on a tool-call turn", s1.Tools)
	}
	if s2.Tools != nil || s2.Turns[0].ToolCall || s2.Turns[0].ServerTools || s2.Turns[0].Prompt != "Hello" {
		t.Errorf("record 3: %+v; want a plain turn", s2)
	}

	ss = open(",tool_messages=true,tool_call_mode=server")
	for i, s := range ss[:2] {
		if s.Tools != nil || s.Turns[0].ToolCall || !s.Turns[0].ServerTools {
			t.Errorf("server mode, record %d: tools %+v, turn %+v; want no tools sent and a server tool-call turn", i+1, s.Tools, s.Turns[0])
		}
	}
	if ss[2].Turns[0].ServerTools {
		t.Errorf("server mode, record 3 (no tools): a server tool-call turn; want a plain one")
	}

	// Without the extractor, the messages are read as a conversation:
	// the first user turn is the prompt.
	if s := open(""); s[0].Turns[0].Prompt != "Weather in Paris?" {
		t.Errorf("without tool_messages: prompt %q; want the first user turn", s[0].Turns[0].Prompt)
	}

	for keys, want := range map[string]string{
		",tool_call_mode=remote": "tool_call_mode=remote: want client",
		",tool_messages=maybe":   "tool_messages=maybe: want true or false",
	} {
		if _, err := Open("kind=json_file,path="+path+keys, Options{ColumnMapper: mapper}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", keys, err, want)
		}
	}
	bad := writeFile(t, "bad.jsonl", `{"prompt":"hi","tools":[{"type":"function","function":{}}]}`+"\n")
	if _, err := Open(bad, Options{ColumnMapper: `{"text_column":"prompt","tools_column":"tools"}`}); err == nil || !strings.Contains(err.Error(), `bad.jsonl:1: column "tools": tool 0 has no name`) {
		t.Errorf("a tool without a name: %v; want the file, line and column named", err)
	}
	if _, err := Open("kind=synthetic_text,prompt_tokens=8,turns=2,tool_call_mode=server", Options{}); err == nil || !strings.Contains(err.Error(), "server_tool_call_turns") {
		t.Errorf("tool_call_mode on synthetic data: %v; want server_tool_call_turns named", err)
	}
}
