package dataset

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/loadgen"
)

// turnView is what a test compares of a turn.
func turnView(s *loadgen.Session) string {
	var b strings.Builder
	fmt.Fprintf(&b, "id=%q sys=%q", s.ID, s.System)
	for k, t := range s.Turns {
		fmt.Fprintf(&b, " | %d:%q max=%d target=%d delay=%v tool=%v", k, t.Prompt, t.MaxTokens, t.TargetPromptTokens, t.Delay, t.ToolCall)
	}
	return b.String()
}

func openSessions(t *testing.T, value string, opts Options) (*Dataset, loadgen.SessionSource) {
	t.Helper()
	d, err := Open(value, opts)
	if err != nil {
		t.Fatal(err)
	}
	ss, ok := d.Source.(loadgen.SessionSource)
	if !ok {
		t.Fatalf("%s: source %T has no sessions", value, d.Source)
	}
	return d, ss
}

func TestSessionFiles(t *testing.T) {
	for _, c := range []struct {
		value    string
		sessions int
		turns    int
		want     []string
	}{
		{"testdata/turns.jsonl", 2, 5, []string{
			`id="" sys="You are a travel agent." | 0:"Plan a weekend in Lisbon." max=64 target=-1 delay=0s tool=false | 1:"Add a day trip." max=32 target=-1 delay=500ms tool=false | 2:"Make it cheaper." max=16 target=-1 delay=1s tool=false`,
			`id="" sys="" | 0:"What is a monad?" max=48 target=-1 delay=0s tool=false | 1:"Show one in Go." max=-1 target=6 delay=0s tool=false`,
		}},
		{"testdata/multi_turn.jsonl", 2, 4, []string{
			`id="chat-a" sys="" | 0:"Hello, who are you?" max=-1 target=-1 delay=0s tool=false | 1:"Tell me a joke." max=40 target=-1 delay=1.5s tool=false | 2:"Another one,\nshorter." max=-1 target=-1 delay=250ms tool=false`,
			`id="chat-b" sys="" | 0:"Summarise the plot of Hamlet." max=120 target=-1 delay=0s tool=false`,
		}},
		// ShareGPT: turns=N asks for the later user turns; the think time
		// applies to turns without one of their own.
		{"kind=json_file,path=testdata/sharegpt.json,turns=8,delay=2", 3, 4, []string{
			`id="" sys="" | 0:"What is the capital of France?" max=-1 target=-1 delay=0s tool=false`,
			`id="" sys="You are a terse assistant." | 0:"Name three primary colors." max=-1 target=-1 delay=0s tool=false | 1:"And secondary ones?" max=-1 target=-1 delay=2s tool=false`,
		}},
	} {
		d, ss := openSessions(t, c.value, Options{})
		if d.Description.Sessions != c.sessions || d.Description.Requests != c.turns {
			t.Errorf("%s: %d sessions, %d turns; want %d, %d", c.value, d.Description.Sessions, d.Description.Requests, c.sessions, c.turns)
		}
		for i, w := range c.want {
			s, ok := ss.Session(uint64(i))
			if !ok || turnView(s) != w {
				t.Errorf("%s session %d:\n%s\nwant\n%s", c.value, i, turnView(s), w)
			}
		}
		if _, ok := ss.Session(uint64(c.sessions)); ok {
			t.Errorf("%s: a session past the end", c.value)
		}
	}
	// Without a session key a conversation stays one request.
	d, err := Open("testdata/sharegpt.json", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := d.Source.(loadgen.SessionSource); ok {
		t.Error("sharegpt.json without a session key became sessions")
	}
	// Tools from the data, a tool result of the asked length.
	_, ss := openSessions(t, `kind=json_file,path=testdata/turns.jsonl,tools=3,tool_call_turns=2,tool_response_tokens=12,tool_call_missing_behavior=error`, Options{})
	s, _ := ss.Session(0)
	if len(s.Tools) != 3 || s.OnMissingTool != loadgen.MissingToolError || !s.Turns[0].ToolCall || !s.Turns[1].ToolCall || s.Turns[2].ToolCall ||
		len(strings.Fields(s.ToolResult)) < 6 {
		t.Errorf("tools: %+v", s)
	}
}

func TestSyntheticSessions(t *testing.T) {
	spec := "turns=3,prompt_tokens=16,output_tokens=8,first_prompt_tokens=100,first_output_tokens=50,delay=2,tools=2,tool_call_turns=1,server_history=true,prefix_tokens=20"
	d, ss := openSessions(t, spec, Options{Seed: 7})
	if _, finite := d.Source.(interface{ Len() int }); finite {
		t.Error("an unlimited synthetic session source has Len")
	}
	s, _ := ss.Session(5)
	if len(s.Turns) != 3 || s.System == "" || len(s.Tools) != 2 || !s.ServerHistory {
		t.Fatalf("session: %s", turnView(s))
	}
	for k, want := range []struct{ target, max int }{{100, 50}, {16, 8}, {16, 8}} {
		tr := s.Turns[k]
		if tr.TargetPromptTokens != want.target || tr.MaxTokens != want.max || tr.ToolCall != (k == 0) {
			t.Errorf("turn %d: %+v", k, tr)
		}
		if k > 0 && tr.Delay != 2*time.Second {
			t.Errorf("turn %d delay %v", k, tr.Delay)
		}
		if words := len(strings.Fields(tr.Prompt)); words < want.target/2 {
			t.Errorf("turn %d: %d words for %d tokens", k, words, want.target)
		}
	}
	seen := map[string]bool{}
	for i := range uint64(4) {
		s, _ := ss.Session(i)
		for _, tr := range s.Turns {
			if seen[tr.Prompt] {
				t.Fatalf("prompt repeated: %q", tr.Prompt)
			}
			seen[tr.Prompt] = true
		}
	}
	r1, _ := d.Round(1).(loadgen.SessionSource).Session(5)
	if r1.Turns[0].Prompt == s.Turns[0].Prompt {
		t.Error("round 1 repeats round 0's prompts")
	}
	d, ss = openSessions(t, spec, Options{Samples: 4})
	if n := d.Source.(interface{ Len() int }).Len(); n != 4 || d.Description.Requests != 12 || d.Description.Sessions != 4 {
		t.Errorf("limited: Len %d, description %d requests %d sessions", n, d.Description.Requests, d.Description.Sessions)
	}
	if _, ok := ss.Session(4); ok {
		t.Error("session past the limit")
	}
	if got := d.Description.Spec; got != spec[:strings.Index(spec, ",prefix_tokens")] && !strings.Contains(got, "turns=3") {
		t.Errorf("spec %q", got)
	}
}

func TestSessionErrors(t *testing.T) {
	for _, c := range []struct {
		name, file, data, extra, want string
	}{
		{"turn gap", "x.jsonl", `{"prompt_0":"a","prompt_2":"c"}` + "\n", "", `x.jsonl:1: column "prompt_2": turn 2 has a prompt but turn 1 has none (a turn without a prompt)`},
		{"no first turn", "x.jsonl", `{"prompt_0":"","prompt_1":"b"}` + "\n", "", `x.jsonl:1: column "prompt_0": missing or empty (a conversation needs its first user turn)`},
		{"bad turn delay", "x.jsonl", `{"prompt_0":"a","prompt_1":"b","delay_1":-2}` + "\n", "", `x.jsonl:1: column "delay_1": want seconds ≥ 0`},
		{"bad turn count", "x.jsonl", `{"prompt_0":"a","output_tokens_count_0":0}` + "\n", "", `x.jsonl:1: column "output_tokens_count_0": want a positive integer`},
		{"bad tools column", "x.jsonl", `{"prompt_0":"a","tools":[{"type":"function"}]}` + "\n", "", `x.jsonl:1: column "tools": tool 0 has no name`},
		{"multi_turn no turns", "x.jsonl", `{"session_id":"a","turns":[]}` + "\n", "", `x.jsonl:1: field "turns": empty (a conversation needs a user turn)`},
		{"multi_turn no text", "x.jsonl", `{"turns":[{"text":"a"},{"delay":5}]}` + "\n", "", `x.jsonl:1: field "turns[1].text": missing or empty (a turn without a prompt)`},
		{"multi_turn bad delay", "x.jsonl", `{"turns":[{"text":"a","delay":-1}]}` + "\n", "", `x.jsonl:1: field "turns[0].delay": want milliseconds ≥ 0`},
		{"multi_turn not a list", "x.jsonl", `{"turns":{"text":"a"}}` + "\n", "", `x.jsonl:1: field "turns": want a list such as`},
		{"empty later user turn", "x.jsonl", `{"conversations":[{"from":"human","value":"a"},{"from":"gpt","value":"b"},{"from":"human","value":" "}]}` + "\n", ",turns=4", `x.jsonl:1: column "conversations": turn 2: empty user turn (a turn without a prompt)`},
		{"bad session key", "x.jsonl", `{"prompt":"a"}` + "\n", ",delay=soon", `kind=json_file: delay=soon: want seconds ≥ 0`},
		{"bad missing behavior", "x.jsonl", `{"prompt":"a"}` + "\n", ",tools=1,tool_call_missing_behavior=panic", `tool_call_missing_behavior=panic: want continue, skip or error`},
		{"first keys on a file", "x.jsonl", `{"prompt":"a"}` + "\n", ",turns=2,first_prompt_tokens=5", `first_prompt_tokens, first_output_tokens and branches are synthetic keys`},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeFile(t, c.file, c.data)
			_, err := Open("kind=json_file,path="+path+c.extra, Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v, want one line containing %q", err, c.want)
			}
		})
	}
	for spec, want := range map[string]string{
		"turns=2000,prompt_tokens=5":                            "turns=2000: at most 1024",
		"delay=1,prompt_tokens=5":                               "session keys (delay, tools, server_history, …) need turns=N",
		"turns=2,prompt_tokens=5,first_prompt_tokens_max=9":     "first_prompt_tokens_stdev/min/max need first_prompt_tokens",
		`{"turns":2,"prompt_tokens":5,"tool_call_turns":[0,2]}`: "tool_call_turns: turn 2 is past the session's last turn (turns=2, counted from 0)",
		`{"turns":2,"prompt_tokens":5,"tool_call_turns":[-1]}`:  "tool_call_turns=[-1]: want a count N (the first N turns), -1 (every turn) or a list of 0-based turns such as [0,2]",
		"turns=2,prompt_tokens=5,tool_choice=a b":               "tool_choice=a b: want required, auto, none or a tool's name",
		"turns=2,prompt_tokens=5,server_history=maybe":          "server_history=maybe: want true or false",
		"first_output_tokens=4,prompt_tokens=5":                 "first_prompt_tokens and first_output_tokens need turns=N",
	} {
		if _, err := Open(spec, Options{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", spec, err, want)
		}
	}
}

