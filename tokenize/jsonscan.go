package tokenize

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonScanner is a minimal reader for the two large values of a tokenizer.json,
// the vocabulary and the merges, that avoids building intermediate values.
type jsonScanner struct {
	b   []byte
	i   int
	buf []byte
}

var errJSONSyntax = errors.New("malformed JSON")

func (s *jsonScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *jsonScanner) expect(c byte) error {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != c {
		return fmt.Errorf("%w: expected %q at byte %d", errJSONSyntax, c, s.i)
	}
	s.i++
	return nil
}

// end checks that only white space is left.
func (s *jsonScanner) end() error {
	s.ws()
	if s.i != len(s.b) {
		return fmt.Errorf("%w: unexpected data at byte %d", errJSONSyntax, s.i)
	}
	return nil
}

// maxJSONDepth bounds the nesting skipValue accepts.
const maxJSONDepth = 1000

// skipValue moves past one JSON value, checking its syntax.
func (s *jsonScanner) skipValue(depth int) error {
	if depth > maxJSONDepth {
		return fmt.Errorf("%w: nested too deeply", errJSONSyntax)
	}
	switch c := s.peek(); {
	case c == '"':
		for s.i++; s.i < len(s.b); s.i++ {
			switch s.b[s.i] {
			case '\\':
				s.i++
			case '"':
				s.i++
				return nil
			}
		}
		return fmt.Errorf("%w: unterminated string", errJSONSyntax)
	case c == '{' || c == '[':
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		s.i++
		if s.peek() == closer {
			s.i++
			return nil
		}
		for {
			if c == '{' {
				if s.peek() != '"' {
					return fmt.Errorf("%w: expected a key at byte %d", errJSONSyntax, s.i)
				}
				if err := s.skipValue(depth + 1); err != nil {
					return err
				}
				if err := s.expect(':'); err != nil {
					return err
				}
			}
			if err := s.skipValue(depth + 1); err != nil {
				return err
			}
			n := s.peek()
			s.i++
			if n == closer {
				return nil
			}
			if n != ',' {
				return fmt.Errorf("%w: expected ',' or %q at byte %d", errJSONSyntax, closer, s.i-1)
			}
		}
	case c == '-' || (c >= '0' && c <= '9'):
		start := s.i
		for s.i < len(s.b) && strings.IndexByte("+-.eE0123456789", s.b[s.i]) >= 0 {
			s.i++
		}
		if !json.Valid(s.b[start:s.i]) {
			return fmt.Errorf("%w: bad number at byte %d", errJSONSyntax, start)
		}
		return nil
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
				s.i += len(lit)
				return nil
			}
		}
		return fmt.Errorf("%w: unexpected character at byte %d", errJSONSyntax, s.i)
	}
}

// peek returns the next non-space byte, or 0 at the end.
func (s *jsonScanner) peek() byte {
	s.ws()
	if s.i >= len(s.b) {
		return 0
	}
	return s.b[s.i]
}

// str reads a JSON string and appends its unescaped bytes to dst.
func (s *jsonScanner) str(dst []byte) ([]byte, error) {
	if err := s.expect('"'); err != nil {
		return dst, err
	}
	for {
		start := s.i
		for s.i < len(s.b) && s.b[s.i] != '"' && s.b[s.i] != '\\' && s.b[s.i] >= 0x20 {
			s.i++
		}
		dst = append(dst, s.b[start:s.i]...)
		if s.i >= len(s.b) {
			return dst, fmt.Errorf("%w: unterminated string", errJSONSyntax)
		}
		switch c := s.b[s.i]; {
		case c == '"':
			s.i++
			return dst, nil
		case c < 0x20:
			return dst, fmt.Errorf("%w: control character in string at byte %d", errJSONSyntax, s.i)
		}
		// backslash escape
		if s.i+1 >= len(s.b) {
			return dst, fmt.Errorf("%w: unterminated escape", errJSONSyntax)
		}
		e := s.b[s.i+1]
		s.i += 2
		switch e {
		case '"', '\\', '/':
			dst = append(dst, e)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, ok := s.hex4()
			if !ok {
				return dst, fmt.Errorf("%w: bad \\u escape at byte %d", errJSONSyntax, s.i)
			}
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if s.i+1 < len(s.b) && s.b[s.i] == '\\' && s.b[s.i+1] == 'u' {
					save := s.i
					s.i += 2
					if v, ok := s.hex4(); ok {
						r2 = v
					} else {
						s.i = save
					}
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r = d
					} else {
						s.i = save
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
		default:
			return dst, fmt.Errorf("%w: bad escape \\%c at byte %d", errJSONSyntax, e, s.i-1)
		}
	}
}

func (s *jsonScanner) hex4() (rune, bool) {
	if s.i+4 > len(s.b) {
		return 0, false
	}
	var r rune
	for _, c := range s.b[s.i : s.i+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c-'a') + 10
		case c >= 'A' && c <= 'F':
			r |= rune(c-'A') + 10
		default:
			return 0, false
		}
	}
	s.i += 4
	return r, true
}

