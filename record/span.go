package record

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
)

// Span is what a timeline needs of a record: its outcome and when it
// started and ended (ns, as in Record).
type Span struct {
	Status               Status
	Intended, Dispatched int64
	End                  int64
}

// Started is the span's Record.Started.
func (s *Span) Started() int64 {
	if s.Dispatched != 0 {
		return s.Dispatched
	}
	return s.Intended
}

// DecodeSpan reads the next record's span. It finds the four keys in the
// line without decoding the rest (a streamed record is mostly its chunk
// times), and decodes the whole line (UnmarshalLine, with its errors)
// when the line is in a shape the scan does not take: spaces around a
// key's colon, a value that is not a plain integer or string.
func (d *Decoder) DecodeSpan(s *Span) error {
	line, err := d.next()
	if err != nil {
		return err
	}
	if scanSpan(line, s) {
		return nil
	}
	if d.full == nil {
		d.full = New()
	}
	r := d.full
	if err := UnmarshalLine(line, r); err != nil {
		return fmt.Errorf("%s:%d: %w", d.name, d.line, err)
	}
	*s = Span{Status: r.Status, Intended: r.Intended, Dispatched: r.Dispatched, End: r.End}
	return nil
}

// errNoKey: the key is not in the line.
var errNoKey = errors.New("no key")

// scanSpan reads s from a record line as Encoder writes it. In valid JSON
// `"key":` can only be a key (a quote inside a string is escaped); a key
// found twice (a nested object of another writer) goes to the full
// decoder. It reports false when the line needs the full decoder.
func scanSpan(line []byte, s *Span) bool {
	line = bytes.TrimRight(line, "\r")
	if len(line) < 2 || line[0] != '{' || line[len(line)-1] != '}' || !bytes.Contains(line, []byte(`"id":`)) {
		return false
	}
	st, err := scanString(line, `"status":`)
	if err != nil {
		return false
	}
	status, ok := ParseStatus(st)
	if !ok {
		return false
	}
	*s = Span{Status: status}
	for _, f := range [...]struct {
		key string
		v   *int64
	}{{`"intended_ns":`, &s.Intended}, {`"dispatched_ns":`, &s.Dispatched}, {`"end_ns":`, &s.End}} {
		v, err := scanInt(line, f.key)
		switch {
		case errors.Is(err, errNoKey):
			// The encoder leaves out a zero time; the key in another
			// shape ("end_ns" : 5) needs the full decoder.
			if bytes.Contains(line, []byte(f.key[:len(f.key)-1])) {
				return false
			}
		case err != nil:
			return false
		default:
			*f.v = v
		}
	}
	return true
}

// after is the line after key's one occurrence.
func after(line []byte, key string) ([]byte, error) {
	i := bytes.Index(line, []byte(key))
	if i < 0 {
		return nil, errNoKey
	}
	rest := line[i+len(key):]
	if bytes.Contains(rest, []byte(key)) {
		return nil, errors.New("key twice (a nested object?)")
	}
	return rest, nil
}

// scanInt is the integer after key ("name":).
func scanInt(line []byte, key string) (int64, error) {
	rest, err := after(line, key)
	if err != nil {
		return 0, err
	}
	n := 0
	for n < len(rest) && (rest[n] == '-' || rest[n] >= '0' && rest[n] <= '9') {
		n++
	}
	if n == 0 || n == len(rest) || rest[n] != ',' && rest[n] != '}' {
		return 0, errors.New("not an integer")
	}
	return strconv.ParseInt(string(rest[:n]), 10, 64)
}

// scanString is the string after key, which must hold no escape.
func scanString(line []byte, key string) (string, error) {
	rest, err := after(line, key)
	if err != nil {
		return "", err
	}
	if len(rest) == 0 || rest[0] != '"' {
		return "", errors.New("not a string")
	}
	j := bytes.IndexByte(rest[1:], '"')
	if j < 0 || bytes.IndexByte(rest[1:1+j], '\\') >= 0 {
		return "", errors.New("not a plain string")
	}
	return string(rest[1 : 1+j]), nil
}