// TestSessionConvertRoundTrip: conversations convert to GuideLLM's
// turn-indexed columns and read back the same.
func TestSessionConvertRoundTrip(t *testing.T) {
	for _, value := range []string{"turns=3,prompt_tokens=12,output_tokens=5,first_prompt_tokens=30,delay=1.5,prefix_tokens=8", "testdata/multi_turn.jsonl"} {
		d, ss := openSessions(t, value, Options{Samples: 3, Seed: 2})
		var b strings.Builder
		if err := d.WriteJSONL(&b); err != nil {
			t.Fatal(err)
		}
		path := writeFile(t, "conv.jsonl", b.String())
		_, back := openSessions(t, path, Options{})
		for i := uint64(0); ; i++ {
			s, ok := ss.Session(i)
			r, ok2 := back.Session(i)
			if ok != ok2 {
				t.Fatalf("%s: session %d present %v, read back %v", value, i, ok, ok2)
			}
			if !ok {
				break
			}
			s.ID = "" // ids are not written
			if turnView(s) != turnView(r) {
				t.Errorf("%s session %d:\n%s\nread back\n%s", value, i, turnView(s), turnView(r))
			}
		}
	}
}

// TestSessionTrace: a trace with a session_id column replays sessions:
// each session starts at its first row's time, and each later row is a
// turn due at its own time (never before the previous turn ended).
func TestSessionTrace(t *testing.T) {
	d, err := Open("kind=mooncake,path=testdata/session_trace.jsonl,hash_id_block_size=16,timestamp_unit=ms", Options{})
	if err != nil {
		t.Fatal(err)
	}
	ss, ok := d.Source.(loadgen.SessionSource)
	if !ok {
		t.Fatalf("source %T", d.Source)
	}
	if fmt.Sprint(d.Schedule) != "[0s 500ms]" || d.Description.Sessions != 2 || d.Description.Requests != 5 {
		t.Errorf("schedule %v, %d sessions, %d requests", d.Schedule, d.Description.Sessions, d.Description.Requests)
	}
	u1, _ := ss.Session(0)
	u2, _ := ss.Session(1)
	if u1.ID != "u1" || len(u1.Turns) != 3 || u1.Turns[1].At != 2*time.Second || u1.Turns[2].At != 6*time.Second || u1.Turns[2].MaxTokens != 2 {
		t.Errorf("u1: %s", turnView(u1))
	}
	if u2.ID != "u2" || len(u2.Turns) != 2 || u2.Turns[1].At != 2*time.Second || u2.Turns[0].TargetPromptTokens != 30 {
		t.Errorf("u2: %s", turnView(u2))
	}
	// Shared hash ids give shared text: both sessions' first turns open with block 1.
	a, b := u1.Turns[0].Prompt, u2.Turns[0].Prompt
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	if n < 20 {
		t.Errorf("first turns share %d bytes, want block 1's text", n)
	}
	bad := writeFile(t, "bad.jsonl", `{"session_id":"","timestamp":0,"input_length":4,"output_length":1}`+"\n")
	if _, err := Open(bad, Options{Trace: true}); err == nil || !strings.Contains(err.Error(), `bad.jsonl:1: column "session_id": empty (a session trace row needs its session)`) {
		t.Errorf("empty session id: %v", err)
	}
}

