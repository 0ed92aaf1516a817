package dataset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/tokenize"
)

// fileRow is a data file record turned into a request's parts.
type fileRow struct {
	line        int
	system      string
	prompt      string
	reply       string // the assistant reply after the prompt (conversations)
	promptCount int    // from a prompt_tokens_count column, -1 when none
	outputCount int    // from an output_tokens_count column, -1 when none
	// A conversation's later user turns, its id and its own tools
	// (sessions; see session.go).
	turns   []fileTurn
	session string
	tools   []loadgen.ToolDef
	// toolResult is the record's own tool result (a tool_response column,
	// or GuideLLM's tool_calling_message_extractor's tool messages); ""
	// for the session's.
	toolResult string
	media      []loadgen.Media
	// pooled is the /pooling request of a pooling column's object, which
	// is sent instead of a prompt; nil for others.
	pooled *loadgen.Request
}

// mapping is the columns a table's roles resolved to ("" = not mapped).
type mapping struct {
	text, messages, prefix, promptCount, outputCount string
	image, audio, video, pooling                     string
	tools, toolResponse                              string
	// toolMessages reads a messages column as GuideLLM's
	// tool_calling_message_extractor (Options.Session.ToolMessages).
	toolMessages bool
}

// columns returns the mapping for reports: role → column.
func (mp mapping) columns() map[string]string {
	m := map[string]string{}
	for role, c := range map[string]string{roleText: mp.text, roleMessages: mp.messages, rolePrefix: mp.prefix, rolePromptCount: mp.promptCount, roleOutputCount: mp.outputCount,
		roleImage: mp.image, roleAudio: mp.audio, roleVideo: mp.video, rolePooling: mp.pooling, roleTools: mp.tools, roleToolResponse: mp.toolResponse} {
		if c != "" {
			m[role] = c
		}
	}
	return m
}

func resolveMapping(t *table, m ColumnMapper) (mapping, error) {
	var mp mapping
	for _, r := range []struct {
		role string
		dst  *string
	}{{roleText, &mp.text}, {roleMessages, &mp.messages}, {rolePrefix, &mp.prefix}, {rolePromptCount, &mp.promptCount}, {roleOutputCount, &mp.outputCount},
		{roleImage, &mp.image}, {roleAudio, &mp.audio}, {roleVideo, &mp.video}, {rolePooling, &mp.pooling}, {roleTools, &mp.tools}, {roleToolResponse, &mp.toolResponse}} {
		c, err := m.resolve(t, r.role)
		if err != nil {
			return mp, err
		}
		if c == "" && m != nil && len(m[r.role]) > 0 {
			return mp, fmt.Errorf("--data-column-mapper: %s %s: no such column in %s (columns: %s)", r.role, quoteList(m[r.role]), t.name, quoteList(t.columns))
		}
		*r.dst = c
	}
	if mp.text == "" && mp.messages == "" && mp.pooling == "" {
		return mp, fmt.Errorf("%s: no prompt column (looked for %s; columns: %s); name one with --data-column-mapper '{\"text_column\":\"NAME\"}'",
			t.name, strings.Join(m.candidates(roleText), ", "), quoteList(t.columns))
	}
	return mp, nil
}

