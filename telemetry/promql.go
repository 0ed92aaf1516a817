package telemetry

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Matcher is one PromQL label matcher, e.g. Hostname=~"gpu-node-.*".
type Matcher struct {
	Name  string
	Op    string // "=", "!=", "=~" or "!~"
	Value string // unquoted
}

// String renders the matcher in PromQL syntax with the value quoted.
func (m Matcher) String() string { return m.Name + m.Op + strconv.Quote(m.Value) }

// Matchers is a list of label matchers.
type Matchers []Matcher

// String renders the list as it goes between braces: a="x",b=~"y".
func (ms Matchers) String() string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = m.String()
	}
	return strings.Join(parts, ",")
}

// selector renders metric{matchers}.
func (ms Matchers) selector(metric string) string {
	return metric + "{" + ms.String() + "}"
}

// ParseMatchers reads comma-separated PromQL label matchers, optionally in
// braces: `Hostname=~"gpu-node-.*",gpu=~"0|1"`. Names follow the classic
// label-name rule [a-zA-Z_][a-zA-Z0-9_]*; values are double-quoted strings
// with Go/PromQL escapes. The empty string gives no matchers.
func ParseMatchers(s string) (Matchers, error) {
	in := strings.TrimSpace(s)
	if strings.HasPrefix(in, "{") && strings.HasSuffix(in, "}") {
		in = strings.TrimSpace(in[1 : len(in)-1])
	}
	var out Matchers
	for in != "" {
		m, rest, err := parseMatcher(in)
		if err != nil {
			return nil, fmt.Errorf("label matchers %q: %w; want name=\"value\", name!=\"value\", name=~\"regex\" or name!~\"regex\", comma-separated", s, err)
		}
		out = append(out, m)
		rest = strings.TrimSpace(rest)
		if rest == "" {
			break
		}
		if rest[0] != ',' {
			return nil, fmt.Errorf("label matchers %q: unexpected %q after %s; separate matchers with commas", s, clip(rest), m)
		}
		in = strings.TrimSpace(rest[1:])
		if in == "" {
			break // a trailing comma, as PromQL allows
		}
	}
	return out, nil
}

func parseMatcher(in string) (Matcher, string, error) {
	n := 0
	for n < len(in) && isLabelChar(in[n], n == 0) {
		n++
	}
	if n == 0 {
		return Matcher{}, "", fmt.Errorf("expected a label name at %q", clip(in))
	}
	m := Matcher{Name: in[:n]}
	rest := strings.TrimLeft(in[n:], " \t")
	switch {
	case strings.HasPrefix(rest, "=~"), strings.HasPrefix(rest, "!~"), strings.HasPrefix(rest, "!="):
		m.Op, rest = rest[:2], rest[2:]
	case strings.HasPrefix(rest, "="):
		m.Op, rest = "=", rest[1:]
	default:
		return Matcher{}, "", fmt.Errorf("label %s: expected =, !=, =~ or !~ at %q", m.Name, clip(rest))
	}
	rest = strings.TrimLeft(rest, " \t")
	if rest == "" || rest[0] != '"' {
		return Matcher{}, "", fmt.Errorf("label %s: value must be double-quoted, got %q", m.Name, clip(rest))
	}
	end := closingQuote(rest)
	if end < 0 {
		return Matcher{}, "", fmt.Errorf("label %s: unterminated string %q", m.Name, clip(rest))
	}
	v, err := strconv.Unquote(rest[:end+1])
	if err != nil || !utf8.ValidString(v) {
		return Matcher{}, "", fmt.Errorf("label %s: invalid string %q", m.Name, clip(rest[:end+1]))
	}
	m.Value = v
	return m, rest[end+1:], nil
}

// closingQuote returns the index of the quote closing the string starting at
// s[0] == '"', or -1.
func closingQuote(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		case '\n':
			return -1
		}
	}
	return -1
}

func isLabelChar(c byte, first bool) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (!first && c >= '0' && c <= '9')
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// labelAliases are the label spellings dcgm-exporter has used (telemetry.md
// §1, §9): a selector that finds nothing is retried with the other spelling.
var labelAliases = map[string]string{
	"Hostname": "hostname", "hostname": "Hostname",
	"UUID": "uuid", "uuid": "UUID",
	"modelName": "model_name", "model_name": "modelName",
}

// aliased returns the matchers with aliased label names swapped, and whether
// anything changed.
func (ms Matchers) aliased() (Matchers, bool) {
	out := make(Matchers, len(ms))
	changed := false
	for i, m := range ms {
		if alt, ok := labelAliases[m.Name]; ok {
			m.Name = alt
			changed = true
		}
		out[i] = m
	}
	return out, changed
}

// promDuration renders d for a PromQL range: whole seconds as "90s",
// otherwise milliseconds "1500ms" (PromQL has no fractional units).
func promDuration(d time.Duration) string {
	ms := d.Milliseconds()
	if ms < 1 {
		ms = 1
	}
	if ms%1000 == 0 {
		return strconv.FormatInt(ms/1000, 10) + "s"
	}
	return strconv.FormatInt(ms, 10) + "ms"
}

// promTime renders t as Unix seconds with millisecond precision, the form
// of the API's time parameter.
func promTime(t time.Time) string {
	return strconv.FormatFloat(float64(t.UnixMilli())/1000, 'f', 3, 64)
}
