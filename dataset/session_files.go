package dataset

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/loadgen"
)

// Sessions read from files: turn-indexed columns, AIPerf's multi_turn
// records and traces with a session column.

// sessionsFromRows builds sessions from file rows (each row's first turn
// and its later turns), with tok counting replies for max_tokens. A
// row's own tools (a tools column) replace the shape's.
func sessionsFromRows(rows []fileRow, sh *sessionShape, tok interface{ Count(string) int }) *SessionList {
	l := &SessionList{list: make([]*loadgen.Session, len(rows)), tok: tok}
	out := func(n int, reply string) int {
		if n < 0 && tok != nil && reply != "" {
			return max(1, tok.Count(reply))
		}
		return n
	}
	for i, fr := range rows {
		s := &loadgen.Session{ID: fr.session, System: fr.system}
		s.Turns = append(s.Turns, loadgen.Turn{Prompt: fr.prompt, MaxTokens: out(fr.outputCount, fr.reply), TargetPromptTokens: fr.promptCount})
		for _, t := range fr.turns {
			s.Turns = append(s.Turns, loadgen.Turn{Prompt: t.prompt, MaxTokens: out(t.outputCount, t.reply), TargetPromptTokens: t.promptCount, Delay: t.delay})
		}
		if n := sh.spec.Turns; n > 0 && len(s.Turns) > n { // turns=N caps a record's turns
			s.Turns = s.Turns[:n]
		}
		own := *sh
		if fr.tools != nil {
			own.tools = fr.tools
		}
		own.apply(s, uint64(i))
		switch {
		case fr.tools != nil && sh.spec.ServerToolMode:
			// GuideLLM's tool_call_mode=server: the record's tools are
			// the server's; its turns are server tool-call turns.
			s.Tools = nil
			for k := range s.Turns {
				s.Turns[k].ToolCall, s.Turns[k].ServerTools = false, true
			}
		case fr.toolResult != "" && s.Tools != nil:
			s.ToolResult = fr.toolResult
		}
		l.list[i] = s
	}
	return l
}

// turnColumn matches GuideLLM's turn-indexed columns: prompt_0,
// output_tokens_count_0, prompt_tokens_count_0, delay_1, ….
var turnColumn = regexp.MustCompile(`^(prompt|output_tokens_count|prompt_tokens_count|delay)_(\d+)$`)

// hasTurnColumns reports whether a table uses turn-indexed columns.
func hasTurnColumns(t *table) bool {
	_, ok := t.index["prompt_0"]
	return ok
}

