package dataset

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/loadgen"
)

// Conversations (sessions). GuideLLM's turn-indexed columns (prompt_0,
// prompt_1, …), AIPerf's multi_turn records ({"session_id", "turns":
// [{"text", "delay"}]}), a synthetic spec with turns=N, and ShareGPT or
// OpenAI-messages records given a session key (turns=N to keep up to N
// user turns, delay, tools, server_history; without one they stay
// single requests of their first user turn, as in GuideLLM and vLLM's
// benchmarks) become a session source (loadgen.SessionSource): each
// record or draw is one conversation whose turns the engine sends in
// order with the history. The session keys below set think time and
// tool calling for every form.

// sessionKeys are the keys that shape sessions, in a synthetic spec or
// beside path= of a file kind.
var sessionKeys = []string{
	"turns", "turns_stdev", "first_prompt_tokens", "first_prompt_tokens_stdev", "first_prompt_tokens_min", "first_prompt_tokens_max",
	"first_output_tokens", "first_output_tokens_stdev", "first_output_tokens_min", "first_output_tokens_max",
	"delay", "delay_stdev", "delay_min", "delay_max",
	"turn_lengths", "tools", "tool_call_turns", "server_tool_call_turns", "tool_call_mode", "tool_messages", "tool_choice", "tool_response_tokens", "tool_call_missing_behavior", "server_history", "branches",
}

// maxTurns bounds a session's turns (synthetic turns=N and file records).
const maxTurns = 1024

// DelayDist is a think-time distribution in seconds (GuideLLM's delay,
// delay_stdev, delay_min, delay_max; AIPerf's
// --conversation-turn-delay-mean/-stddev): normal around Mean, clamped
// to [Min, Max] (default [0, Mean+5·Stdev]); constant without a stdev.
type DelayDist struct {
	Mean, Stdev, Min, Max float64
}

// Set reports whether a delay was given.
func (d DelayDist) Set() bool { return d.Mean > 0 || d.Stdev > 0 || d.Min > 0 || d.Max > 0 }

// Sample draws one think time.
func (d DelayDist) Sample(rng *rand.Rand) time.Duration {
	v := d.Mean
	if d.Stdev > 0 {
		v += rng.NormFloat64() * d.Stdev
	}
	hi := d.Max
	if hi == 0 {
		hi = d.Mean + 5*d.Stdev
	}
	v = max(d.Min, min(hi, v))
	return time.Duration(max(0, v) * float64(time.Second))
}

// SessionSpec shapes sessions: the synthetic ones' turns, and think time
// and tools for every form.
type SessionSpec struct {
	// Turns is the synthetic turns per session (turns=N); 0: not a
	// synthetic session spec. With TurnsStdev each session draws its own
	// count from a normal distribution of that mean (at least 1; AIPerf's
	// --conversation-turn-stddev), seeded by the session's index.
	Turns, TurnsStdev int
	// FirstPrompt and FirstOutput are turn 0's lengths when they differ
	// from the later turns' (prompt_tokens, output_tokens).
	FirstPrompt, FirstOutput Dist
	// TurnLengths, when set, are each turn's own lengths, one pair per
	// turn (JSON key turn_lengths; GuideLLM's turn_pivot of several
	// synthetic sources: turn k from source k). A pair without an output
	// length sends no limit on its turn.
	TurnLengths []LengthPair
	Delay       DelayDist
	// Tools is the number of synthetic tool definitions (tools=N), or a
	// JSON array of chat-completions tool objects (ToolsJSON).
	Tools     int
	ToolsJSON json.RawMessage
	// ToolCallTurns is how many turns, from the first, are tool-call
	// turns; 0 with tools, or -1 (GuideLLM's "every turn"), means every
	// turn. ToolCallTurnList names them instead (GuideLLM's list form,
	// 0-based: [0,2]). Either without tools gets one synthetic tool,
	// GuideLLM's built-in placeholder tool.
	ToolCallTurns    int
	ToolCallTurnList []int
	// ServerToolTurns and ServerToolTurnList are GuideLLM's
	// server_tool_call_turns, in the same forms (N, -1 for every turn, a
	// list): turns whose tools the server runs itself (loadgen's
	// Turn.ServerTools). They never overlap the tool-call turns.
	ServerToolTurns    int
	ServerToolTurnList []int
	// ServerToolMode is GuideLLM's tool_call_mode=server for a file's
	// tools_column: a record with tools is sent without them, its turns
	// ServerTools turns (the server holds the tools); client, the
	// default, offers the record's tools on tool-call turns.
	ServerToolMode bool
	// ToolMessages reads a file's messages column as GuideLLM's
	// tool_calling_message_extractor: one request of every user text
	// joined with spaces, the system texts its prefix, the first tool
	// message its tool result.
	ToolMessages       bool
	ToolChoice         string // required (default), auto, none or a tool's name
	ToolResponseTokens int    // tokens of each synthetic tool result (default 32)
	MissingTool        loadgen.MissingToolCall
	ServerHistory      bool
	// Branches are synthetic sub-agents (GuideLLM's branches, JSON form
	// only): each runs Turns turns of its own from AtTurn, with a fresh
	// context, and merges its final reply into turn AtTurn+MergeAfter.
	Branches []BranchSpec
}

