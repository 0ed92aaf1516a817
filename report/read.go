package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
)

// maxReportBytes bounds what Decode reads (GuideLLM reports that keep
// every request can be large, but not this large).
const maxReportBytes = 4 << 30

// Read reads a report file: goodput's own JSON, GuideLLM v0.7+ (report
// v2), GuideLLM v0.5–v0.6 (metadata.version 1), v0.4 ({args, benchmarks})
// or the v0.2–v0.3 legacy layout. Errors are one line naming the file.
func Read(path string) (*Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading report: %w", err)
	}
	defer f.Close()
	return Decode(f, path)
}

// Decode reads a report from r; name is used in error messages (usually
// the file name). See Read for the accepted layouts. Data a layout does
// not have stays nil in the returned Report.
func Decode(r io.Reader, name string) (*Report, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxReportBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: reading: %s", name, OneLine(err.Error()))
	}
	if len(data) > maxReportBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes", name, maxReportBytes)
	}
	return decodeBytes(data, name)
}

// foreign is the error prefix for JSON that is not a report.
const foreign = "not a goodput or GuideLLM report"

func decodeBytes(data []byte, name string) (*Report, error) {
	clean, shift := SanitizeNonFinite(data)
	fail := func(err error) error { return decodeError(name, clean, shift, err) }

	trimmed := bytes.TrimSpace(clean)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%s: empty file, %s", name, foreign)
	}
	if trimmed[0] != '{' {
		if !json.Valid(trimmed) {
			var v any
			return nil, fail(json.Unmarshal(clean, &v))
		}
		return nil, fmt.Errorf("%s: %s: the top-level JSON value is %s, want an object", name, foreign, JSONKind(trimmed))
	}
	var probe struct {
		Metadata   json.RawMessage `json:"metadata"`
		Config     json.RawMessage `json:"config"`
		Args       json.RawMessage `json:"args"`
		Benchmarks json.RawMessage `json:"benchmarks"`
	}
	if err := json.Unmarshal(clean, &probe); err != nil {
		return nil, fail(err)
	}
	if len(probe.Benchmarks) == 0 {
		return nil, fmt.Errorf("%s: %s: missing key \"benchmarks\"", name, foreign)
	}
	if k := JSONKind(probe.Benchmarks); k != "an array" {
		return nil, fmt.Errorf("%s: %s: \"benchmarks\" is %s, want an array", name, foreign, k)
	}
	layout := LayoutLegacy03
	if len(probe.Metadata) > 0 && string(probe.Metadata) != "null" {
		var meta struct {
			Version        *json.RawMessage `json:"version"`
			GoodputVersion *string          `json:"goodput_version"`
		}
		if err := json.Unmarshal(probe.Metadata, &meta); err != nil || meta.Version == nil {
			return nil, fmt.Errorf("%s: %s: key \"metadata.version\" is missing or invalid", name, foreign)
		}
		switch v := strings.TrimSpace(string(*meta.Version)); v {
		case "2":
			layout = LayoutV2
			if meta.GoodputVersion != nil {
				layout = LayoutGoodput
			}
		case "1":
			layout = LayoutV1
		default:
			return nil, fmt.Errorf("%s: unsupported report schema: metadata.version is %.20s (this goodput reads versions 1 and 2)", name, v)
		}
	} else if len(probe.Args) > 0 {
		layout = LayoutV04
	}
	if layout == LayoutLegacy03 {
		rep, err := decodeLegacy(clean)
		if err != nil {
			return nil, fail(err)
		}
		return rep, nil
	}
	var rep Report
	if err := json.Unmarshal(clean, &rep); err != nil {
		return nil, fail(err)
	}
	for i, b := range rep.Benchmarks {
		if b == nil {
			return nil, fmt.Errorf("%s: key \"benchmarks[%d]\" is null, want an object", name, i)
		}
	}
	rep.Layout = layout
	if layout == LayoutV1 || layout == LayoutV04 {
		rep.Args = probe.Args
	}
	return &rep, nil
}

// JSONKind names the JSON type of a raw value for error messages ("an
// object", "an array", "a string", "a boolean", "null", "a number",
// "empty"), so messages can say what a key holds and what is wanted.
func JSONKind(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "empty"
	}
	switch b[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// decodeError turns a JSON decoding error into one line naming the file
// and the byte offset or key.
func decodeError(name string, data []byte, shift func(int64) int64, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		if strings.Contains(se.Error(), "unexpected end of JSON input") {
			return fmt.Errorf("%s: truncated JSON at byte %d", name, shift(int64(len(bytes.TrimRight(data, " \t\r\n")))))
		}
		// Offset counts the bytes read, the offending one included.
		return fmt.Errorf("%s: invalid JSON at byte %d: %s", name, shift(max(se.Offset-1, 0)), OneLine(se.Error()))
	case errors.As(err, &te):
		key := te.Field
		if key == "" {
			key = "(top level)"
		}
		where := ""
		if te.Offset > 0 {
			where = fmt.Sprintf(" (byte %d)", shift(te.Offset))
		}
		return fmt.Errorf("%s: key %q: expected %s, got %s%s", name, key, typeWord(te.Type), OneLine(te.Value), where)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s: truncated JSON at byte %d", name, len(data))
	}
	return fmt.Errorf("%s: invalid report: %s", name, OneLine(err.Error()))
}

// typeWord describes a Go type in JSON terms.
func typeWord(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return typeWord(t.Elem())
	}
	return t.String()
}

func OneLine(s string) string {
	s = strings.ReplaceAll(s, "\r", " ")
	return strings.ReplaceAll(s, "\n", " ")
}

// SanitizeNonFinite replaces the NaN, Infinity and -Infinity tokens
// Python's json module writes (outside strings) with null, so that they
// read as absent values. shift maps an offset in the result back to the
// input.
func SanitizeNonFinite(data []byte) ([]byte, func(int64) int64) {
	if !bytes.Contains(data, []byte("NaN")) && !bytes.Contains(data, []byte("Infinity")) {
		return data, func(o int64) int64 { return o }
	}
	out := make([]byte, 0, len(data)+16)
	var grown []int64 // offsets in out after which the output is one byte longer
	inStr, esc := false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inStr {
			out = append(out, c)
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch {
		case c == '"':
			inStr = true
		case bytes.HasPrefix(data[i:], []byte("-Infinity")):
			out = append(out, "null     "...)
			i += len("-Infinity") - 1
			continue
		case bytes.HasPrefix(data[i:], []byte("Infinity")):
			out = append(out, "null    "...)
			i += len("Infinity") - 1
			continue
		case bytes.HasPrefix(data[i:], []byte("NaN")):
			out = append(out, "null"...)
			grown = append(grown, int64(len(out)))
			i += len("NaN") - 1
			continue
		}
		out = append(out, c)
	}
	return out, func(o int64) int64 {
		n := int64(0)
		for _, g := range grown {
			if g <= o {
				n++
			}
		}
		return o - n
	}
}
