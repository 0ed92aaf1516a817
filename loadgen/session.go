package loadgen

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/reqtype"
	"github.com/goodput-dev/goodput/sse"
)

// Sessions: a conversation as a unit of load. A source that also
// implements SessionSource hands out sessions instead of requests; the
// engine then runs each session's turns in order, turn k only after turn
// k−1's response ended plus the turn's think time, both on absolute
// times: the intended send time of each turn is recorded, so the delay
// the client added stays apart from the server's share. Each turn's
// request carries the history: the system prefix, every earlier user turn
// and exactly the assistant text (and tool calls) the server streamed,
// with a synthetic tool result after each tool call. Closed-loop
// strategies run N sessions at a time (N users); open-loop rates are
// rates of new sessions; a user-centric rate paces each user's turns
// (user_centric.go). Every turn counts as a request for limits.

// ToolDef is one tool offered to the model, in the chat completions
// "function" form; the Responses and Messages forms are rendered from it.
type ToolDef struct {
	Name, Description string
	// Parameters is the JSON Schema of the arguments; nil sends an empty
	// object schema.
	Parameters json.RawMessage
}

// MissingToolCall says what a session does when a tool-call turn's reply
// carries no tool call (GuideLLM's tool_call_missing_behavior).
type MissingToolCall uint8

// Behaviours for a missing tool call.
const (
	MissingToolContinue MissingToolCall = iota // go on with the next turn
	MissingToolSkip                            // end the session there
	MissingToolError                           // count the turn errored and end the session
)

// ParseMissingToolCall reads continue, skip or error.
func ParseMissingToolCall(s string) (MissingToolCall, error) {
	switch s {
	case "", "continue":
		return MissingToolContinue, nil
	case "skip", "skip_session":
		return MissingToolSkip, nil
	case "error":
		return MissingToolError, nil
	}
	return 0, fmt.Errorf("tool_call_missing_behavior=%s: want continue, skip or error", s)
}

// Turn is one user turn of a session.
type Turn struct {
	Prompt string
	// MaxTokens is the output limit (-1: none); TargetPromptTokens the
	// turn's own prompt length the data asked for (-1: none).
	MaxTokens          int
	TargetPromptTokens int
	// Delay is the think time: the turn is due this long after the
	// previous turn's response ended (ignored for turn 0).
	Delay time.Duration
	// At, when set, is the turn's offset in a session trace: the turn is
	// due no earlier than this long after turn 0 was due (and never
	// before the previous turn ended plus Delay).
	At time.Duration
	// ToolCall marks a tool-call turn: the session's tools are offered
	// with its ToolChoice, and a reply without a tool call is handled by
	// its OnMissingTool.
	ToolCall bool
	// ServerTools marks a turn whose tools the server runs itself
	// (GuideLLM's server_tool_call turns: tools it holds, or the
	// --extra-body tools): the session's own tools are not offered and
	// no tool_choice is set, so the server's default applies; tool calls
	// in its reply stay in the history as it returned them, with no
	// client tool result.
	ServerTools bool
}

// Session is one conversation.
type Session struct {
	// ID names the session in records and the session header; empty: the
	// engine numbers it.
	ID     string
	System string // system prefix, sent first; "" for none
	Turns  []Turn
	// Tools are offered on every turn but the ServerTools ones when set
	// (tool_choice "none" on turns that are not tool-call turns);
	// ToolChoice is the tool-call turns' choice: required (default), auto
	// or a tool's name. Without them, in a session with ServerTools
	// turns, tools of the client's extra body get tool_choice "none" on
	// the other turns, as GuideLLM's standard turns do.
	Tools      []ToolDef
	ToolChoice string
	// ToolResult is the content of the synthetic tool result sent back
	// for every tool call.
	ToolResult    string
	OnMissingTool MissingToolCall
	// ServerHistory sends, on the Responses API, only the new items and
	// the previous turn's response id (previous_response_id) instead of
	// the whole history (GuideLLM's server_history=true).
	ServerHistory bool
	// Branches are sub-agents (GuideLLM's branches): each starts with a
	// fresh context when the session reaches its AtTurn, runs its own
	// turns in parallel, and its final reply is merged into the user
	// turn AtTurn+MergeAfter of the session (which waits for it).
	Branches []Branch
}

// serverTools reports whether a turn of s is a ServerTools turn.
func (s *Session) serverTools() bool {
	for i := range s.Turns {
		if s.Turns[i].ServerTools {
			return true
		}
	}
	return false
}