// BranchSpec is one of GuideLLM's sub-agent branches.
type BranchSpec struct {
	AtTurn     int    `json:"at_turn"`
	Turns      int    `json:"turns"`
	AgentID    string `json:"agent_id"`
	MergeAfter int    `json:"merge_after"`
}

// set reports whether any session key was given.
func (ss SessionSpec) set() bool {
	return ss.Turns > 0 || ss.Delay.Set() || ss.Tools > 0 || ss.ToolsJSON != nil || ss.ServerHistory || ss.ToolCallTurns != 0 || ss.ToolCallTurnList != nil ||
		ss.ServerToolTurns != 0 || ss.ServerToolTurnList != nil || ss.Branches != nil
}

// clientToolsAsked reports whether tool-call turns were named
// (tool_call_turns in any form).
func (ss SessionSpec) clientToolsAsked() bool {
	return ss.ToolCallTurns != 0 || ss.ToolCallTurnList != nil
}

// inTurns reports whether turn k is among the first n turns (every turn
// for n = -1) or in list, when list is set.
func inTurns(n int, list []int, k int) bool {
	if list != nil {
		_, ok := slices.BinarySearch(list, k)
		return ok
	}
	return n < 0 || k < n
}

// parseTurnLengths reads turn_lengths: a JSON list of each turn's
// lengths, [{"prompt_tokens":128,"output_tokens":256},…], with the
// _stdev, _min and _max keys of each.
func parseTurnLengths(p param) ([]LengthPair, error) {
	const form = `want a JSON list of each turn's lengths such as [{"prompt_tokens":128,"output_tokens":256},{"prompt_tokens":64,"prompt_tokens_stdev":8}]`
	if !p.raw || !strings.HasPrefix(p.val, "[") {
		return nil, fmt.Errorf("turn_lengths=%s: %s", p.shown(), form)
	}
	dec := json.NewDecoder(strings.NewReader(p.val))
	dec.DisallowUnknownFields()
	var raw []lengthsJSON
	if err := dec.Decode(&raw); err != nil || len(raw) == 0 {
		if err == nil {
			err = errors.New("empty list")
		}
		return nil, fmt.Errorf("turn_lengths: %s: %s", jsonErr(err), form)
	}
	out := make([]LengthPair, len(raw))
	for k, r := range raw {
		l := r.pair()
		for _, d := range []struct {
			name string
			d    Dist
		}{{"prompt_tokens", l.Prompt}, {"output_tokens", l.Output}} {
			lo, hi := d.d.Bounds()
			switch {
			case d.d.Mean < 0 || d.d.Stdev < 0 || d.d.Min < 0 || d.d.Max < 0:
				return nil, fmt.Errorf("turn_lengths[%d]: %s and its _stdev, _min, _max must be ≥ 0: %s", k, d.name, form)
			case d.name == "prompt_tokens" && d.d.Mean < 1:
				return nil, fmt.Errorf("turn_lengths[%d]: prompt_tokens ≥ 1 is required: %s", k, form)
			case d.d.Set() && d.d.Mean < 1:
				return nil, fmt.Errorf("turn_lengths[%d]: %s_stdev/min/max need %s (the mean) ≥ 1", k, d.name, d.name)
			case d.d.Set() && (lo > hi || hi > maxTokensPerPrompt):
				return nil, fmt.Errorf("turn_lengths[%d]: %s: minimum %d, maximum %d: want minimum ≤ maximum ≤ %d", k, d.name, lo, hi, maxTokensPerPrompt)
			}
		}
		out[k] = l
	}
	return out, nil
}

