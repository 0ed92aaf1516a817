package loadgen

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/ssetest"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/sse"
)

// sessionList is a finite SessionSource.
type sessionList []*Session

func (l sessionList) Session(i uint64) (*Session, bool) {
	if i >= uint64(len(l)) {
		return nil, false
	}
	return l[i], true
}

func (l sessionList) Request(i uint64) (*Request, bool) {
	s, ok := l.Session(i)
	if !ok {
		return nil, false
	}
	return NewRequest(s.System, s.Turns[0].Prompt, s.Turns[0].MaxTokens), true
}

func (l sessionList) Len() int { return len(l) }

// seen is one request the recording server received.
type seen struct {
	arrived, ended time.Time
	session        string
	body           struct {
		Messages []struct {
			Role       string  `json:"role"`
			Content    *string `json:"content"`
			ToolCallID string  `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name, Arguments string
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools      []json.RawMessage `json:"tools"`
		ToolChoice string            `json:"tool_choice"`
	}
	reply    string // the text streamed
	toolCall string // the id of the tool call streamed, "" for text
	toolName string
	toolArgs string
}

// recorder is a chat server that records every request and answers with
// a reply unique to it: text, or a tool call streamed in pieces when the
// request requires one or leaves the choice to the server (tools without
// a tool_choice: this model then calls one).
type recorder struct {
	mu   sync.Mutex
	reqs []*seen
}

func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s := &seen{arrived: time.Now(), session: r.Header.Get("X-Session-Id")}
	b, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(b, &s.body); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	rc.mu.Lock()
	n := len(rc.reqs)
	rc.reqs = append(rc.reqs, s)
	rc.mu.Unlock()
	chunk := func(delta string, finish string) string {
		f := "null"
		if finish != "" {
			f = `"` + finish + `"`
		}
		return `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + f + `}]}` + "\n\n"
	}
	usage := `data: {"id":"c","choices":[],"usage":{"prompt_tokens":100,"completion_tokens":2,"total_tokens":102,"prompt_tokens_details":{"cached_tokens":64}}}` + "\n\n"
	if s.body.ToolChoice == "required" || (s.body.ToolChoice == "" && len(s.body.Tools) > 0) {
		s.toolCall, s.toolName, s.toolArgs = fmt.Sprintf("call_%d", n), "lookup", fmt.Sprintf(`{"q":%d}`, n)
		ssetest.Write(w,
			chunk(`{"role":"assistant","tool_calls":[{"index":0,"id":"`+s.toolCall+`","type":"function","function":{"name":"lookup","arguments":""}}]}`, ""),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"q\":"}}]}`, ""),
			chunk(fmt.Sprintf(`{"tool_calls":[{"index":0,"function":{"arguments":"%d}"}}]}`, n), ""),
			chunk(`{}`, "tool_calls"), usage)
	} else {
		s.reply = fmt.Sprintf("reply %d says \"hi\"\n", n)
		ssetest.Write(w, chunk(fmt.Sprintf(`{"content":"reply %d "}`, n), ""), chunk(`{"content":"says \"hi\"\n"}`, ""),
			chunk(`{}`, "stop"), usage)
	}
	// The response cannot end, for the client, before its [DONE] is
	// written: a lower bound of the client's end time.
	rc.mu.Lock()
	s.ended = time.Now()
	rc.mu.Unlock()
	_, _ = io.WriteString(w, ssetest.Done)
}

// requests returns the requests received so far. The lock orders the
// handler's writes before the test's reads for the race detector: a
// response read over TCP does not.
func (rc *recorder) requests() []*seen {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.reqs)
}

func sessionEngine(t *testing.T, h http.Handler, edit func(*ClientConfig)) *Engine {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	cfg := ClientConfig{Target: srv.URL, Model: "m", SessionHeader: "X-Session-Id"}
	if edit != nil {
		edit(&cfg)
	}
	c, err := NewClient(cfg, NewClock())
	if err != nil {
		t.Fatal(err)
	}
	return NewEngine(c)
}

// TestSessionHistory runs agent sessions against the recording server and
// checks what each turn sent: the system prefix first, every earlier user
// turn, exactly the assistant text and tool calls streamed before, the
// tool result after each tool call; and that no turn began before the
// previous one ended plus its think time.
func TestSessionHistory(t *testing.T) {
	rc := &recorder{}
	e := sessionEngine(t, rc, nil)
	const delay = 40 * time.Millisecond
	var sessions sessionList
	for i := range 4 {
		s := &Session{System: "be brief", Tools: []ToolDef{{Name: "lookup", Description: "finds"}}, ToolResult: "RESULT"}
		for k := range 3 {
			s.Turns = append(s.Turns, Turn{Prompt: fmt.Sprintf("u%d-%d", i, k), MaxTokens: 8, TargetPromptTokens: -1, Delay: delay, ToolCall: k == 1})
		}
		sessions = append(sessions, s)
	}
	_, recs := collect(t, e, context.Background(), Benchmark{Strategy: Strategy{Kind: Concurrent, Streams: 2}, Source: sessions})
	reqs := rc.requests()
	if len(recs) != 12 || len(reqs) != 12 {
		t.Fatalf("%d records, %d requests; want 12", len(recs), len(reqs))
	}
	bySession := map[string][]*seen{}
	for _, s := range reqs {
		bySession[s.session] = append(bySession[s.session], s)
	}
	if len(bySession) != 4 {
		t.Fatalf("session header values %d, want 4: %v", len(bySession), bySession)
	}
	for id, turns := range bySession {
		if len(turns) != 3 {
			t.Fatalf("session %s: %d turns", id, len(turns))
		}
		// What turn k must carry, rebuilt from what the server sent.
		var want []string
		prompt := func(s *seen) string {
			m := s.body.Messages[len(s.body.Messages)-1]
			return *m.Content
		}
		for k, s := range turns {
			if k > 0 {
				if gap := s.arrived.Sub(turns[k-1].ended); gap < delay {
					t.Errorf("session %s turn %d began %v after turn %d ended, think time %v", id, k, gap, k-1, delay)
				}
			}
			var got []string
			for _, m := range s.body.Messages {
				g := m.Role + ":"
				if m.Content != nil {
					g += *m.Content
				}
				for _, tc := range m.ToolCalls {
					g += fmt.Sprintf("[%s %s %s %s]", tc.ID, tc.Type, tc.Function.Name, tc.Function.Arguments)
				}
				if m.ToolCallID != "" {
					g += "<" + m.ToolCallID + ">"
				}
				got = append(got, g)
			}
			if k == 0 {
				want = []string{"system:be brief"}
			}
			want = append(want, "user:"+prompt(s))
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("session %s turn %d sent\n%q\nwant\n%q", id, k, got, want)
			}
			if (s.body.ToolChoice == "required") != (k == 1) || len(s.body.Tools) != 1 {
				t.Errorf("session %s turn %d: tool_choice %q with %d tools", id, k, s.body.ToolChoice, len(s.body.Tools))
			}
			if s.toolCall != "" {
				want = append(want, fmt.Sprintf("assistant:[%s function %s %s]", s.toolCall, s.toolName, s.toolArgs), "tool:RESULT<"+s.toolCall+">")
			} else {
				want = append(want, "assistant:"+s.reply)
			}
		}
	}
	turnsOf := map[string][]*record.Record{}
	for _, r := range recs {
		if r.Status != record.StatusSuccessful {
			t.Fatalf("record %d: %s %s", r.ID, r.Status, r.Error)
		}
		turnsOf[r.Session.ID] = append(turnsOf[r.Session.ID], r)
	}
	for id, rs := range turnsOf {
		for k, r := range rs {
			s := r.Session
			wantHist := []int{1, 3, 6}[k]
			if s.Turn != k || s.Turns != 3 || s.HistoryMessages != wantHist || r.CachedTokens != 64 {
				t.Errorf("session %s record %d: %+v cached %d; want turn %d, 3 turns, %d history messages, 64 cached", id, k, s, r.CachedTokens, k, wantHist)
			}
			if k > 0 {
				if r.Intended != rs[k-1].End+int64(delay) || r.Dispatched < r.Intended {
					t.Errorf("session %s turn %d intended %d, dispatched %d; previous end %d + %v", id, k, r.Intended, r.Dispatched, rs[k-1].End, delay)
				}
				if s.HistoryTokens != 102 {
					t.Errorf("session %s turn %d: history tokens %d, want 102", id, k, s.HistoryTokens)
				}
			}
			if (s.ToolCalls == 1) != (k == 1) {
				t.Errorf("session %s turn %d: %d tool calls", id, k, s.ToolCalls)
			}
		}
	}
}

// TestSessionMissingToolCall checks each tool_call_missing_behavior: a
// tool-call turn answered with text.
func TestSessionMissingToolCall(t *testing.T) {
	for _, c := range []struct {
		how    MissingToolCall
		turns  int
		status record.Status
	}{{MissingToolContinue, 3, record.StatusSuccessful}, {MissingToolSkip, 1, record.StatusSuccessful}, {MissingToolError, 1, record.StatusErrored}} {
		rc := &recorder{}
		e := sessionEngine(t, rc, nil)
		s := &Session{Tools: []ToolDef{{Name: "lookup"}}, ToolChoice: "auto", OnMissingTool: c.how}
		for k := range 3 {
			s.Turns = append(s.Turns, Turn{Prompt: "p", MaxTokens: 4, ToolCall: k == 0})
		}
		_, recs := collect(t, e, context.Background(), Benchmark{Strategy: Strategy{Kind: Synchronous}, Source: sessionList{s}})
		if len(recs) != c.turns || recs[0].Status != c.status {
			t.Errorf("behaviour %d: %d turns, first %s; want %d, %s", c.how, len(recs), recs[0].Status, c.turns, c.status)
		}
		if c.how == MissingToolError && recs[0].ErrorClass != record.ErrToolCallMissing {
			t.Errorf("error class %q", recs[0].ErrorClass)
		}
	}
}

// TestSessionServerTools: GuideLLM's server_tool_call turns. With tools
// in the extra body, the server turn sends them with no tool_choice (the
// server's default; this one calls a tool), the other turns with
// tool_choice "none"; the server's tool call stays in the history with
// no client tool result after it.
func TestSessionServerTools(t *testing.T) {
	rc := &recorder{}
	e := sessionEngine(t, rc, func(c *ClientConfig) {
		c.ExtraBody = `{"tools":[{"type":"function","function":{"name":"lookup","parameters":{"type":"object"}}}]}`
	})
	s := &Session{Turns: []Turn{{Prompt: "q0", MaxTokens: 4}, {Prompt: "q1", MaxTokens: 4, ServerTools: true}, {Prompt: "q2", MaxTokens: 4}}}
	_, recs := collect(t, e, context.Background(), Benchmark{Strategy: Strategy{Kind: Synchronous}, Source: sessionList{s}})
	reqs := rc.requests()
	if len(recs) != 3 || len(reqs) != 3 {
		t.Fatalf("%d records, %d requests; want 3", len(recs), len(reqs))
	}
	for k, want := range []string{"none", "", "none"} {
		if got := reqs[k].body; got.ToolChoice != want || len(got.Tools) != 1 {
			t.Errorf("turn %d: tool_choice %q, %d tools; want %q and the extra body's tool", k, got.ToolChoice, len(got.Tools), want)
		}
	}
	if reqs[1].toolCall == "" || recs[1].Session.ToolCalls != 1 {
		t.Fatalf("turn 1: the server's tool call %q, recorded %d calls", reqs[1].toolCall, recs[1].Session.ToolCalls)
	}
	var roles []string
	for _, m := range reqs[2].body.Messages {
		roles = append(roles, m.Role)
	}
	if got := strings.Join(roles, ","); got != "user,assistant,user,assistant,user" {
		t.Errorf("turn 2's history roles %s; want user,assistant,user,assistant,user (no tool result)", got)
	}
	if m := reqs[2].body.Messages[3]; len(m.ToolCalls) != 1 || m.ToolCalls[0].ID != reqs[1].toolCall {
		t.Errorf("turn 2's history: assistant %+v; want the server's tool call %s", m, reqs[1].toolCall)
	}
}

// TestSessionOpenLoopAndLimits: constant rate starts sessions, and
// max requests counts turns.
func TestSessionOpenLoopAndLimits(t *testing.T) {
	rc := &recorder{}
	e := sessionEngine(t, rc, nil)
	var sessions sessionList
	for range 10 {
		sessions = append(sessions, &Session{Turns: []Turn{{Prompt: "a", MaxTokens: 2}, {Prompt: "b", MaxTokens: 2}, {Prompt: "c", MaxTokens: 2}}})
	}
	res, recs := collect(t, e, context.Background(), Benchmark{Strategy: Strategy{Kind: Constant, Rate: 200}, Source: sessions,
		Constraints: Constraints{MaxRequests: 7}})
	if len(recs) != 7 || res.Created != 7 || res.StopReason != StopMaxRequests {
		t.Errorf("%d records, created %d, stop %s; want 7, 7, max_requests", len(recs), res.Created, res.StopReason)
	}
	rc2 := &recorder{}
	e2 := sessionEngine(t, rc2, nil)
	res, recs = collect(t, e2, context.Background(), Benchmark{Strategy: Strategy{Kind: Poisson, Rate: 500}, Source: sessions[:4]})
	if len(recs) != 12 || res.StopReason != StopDataExhausted {
		t.Errorf("%d records, stop %s; want every turn of 4 sessions and requests_exhausted", len(recs), res.StopReason)
	}
}

// TestTurnBodies checks a tool-call history in each endpoint's form.
func TestTurnBodies(t *testing.T) {
	msgs := []Message{{Role: "system", Content: "sys"}, {Role: "user", Content: "q"},
		{Role: "assistant", ToolCalls: []sse.ToolCall{{ID: "c1", Name: "f", Arguments: `{"x":1}`}}},
		{Role: "tool", Content: "res", ToolCallID: "c1"}, {Role: "user", Content: "q2"}}
	want := map[Endpoint]string{
		EndpointChat:        `"messages":[{"role":"system","content":"sys"},{"role":"user","content":"q"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"x\":1}"}}]},{"role":"tool","tool_call_id":"c1","content":"res"},{"role":"user","content":"q2"}]`,
		EndpointResponses:   `"input":[{"role":"system","content":"sys"},{"role":"user","content":"q"},{"type":"function_call","call_id":"c1","name":"f","arguments":"{\"x\":1}"},{"type":"function_call_output","call_id":"c1","output":"res"},{"role":"user","content":"q2"}]`,
		EndpointMessages:    `"system":"sys","messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"f","input":{"x":1}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"res"}]},{"role":"user","content":"q2"}]`,
		EndpointCompletions: `"prompt":"sys\n\nq\n\n\nf({\"x\":1})\n\nres\n\nq2"`,
	}
	for ep, w := range want {
		c, err := NewClient(ClientConfig{Target: "http://127.0.0.1:1", Model: "m", Endpoint: ep}, NewClock())
		if err != nil {
			t.Fatal(err)
		}
		req := NewChatRequest(msgs, -1)
		body := string(c.appendBody(nil, req, c.models.json[0]))
		if !strings.Contains(body, w) {
			t.Errorf("%s: body %s\nwant it to contain %s", ep, body, w)
		}
		var v any
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Errorf("%s: invalid JSON: %v", ep, err)
		}
	}
	s := &Session{Tools: []ToolDef{{Name: "f", Parameters: json.RawMessage(`{"type":"object"}`)}}}
	for ep, w := range map[Endpoint]string{
		EndpointChat:      `,"tools":[{"type":"function","function":{"name":"f","description":"","parameters":{"type":"object"}}}],"tool_choice":"required"`,
		EndpointResponses: `,"tools":[{"type":"function","name":"f","description":"","parameters":{"type":"object"}}],"tool_choice":"required"`,
		EndpointMessages:  `,"tools":[{"name":"f","description":"","input_schema":{"type":"object"}}],"tool_choice":{"type":"any"}`,
	} {
		if got := string(toolFields(ep, s, "required")); got != w {
			t.Errorf("%s tools: %s\nwant %s", ep, got, w)
		}
	}
}