// Branch is a sub-agent of a session.
type Branch struct {
	AgentID    string
	AtTurn     int
	MergeAfter int // ≥ 1; AtTurn+MergeAfter < len(Turns) of the session
	Session    *Session
}

// mergeText is what a merged sub-agent's reply adds before the user
// turn it merges into.
func mergeText(agent, reply, prompt string) string {
	return "Result of agent " + agent + ":\n" + reply + "\n\n" + prompt
}

// SessionSource hands out sessions by index, like Source; Request(i)
// stays valid (the first turn of session i alone).
type SessionSource interface {
	Source
	Session(i uint64) (s *Session, ok bool)
}

// limitSessions ends src after n sessions (Phase.Sessions): a session
// source after its n-th session, a source of single requests after n
// requests.
func limitSessions(src Source, n int) Source {
	if ss, ok := src.(SessionSource); ok {
		return sessionLimit{requestLimit{ss, n}, ss}
	}
	return requestLimit{src, n}
}

// requestLimit ends a source after n requests; Len makes it finite.
type requestLimit struct {
	src Source
	n   int
}

func (l requestLimit) Request(i uint64) (*Request, bool) {
	if i >= uint64(l.n) {
		return nil, false
	}
	return l.src.Request(i)
}

func (l requestLimit) Len() int { return l.n }

// sessionLimit ends a session source after n sessions.
type sessionLimit struct {
	requestLimit
	ss SessionSource
}

func (l sessionLimit) Session(i uint64) (*Session, bool) {
	if i >= uint64(l.n) {
		return nil, false
	}
	return l.ss.Session(i)
}

// turnInfo is what a session turn's request carries beyond its messages.
type turnInfo struct {
	session string // the session id, sent in the session header
	extra   []byte // `,"tools":…,"tool_choice":…,"previous_response_id":…`
}

// startTurn readies a session turn: the session header and the buffers
// that keep its reply.
func (c *Client) startTurn(h *http.Request, req *Request, rec *record.Record, cn *conn) {
	if c.cfg.SessionHeader != "" {
		h.Header.Set(c.cfg.SessionHeader, req.turn.session)
	}
	cn.reply = cn.reply[:0]
	cn.tools.Reset()
}

// appendTurnFields appends a session turn's own body fields.
func (c *Client) appendTurnFields(b []byte, req *Request) []byte {
	return append(b, req.turn.extra...)
}

// hasTools reports whether a message carries tool calls or a tool result.
func (r *Request) hasTools() bool {
	for i := range r.Messages {
		if r.Messages[i].ToolCalls != nil || r.Messages[i].ToolCallID != "" {
			return true
		}
	}
	return false
}

// appendChatToolMessage appends an assistant message with tool_calls, or
// a "tool" result message, in the chat completions form.
func appendChatToolMessage(b []byte, m Message) []byte {
	if m.ToolCallID != "" {
		b = append(b, `{"role":"tool","tool_call_id":`...)
		b = record.AppendJSONString(b, m.ToolCallID)
		b = append(b, `,"content":`...)
		b = record.AppendJSONString(b, m.Content)
		return append(b, '}')
	}
	b = append(b, `{"role":`...)
	b = record.AppendJSONString(b, m.Role)
	b = append(b, `,"content":`...)
	if m.Content == "" {
		b = append(b, "null"...)
	} else {
		b = record.AppendJSONString(b, m.Content)
	}
	b = append(b, `,"tool_calls":[`...)
	for i, tc := range m.ToolCalls {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = record.AppendJSONString(b, tc.ID)
		b = append(b, `,"type":"function","function":{"name":`...)
		b = record.AppendJSONString(b, tc.Name)
		b = append(b, `,"arguments":`...)
		b = record.AppendJSONString(b, tc.Arguments)
		b = append(b, "}}"...)
	}
	return append(b, "]}"...)
}

// appendResponsesInput appends the Responses API's input array: messages,
// function_call items after an assistant message's text, and
// function_call_output items for tool results.
func appendResponsesInput(b []byte, msgs []Message) []byte {
	return appendResponsesItems(b, msgs, nil)
}

