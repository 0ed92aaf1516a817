package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// param is one key of a --data value, in either of GuideLLM's forms:
// "key=value,key=value" or a JSON object. JSON strings are unquoted; other
// JSON values (numbers, booleans, arrays, objects) keep their JSON text and
// have raw set.
type param struct {
	key, val string
	raw      bool
}

// params is a parsed --data value, keys in the order given.
type params []param

// parseParams parses "k=v,k=v" or a JSON object. Keys may be written with
// '-' for '_' (GuideLLM accepts both); they are returned with '_'. A key
// given twice is an error.
func parseParams(s string) (params, error) {
	s = strings.TrimSpace(s)
	var ps params
	if strings.HasPrefix(s, "{") {
		var err error
		if ps, err = parseJSONParams(s); err != nil {
			return nil, err
		}
	} else {
		if s == "" {
			return nil, errors.New("empty value: want key=value pairs such as prompt_tokens=256,output_tokens=128")
		}
		for _, part := range strings.Split(s, ",") {
			k, v, ok := strings.Cut(part, "=")
			k = strings.TrimSpace(k)
			if !ok || k == "" {
				return nil, fmt.Errorf("%q is not key=value (want e.g. prompt_tokens=256,output_tokens=128)", strings.TrimSpace(part))
			}
			ps = append(ps, param{key: k, val: strings.TrimSpace(v)})
		}
	}
	seen := make(map[string]bool, len(ps))
	for i := range ps {
		ps[i].key = strings.ReplaceAll(ps[i].key, "-", "_")
		if seen[ps[i].key] {
			return nil, fmt.Errorf("key %q given twice", ps[i].key)
		}
		seen[ps[i].key] = true
	}
	return ps, nil
}

// parseJSONParams reads a JSON object, keeping key order.
func parseJSONParams(s string) (params, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object: %s", jsonErr(err))
	}
	var ps params
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("not a JSON object: %s", jsonErr(err))
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("JSON key %q: %s", key, jsonErr(err))
		}
		v = bytes.TrimSpace(v)
		p := param{key: key}
		var str string
		if len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &str) == nil {
			p.val = str
		} else {
			p.val, p.raw = string(v), true
		}
		ps = append(ps, p)
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("not a JSON object: %s", jsonErr(err))
	}
	if dec.More() {
		return nil, errors.New("not a JSON object: text after the closing brace")
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("not a JSON object: text after the closing brace")
	}
	return ps, nil
}

// jsonErr renders a JSON decoding error on one line.
func jsonErr(err error) string {
	switch {
	case err == nil:
		return "unexpected token"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "unexpected end of input"
	}
	return strings.ReplaceAll(err.Error(), "\n", " ")
}

// get returns the value of key.
func (ps params) get(key string) (param, bool) {
	for _, p := range ps {
		if p.key == key {
			return p, true
		}
	}
	return param{}, false
}

// check fails on the first key that is not in allowed.
func (ps params) check(allowed []string) error {
	for _, p := range ps {
		ok := false
		for _, a := range allowed {
			if p.key == a {
				ok = true
				break
			}
		}
		if !ok {
			return fmt.Errorf("unknown key %q (keys: %s)", p.key, strings.Join(allowed, ", "))
		}
	}
	return nil
}

// str returns a string value, "" when absent.
func (ps params) str(key string) (string, error) {
	p, ok := ps.get(key)
	if !ok {
		return "", nil
	}
	if p.raw {
		return "", fmt.Errorf("%s=%s: want a string", key, p.shown())
	}
	return p.val, nil
}

// GuideLLM data kinds accepted in --data kind=… values.
const (
	kindSynthetic = "synthetic_text"
	kindJSON      = "json_file"
	kindCSV       = "csv_file"
	kindText      = "text_file"
	kindTrace     = "trace_synthetic"
	kindMooncake  = "mooncake"
	kindParquet   = "parquet_file"
	kindArrow     = "arrow_file"
	kindHF        = "huggingface"
	kindWeka      = "weka"
)

// shown is the value as an error message shows it: as given when it is
// plain printable text, quoted when it holds a line break or another
// control character, so that an error stays on one line.
func (p param) shown() string {
	for _, r := range p.val {
		if r < 0x20 || r == 0x7f || r == 0x2028 || r == 0x2029 || r == 0x85 {
			return strconv.Quote(p.val)
		}
	}
	return p.val
}