// TestSessionServerHistory: on the Responses API with server_history,
// turn k sends only its new input and the previous turn's response id.
func TestSessionServerHistory(t *testing.T) {
	var mu sync.Mutex
	var bodies []map[string]json.RawMessage
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]json.RawMessage
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &body)
		mu.Lock()
		n := len(bodies)
		bodies = append(bodies, body)
		mu.Unlock()
		id := fmt.Sprintf("resp_%d", n)
		ssetest.Write(w,
			`data: {"type":"response.created","response":{"id":"`+id+`","status":"in_progress"}}`+"\n\n",
			fmt.Sprintf(`data: {"type":"response.output_text.delta","delta":"answer %d"}`, n)+"\n\n",
			`data: {"type":"response.completed","response":{"id":"`+id+`","status":"completed","usage":{"input_tokens":5,"output_tokens":2,"total_tokens":7}}}`+"\n\n")
	})
	e := sessionEngine(t, h, func(c *ClientConfig) { c.Endpoint = EndpointResponses })
	s := &Session{System: "sys", ServerHistory: true, Turns: []Turn{{Prompt: "q0", MaxTokens: 4}, {Prompt: "q1", MaxTokens: 4}, {Prompt: "q2", MaxTokens: 4}}}
	_, recs := collect(t, e, context.Background(), Benchmark{Strategy: Strategy{Kind: Synchronous}, Source: sessionList{s}})
	mu.Lock() // the handler's writes, for the race detector
	defer mu.Unlock()
	if len(recs) != 3 || len(bodies) != 3 {
		t.Fatalf("%d records, %d requests", len(recs), len(bodies))
	}
	want := []struct{ input, prev string }{
		{`[{"role":"system","content":"sys"},{"role":"user","content":"q0"}]`, ""},
		{`[{"role":"user","content":"q1"}]`, `"resp_0"`},
		{`[{"role":"user","content":"q2"}]`, `"resp_1"`},
	}
	for k, w := range want {
		if got := string(bodies[k]["input"]); got != w.input || string(bodies[k]["previous_response_id"]) != w.prev {
			t.Errorf("turn %d: input %s previous %s; want %s %s", k, got, bodies[k]["previous_response_id"], w.input, w.prev)
		}
		if recs[k].Status != record.StatusSuccessful {
			t.Errorf("turn %d: %s %s", k, recs[k].Status, recs[k].Error)
		}
	}
	// Without server history the whole conversation goes every time.
	bodies = nil
	s.ServerHistory = false
	mu.Unlock()
	collect(t, e, context.Background(), Benchmark{Strategy: Strategy{Kind: Synchronous}, Source: sessionList{s}})
	mu.Lock()
	if got := string(bodies[2]["input"]); got != `[{"role":"system","content":"sys"},{"role":"user","content":"q0"},{"role":"assistant","content":"answer 0"},{"role":"user","content":"q1"},{"role":"assistant","content":"answer 1"},{"role":"user","content":"q2"}]` {
		t.Errorf("client history: %s", got)
	}
	if err := checkSession(EndpointChat, &Session{ServerHistory: true, Turns: []Turn{{Prompt: "x"}}}); err == nil {
		t.Error("server_history on chat completions accepted")
	}
}

