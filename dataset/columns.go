package dataset

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Column roles: GuideLLM's generative column mapper names
// (guidellm/data/preprocessors/mappers.py), and timestamp_column for traces.
const (
	roleText        = "text_column"
	roleMessages    = "raw_messages_column"
	rolePrefix      = "prefix_column"
	rolePromptCount = "prompt_tokens_count_column"
	roleOutputCount = "output_tokens_count_column"
	roleTimestamp   = "timestamp_column"
	roleImage       = "image_column" // paths of image files (media.go)
	roleAudio       = "audio_column" // paths of audio files
	roleVideo       = "video_column" // paths of video files
	// rolePooling holds the JSON objects of vLLM's /pooling requests
	// ({"data": …, "priority": …}): GuideLLM's pooling column mapper.
	rolePooling = "pooling_column"
	// roleTools holds each record's tool definitions (a JSON list, or a
	// string holding one), roleToolResponse the tool result sent back
	// after a tool call.
	roleTools        = "tools_column"
	roleToolResponse = "tool_response_column"
)

// The column mappers GuideLLM names by kind.
const (
	generativeMapper = "generative_column_mapper"
	poolingMapper    = "pooling_column_mapper"
)

// defaultColumns are GuideLLM's default column names per role.
var defaultColumns = map[string][]string{
	roleText:        {"prompt", "instruction", "question", "input", "context", "content", "conversation", "turn", "text"},
	roleMessages:    {"messages", "chat_messages"},
	rolePrefix:      {"system_prompt", "system", "prefix"},
	rolePromptCount: {"prompt_tokens_count", "input_tokens_count"},
	roleOutputCount: {"output_tokens_count", "completion_tokens_count"},
}

// image_column, audio_column and video_column have no default names: a column of
// images is read only when --data-column-mapper names it, so that a data
// set whose "image" column holds something else still opens. So have
// tools_column and tool_response_column, so that a file's "tools" column
// turns its records into tool calls only when asked.

// mapperRoles are the roles a column mapper may name.
var mapperRoles = []string{roleText, roleMessages, rolePrefix, rolePromptCount, roleOutputCount, roleTimestamp, roleImage, roleAudio, roleVideo, rolePooling, roleTools, roleToolResponse}

// ColumnMapper maps roles to candidate column names, as GuideLLM's
// --data-column-mapper does. A nil ColumnMapper means GuideLLM's defaults; a
// non-nil one replaces them entirely (roles it does not name are not mapped).
type ColumnMapper map[string][]string

// ParseColumnMapper parses a --data-column-mapper value in any of the forms
// GuideLLM has accepted:
//
//	{"text_column": "question", "output_tokens_count_column": "max_len"}
//	{"kind": "generative_column_mapper", "column_mappings": {"text_column": ["q", "question"]}}
//	text_column=question,output_tokens_count_column=max_len
//	pooling_column_mapper (or kind=pooling_column_mapper)
//
// Roles: text_column, raw_messages_column, prefix_column,
// prompt_tokens_count_column, output_tokens_count_column, for traces
// timestamp_column, pooling_column (the objects of vLLM's /pooling
// requests), and tools_column and tool_response_column (tool calls, see
// session.go). A value is a column name or a list of candidates. An empty
// value means the defaults (nil); the pooling mapper's default is
// pooling_column "prompt", as GuideLLM's.
func ParseColumnMapper(s string) (ColumnMapper, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "":
		return nil, nil
	case generativeMapper, poolingMapper: // GuideLLM v0.6 names a mapper alone
		s = "kind=" + s
	}
	ps, err := parseParams(s)
	if err != nil {
		return nil, err
	}
	kind, _ := ps.get("kind")
	if kind.key != "" && kind.val != generativeMapper && kind.val != poolingMapper {
		return nil, fmt.Errorf("kind=%s: want %s or %s", kind.shown(), generativeMapper, poolingMapper)
	}
	if kind.key != "" && len(ps) == 1 { // a kind alone: its defaults
		if kind.val == poolingMapper {
			return ColumnMapper{rolePooling: {"prompt"}}, nil
		}
		return nil, nil
	}
	if p, ok := ps.get("column_mappings"); ok {
		if len(ps) > 2 || (len(ps) == 2 && ps[0].key != "kind" && ps[1].key != "kind") {
			return nil, fmt.Errorf("with column_mappings, only kind may be given besides")
		}
		if !p.raw || !strings.HasPrefix(p.val, "{") {
			return nil, fmt.Errorf(`column_mappings: want a JSON object such as {"text_column":"question"}`)
		}
		if ps, err = parseJSONParams(p.val); err != nil {
			return nil, fmt.Errorf("column_mappings: %v", err)
		}
	}
	m := ColumnMapper{}
	for _, p := range ps {
		if p.key == "kind" {
			continue
		}
		ok := false
		for _, r := range mapperRoles {
			ok = ok || p.key == r
		}
		if !ok {
			return nil, fmt.Errorf("unknown role %q (roles: %s)", p.key, strings.Join(mapperRoles, ", "))
		}
		var names []string
		if p.raw {
			if err := json.Unmarshal([]byte(p.val), &names); err != nil {
				return nil, fmt.Errorf("%s: want a column name or a list of names, got %s", p.key, p.shown())
			}
		} else {
			names = []string{p.val}
		}
		for i, n := range names {
			// GuideLLM qualifies names with the dataset ("0.question"); there
			// is one dataset here.
			names[i] = strings.TrimPrefix(strings.TrimSpace(n), "0.")
			if names[i] == "" {
				return nil, fmt.Errorf("%s: empty column name", p.key)
			}
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("%s: empty list of column names", p.key)
		}
		m[p.key] = names
	}
	return m, nil
}

// candidates returns the names to look for in role: the mapper's, or the
// defaults when the mapper is nil.
func (m ColumnMapper) candidates(role string) []string {
	if m == nil {
		return defaultColumns[role]
	}
	return m[role]
}

// resolve finds the column for role in t, with GuideLLM's rule: the first
// column, in file order, named like a candidate, case-insensitively, with an
// optional plural "s"/"es" and turn suffix ("_1", "-2"). It returns "" when
// none matches. Several turn columns of one name (prompt_0, prompt_1) make a
// multi-turn conversation, which is refused.
func (m ColumnMapper) resolve(t *table, role string) (string, error) {
	names := m.candidates(role)
	if len(names) == 0 {
		return "", nil
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = regexp.QuoteMeta(n)
	}
	re := columnPattern(strings.Join(quoted, "|"))
	for _, c := range t.columns {
		sm := re.FindStringSubmatch(c)
		if sm == nil {
			continue
		}
		turn := columnPattern(regexp.QuoteMeta(sm[1]))
		var turns []string
		for _, c2 := range t.columns {
			if turn.MatchString(c2) {
				turns = append(turns, c2)
			}
		}
		if len(turns) > 1 {
			return "", fmt.Errorf("%s: columns %s form a multi-turn conversation: map %s to one of them with --data-column-mapper, or map no text_column to send every turn as a session", t.name, quoteList(turns), role)
		}
		return c, nil
	}
	return "", nil
}

// columnPattern is GuideLLM's column_name_pattern for the alternatives alt;
// group 1 is the matched name with its plural suffix.
func columnPattern(alt string) *regexp.Regexp {
	return regexp.MustCompile(`(?i)^((?:` + alt + `)(?:es|s)?)(?:[-_]\d+)?$`)
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