// turnRows reads GuideLLM's turn-indexed columns: prefix (the system
// prompt), prompt_K, output_tokens_count_K, prompt_tokens_count_K and
// delay_K (seconds before turn K), K from 0, plus an optional tools
// column. A row's turns end at its first missing prompt_K; a later
// prompt_K after a gap is an error.
func turnRows(t *table) ([]fileRow, error) {
	maxK := 0
	for _, c := range t.columns {
		if m := turnColumn.FindStringSubmatch(c); m != nil {
			k, err := strconv.Atoi(m[2])
			if err != nil || k >= maxTurns {
				return nil, fmt.Errorf("%s: column %q: at most %d turns", t.name, c, maxTurns)
			}
			maxK = max(maxK, k)
		}
	}
	rows := make([]fileRow, 0, len(t.rows))
	for i := range t.rows {
		tr := &t.rows[i]
		fr := fileRow{line: tr.line, promptCount: -1, outputCount: -1}
		if c, ok := t.get(tr, "prefix"); ok {
			var err error
			if fr.system, err = cellString(c); err != nil {
				return nil, fmt.Errorf("%s: column %q: %v", t.at(tr), "prefix", err)
			}
		}
		if c, ok := t.get(tr, "tools"); ok {
			tools, err := toolsCell(c)
			if err != nil {
				return nil, fmt.Errorf("%s: column %q: %v", t.at(tr), "tools", err)
			}
			fr.tools = tools
		}
		ended := -1
		for k := 0; k <= maxK; k++ {
			col := "prompt_" + strconv.Itoa(k)
			c, ok := t.get(tr, col)
			var prompt string
			var err error
			if ok {
				if prompt, err = cellString(c); err != nil {
					return nil, fmt.Errorf("%s: column %q: %v", t.at(tr), col, err)
				}
			}
			if strings.TrimSpace(prompt) == "" {
				if k == 0 {
					return nil, fmt.Errorf("%s: column %q: missing or empty (a conversation needs its first user turn)", t.at(tr), col)
				}
				if ended < 0 {
					ended = k
				}
				continue
			}
			if ended >= 0 {
				return nil, fmt.Errorf("%s: column %q: turn %d has a prompt but turn %d has none (a turn without a prompt)", t.at(tr), col, k, ended)
			}
			ft := fileTurn{prompt: prompt, promptCount: -1, outputCount: -1}
			for _, n := range []struct {
				col string
				dst *int
			}{{"output_tokens_count_" + strconv.Itoa(k), &ft.outputCount}, {"prompt_tokens_count_" + strconv.Itoa(k), &ft.promptCount}} {
				if c, ok := t.get(tr, n.col); ok {
					if *n.dst, err = cellInt(c, 1); err != nil {
						return nil, fmt.Errorf("%s: column %q: %v", t.at(tr), n.col, err)
					}
				}
			}
			if c, ok := t.get(tr, "delay_"+strconv.Itoa(k)); ok {
				if ft.delay, err = cellSeconds(c); err != nil {
					return nil, fmt.Errorf("%s: column %q: %v", t.at(tr), "delay_"+strconv.Itoa(k), err)
				}
			}
			if k == 0 {
				fr.prompt, fr.promptCount, fr.outputCount = ft.prompt, ft.promptCount, ft.outputCount
				continue
			}
			fr.turns = append(fr.turns, ft)
		}
		rows = append(rows, fr)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no records", t.name)
	}
	return rows, nil
}

// toolsCell reads a tools column: a JSON list (or a string holding one).
func toolsCell(c cell) ([]loadgen.ToolDef, error) {
	raw := c.raw
	if !c.isJSON() || (len(raw) > 0 && raw[0] == '"') {
		s, err := cellString(c)
		if err != nil {
			return nil, err
		}
		raw = json.RawMessage(s)
	}
	if s := strings.TrimSpace(string(raw)); s == "" || s == "[]" {
		return nil, nil // a record without tools
	}
	return parseTools(raw)
}