// turnLengthsJSON renders turn_lengths.
func turnLengthsJSON(l []LengthPair) []byte {
	b := []byte{'['}
	for i, p := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		for j, kv := range append(p.Prompt.keys("prompt_tokens"), p.Output.keys("output_tokens")...) {
			k, v, _ := strings.Cut(kv, "=")
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, strconv.Quote(k)+":"+v...)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// parseTurnSet reads GuideLLM's form of a set of turns: N (the first N),
// -1 (every turn) or a JSON list of 0-based turns such as [0,2].
func parseTurnSet(p param) (n int, list []int, err error) {
	bad := fmt.Errorf("%s=%s: want a count N (the first N turns), -1 (every turn) or a list of 0-based turns such as [0,2]", p.key, p.shown())
	if p.raw && strings.HasPrefix(p.val, "[") {
		if err := json.Unmarshal([]byte(p.val), &list); err != nil || len(list) == 0 || slices.Min(list) < 0 {
			return 0, nil, bad
		}
		slices.Sort(list)
		return 0, slices.Compact(list), nil
	}
	if p.val == "-1" {
		return -1, nil, nil
	}
	if n, err = intParam(p, 1); err != nil {
		return 0, nil, bad
	}
	return n, nil, nil
}

// parseSessionParam reads one session key into ss; false when key is not one.
func (ss *SessionSpec) parseSessionParam(p param) (bool, error) {
	dist := func(d *Dist, suffix string) (bool, error) {
		n, err := intParam(p, 1)
		if err != nil {
			return true, err
		}
		switch suffix {
		case "":
			d.Mean = n
		case "_stdev":
			d.Stdev = n
		case "_min":
			d.Min = n
		case "_max":
			d.Max = n
		}
		return true, nil
	}
	for _, pre := range []struct {
		name string
		d    *Dist
	}{{"first_prompt_tokens", &ss.FirstPrompt}, {"first_output_tokens", &ss.FirstOutput}} {
		if suffix, ok := strings.CutPrefix(p.key, pre.name); ok && (suffix == "" || suffix == "_stdev" || suffix == "_min" || suffix == "_max") {
			return dist(pre.d, suffix)
		}
	}
	switch p.key {
	case "turns":
		n, err := intParam(p, 1)
		if err == nil && n > maxTurns {
			err = fmt.Errorf("turns=%d: at most %d", n, maxTurns)
		}
		ss.Turns = n
		return true, err
	case "turns_stdev":
		n, err := intParam(p, 0)
		ss.TurnsStdev = n
		return true, err
	case "delay", "delay_stdev", "delay_min", "delay_max":
		v, err := strconv.ParseFloat(p.val, 64)
		if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) || v > 86400 {
			return true, fmt.Errorf("%s=%s: want seconds ≥ 0, e.g. delay=1.5", p.key, p.shown())
		}
		*map[string]*float64{"delay": &ss.Delay.Mean, "delay_stdev": &ss.Delay.Stdev, "delay_min": &ss.Delay.Min, "delay_max": &ss.Delay.Max}[p.key] = v
		return true, nil
	case "tools":
		if p.raw && strings.HasPrefix(p.val, "[") {
			if _, err := parseTools(json.RawMessage(p.val)); err != nil {
				return true, fmt.Errorf("tools: %v", err)
			}
			ss.ToolsJSON = json.RawMessage(p.val)
			return true, nil
		}
		n, err := intParam(p, 1)
		if err == nil && n > 128 {
			err = fmt.Errorf("tools=%d: at most 128 synthetic tools", n)
		}
		ss.Tools = n
		return true, err
	case "branches":
		const form = `want a JSON list such as [{"at_turn":1,"turns":2,"agent_id":"search","merge_after":1}]`
		if !p.raw || !strings.HasPrefix(p.val, "[") {
			return true, fmt.Errorf("branches=%s: %s", p.shown(), form)
		}
		dec := json.NewDecoder(strings.NewReader(p.val))
		dec.DisallowUnknownFields()
		var bs []BranchSpec
		if err := dec.Decode(&bs); err != nil || len(bs) == 0 {
			return true, fmt.Errorf("branches: %s", form)
		}
		ss.Branches = bs
		return true, nil
	case "tool_call_turns":
		n, l, err := parseTurnSet(p)
		ss.ToolCallTurns, ss.ToolCallTurnList = n, l
		return true, err
	case "turn_lengths":
		l, err := parseTurnLengths(p)
		ss.TurnLengths = l
		return true, err
	case "tool_call_mode":
		switch p.val {
		case "client":
			ss.ServerToolMode = false
		case "server":
			ss.ServerToolMode = true
		default:
			return true, fmt.Errorf("tool_call_mode=%s: want client (the record's tools offered, the default) or server (the server holds the tools)", p.shown())
		}
		return true, nil
	case "tool_messages":
		switch strings.ToLower(p.val) {
		case "true", "1", "yes":
			ss.ToolMessages = true
		case "false", "0", "no":
			ss.ToolMessages = false
		default:
			return true, fmt.Errorf("tool_messages=%s: want true or false", p.shown())
		}
		return true, nil
	case "server_tool_call_turns":
		n, l, err := parseTurnSet(p)
		ss.ServerToolTurns, ss.ServerToolTurnList = n, l
		return true, err
	case "tool_response_tokens":
		n, err := intParam(p, 1)
		if err == nil && n > maxTokensPerPrompt {
			err = fmt.Errorf("tool_response_tokens=%d: at most %d", n, maxTokensPerPrompt)
		}
		ss.ToolResponseTokens = n
		return true, err
	case "tool_choice":
		if p.val == "" || strings.Trim(p.val, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") != "" {
			return true, fmt.Errorf("tool_choice=%s: want required, auto, none or a tool's name (letters, digits, _ - .)", p.shown())
		}
		ss.ToolChoice = p.val
		return true, nil
	case "tool_call_missing_behavior":
		m, err := loadgen.ParseMissingToolCall(p.val)
		ss.MissingTool = m
		return true, err
	case "server_history":
		switch strings.ToLower(p.val) {
		case "true", "1", "yes":
			ss.ServerHistory = true
		case "false", "0", "no":
		default:
			return true, fmt.Errorf("server_history=%s: want true or false", p.shown())
		}
		return true, nil
	}
	return false, nil
}