// TestSyntheticBranches: GuideLLM's sub-agent branches become loadgen
// branches with their own fresh turns; one merging past the end is a
// one-line error.
func TestSyntheticBranches(t *testing.T) {
	spec := `{"turns":4,"prompt_tokens":16,"output_tokens":4,"prefix_tokens":12,"branches":[{"at_turn":1,"turns":2,"agent_id":"search","merge_after":2}]}`
	d, ss := openSessions(t, spec, Options{Samples: 2})
	s, _ := ss.Session(1)
	if len(s.Branches) != 1 {
		t.Fatalf("branches: %+v", s.Branches)
	}
	b := s.Branches[0]
	if b.AgentID != "search" || b.AtTurn != 1 || b.MergeAfter != 2 || len(b.Session.Turns) != 2 || b.Session.System != "" || b.Session.Turns[0].Prompt == s.Turns[0].Prompt {
		t.Errorf("branch %+v: %s", b, turnView(b.Session))
	}
	if !strings.Contains(d.Description.Spec, `"branches":[{"at_turn":1,"turns":2,"agent_id":"search","merge_after":2}]`) {
		t.Errorf("spec %s", d.Description.Spec)
	}
	for spec, want := range map[string]string{
		`{"turns":3,"prompt_tokens":8,"branches":[{"at_turn":1,"turns":2,"agent_id":"a","merge_after":2}]}`: "branches[0] (a): at_turn 1 + merge_after 2 merges past the session's last turn (turns=3)",
		`{"turns":3,"prompt_tokens":8,"branches":[{"at_turn":0,"turns":0,"agent_id":"a","merge_after":1}]}`: "branches[0]: turns and merge_after must be ≥ 1",
		`{"turns":3,"prompt_tokens":8,"branches":[{"at":1}]}`:                                               "branches: want a JSON list such as",
		`turns=3,prompt_tokens=8,branches=2`:                                                                "branches=2: want a JSON list",
	} {
		if _, err := Open(spec, Options{}); err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want %q", spec, err, want)
		}
	}
}