// extractRows turns every record into a fileRow. Conversations without a
// user turn are skipped and counted; any other bad value is an error naming
// the file, line and column.
func extractRows(t *table, mp mapping) (rows []fileRow, skipped int, err error) {
	files := mediaFiles{dir: filepath.Dir(t.name), read: map[string]loadgen.Media{}}
	for i := range t.rows {
		tr := &t.rows[i]
		fr := fileRow{line: tr.line, promptCount: -1, outputCount: -1}
		if mp.pooling != "" {
			if fr.pooled, err = poolingCell(t, tr, mp.pooling); err != nil {
				return nil, 0, err
			}
			rows = append(rows, fr)
			continue
		}
		col := mp.text
		c, ok := t.get(tr, col)
		if !ok && mp.messages != "" {
			col = mp.messages
			c, ok = t.get(tr, col)
		}
		if !ok {
			return nil, 0, fmt.Errorf("%s: column %q: missing (every record needs a prompt)", t.at(tr), col)
		}
		if c.isJSON() && isArray(c.raw) {
			read := fr.conversation
			if mp.toolMessages {
				read = fr.toolConversation
			}
			ok, err := read(c.raw)
			if err != nil {
				return nil, 0, fmt.Errorf("%s: column %q: %v", t.at(tr), col, err)
			}
			if !ok {
				skipped++
				continue
			}
		} else {
			if fr.prompt, err = cellString(c); err != nil {
				return nil, 0, fmt.Errorf("%s: column %q: %v", t.at(tr), col, err)
			}
			if strings.TrimSpace(fr.prompt) == "" {
				return nil, 0, fmt.Errorf("%s: column %q: empty value (every record needs a prompt)", t.at(tr), col)
			}
		}
		if mp.prefix != "" {
			if c, ok := t.get(tr, mp.prefix); ok {
				if fr.system, err = cellString(c); err != nil {
					return nil, 0, fmt.Errorf("%s: column %q: %v", t.at(tr), mp.prefix, err)
				}
			}
		}
		for _, n := range []struct {
			col string
			dst *int
		}{{mp.promptCount, &fr.promptCount}, {mp.outputCount, &fr.outputCount}} {
			if n.col == "" {
				continue
			}
			if c, ok := t.get(tr, n.col); ok {
				if *n.dst, err = cellInt(c, 1); err != nil {
					return nil, 0, fmt.Errorf("%s: column %q: %v", t.at(tr), n.col, err)
				}
			}
		}
		if mp.tools != "" {
			if c, ok := t.get(tr, mp.tools); ok && !blankCell(c) {
				if fr.tools, err = toolsCell(c); err != nil {
					return nil, 0, fmt.Errorf("%s: column %q: %v", t.at(tr), mp.tools, err)
				}
			}
		}
		if mp.toolResponse != "" {
			if c, ok := t.get(tr, mp.toolResponse); ok && !blankCell(c) {
				if fr.toolResult, err = cellString(c); err != nil {
					return nil, 0, fmt.Errorf("%s: column %q: %v", t.at(tr), mp.toolResponse, err)
				}
			}
		}
		for _, col := range []string{mp.image, mp.audio, mp.video} {
			if col == "" {
				continue
			}
			if c, ok := t.get(tr, col); ok {
				m, err := files.cell(c)
				if err != nil {
					return nil, 0, fmt.Errorf("%s: column %q: %v", t.at(tr), col, err)
				}
				fr.media = append(fr.media, m...)
			}
		}
		rows = append(rows, fr)
	}
	if len(rows) == 0 {
		return nil, skipped, fmt.Errorf("%s: no usable records (%d conversations without a user turn)", t.name, skipped)
	}
	return rows, skipped, nil
}

// blankCell reports whether a cell holds nothing: an empty CSV field or
// JSON string.
func blankCell(c cell) bool {
	if c.isJSON() {
		return string(bytes.TrimSpace(c.raw)) == `""`
	}
	return strings.TrimSpace(c.str) == ""
}

// poolingCell reads a pooling column's cell: a JSON object whose "data"
// and "priority" a /pooling request sends (GuideLLM's pooling column).
func poolingCell(t *table, tr *tableRow, col string) (*loadgen.Request, error) {
	c, ok := t.get(tr, col)
	if !ok {
		return nil, fmt.Errorf("%s: column %q: missing (every record needs its pooling object)", t.at(tr), col)
	}
	if !c.isJSON() {
		return nil, fmt.Errorf(`%s: column %q: want a JSON object such as {"data": {...}, "priority": 0}`, t.at(tr), col)
	}
	r, err := loadgen.NewPoolingDataRequest(c.raw)
	if err != nil {
		return nil, fmt.Errorf("%s: column %q: %v", t.at(tr), col, err)
	}
	return r, nil
}

// cellString returns a text value: a CSV field, or a JSON string.
func cellString(c cell) (string, error) {
	if !c.isJSON() {
		return c.str, nil
	}
	var s string
	if err := json.Unmarshal(c.raw, &s); err != nil {
		return "", fmt.Errorf("want a string, got %s", abbrev(c.raw))
	}
	return s, nil
}

// cellInt returns an integer ≥ lo: a JSON number or a decimal string.
func cellInt(c cell, lo int) (int, error) {
	s := c.str
	if c.isJSON() {
		s = string(bytes.TrimSpace(c.raw))
		var str string
		if json.Unmarshal(c.raw, &str) == nil {
			s = str
		}
	}
	s = strings.TrimSpace(s)
	// JSON writers emit 512.0 for integral floats; accept those.
	s = strings.TrimSuffix(s, ".0")
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > maxTokensPerPrompt {
		want := "a positive integer"
		if lo == 0 {
			want = "an integer ≥ 0"
		}
		return 0, fmt.Errorf("want %s (at most %d), got %s", want, maxTokensPerPrompt, abbrev([]byte(s)))
	}
	return n, nil
}

// turn is one message of a conversation: ShareGPT's {from, value} or
// OpenAI's {role, content}.
type turn struct {
	From    string `json:"from"`
	Value   any    `json:"value"`
	Role    string `json:"role"`
	Content any    `json:"content"`
}