// TestSessionTraceReplay: replay starts sessions at the schedule's times,
// and a turn with an offset is due at the session's start plus it (or
// after the previous turn ended, when that is later).
func TestSessionTraceReplay(t *testing.T) {
	rc := &recorder{}
	e := sessionEngine(t, rc, nil)
	sessions := sessionList{
		{ID: "a", Turns: []Turn{{Prompt: "a0", MaxTokens: 2}, {Prompt: "a1", MaxTokens: 2, At: 80 * time.Millisecond}, {Prompt: "a2", MaxTokens: 2, At: time.Millisecond}}},
		{ID: "b", Turns: []Turn{{Prompt: "b0", MaxTokens: 2}, {Prompt: "b1", MaxTokens: 2, At: 30 * time.Millisecond}}},
	}
	res, recs := collect(t, e, context.Background(), Benchmark{Strategy: Strategy{Kind: Replay, Schedule: []time.Duration{0, 20 * time.Millisecond}}, Source: sessions})
	if len(recs) != 5 {
		t.Fatalf("%d records", len(recs))
	}
	by := map[string]*record.Record{}
	for _, r := range recs {
		by[fmt.Sprintf("%s/%d", r.Session.ID, r.Session.Turn)] = r
	}
	ms := int64(time.Millisecond)
	for _, c := range []struct {
		key  string
		want int64
	}{{"b0-a/0", 0}, {"b0-b/0", 20 * ms}, {"b0-a/1", 80 * ms}, {"b0-b/1", 50 * ms}} {
		if got := by[c.key].Intended - res.Start; got != c.want {
			t.Errorf("%s intended at +%v, want +%v", c.key, time.Duration(got), time.Duration(c.want))
		}
	}
	// a2's offset has passed: it is due when a1 ended.
	if a1, a2 := by["b0-a/1"], by["b0-a/2"]; a2.Intended != a1.End {
		t.Errorf("a2 intended %d, a1 ended %d", a2.Intended, a1.End)
	}
}