// validate checks the session keys together.
func (ss SessionSpec) validate() error {
	if ss.Turns == 0 && (ss.FirstPrompt.Set() || ss.FirstOutput.Set()) {
		return fmt.Errorf("first_prompt_tokens and first_output_tokens need turns=N, e.g. turns=4,first_prompt_tokens=1024,prompt_tokens=128")
	}
	if l := ss.TurnLengths; l != nil {
		switch {
		case ss.Turns != len(l) || ss.TurnsStdev > 0:
			return fmt.Errorf("turn_lengths: %d turns' lengths: give turns=%d (and no turns_stdev)", len(l), len(l))
		case ss.FirstPrompt.Set() || ss.FirstOutput.Set():
			return fmt.Errorf("turn_lengths sets turn 0's lengths too: give first_prompt_tokens and first_output_tokens in its first item instead")
		}
	}
	for _, l := range []struct {
		key  string
		list []int
	}{{"tool_call_turns", ss.ToolCallTurnList}, {"server_tool_call_turns", ss.ServerToolTurnList}} {
		if l.list != nil && ss.Turns > 0 && l.list[len(l.list)-1] >= ss.Turns {
			return fmt.Errorf("%s: turn %d is past the session's last turn (turns=%d, counted from 0)", l.key, l.list[len(l.list)-1], ss.Turns)
		}
	}
	switch {
	case ss.TurnsStdev > 0 && ss.Turns == 0:
		return fmt.Errorf("turns_stdev needs turns (the mean), e.g. turns=4,turns_stdev=2")
	case ss.TurnsStdev > 0 && (ss.Branches != nil || ss.ToolCallTurnList != nil || ss.ServerToolTurnList != nil):
		return fmt.Errorf("turns_stdev: branches and a tool_call_turns or server_tool_call_turns list name turns of a fixed count: give turns=N alone")
	}
	if ss.clientToolsAsked() && (ss.ServerToolTurns != 0 || ss.ServerToolTurnList != nil) {
		n := ss.Turns
		if n == 0 || ss.TurnsStdev > 0 {
			n = maxTurns
		}
		for k := range n {
			if inTurns(ss.ToolCallTurns, ss.ToolCallTurnList, k) && inTurns(ss.ServerToolTurns, ss.ServerToolTurnList, k) {
				return fmt.Errorf("tool_call_turns and server_tool_call_turns must not overlap: turn %d (counted from 0) is in both", k)
			}
		}
	}
	if ss.ToolCallTurns > 0 && ss.ToolCallTurnList != nil {
		return fmt.Errorf("tool_call_turns: give a count or a list, not both")
	}
	total := ss.Turns
	for i, b := range ss.Branches {
		switch {
		case b.Turns < 1 || b.AtTurn < 0 || b.MergeAfter < 1:
			return fmt.Errorf("branches[%d]: turns and merge_after must be ≥ 1 and at_turn ≥ 0", i)
		case b.AgentID == "" || strings.Trim(b.AgentID, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") != "":
			return fmt.Errorf("branches[%d]: agent_id %q: want letters, digits, \"_\", \"-\" or \".\" only", i, b.AgentID)
		case b.AtTurn+b.MergeAfter >= ss.Turns:
			return fmt.Errorf("branches[%d] (%s): at_turn %d + merge_after %d merges past the session's last turn (turns=%d)", i, b.AgentID, b.AtTurn, b.MergeAfter, ss.Turns)
		}
		total += b.Turns
	}
	if total > maxTurns {
		return fmt.Errorf("turns with branches: %d, at most %d", total, maxTurns)
	}
	if ss.Delay.Max > 0 && ss.Delay.Max < ss.Delay.Min {
		return fmt.Errorf("delay_min=%v is above delay_max=%v", ss.Delay.Min, ss.Delay.Max)
	}
	for _, d := range []struct {
		name string
		d    Dist
	}{{"first_prompt_tokens", ss.FirstPrompt}, {"first_output_tokens", ss.FirstOutput}} {
		if d.d.Set() && d.d.Mean == 0 {
			return fmt.Errorf("%s_stdev/min/max need %s (the mean)", d.name, d.name)
		}
		if lo, hi := d.d.Bounds(); d.d.Set() && (lo > hi || hi > maxTokensPerPrompt) {
			return fmt.Errorf("%s: minimum %d, maximum %d: want minimum ≤ maximum ≤ %d", d.name, lo, hi, maxTokensPerPrompt)
		}
	}
	return nil
}

// keys renders the session keys for a spec's String.
func (ss SessionSpec) keys() []string {
	var out []string
	if ss.Turns > 0 {
		out = append(out, "turns="+strconv.Itoa(ss.Turns))
	}
	if ss.TurnsStdev > 0 {
		out = append(out, "turns_stdev="+strconv.Itoa(ss.TurnsStdev))
	}
	out = append(out, ss.FirstPrompt.keys("first_prompt_tokens")...)
	out = append(out, ss.FirstOutput.keys("first_output_tokens")...)
	for _, f := range []struct {
		k string
		v float64
	}{{"delay", ss.Delay.Mean}, {"delay_stdev", ss.Delay.Stdev}, {"delay_min", ss.Delay.Min}, {"delay_max", ss.Delay.Max}} {
		if f.v > 0 {
			out = append(out, f.k+"="+strconv.FormatFloat(f.v, 'g', -1, 64))
		}
	}
	if ss.Tools > 0 {
		out = append(out, "tools="+strconv.Itoa(ss.Tools))
	}
	if ss.ToolCallTurns != 0 {
		out = append(out, "tool_call_turns="+strconv.Itoa(ss.ToolCallTurns))
	}
	if ss.ServerToolTurns != 0 {
		out = append(out, "server_tool_call_turns="+strconv.Itoa(ss.ServerToolTurns))
	}
	if ss.ToolChoice != "" {
		out = append(out, "tool_choice="+ss.ToolChoice)
	}
	if ss.ToolResponseTokens > 0 {
		out = append(out, "tool_response_tokens="+strconv.Itoa(ss.ToolResponseTokens))
	}
	if ss.MissingTool != loadgen.MissingToolContinue {
		out = append(out, "tool_call_missing_behavior="+[...]string{"continue", "skip", "error"}[ss.MissingTool])
	}
	if ss.ServerHistory {
		out = append(out, "server_history=true")
	}
	if ss.ServerToolMode {
		out = append(out, "tool_call_mode=server")
	}
	if ss.ToolMessages {
		out = append(out, "tool_messages=true")
	}
	return out
}

// parseTools reads a JSON list of chat-completions tools
// ([{"type":"function","function":{"name","description","parameters"}}],
// or the bare function objects).
func parseTools(raw json.RawMessage) ([]loadgen.ToolDef, error) {
	var list []struct {
		Type     string `json:"type"`
		Function *struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	const form = `want a list such as [{"type":"function","function":{"name":"search","parameters":{"type":"object"}}}]`
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("%s: %s", jsonErr(err), form)
	}
	defs := make([]loadgen.ToolDef, 0, len(list))
	for i, t := range list {
		d := loadgen.ToolDef{Name: t.Name, Description: t.Description, Parameters: t.Parameters}
		if t.Function != nil {
			d = loadgen.ToolDef{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters}
		}
		if d.Name == "" {
			return nil, fmt.Errorf("tool %d has no name: %s", i, form)
		}
		if len(d.Parameters) > 0 && !strings.HasPrefix(strings.TrimSpace(string(d.Parameters)), "{") {
			return nil, fmt.Errorf("tool %d (%s): parameters is not a JSON object", i, d.Name)
		}
		defs = append(defs, d)
	}
	return defs, nil
}

// syntheticTools returns n tool definitions, tool_0 … tool_{n-1}, each
// taking one string argument.
func syntheticTools(n int) []loadgen.ToolDef {
	defs := make([]loadgen.ToolDef, n)
	for i := range defs {
		defs[i] = loadgen.ToolDef{Name: "tool_" + strconv.Itoa(i), Description: "Looks up item " + strconv.Itoa(i) + ".",
			Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`)}
	}
	return defs
}

// sessionShape is what a SessionSpec adds to every session of a source:
// tools, the tool result and the think-time draws.
type sessionShape struct {
	spec   SessionSpec
	tools  []loadgen.ToolDef
	result string
	seed   uint64
}

func newSessionShape(ss SessionSpec, gen *textGen, seed uint64) (*sessionShape, error) {
	sh := &sessionShape{spec: ss, seed: seed}
	switch {
	case ss.ToolsJSON != nil:
		t, err := parseTools(ss.ToolsJSON)
		if err != nil {
			return nil, fmt.Errorf("tools: %v", err)
		}
		sh.tools = t
	case ss.Tools > 0:
		sh.tools = syntheticTools(ss.Tools)
	case ss.clientToolsAsked():
		sh.tools = syntheticTools(1) // GuideLLM's built-in placeholder tool
	}
	{
		n := ss.ToolResponseTokens
		if n == 0 {
			n = 32
		}
		if gen == nil || gen.bodyUnits() < n+1 {
			gen = newTextGen(approxVocab(), n+bodySpread, seed)
		}
		sh.result = gen.text(minMarkerValues-1, ctxJoin, n, 0)
	}
	return sh, nil
}

// apply sets the shape's tools and draws the think times of session i.
func (sh *sessionShape) apply(s *loadgen.Session, i uint64) {
	ss := sh.spec
	server := ss.ServerToolTurns != 0 || ss.ServerToolTurnList != nil
	for k := range s.Turns {
		t := &s.Turns[k]
		t.ServerTools = server && inTurns(ss.ServerToolTurns, ss.ServerToolTurnList, k)
		if sh.tools != nil {
			// tools without tool_call_turns: every turn the server does not
			// run tools on
			t.ToolCall = !t.ServerTools && (!ss.clientToolsAsked() || inTurns(ss.ToolCallTurns, ss.ToolCallTurnList, k))
		}
	}
	if sh.tools != nil {
		s.Tools, s.ToolChoice, s.ToolResult, s.OnMissingTool = sh.tools, ss.ToolChoice, sh.result, ss.MissingTool
	}
	s.ServerHistory = ss.ServerHistory
	if ss.Delay.Set() {
		rng := rand.New(rand.NewPCG(sh.seed^0x64656c6179, i))
		for k := 1; k < len(s.Turns); k++ {
			if s.Turns[k].Delay == 0 {
				s.Turns[k].Delay = ss.Delay.Sample(rng)
			}
		}
	}
}

// SessionList is a finite source of conversations (a data file).
type SessionList struct {
	list []*loadgen.Session
	tok  interface{ Count(string) int } // counts Request's prompt tokens; nil: unknown
}

// Session returns session i.
func (l *SessionList) Session(i uint64) (*loadgen.Session, bool) {
	if i >= uint64(len(l.list)) {
		return nil, false
	}
	return l.list[i], true
}

// Request returns the first turn of session i alone.
func (l *SessionList) Request(i uint64) (*loadgen.Request, bool) {
	s, ok := l.Session(i)
	if !ok {
		return nil, false
	}
	r := firstTurn(s)
	if l.tok != nil {
		r.PromptTokens = l.tok.Count(r.Text())
	}
	return r, true
}

// Len returns the number of sessions.
func (l *SessionList) Len() int { return len(l.list) }

func firstTurn(s *loadgen.Session) *loadgen.Request {
	t := s.Turns[0]
	r := loadgen.NewRequest(s.System, t.Prompt, t.MaxTokens)
	r.TargetPromptTokens = t.TargetPromptTokens
	return r
}

// synthSessions is a synthetic source of sessions (turns=N): session i of
// round r.
type synthSessions struct {
	s     *Synthetic
	round uint32
	limit int // 0: never ends
}

func (ss synthSessions) Session(i uint64) (*loadgen.Session, bool) {
	if ss.limit > 0 && i >= uint64(ss.limit) {
		return nil, false
	}
	return ss.s.session(ss.round, i), true
}

func (ss synthSessions) Request(i uint64) (*loadgen.Request, bool) {
	s, ok := ss.Session(i)
	if !ok {
		return nil, false
	}
	return firstTurn(s), true
}

// Len returns the number of sessions.
func (ss synthSessions) Len() int { return ss.limit }

// sessionsOf returns the session source of round r: limit sessions, or
// an endless one (without Len) when limit is 0.
func (s *Synthetic) sessionsOf(round uint32, limit int) loadgen.Source {
	if limit > 0 {
		return synthSessions{s: s, round: round, limit: limit}
	}
	return unboundedSessions{s: s, round: round}
}

// unboundedSessions never ends and has no Len.
type unboundedSessions struct {
	s     *Synthetic
	round uint32
}

func (u unboundedSessions) Session(i uint64) (*loadgen.Session, bool) {
	return u.s.session(u.round, i), true
}

func (u unboundedSessions) Request(i uint64) (*loadgen.Request, bool) {
	return firstTurn(u.s.session(u.round, i)), true
}

// turnsOf is synthetic session i's turn count: Turns, or with TurnsStdev
// its own draw.
func (s *Synthetic) turnsOf(i uint64) int {
	ss := s.spec.Session
	if ss.TurnsStdev == 0 {
		return ss.Turns
	}
	d := Dist{Mean: ss.Turns, Stdev: ss.TurnsStdev, Min: 1, Max: maxTurns}
	return d.Sample(rand.New(rand.NewPCG(s.seed^0x7475726e73, i)))
}

// turnKey packs a session index and a turn into one draw index.
func turnKey(i uint64, k int) uint64 { return i<<10 | uint64(k) }

// session builds synthetic session i of round r: its prefix from draw i,
// each turn's lengths from its own draw (turn 0 from the first_* keys
// when given), a unique marker per turn.
func (s *Synthetic) session(round uint32, i uint64) *loadgen.Session {
	ss := s.spec.Session
	base := s.draw(i)
	sess := &loadgen.Session{Turns: make([]loadgen.Turn, s.turnsOf(i))}
	if base.prefix >= 0 {
		sess.System = s.prefixes[base.prefix].text
	}
	for k := range sess.Turns {
		key := turnKey(i, k)
		var d draw
		if s.pool != nil {
			d = s.pool[key%uint64(len(s.pool))]
		} else {
			d = s.draw(key)
		}
		if ss.TurnLengths != nil {
			s.turnDraw(&d, i, k)
		}
		if k == 0 && (ss.FirstPrompt.Set() || ss.FirstOutput.Set()) {
			rng := rand.New(rand.NewPCG(s.seed^0x6669727374, i))
			if ss.FirstPrompt.Set() {
				d.n = ss.FirstPrompt.Sample(rng)
				d.off = rng.IntN(max(1, s.gen.bodyUnits()-d.n+1))
			}
			if ss.FirstOutput.Set() {
				d.out = ss.FirstOutput.Sample(rng)
			}
		}
		ctx := ctxJoin
		if k == 0 && sess.System == "" {
			ctx = ctxStart
		}
		sess.Turns[k] = loadgen.Turn{Prompt: s.gen.text(markerValue(round, key), ctx, s.contentTokens(d.n), d.off), MaxTokens: d.out, TargetPromptTokens: d.n}
	}
	s.shape.apply(sess, i)
	off := ss.Turns
	for _, b := range ss.Branches {
		sub := &loadgen.Session{Turns: make([]loadgen.Turn, b.Turns)}
		for k := range sub.Turns {
			key := turnKey(i, off+k)
			d := s.draw(key)
			ctx := ctxJoin
			if k == 0 {
				ctx = ctxStart
			}
			sub.Turns[k] = loadgen.Turn{Prompt: s.gen.text(markerValue(round, key), ctx, s.contentTokens(d.n), d.off), MaxTokens: d.out, TargetPromptTokens: d.n}
		}
		off += b.Turns
		sess.Branches = append(sess.Branches, loadgen.Branch{AgentID: b.AgentID, AtTurn: b.AtTurn, MergeAfter: b.MergeAfter, Session: sub})
	}
	return sess
}

// turnDraw sets turn k of session i's lengths from its turn_lengths item,
// drawn apart from the session's other draws.
func (s *Synthetic) turnDraw(d *draw, i uint64, k int) {
	l := s.spec.Session.TurnLengths[k]
	rng := rand.New(rand.NewPCG(s.seed^0x7475726e6c656e, turnKey(i, k)))
	d.n = l.Prompt.Sample(rng)
	d.off = rng.IntN(max(1, s.gen.bodyUnits()-d.n+1))
	d.out = -1
	if l.Output.Set() {
		d.out = l.Output.Sample(rng)
	}
}

// fileTurn is one user turn of a file record after the first.
type fileTurn struct {
	prompt      string
	reply       string
	outputCount int
	promptCount int
	delay       time.Duration
}