// uint reads a non-negative JSON integer.
func (s *jsonScanner) uint() (int, error) {
	s.ws()
	start := s.i
	n := 0
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		n = n*10 + int(s.b[s.i]-'0')
		if n > maxTokenID {
			return 0, fmt.Errorf("token id at byte %d is larger than %d", start, maxTokenID)
		}
		s.i++
	}
	if s.i == start {
		return 0, fmt.Errorf("%w: expected a non-negative integer at byte %d", errJSONSyntax, start)
	}
	if s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		return 0, fmt.Errorf("%w: expected an integer at byte %d", errJSONSyntax, start)
	}
	return n, nil
}

// maxTokenID bounds token ids (16 times the largest vocabulary in use today), so
// that a corrupt file cannot make the id tables huge.
const maxTokenID = 1<<22 - 1

// vocabEntry is a parsed vocabulary entry; tokens are slices of one shared string.
type vocabEntry struct {
	tok string
	id  int32
}

// parseVocab reads a {"token": id, ...} object. All token strings share one
// backing string, so the vocabulary costs one allocation for its text.
func parseVocab(raw rawJSON) ([]vocabEntry, error) {
	s := &jsonScanner{b: raw}
	if err := s.expect('{'); err != nil {
		return nil, err
	}
	text := make([]byte, 0, len(raw)/2)
	type ent struct{ start, end, id int }
	ents := make([]ent, 0, len(raw)/16)
	if s.peek() == '}' {
		s.i++
	} else {
		for {
			start := len(text)
			var err error
			if text, err = s.str(text); err != nil {
				return nil, err
			}
			end := len(text)
			if err := s.expect(':'); err != nil {
				return nil, err
			}
			id, err := s.uint()
			if err != nil {
				return nil, err
			}
			ents = append(ents, ent{start, end, id})
			c := s.peek()
			s.i++
			if c == '}' {
				break
			}
			if c != ',' {
				return nil, fmt.Errorf("%w: expected ',' or '}' at byte %d", errJSONSyntax, s.i-1)
			}
		}
	}
	all := string(text)
	out := make([]vocabEntry, len(ents))
	for i, e := range ents {
		out[i] = vocabEntry{tok: all[e.start:e.end], id: int32(e.id)}
	}
	return out, nil
}

// parseMerges reads the merges array in either format, ["a b", ...] or
// [["a","b"], ...], and calls fn with the two parts of each merge (slices of a
// reused buffer, valid only during the call). Like Hugging Face, "#version" lines
// of the string format are skipped.
func parseMerges(raw rawJSON, fn func(rank int, a, b []byte) error) error {
	s := &jsonScanner{b: raw}
	if err := s.expect('['); err != nil {
		return err
	}
	if s.peek() == ']' {
		s.i++
		return nil
	}
	format := byte(0) // '"' for strings, '[' for pairs
	rank := 0
	for n := 0; ; n++ {
		c := s.peek()
		if format == 0 {
			format = c
		}
		if c != format || (c != '"' && c != '[') {
			return fmt.Errorf("merge %d: expected every merge to be a string \"a b\" or every merge a pair [\"a\",\"b\"]", n)
		}
		buf := s.buf[:0]
		var a, b []byte
		if c == '"' {
			var err error
			if buf, err = s.str(buf); err != nil {
				return err
			}
			if bytes.HasPrefix(buf, []byte("#version")) {
				s.buf = buf
				goto sep
			}
			sp := bytes.IndexByte(buf, ' ')
			if sp < 0 || bytes.IndexByte(buf[sp+1:], ' ') >= 0 {
				return fmt.Errorf("merge %d: %q is not two tokens separated by one space", n, buf)
			}
			a, b = buf[:sp], buf[sp+1:]
		} else {
			s.i++
			var err error
			if buf, err = s.str(buf); err != nil {
				return err
			}
			mid := len(buf)
			if err := s.expect(','); err != nil {
				return fmt.Errorf("merge %d: expected a pair of strings: %w", n, err)
			}
			if buf, err = s.str(buf); err != nil {
				return err
			}
			if err := s.expect(']'); err != nil {
				return fmt.Errorf("merge %d: expected a pair of strings: %w", n, err)
			}
			a, b = buf[:mid], buf[mid:]
		}
		s.buf = buf
		if err := fn(rank, a, b); err != nil {
			return err
		}
		rank++
	sep:
		c = s.peek()
		s.i++
		if c == ']' {
			return nil
		}
		if c != ',' {
			return fmt.Errorf("%w: expected ',' or ']' at byte %d", errJSONSyntax, s.i-1)
		}
	}
}