func TestSessionDescription(t *testing.T) {
	for value, want := range map[string]string{
		"testdata/turns.jsonl":    ": 5 requests in 2 sessions",
		"turns=2,prompt_tokens=5": ": unbounded sessions",
		"prompt_tokens=5":         ": unbounded,",
	} {
		d, err := Open(value, Options{})
		if err != nil || !strings.Contains(d.Description.String()+",", want) {
			t.Errorf("%s: %v %v, want %q", value, d.Description.String(), err, want)
		}
	}
}

// GuideLLM's tool_call_turns without tools gets one placeholder tool, and
// its list form names the tool-call turns (tool_calling.md's examples).
func TestToolCallTurnsForms(t *testing.T) {
	for _, c := range []struct {
		spec string
		want []bool
	}{
		{"kind=synthetic_text,prompt_tokens=200,output_tokens=100,turns=3,tool_call_turns=2", []bool{true, true, false}},
		{`{"kind":"synthetic_text","prompt_tokens":200,"output_tokens":100,"turns":4,"tool_call_turns":[0,2]}`, []bool{true, false, true, false}},
		{`{"kind":"synthetic_text","prompt_tokens":20,"output_tokens":10,"turns":4,"tools":2,"tool_call_turns":[2,0,2]}`, []bool{true, false, true, false}},
	} {
		d, ss := openSessions(t, c.spec, Options{})
		s, _ := ss.Session(0)
		var got []bool
		for _, tr := range s.Turns {
			got = append(got, tr.ToolCall)
		}
		if !slices.Equal(got, c.want) || len(s.Tools) == 0 {
			t.Errorf("%s: tool-call turns %v, %d tools; want %v", c.spec, got, len(s.Tools), c.want)
		}
		// The spec reads back to the same sessions.
		if _, err := Open(d.Description.Spec, Options{}); err != nil {
			t.Errorf("%s: spec %s does not read back: %v", c.spec, d.Description.Spec, err)
		}
	}
}