// cellSeconds reads a think time in seconds: a number ≥ 0.
func cellSeconds(c cell) (time.Duration, error) {
	s := strings.TrimSpace(c.str)
	if c.isJSON() {
		s = strings.Trim(strings.TrimSpace(string(c.raw)), `"`)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || math.IsNaN(v) || v > 86400 {
		return 0, fmt.Errorf("want seconds ≥ 0, got %s", abbrev([]byte(s)))
	}
	return time.Duration(v * float64(time.Second)), nil
}

// isMultiTurnTable reports whether a table holds AIPerf's multi_turn
// records: a "turns" column of lists.
func isMultiTurnTable(t *table) bool {
	_, ok := t.index["turns"]
	return ok && t.format == formatJSONL
}

// aiperfTurn is one turn of AIPerf's multi_turn record.
type aiperfTurn struct {
	Text      *string  `json:"text"`
	Texts     []string `json:"texts"`
	Role      string   `json:"role"`
	Delay     *float64 `json:"delay"` // milliseconds before the turn
	MaxTokens *int     `json:"max_tokens"`
	Timestamp *float64 `json:"timestamp"`
}

// multiTurnRows reads AIPerf's multi_turn JSON Lines: {"session_id":…,
// "turns":[{"text":…,"delay":ms,"max_tokens":…},…]}. A record without
// turns, or a turn without text, is a one-line error naming the record
// and field.
func multiTurnRows(t *table) ([]fileRow, error) {
	rows := make([]fileRow, 0, len(t.rows))
	for i := range t.rows {
		tr := &t.rows[i]
		fr := fileRow{line: tr.line, promptCount: -1, outputCount: -1}
		if c, ok := t.get(tr, "session_id"); ok {
			var err error
			if fr.session, err = cellString(c); err != nil {
				return nil, fmt.Errorf("%s: field %q: %v", t.at(tr), "session_id", err)
			}
		}
		c, ok := t.get(tr, "turns")
		if !ok {
			return nil, fmt.Errorf("%s: field %q: missing (a multi_turn record needs its turns)", t.at(tr), "turns")
		}
		var turns []aiperfTurn
		if err := json.Unmarshal(c.raw, &turns); err != nil {
			return nil, fmt.Errorf(`%s: field "turns": want a list such as [{"text":"Hello","delay":0}]: %s`, t.at(tr), jsonErr(err))
		}
		if len(turns) == 0 {
			return nil, fmt.Errorf("%s: field %q: empty (a conversation needs a user turn)", t.at(tr), "turns")
		}
		if len(turns) > maxTurns {
			return nil, fmt.Errorf("%s: field %q: %d turns, at most %d", t.at(tr), "turns", len(turns), maxTurns)
		}
		for k, at := range turns {
			text := strings.Join(at.Texts, "\n")
			if at.Text != nil {
				text = *at.Text
			}
			if strings.TrimSpace(text) == "" {
				return nil, fmt.Errorf("%s: field \"turns[%d].text\": missing or empty (a turn without a prompt)", t.at(tr), k)
			}
			ft := fileTurn{prompt: text, promptCount: -1, outputCount: -1}
			if at.MaxTokens != nil {
				if *at.MaxTokens < 1 || *at.MaxTokens > maxTokensPerPrompt {
					return nil, fmt.Errorf("%s: field \"turns[%d].max_tokens\": want 1 to %d", t.at(tr), k, maxTokensPerPrompt)
				}
				ft.outputCount = *at.MaxTokens
			}
			if at.Delay != nil {
				if *at.Delay < 0 || math.IsNaN(*at.Delay) || *at.Delay > 86_400_000 {
					return nil, fmt.Errorf("%s: field \"turns[%d].delay\": want milliseconds ≥ 0", t.at(tr), k)
				}
				ft.delay = time.Duration(*at.Delay * float64(time.Millisecond))
			}
			if k == 0 {
				fr.prompt, fr.outputCount = ft.prompt, ft.outputCount
				continue
			}
			fr.turns = append(fr.turns, ft)
		}
		rows = append(rows, fr)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no records", t.name)
	}
	return rows, nil
}

// sessionStats returns the per-turn prompt and output statistics of a
// session list, and its turn count.
func sessionStats(l *SessionList, tok interface{ Count(string) int }) (prompt, output TokenStats, turns int) {
	var ps, os statsAcc
	for _, s := range l.list {
		for _, t := range s.Turns {
			turns++
			switch {
			case tok != nil:
				ps.add(tok.Count(t.Prompt))
			case t.TargetPromptTokens >= 0:
				ps.add(t.TargetPromptTokens)
			}
			if t.MaxTokens >= 0 {
				os.add(t.MaxTokens)
			}
		}
	}
	return ps.stats(), os.stats(), turns
}

// sessionDataset builds a file dataset of conversations.
func sessionDataset(t *table, src origin, rows []fileRow, skipped int, columns map[string]string, opts Options) (*Dataset, error) {
	sh, err := newSessionShape(opts.Session, nil, opts.Seed)
	if err != nil {
		return nil, err
	}
	var tok interface{ Count(string) int }
	if opts.Tokenizer != nil {
		tok = opts.Tokenizer
	}
	l := sessionsFromRows(rows, sh, tok)
	ps, os, turns := sessionStats(l, tok)
	desc := Description{Kind: src.kind(), Path: src.path, Format: src.format, SHA256: src.sha256, Split: src.split,
		Requests: turns, Sessions: len(l.list), Skipped: skipped, Columns: columns, Seed: opts.Seed, Shuffle: opts.Shuffle, Samples: opts.Samples,
		PromptTokens: ps, OutputTokens: os}
	desc.GuideLLM = src.guideLLM()
	desc.setTokenizer(opts.Tokenizer, opts.Tokenizer != nil)
	if opts.Tokenizer == nil {
		desc.Counts = countsUnknown
	}
	return &Dataset{Source: l, Description: desc, columns: t.describeColumns()}, nil
}

// writeSessions writes conversations as GuideLLM's turn-indexed columns,
// one JSON object a line: prefix, prompt_K, prompt_tokens_count_K,
// output_tokens_count_K and delay_K (seconds), keys in turn order. Tools
// and branches are not written (give them again as session keys).
func writeSessions(w io.Writer, src loadgen.SessionSource) error {
	var b []byte
	for i := uint64(0); ; i++ {
		s, ok := src.Session(i)
		if !ok {
			return nil
		}
		b = append(b[:0], '{')
		if s.System != "" {
			b = append(b, `"prefix":`...)
			b = appendJSONText(b, s.System)
			b = append(b, ',')
		}
		for k, t := range s.Turns {
			if k > 0 {
				b = append(b, ',')
			}
			ks := strconv.Itoa(k)
			b = append(b, `"prompt_`+ks+`":`...)
			b = appendJSONText(b, t.Prompt)
			if t.TargetPromptTokens >= 0 {
				b = append(b, `,"prompt_tokens_count_`+ks+`":`...)
				b = strconv.AppendInt(b, int64(t.TargetPromptTokens), 10)
			}
			if t.MaxTokens >= 0 {
				b = append(b, `,"output_tokens_count_`+ks+`":`...)
				b = strconv.AppendInt(b, int64(t.MaxTokens), 10)
			}
			if t.Delay > 0 {
				b = append(b, `,"delay_`+ks+`":`...)
				b = strconv.AppendFloat(b, t.Delay.Seconds(), 'g', -1, 64)
			}
		}
		b = append(b, "}\n"...)
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
}

// appendJSONText appends s as a JSON string.
func appendJSONText(b []byte, s string) []byte {
	j, _ := json.Marshal(s)
	return append(b, j...)
}

// sessionColumns name a session trace's session id, Mooncake/Bailian and
// AIPerf style.
var sessionColumns = []string{"session_id", "chat_id", "conversation_id"}

// sessionColumn returns a trace's session id column, "" when it has none.
func sessionColumn(t *table) string {
	for _, c := range sessionColumns {
		if _, ok := t.index[c]; ok {
			return c
		}
	}
	return ""
}

// traceSessions groups a trace's rows (in timestamp order) by session:
// each row is a turn whose prompt is the row's own (input_length tokens,
// from its hash ids when it has them: the turn's new input, the engine
// adds the history) and max_tokens its output_length, due at its
// timestamp but never before the previous turn ended. It returns the
// sessions in order of their first row and their start offsets (the
// replay schedule).
func traceSessions(t *table, col string, rows []traceRow, tr *Trace, sched []time.Duration) (*SessionList, []time.Duration, error) {
	ids := make(map[int]string, len(t.rows))
	for i := range t.rows {
		r := &t.rows[i]
		c, ok := t.get(r, col)
		if !ok {
			return nil, nil, fmt.Errorf("%s: column %q: missing (a session trace row needs its session)", t.at(r), col)
		}
		id := c.str
		if c.isJSON() {
			var s string
			if json.Unmarshal(c.raw, &s) != nil {
				s = strings.TrimSpace(string(c.raw)) // a number
			}
			id = s
		}
		if strings.TrimSpace(id) == "" {
			return nil, nil, fmt.Errorf("%s: column %q: empty (a session trace row needs its session)", t.at(r), col)
		}
		ids[r.line] = id
	}
	l := &SessionList{}
	var starts []time.Duration
	at := map[string]int{}
	for i := range rows {
		id := ids[rows[i].line]
		k, ok := at[id]
		if !ok {
			k = len(l.list)
			at[id] = k
			l.list = append(l.list, &loadgen.Session{ID: id})
			starts = append(starts, sched[i])
		}
		s := l.list[k]
		if len(s.Turns) >= maxTurns {
			return nil, nil, fmt.Errorf("%s: session %q: more than %d turns", t.name, id, maxTurns)
		}
		req, _ := tr.Request(uint64(i))
		s.Turns = append(s.Turns, loadgen.Turn{Prompt: req.Messages[len(req.Messages)-1].Content, MaxTokens: req.MaxTokens,
			TargetPromptTokens: req.TargetPromptTokens, At: sched[i] - starts[k]})
	}
	return l, starts, nil
}