// TestSessionBranches: a sub-agent starts with a fresh context at its
// turn, runs in parallel, and its final reply is merged into the user
// turn it merges into, which waits for it.
func TestSessionBranches(t *testing.T) {
	rc := &recorder{}
	e := sessionEngine(t, rc, nil)
	sub := &Session{System: "sub", Turns: []Turn{{Prompt: "s0", MaxTokens: 2}, {Prompt: "s1", MaxTokens: 2, Delay: 30 * time.Millisecond}}}
	main := &Session{System: "main", Turns: []Turn{{Prompt: "m0", MaxTokens: 2}, {Prompt: "m1", MaxTokens: 2}, {Prompt: "m2", MaxTokens: 2}, {Prompt: "m3", MaxTokens: 2}},
		Branches: []Branch{{AgentID: "search", AtTurn: 1, MergeAfter: 2, Session: sub}}}
	_, recs := collect(t, e, context.Background(), Benchmark{Strategy: Strategy{Kind: Synchronous}, Source: sessionList{main}})
	if len(recs) != 6 {
		t.Fatalf("%d records, want 4 turns and 2 sub-agent turns", len(recs))
	}
	var subReqs, mainReqs []*seen
	for _, s := range rc.requests() {
		if *s.body.Messages[0].Content == "sub" {
			subReqs = append(subReqs, s)
		} else {
			mainReqs = append(mainReqs, s)
		}
	}
	if len(subReqs) != 2 || len(mainReqs) != 4 || subReqs[0].session != "b0-s0/search" || mainReqs[0].session != "b0-s0" {
		t.Fatalf("sub-agent %d requests, main %d; sessions %q %q", len(subReqs), len(mainReqs), subReqs[0].session, mainReqs[0].session)
	}
	if n := len(subReqs[0].body.Messages); n != 2 {
		t.Errorf("the sub-agent's first turn carries %d messages, want a fresh context (system, user)", n)
	}
	m3 := mainReqs[3].body.Messages
	last := *m3[len(m3)-1].Content
	if want := mergeText("search", subReqs[1].reply, "m3"); last != want {
		t.Errorf("turn 3 sent %q, want %q", last, want)
	}
	if !mainReqs[3].arrived.After(subReqs[1].ended) {
		t.Error("the merging turn did not wait for the sub-agent")
	}
	if err := checkSession(EndpointChat, &Session{Turns: main.Turns, Branches: []Branch{{AgentID: "x", AtTurn: 2, MergeAfter: 2, Session: sub}}}); err == nil ||
		!strings.Contains(err.Error(), `branch "x": at turn 2 merges after 2 turns, past the session's 4 turns`) {
		t.Errorf("a branch merging past the end: %v", err)
	}
}
