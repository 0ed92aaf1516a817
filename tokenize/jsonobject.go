package tokenize

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// rawJSON holds a JSON value as a slice of the input, without copying it (the
// input outlives every rawJSON made from it during Parse).
type rawJSON []byte

func (r *rawJSON) UnmarshalJSON(b []byte) error {
	*r = b
	return nil
}

func (r rawJSON) isNull() bool {
	return len(r) == 0 || string(bytes.TrimSpace(r)) == "null"
}

// loadError is an error about one place of the tokenizer.json document.
func loadError(path, format string, args ...any) error {
	if path == "" {
		return fmt.Errorf(format, args...)
	}
	return fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...))
}

// jsonObject is a JSON object whose fields are read one by one; check then rejects
// any field that was not read, so that options this package does not implement
// are refused instead of ignored.
type jsonObject struct {
	path   string
	fields map[string]rawJSON
	read   map[string]bool
}

// parseObject splits a JSON object into its fields without decoding or copying
// the values; each value is checked when it is read. Duplicate keys keep the last
// value, as serde does.
func parseObject(raw rawJSON, path string) (*jsonObject, error) {
	fields := map[string]rawJSON{}
	s := &jsonScanner{b: raw}
	err := func() error {
		if err := s.expect('{'); err != nil {
			return err
		}
		if s.peek() == '}' {
			s.i++
			return s.end()
		}
		for {
			key, err := s.str(nil)
			if err != nil {
				return err
			}
			if err := s.expect(':'); err != nil {
				return err
			}
			s.ws()
			start := s.i
			if err := s.skipValue(0); err != nil {
				return err
			}
			fields[string(key)] = raw[start:s.i]
			c := s.peek()
			s.i++
			if c == '}' {
				return s.end()
			}
			if c != ',' {
				return fmt.Errorf("%w: expected ',' or '}' at byte %d", errJSONSyntax, s.i-1)
			}
		}
	}()
	if err != nil {
		return nil, loadError(path, "expected a JSON object: %v", err)
	}
	return &jsonObject{path: path, fields: fields, read: map[string]bool{}}, nil
}

func (o *jsonObject) at(key string) string {
	if o.path == "" {
		return key
	}
	return o.path + "." + key
}

// get returns the raw value of key; ok is false when it is absent or null.
func (o *jsonObject) get(key string) (rawJSON, bool) {
	o.read[key] = true
	v, ok := o.fields[key]
	if !ok || v.isNull() {
		return nil, false
	}
	return v, true
}

// typeName returns the "type" discriminator of a component.
func (o *jsonObject) typeName() (string, error) {
	v, ok := o.get("type")
	if !ok {
		return "", loadError(o.path, "missing \"type\"")
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", loadError(o.at("type"), "expected a string")
	}
	return s, nil
}

func (o *jsonObject) str(key string, def string) (string, error) {
	v, ok := o.get(key)
	if !ok {
		return def, nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", loadError(o.at(key), "expected a string, got %s", abbreviate(v))
	}
	return s, nil
}

func (o *jsonObject) optStr(key string) (string, bool, error) {
	v, ok := o.get(key)
	if !ok {
		return "", false, nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", false, loadError(o.at(key), "expected a string, got %s", abbreviate(v))
	}
	return s, true, nil
}

func (o *jsonObject) boolean(key string, def bool) (bool, error) {
	v, ok := o.get(key)
	if !ok {
		return def, nil
	}
	var b bool
	if err := json.Unmarshal(v, &b); err != nil {
		return false, loadError(o.at(key), "expected true or false, got %s", abbreviate(v))
	}
	return b, nil
}

func (o *jsonObject) integer(key string, def int) (int, error) {
	v, ok := o.get(key)
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(v)))
	if err != nil {
		return 0, loadError(o.at(key), "expected an integer, got %s", abbreviate(v))
	}
	return n, nil
}

func (o *jsonObject) array(key string) ([]rawJSON, bool, error) {
	v, ok := o.get(key)
	if !ok {
		return nil, false, nil
	}
	var a []rawJSON
	if err := json.Unmarshal(v, &a); err != nil {
		return nil, false, loadError(o.at(key), "expected an array, got %s", abbreviate(v))
	}
	return a, true, nil
}

// check fails on the first field (in sorted order) that was never read.
func (o *jsonObject) check(component string) error {
	var unknown []string
	for k := range o.fields {
		if !o.read[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	return loadError(o.at(unknown[0]), "unsupported field %q in %s (not implemented here, so refused rather than ignored)", unknown[0], component)
}

func abbreviate(v rawJSON) string {
	s := strings.TrimSpace(string(v))
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return s
}