// conversation fills the row from a conversation: the first user turn is the
// prompt, system turns before it the system prefix, and an assistant turn
// right after it the reply; every later user turn (with the assistant turn
// right after it) is one of the row's turns. ok is false when there is no
// non-empty user turn; a later empty user turn is an error.
func (fr *fileRow) conversation(raw json.RawMessage) (ok bool, err error) {
	var turns []turn
	if err := json.Unmarshal(raw, &turns); err != nil {
		return false, fmt.Errorf(`want a list of turns such as [{"from":"human","value":"..."},{"from":"gpt","value":"..."}]: %s`, jsonErr(err))
	}
	var system []string
	for i, t := range turns {
		role, text, err := t.parse(i)
		if err != nil {
			return false, err
		}
		switch role {
		case "system":
			system = append(system, text)
		case "user":
			if strings.TrimSpace(text) == "" {
				if !ok {
					return false, nil
				}
				return false, fmt.Errorf("turn %d: empty user turn (a turn without a prompt)", i)
			}
			reply := ""
			if i+1 < len(turns) {
				if r, rt, err := turns[i+1].parse(i + 1); err == nil && r == "assistant" {
					reply = rt
				}
			}
			if !ok {
				fr.prompt, fr.system, fr.reply, ok = text, strings.Join(system, "\n\n"), reply, true
				continue
			}
			if len(fr.turns) >= maxTurns-1 {
				return false, fmt.Errorf("turn %d: more than %d user turns", i, maxTurns)
			}
			fr.turns = append(fr.turns, fileTurn{prompt: text, reply: reply, promptCount: -1, outputCount: -1})
		}
	}
	return ok, nil
}

// toolConversation fills the row from a conversation as GuideLLM's
// tool_calling_message_extractor does: one request whose prompt is every
// user text joined with spaces, its system prefix every system text so
// joined, and its tool result the first tool message's text. ok is false
// when there is no non-empty user text.
func (fr *fileRow) toolConversation(raw json.RawMessage) (ok bool, err error) {
	var turns []turn
	if err := json.Unmarshal(raw, &turns); err != nil {
		return false, fmt.Errorf(`want a list of messages such as [{"role":"user","content":"..."}]: %s`, jsonErr(err))
	}
	var user, system []string
	for i, t := range turns {
		role, v := t.Role, t.Content
		if role == "" {
			role, v = t.From, t.Value
		}
		text, _ := v.(string) // GuideLLM skips content that is not text
		if role == "" {
			return false, fmt.Errorf("turn %d: no \"from\" or \"role\"", i)
		}
		switch {
		case text == "":
		case role == "user" || role == "human":
			user = append(user, text)
		case role == "system":
			system = append(system, text)
		case role == "tool" && fr.toolResult == "":
			fr.toolResult = text
		}
	}
	fr.prompt, fr.system = strings.Join(user, " "), strings.Join(system, " ")
	return strings.TrimSpace(fr.prompt) != "", nil
}

// parse returns a turn's role (user, assistant, system or the name given)
// and text.
func (t turn) parse(i int) (role, text string, err error) {
	role, v := t.From, t.Value
	if role == "" {
		role, v = t.Role, t.Content
	}
	switch strings.ToLower(role) {
	case "human", "user":
		role = "user"
	case "gpt", "assistant", "chatgpt", "bing", "bard", "model":
		role = "assistant"
	case "system":
		role = "system"
	case "":
		return "", "", fmt.Errorf("turn %d: no \"from\" or \"role\"", i)
	}
	switch v := v.(type) {
	case string:
		return role, v, nil
	case nil:
		return role, "", nil
	}
	return "", "", fmt.Errorf("turn %d: the text is not a string", i)
}

// selectRows shuffles (with seed) and limits rows.
func selectRows(rows []fileRow, shuffle bool, seed uint64, limit int) []fileRow {
	if shuffle {
		rng := rand.New(rand.NewPCG(seed, 0x73687566666c65))
		rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	}
	if limit > 0 && limit < len(rows) {
		rows = rows[:limit]
	}
	return rows
}

// buildRequests turns rows into requests, counting prompt tokens (and
// conversation replies, for max_tokens) with tok on all CPUs.
func buildRequests(rows []fileRow, tok *tokenize.Tokenizer) []*loadgen.Request {
	reqs := make([]*loadgen.Request, len(rows))
	workers := max(1, min(runtime.GOMAXPROCS(0), len(rows)/64))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(rows); i += workers {
				fr := &rows[i]
				if fr.pooled != nil {
					reqs[i] = fr.pooled
					continue
				}
				out := fr.outputCount
				if out < 0 && tok != nil && fr.reply != "" {
					out = max(1, tok.Count(fr.reply))
				}
				r := loadgen.NewRequest(fr.system, fr.prompt, out)
				r.Media = fr.media
				r.TargetPromptTokens = fr.promptCount
				if tok != nil {
					r.PromptTokens = tok.Count(r.Text())
				}
				reqs[i] = r
			}
		}()
	}
	wg.Wait()
	return reqs
}

// List is a finite source of prebuilt requests (a data file). Request(i)
// returns the i-th request, ok=false past the end.
type List struct {
	reqs   []*loadgen.Request
	pooled bool
}

// Pooled reports whether every request carries its own pooling inputs
// (AIPerf's texts records): loadgen's Client.Group sends them as they are.
func (l *List) Pooled() bool { return l.pooled }

// Request returns request i.
func (l *List) Request(i uint64) (*loadgen.Request, bool) {
	if i >= uint64(len(l.reqs)) {
		return nil, false
	}
	return l.reqs[i], true
}

// Len returns the number of requests.
func (l *List) Len() int { return len(l.reqs) }
