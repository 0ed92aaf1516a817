package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"
)

// GuideLLM v0.7's "registry" option values: kind=TYPE,key=value,… or a
// JSON/YAML object, read the way GuideLLM's parse_arguments reads them
// (src/guidellm/utils/cli.py and utils/arg_string.py at v0.7.3): the
// string is YAML-decoded first; when that leaves it a plain string it is
// split on commas into key=value pairs, keys may be dotted
// (column_mappings.text_column=article) and each value is YAML-decoded
// (10 a number, true a bool). Keys accept '-' for '_'.

// regValue is a parsed registry option value.
type regValue map[string]any

// kind is the value's discriminator ("" when absent).
func (v regValue) kind() string {
	s, _ := v["kind"].(string)
	return s
}

// errNotRegistry is parseRegistry's answer for a plain word (no '=', not
// an object): the option's pre-0.7 form (--backend openai_http).
var errNotRegistry = fmt.Errorf("not a registry value")

// parseRegistry reads s. It returns errNotRegistry for a plain word.
func parseRegistry(s string) (regValue, error) {
	in := strings.TrimSpace(s)
	if in == "" {
		return nil, fmt.Errorf("empty value: want kind=TYPE,key=value,… or a JSON/YAML object")
	}
	var y any
	if err := yaml.Unmarshal([]byte(in), &y); err == nil {
		switch t := y.(type) {
		case map[string]any:
			return normalizeKeys(t), nil
		case string:
			if t != in {
				break // a quoted YAML string: read as the pairs below
			}
		default:
			if !strings.Contains(in, "=") {
				return nil, errNotRegistry
			}
		}
	} else if strings.HasPrefix(in, "{") {
		return nil, fmt.Errorf("not a valid JSON/YAML object: %v", firstLine(err.Error()))
	}
	if !strings.Contains(in, "=") {
		return nil, errNotRegistry
	}
	out := regValue{}
	for _, pair := range strings.Split(in, ",") {
		pair = strings.TrimSpace(pair)
		k, val, ok := strings.Cut(pair, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("%q is not key=value (a list needs JSON, e.g. '{\"kind\":\"concurrent\",\"streams\":[1,2,4]}')", pair)
		}
		if err := setDotted(out, strings.TrimSpace(k), scalar(strings.TrimSpace(val))); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// scalar decodes one key=value value as YAML does (10, 2.5, true, null,
// [1,2]); anything else stays the string.
func scalar(s string) any {
	if s == "" {
		return nil
	}
	var y any
	if err := yaml.Unmarshal([]byte(s), &y); err != nil {
		return s
	}
	switch y.(type) {
	case map[string]any: // "a: b" is a mapping in YAML, a string here
		return s
	}
	return y
}

var indexRE = regexp.MustCompile(`^([A-Za-z0-9_-]+)\[(\d+)\]$`)

// setIndexed sets item idx of the list cur[name] to v.
func setIndexed(cur map[string]any, key, name, idx string, v any) error {
	i, err := strconv.Atoi(idx)
	if err != nil || i > 1024 {
		return fmt.Errorf("key %q: want an index 0 to 1024", key)
	}
	l, ok := cur[name].([]any)
	if _, set := cur[name]; set && !ok {
		return fmt.Errorf("key %q: %s is not a list", key, name)
	}
	for len(l) <= i {
		l = append(l, nil)
	}
	if l[i] != nil {
		return fmt.Errorf("key %q given twice", key)
	}
	l[i] = v
	cur[name] = l
	return nil
}

// setDotted sets a.b.c = v in m, creating the maps; a last part items[i]
// sets item i of a list (GuideLLM's bracket notation, the key=value form
// of a list: tool_call_turns[0]=0,tool_call_turns[1]=2), the items
// between null.
func setDotted(m regValue, key string, v any) error {
	parts := strings.Split(key, ".")
	cur := map[string]any(m)
	for i, p := range parts {
		p = strings.ReplaceAll(p, "-", "_")
		if sm := indexRE.FindStringSubmatch(p); sm != nil && i == len(parts)-1 {
			return setIndexed(cur, key, sm[1], sm[2], v)
		}
		if p == "" || indexRE.MatchString(p) {
			return fmt.Errorf("key %q: want name, name.sub or a list's name[i] last (or give lists as JSON)", key)
		}
		if i == len(parts)-1 {
			if _, dup := cur[p]; dup {
				return fmt.Errorf("key %q given twice", key)
			}
			cur[p] = v
			return nil
		}
		next, ok := cur[p].(map[string]any)
		if !ok {
			if _, set := cur[p]; set {
				return fmt.Errorf("key %q: %s is not an object", key, p)
			}
			next = map[string]any{}
			cur[p] = next
		}
		cur = next
	}
	return nil
}

// normalizeKeys turns '-' into '_' in the top-level keys.
func normalizeKeys(m map[string]any) regValue {
	out := regValue{}
	for k, v := range m {
		out[strings.ReplaceAll(k, "-", "_")] = v
	}
	return out
}

// canonicalJSON is v as JSON with sorted keys, no HTML escaping.
func canonicalJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // maps of decoded JSON/YAML values always encode
	return strings.TrimSpace(b.String())
}

// Typed readers of a registry value's keys. Each error names the option
// and the key.

func (v regValue) keys() []string {
	out := make([]string, 0, len(v))
	for k := range v {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func shown(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return canonicalJSON(v)
}

// number reads a number (a numeric string too, as pydantic coerces it).
func number(v any) (float64, bool) {
	switch t := v.(type) {
	case float64:
		return t, true
	case int:
		return float64(t), true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
		return f, err == nil
	}
	return 0, false
}

// numbers reads a number or a list of numbers (GuideLLM's "float or list",
// a JSON list inside a string too).
func numbers(v any) ([]float64, bool) {
	if s, ok := v.(string); ok && strings.HasPrefix(strings.TrimSpace(s), "[") {
		var l []any
		if json.Unmarshal([]byte(s), &l) != nil {
			return nil, false
		}
		v = l
	}
	if l, ok := v.([]any); ok {
		if len(l) == 0 {
			return nil, false
		}
		out := make([]float64, 0, len(l))
		for _, x := range l {
			f, ok := number(x)
			if !ok {
				return nil, false
			}
			out = append(out, f)
		}
		return out, true
	}
	f, ok := number(v)
	return []float64{f}, ok
}

func boolean(v any) (bool, bool) {
	switch t := v.(type) {
	case bool:
		return t, true
	case string:
		b, err := strconv.ParseBool(strings.ToLower(strings.TrimSpace(t)))
		return b, err == nil
	}
	return false, false
}

func text(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case float64:
		return strconv.FormatFloat(t, 'g', -1, 64), true
	}
	return "", false
}

// formatNumbers is a list of numbers as goodput's --rate takes it.
func formatNumbers(l []float64) string {
	s := make([]string, len(l))
	for i, f := range l {
		s[i] = strconv.FormatFloat(f, 'g', -1, 64)
	}
	return strings.Join(s, ",")
}