// appendResponsesItems is appendResponsesInput with user texts as content
// parts carrying parts (the content extras, parts.go), when set.
func appendResponsesItems(b []byte, msgs []Message, parts []byte) []byte {
	b = append(b, '[')
	first := true
	item := func() {
		if !first {
			b = append(b, ',')
		}
		first = false
	}
	for _, m := range msgs {
		switch {
		case m.ToolCallID != "":
			item()
			b = append(b, `{"type":"function_call_output","call_id":`...)
			b = record.AppendJSONString(b, m.ToolCallID)
			b = append(b, `,"output":`...)
			b = record.AppendJSONString(b, m.Content)
			b = append(b, '}')
			continue
		case m.Content != "" || m.ToolCalls == nil:
			item()
			b = append(b, `{"role":`...)
			b = record.AppendJSONString(b, m.Role)
			b = append(b, `,"content":`...)
			if m.Role == "user" {
				b = appendUserContent(b, EndpointResponses, m.Content, parts)
			} else {
				b = record.AppendJSONString(b, m.Content)
			}
			b = append(b, '}')
		}
		for _, tc := range m.ToolCalls {
			item()
			b = append(b, `{"type":"function_call","call_id":`...)
			b = record.AppendJSONString(b, tc.ID)
			b = append(b, `,"name":`...)
			b = record.AppendJSONString(b, tc.Name)
			b = append(b, `,"arguments":`...)
			b = record.AppendJSONString(b, tc.Arguments)
			b = append(b, '}')
		}
	}
	return append(b, ']')
}