// GuideLLM's -1 (every turn) for tool_call_turns, and
// server_tool_call_turns in its three forms: server turns are neither
// tool-call turns nor offered the session's tools; the two never overlap.
func TestServerToolCallTurns(t *testing.T) {
	for _, c := range []struct {
		spec         string
		client, srv  []bool
		sessionTools bool
	}{
		{"kind=synthetic_text,prompt_tokens=20,output_tokens=10,turns=3,tool_call_turns=-1", []bool{true, true, true}, []bool{false, false, false}, true},
		{"kind=synthetic_text,prompt_tokens=20,output_tokens=10,turns=3,server_tool_call_turns=-1", []bool{false, false, false}, []bool{true, true, true}, false},
		{"kind=synthetic_text,prompt_tokens=20,output_tokens=10,turns=3,server_tool_call_turns=2", []bool{false, false, false}, []bool{true, true, false}, false},
		{`{"kind":"synthetic_text","prompt_tokens":20,"turns":4,"tool_call_turns":[0],"server_tool_call_turns":[1,3]}`, []bool{true, false, false, false}, []bool{false, true, false, true}, true},
		// tools without tool_call_turns: every turn the server does not run
		{"kind=synthetic_text,prompt_tokens=20,turns=3,tools=2,server_tool_call_turns=1", []bool{false, true, true}, []bool{true, false, false}, true},
	} {
		d, ss := openSessions(t, c.spec, Options{})
		s, _ := ss.Session(0)
		var client, srv []bool
		for _, tr := range s.Turns {
			client, srv = append(client, tr.ToolCall), append(srv, tr.ServerTools)
		}
		if !slices.Equal(client, c.client) || !slices.Equal(srv, c.srv) || (len(s.Tools) > 0) != c.sessionTools {
			t.Errorf("%s: tool-call turns %v, server turns %v, %d tools; want %v, %v, tools %v", c.spec, client, srv, len(s.Tools), c.client, c.srv, c.sessionTools)
		}
		if _, err := Open(d.Description.Spec, Options{}); err != nil {
			t.Errorf("%s: spec %s does not read back: %v", c.spec, d.Description.Spec, err)
		}
	}
	for spec, want := range map[string]string{
		"prompt_tokens=5,turns=3,tool_call_turns=1,server_tool_call_turns=-1":              "tool_call_turns and server_tool_call_turns must not overlap: turn 0 (counted from 0) is in both",
		`{"prompt_tokens":5,"turns":3,"tool_call_turns":[2],"server_tool_call_turns":[2]}`: "must not overlap: turn 2",
		`{"prompt_tokens":5,"turns":2,"server_tool_call_turns":[3]}`:                       "server_tool_call_turns: turn 3 is past the session's last turn (turns=2, counted from 0)",
		"prompt_tokens=5,turns=2,server_tool_call_turns=-2":                                "server_tool_call_turns=-2: want a count N (the first N turns), -1 (every turn) or a list",
	} {
		if _, err := Open(spec, Options{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", spec, err, want)
		}
	}
}

// turn_lengths gives each turn its own lengths (GuideLLM's turn_pivot of
// multiturn.md's three sources): turn 0 128 → 256 under the 512-token
// system prefix, turn 1 256 ± 32 → 128, turn 2 64 → 128 ± 16.
func TestTurnLengths(t *testing.T) {
	spec := `{"kind":"synthetic_text","prompt_tokens":128,"output_tokens":256,"prefix_tokens":512,"turns":3,"turn_lengths":[` +
		`{"prompt_tokens":128,"output_tokens":256},{"prompt_tokens":256,"prompt_tokens_stdev":32,"output_tokens":128},{"prompt_tokens":64,"output_tokens":128,"output_tokens_stdev":16}]}`
	d, ss := openSessions(t, spec, Options{Samples: 50})
	varied := [3]map[int]bool{{}, {}, {}}
	for i := range uint64(50) {
		s, _ := ss.Session(i)
		if len(s.Turns) != 3 || s.System == "" {
			t.Fatalf("session %d: %d turns, system %q; want 3 turns under a prefix", i, len(s.Turns), s.System)
		}
		t0, t1, t2 := s.Turns[0], s.Turns[1], s.Turns[2]
		if t0.TargetPromptTokens != 128 || t0.MaxTokens != 256 || t2.TargetPromptTokens != 64 || t1.MaxTokens != 128 {
			t.Fatalf("session %d: turns %+v; want 128→256, 256±32→128, 64→128±16", i, s.Turns)
		}
		// normal draws clamped to mean ± 5 stdev
		if t1.TargetPromptTokens < 256-5*32 || t1.TargetPromptTokens > 256+5*32 || t2.MaxTokens < 128-5*16 || t2.MaxTokens > 128+5*16 {
			t.Fatalf("session %d: turn 1 prompt %d, turn 2 output %d out of their bounds", i, t1.TargetPromptTokens, t2.MaxTokens)
		}
		varied[0][t0.TargetPromptTokens], varied[1][t1.TargetPromptTokens], varied[2][t2.MaxTokens] = true, true, true
	}
	if len(varied[0]) != 1 || len(varied[1]) < 10 || len(varied[2]) < 10 {
		t.Errorf("distinct values over 50 sessions: %d, %d, %d; want 1 and many", len(varied[0]), len(varied[1]), len(varied[2]))
	}
	if d.Description.Requests != 150 || d.Description.PromptTokens.Mean < 300 {
		t.Errorf("description: %d requests, prompt mean %v; want 150 turns with the prefix on each first turn", d.Description.Requests, d.Description.PromptTokens.Mean)
	}
	if again, err := Open(d.Description.Spec, Options{Samples: 50}); err != nil || again.Description.Spec != d.Description.Spec {
		t.Errorf("spec %s does not read back: %v", d.Description.Spec, err)
	}
	for spec, want := range map[string]string{
		`{"prompt_tokens":5,"turns":3,"turn_lengths":[{"prompt_tokens":5}]}`:                                             "turn_lengths: 1 turns' lengths: give turns=1",
		`{"prompt_tokens":5,"turns":1,"turn_lengths":[{"output_tokens":5}]}`:                                             "turn_lengths[0]: prompt_tokens ≥ 1 is required",
		`{"prompt_tokens":5,"turns":1,"turn_lengths":[{"prompt_tokens":5,"output_tokens_min":-1}]}`:                      "turn_lengths[0]: output_tokens and its _stdev, _min, _max must be ≥ 0",
		`{"prompt_tokens":5,"turns":1,"turn_lengths":[{"prompt_tokens":5,"prompt_tokens_min":9,"prompt_tokens_max":6}]}`: "turn_lengths[0]: prompt_tokens: minimum 9, maximum 6",
		`{"prompt_tokens":5,"turns":1,"turn_lengths":[{"prompt_tokens":5,"prompt_token_stdev":2}]}`:                      `unknown field "prompt_token_stdev"`,
		`{"prompt_tokens":5,"turns":1,"first_prompt_tokens":9,"turn_lengths":[{"prompt_tokens":5}]}`:                     "turn_lengths sets turn 0's lengths too",
		`{"kind":"json_file","path":"testdata/turns.jsonl","turns":1,"turn_lengths":[{"prompt_tokens":5}]}`:              "branches are synthetic keys, as is turn_lengths",
		"prompt_tokens=5,turns=1,turn_lengths=5":                                                                         "turn_lengths=5: want a JSON list",
	} {
		if _, err := Open(spec, Options{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", spec, err, want)
		}
	}
}

// turns_stdev: each synthetic session draws its own turn count, the same
// for the same seed; the description counts every turn.
func TestSessionTurnsStdev(t *testing.T) {
	sp, err := ParseSpec("prompt_tokens=16,output_tokens=4,turns=6,turns_stdev=3")
	if err != nil {
		t.Fatal(err)
	}
	if got := sp.String(); !strings.Contains(got, "turns=6,turns_stdev=3") {
		t.Errorf("spec %s", got)
	}
	d, err := OpenSynthetic(sp, Options{Seed: 9, Samples: 400})
	if err != nil {
		t.Fatal(err)
	}
	src := d.Source.(loadgen.SessionSource)
	counts, total := map[int]int{}, 0
	for i := range uint64(400) {
		s, ok := src.Session(i)
		if !ok {
			t.Fatalf("session %d missing", i)
		}
		counts[len(s.Turns)]++
		total += len(s.Turns)
		if again, _ := src.Session(i); len(again.Turns) != len(s.Turns) {
			t.Fatalf("session %d: %d turns, then %d", i, len(s.Turns), len(again.Turns))
		}
	}
	if d.Description.Requests != total || d.Description.Sessions != 400 {
		t.Errorf("description: %d requests in %d sessions, want %d in 400", d.Description.Requests, d.Description.Sessions, total)
	}
	// Normal(6, 3) clamped at 1: mean about 6.1, spread over 1..15.
	if mean := float64(total) / 400; mean < 5.5 || mean > 6.7 || len(counts) < 8 || counts[0] != 0 {
		t.Errorf("mean %.2f turns, counts %v", mean, counts)
	}
	for _, bad := range []string{"prompt_tokens=16,turns_stdev=2", `{"prompt_tokens":16,"turns":4,"turns_stdev":1,"tool_call_turns":[0,2]}`} {
		if _, err := ParseSpec(bad); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}