// appendAnthropicMessages appends the Messages API's "messages" with
// tool_use blocks in assistant messages and the tool results that follow
// them as one user message of tool_result blocks.
func appendAnthropicMessages(b []byte, msgs []Message) []byte {
	b = append(b, `"messages":[`...)
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if i > 0 {
			b = append(b, ',')
		}
		switch {
		case m.ToolCallID != "":
			b = append(b, `{"role":"user","content":[`...)
			for j := i; j < len(msgs) && msgs[j].ToolCallID != ""; j++ {
				if j > i {
					b = append(b, ',')
				}
				b = append(b, `{"type":"tool_result","tool_use_id":`...)
				b = record.AppendJSONString(b, msgs[j].ToolCallID)
				b = append(b, `,"content":`...)
				b = record.AppendJSONString(b, msgs[j].Content)
				b = append(b, '}')
				i = j
			}
			b = append(b, "]}"...)
		case m.ToolCalls != nil:
			b = append(b, `{"role":"assistant","content":[`...)
			if m.Content != "" {
				b = append(b, `{"type":"text","text":`...)
				b = record.AppendJSONString(b, m.Content)
				b = append(b, "},"...)
			}
			for j, tc := range m.ToolCalls {
				if j > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"type":"tool_use","id":`...)
				b = record.AppendJSONString(b, tc.ID)
				b = append(b, `,"name":`...)
				b = record.AppendJSONString(b, tc.Name)
				b = append(b, `,"input":`...)
				b = append(b, toolInput(tc.Arguments)...)
				b = append(b, '}')
			}
			b = append(b, "]}"...)
		default:
			b = append(b, `{"role":`...)
			b = record.AppendJSONString(b, m.Role)
			b = append(b, `,"content":`...)
			b = record.AppendJSONString(b, m.Content)
			b = append(b, '}')
		}
	}
	return append(b, ']')
}

// toolInput returns a tool call's arguments as a JSON object for a
// tool_use block: the arguments when they are one, else {}.
func toolInput(args string) string {
	a := strings.TrimSpace(args)
	if strings.HasPrefix(a, "{") && json.Valid([]byte(a)) {
		return a
	}
	return "{}"
}

// writeToolCalls writes tool calls into a prompt text (text completions,
// token counts): one "name(arguments)" line per call.
func writeToolCalls(b *strings.Builder, calls []sse.ToolCall) {
	for _, tc := range calls {
		b.WriteString("\n")
		b.WriteString(tc.Name)
		b.WriteString("(")
		b.WriteString(tc.Arguments)
		b.WriteString(")")
	}
}

// toolFields renders a session's tools and a tool choice for ep, as body
// fields (",\"tools\":[…],\"tool_choice\":…"); "" when it has no tools.
func toolFields(ep Endpoint, s *Session, choice string) []byte {
	if len(s.Tools) == 0 {
		return nil
	}
	b := []byte(`,"tools":[`)
	for i, t := range s.Tools {
		if i > 0 {
			b = append(b, ',')
		}
		params := []byte(t.Parameters)
		if len(params) == 0 {
			params = []byte(`{"type":"object","properties":{}}`)
		}
		switch ep {
		case EndpointMessages:
			b = append(b, `{"name":`...)
			b = record.AppendJSONString(b, t.Name)
			b = append(b, `,"description":`...)
			b = record.AppendJSONString(b, t.Description)
			b = append(b, `,"input_schema":`...)
			b = append(b, params...)
			b = append(b, '}')
		case EndpointResponses:
			b = append(b, `{"type":"function","name":`...)
			b = record.AppendJSONString(b, t.Name)
			b = append(b, `,"description":`...)
			b = record.AppendJSONString(b, t.Description)
			b = append(b, `,"parameters":`...)
			b = append(b, params...)
			b = append(b, '}')
		default:
			b = append(b, `{"type":"function","function":{"name":`...)
			b = record.AppendJSONString(b, t.Name)
			b = append(b, `,"description":`...)
			b = record.AppendJSONString(b, t.Description)
			b = append(b, `,"parameters":`...)
			b = append(b, params...)
			b = append(b, "}}"...)
		}
	}
	b = append(b, `],"tool_choice":`...)
	named := choice != "auto" && choice != "required" && choice != "none"
	switch {
	case ep == EndpointMessages && named:
		b = append(b, `{"type":"tool","name":`...)
		b = record.AppendJSONString(b, choice)
		b = append(b, '}')
	case ep == EndpointMessages:
		kind := map[string]string{"auto": "auto", "required": "any", "none": "none"}[choice]
		b = append(b, `{"type":"`+kind+`"}`...)
	case named && ep == EndpointResponses:
		b = append(b, `{"type":"function","name":`...)
		b = record.AppendJSONString(b, choice)
		b = append(b, '}')
	case named:
		b = append(b, `{"type":"function","function":{"name":`...)
		b = record.AppendJSONString(b, choice)
		b = append(b, "}}"...)
	default:
		b = record.AppendJSONString(b, choice)
	}
	return b
}

// checkSession checks a session against the endpoint before it runs.
func checkSession(ep Endpoint, s *Session) error {
	rt, ok := ep.Type()
	if !ok {
		return fmt.Errorf("endpoint %q: not a request type", ep)
	}
	switch {
	case len(s.Turns) == 0:
		return fmt.Errorf("session %q has no turn", s.ID)
	case len(s.Tools) > 0 && !rt.Tools:
		return fmt.Errorf("tools: %s has no tool calling; use %s", ep, reqtype.Names(func(t *reqtype.Type) bool { return t.Tools },
			func(t *reqtype.Type) string { return t.Path }, "or"))
	case s.ServerHistory && !rt.ServerHistory:
		return fmt.Errorf("server_history=true: needs the Responses API (%s), not %s", reqtype.Names(func(t *reqtype.Type) bool { return t.ServerHistory },
			func(t *reqtype.Type) string { return t.Path }, "or"), ep)
	}
	for _, b := range s.Branches {
		if b.Session == nil || b.MergeAfter < 1 || b.AtTurn < 0 || b.AtTurn+b.MergeAfter >= len(s.Turns) {
			return fmt.Errorf("branch %q: at turn %d merges after %d turns, past the session's %d turns", b.AgentID, b.AtTurn, b.MergeAfter, len(s.Turns))
		}
		if err := checkSession(ep, b.Session); err != nil {
			return fmt.Errorf("branch %q: %w", b.AgentID, err)
		}
	}
	return nil
}

// sessionID returns the id of session idx of this benchmark: the data's
// own, else its index, prefixed with the benchmark (and shard) so that no
// two sessions of a run share one.
func (r *run) sessionID(s *Session, idx uint64) string {
	id := s.ID
	if id == "" {
		id = "s" + strconv.FormatUint(idx, 10)
	}
	p := "b" + strconv.Itoa(r.b.Index) + "-"
	if r.e.shard != 0 {
		p = "p" + strconv.Itoa(r.e.shard) + "-" + p
	}
	return p + id
}

// runSession runs one session from its first turn, due at due; it returns
// whether its last request failed immediately (for the closed loop's
// backoff). It returns early when the benchmark stops, a turn fails or a
// tool call is missing and the session says to stop.
func (r *run) runSession(s *Session, idx uint64, due int64, cn *conn, timer *time.Timer) (immediate bool) {
	if checkSession(r.e.client.cfg.Endpoint, s) != nil {
		return false // the first session was checked; a later bad one is skipped
	}
	immediate, _ = r.converse(s, r.sessionID(s, idx), due, cn, timer, nil)
	return immediate
}

// branchResult is a sub-agent's final reply ("" when it ended early).
type branchResult struct{ reply string }

// startBranch runs a sub-agent in parallel from due; its final reply
// comes on the channel returned.
func (r *run) startBranch(b Branch, parent string, due int64) <-chan branchResult {
	ch := make(chan branchResult, 1)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		cn := r.e.conns.Get().(*conn)
		t := time.NewTimer(time.Hour)
		t.Stop()
		_, reply := r.converse(b.Session, parent+"/"+b.AgentID, due, cn, t, nil)
		r.e.conns.Put(cn)
		ch <- branchResult{reply}
	}()
	return ch
}

// converse runs the turns of s as session id from due; it returns whether
// its last request failed immediately and its last reply. With a user's
// pacer (user-centric rate) the turns after the first are due at the
// user's slots instead of after their think time.
func (r *run) converse(s *Session, id string, due int64, cn *conn, timer *time.Timer, pace *userPacer) (immediate bool, reply string) {
	ep := r.e.client.cfg.Endpoint
	serverHist := s.ServerHistory && ep == EndpointResponses
	choice := s.ToolChoice
	if choice == "" {
		choice = "required"
	}
	toolTurn, plainTurn := toolFields(ep, s, choice), toolFields(ep, s, "none")
	if len(s.Tools) == 0 && s.serverTools() && r.e.client.hasExtra("tools") && !r.e.client.hasExtra("tool_choice") {
		plainTurn = []byte(`,"tool_choice":"none"`)
	}
	maxReq := int64(r.b.Constraints.MaxRequests)
	msgs := make([]Message, 0, 2*len(s.Turns)+1)
	if s.System != "" {
		msgs = append(msgs, Message{Role: "system", Content: s.System})
	}
	held, prevID := 0, "" // messages the server holds, and its last response id (server history)
	histTokens := 0
	if s.System != "" {
		histTokens = -1
	}
	var prevEnd int64
	first := due
	var branches map[int][]<-chan branchResult // by the turn they merge into
	var merged map[int][]string                // agent ids, likewise
	for k := range s.Turns {
		t := &s.Turns[k]
		switch {
		case k > 0 && pace != nil:
			due = pace.next()
			if !r.waitTurn(due, timer) {
				return false, reply
			}
		case k > 0:
			due = max(prevEnd+int64(t.Delay), first+int64(t.At))
			if !r.sleep(due, timer) {
				return false, reply
			}
		}
		for _, b := range s.Branches {
			if b.AtTurn == k && !r.stopped() {
				if branches == nil {
					branches, merged = map[int][]<-chan branchResult{}, map[int][]string{}
				}
				m := b.AtTurn + b.MergeAfter
				branches[m] = append(branches[m], r.startBranch(b, id, due))
				merged[m] = append(merged[m], b.AgentID)
			}
		}
		prompt := t.Prompt
		for j := len(branches[k]) - 1; j >= 0; j-- {
			res := <-branches[k][j] // the merge waits for the sub-agent
			prompt = mergeText(merged[k][j], res.reply, prompt)
		}
		if len(branches[k]) > 0 {
			delete(branches, k)
			due = max(due, r.e.clock.Now())
		}
		if r.stopped() || !r.takePrefill(cn) {
			return false, reply
		}
		if i := r.created.Add(1) - 1; maxReq > 0 && i >= maxReq {
			r.created.Add(-1)
			cn.givePrefill()
			r.stop(StopMaxRequests, false)
			return false, reply
		}
		hist := len(msgs)
		msgs = append(msgs, Message{Role: "user", Content: prompt})
		send := msgs
		extra := plainTurn
		switch {
		case t.ToolCall:
			extra = toolTurn
		case t.ServerTools:
			extra = nil
		}
		if serverHist && prevID != "" {
			send = msgs[held:]
			extra = append(append([]byte(nil), extra...), `,"previous_response_id":`...)
			extra = record.AppendJSONString(extra, prevID)
		}
		req := NewChatRequest(send, t.MaxTokens)
		req.TargetPromptTokens = t.TargetPromptTokens
		req.turn = &turnInfo{session: id, extra: extra}
		rec := r.e.newRecord(r.b.Index)
		rec.Intended = due
		rec.Session = record.Session{ID: id, Turn: k, Turns: len(s.Turns), HistoryMessages: hist, HistoryTokens: histTokens}
		r.send(req, rec, cn)
		ok := rec.Status == record.StatusSuccessful
		prevEnd = max(rec.End, rec.Dispatched)
		if pace != nil {
			pace.done(prevEnd)
		}
		calls := cn.tools.Calls()
		rec.Session.ToolCalls = len(calls)
		end := !ok
		if ok && t.ToolCall && len(s.Tools) > 0 && len(calls) == 0 {
			switch s.OnMissingTool {
			case MissingToolSkip:
				end = true
			case MissingToolError:
				rec.Status, rec.ErrorClass = record.StatusErrored, record.ErrToolCallMissing
				rec.Error = "a tool-call turn's response carried no tool call"
				end = true
			}
		}
		if ok {
			msgs = append(msgs, Message{Role: "assistant", Content: string(cn.reply), ToolCalls: calls})
			held = len(msgs)
			for _, tc := range calls {
				if !t.ServerTools { // a server answers its own calls
					msgs = append(msgs, Message{Role: "tool", Content: s.ToolResult, ToolCallID: tc.ID})
				}
			}
			prevID = rec.ResponseID
			histTokens = -1
			if rec.ServerPromptTokens >= 0 && rec.OutputTokens >= 0 {
				histTokens = rec.ServerPromptTokens + rec.OutputTokens
			}
		}
		if ok {
			reply = string(cn.reply)
		}
		immediate = r.settle(rec)
		if end {
			break
		}
	}
	// A sub-agent not merged (the session ended early) is still waited
	// for: its records belong to the benchmark.
	for _, chs := range branches {
		for _, ch := range chs {
			<-ch
		}
	}
	return immediate, reply
}

// CheckSessions checks that a session source's first session can run on
// endpoint ep ("" means chat completions): tools need tool calling, server
// history the Responses API, branches must merge within their session.
// Other sources pass.
func CheckSessions(ep Endpoint, src Source) error {
	ss, ok := src.(SessionSource)
	if !ok {
		return nil
	}
	s, ok := ss.Session(0)
	if !ok {
		return nil
	}
	if ep == "" {
		ep = EndpointChat
	}
	return checkSession(ep, s)
}

// startSessions switches the benchmark to sessions when the source has
// them, and checks the first against the endpoint.
func (r *run) startSessions(src SessionSource) error {
	s, ok := src.Session(0)
	if !ok {
		return nil
	}
	if err := checkSession(r.e.client.cfg.Endpoint, s); err != nil {
		return fmt.Errorf("data: %w", err)
	}
	r.sessSrc = src
	return nil
}

// sleep waits until due on a timer (think time: a session's own wait, at
// the timer's millisecond precision; the intended time is recorded), or
// until the benchmark stops (false).
func (r *run) sleep(due int64, timer *time.Timer) bool {
	if d := r.e.clock.Until(due); d > 0 {
		timer.Reset(d)
		select {
		case <-timer.C:
		case <-r.stopCh:
			timer.Stop()
			return false
		}
	}
	return !r.stopped()
}

// sessionStream is one closed-loop stream of sessions: a user who starts
// the next session when the last one ended.
func (r *run) sessionStream(src SessionSource, cn *conn) {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	fails := 0
	for !r.stopped() {
		i := r.sessions.Add(1) - 1
		s, ok := src.Session(uint64(i))
		if !ok {
			return // the others finish their sessions; Run then stops
		}
		if !r.runSession(s, uint64(i), r.e.clock.Now(), cn, timer) {
			fails = 0
			continue
		}
		fails++
		if !r.backoff(backoffDelay(fails), timer) {
			return
		}
	}
}

// openSessions starts sessions at the pacer's times, never waiting for
// them, with at most the strategy's in-flight cap of sessions at once.
func (r *run) openSessions(src SessionSource, start int64) {
	pacer, err := NewPacer(r.b.Strategy)
	if err != nil {
		r.stop(StopDataExhausted, false)
		return
	}
	sem := newLimiter(r.b.Strategy.Workers(), r.b.Strategy.CapRampup, r.e.clock, start, r.done)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for i := uint64(0); ; i++ {
		off, ok := pacer.Next(i)
		if !ok {
			return // sessions in flight finish; Run then stops
		}
		s, ok := src.Session(i)
		if !ok {
			return
		}
		due := start + int64(off)
		if r.e.clock.Until(due) > 0 {
			if !waitUntil(r.e.clock, due, r.stopCh, timer) {
				return
			}
		}
		select {
		case sem <- struct{}{}:
		case <-r.stopCh:
			return
		}
		if r.stopped() {
			<-sem
			return
		}
		r.wg.Add(1)
		go func(i uint64) {
			defer r.wg.Done()
			cn := r.e.conns.Get().(*conn)
			t := time.NewTimer(time.Hour)
			t.Stop()
			r.runSession(s, i, due, cn, t)
			r.e.conns.Put(cn)
			<-sem
		}(i)
	}
}
