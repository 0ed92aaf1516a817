package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
)

// Float is a float64 that is written the way Python's json.dumps writes a
// float (repr: the shortest string that round-trips, "1.0" for integral
// values, exponent form below 1e-4 and from 1e16), so that goodput's JSON
// looks like GuideLLM's and is byte-stable. NaN and infinities cannot be
// written (JSON has no such numbers): WriteJSON fails instead of emitting
// them.
type Float float64

// MarshalJSON implements json.Marshaler.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil, fmt.Errorf("cannot write %v as JSON", v)
	}
	return appendPyFloat(nil, v), nil
}

// UnmarshalJSON implements json.Unmarshaler; it accepts any JSON number.
func (f *Float) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return &json.UnmarshalTypeError{Value: describeToken(b), Type: reflect.TypeFor[float64]()}
	}
	*f = Float(v)
	return nil
}

// Int is an int64 that also accepts a JSON number with an integral value
// written as a float (45.0), as GuideLLM's lax loader does.
type Int int64

// UnmarshalJSON implements json.Unmarshaler.
func (n *Int) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if v, err := strconv.ParseInt(string(b), 10, 64); err == nil {
		*n = Int(v)
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil || v != math.Trunc(v) || math.Abs(v) > 1<<62 {
		return &json.UnmarshalTypeError{Value: describeToken(b), Type: reflect.TypeFor[int64]()}
	}
	*n = Int(v)
	return nil
}

// describeToken names a JSON token for an error message.
func describeToken(b []byte) string {
	s := string(b)
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return JSONKind(b) + " " + s
}

// appendPyFloat appends v formatted like Python's repr(float).
func appendPyFloat(dst []byte, v float64) []byte {
	if v == 0 {
		if math.Signbit(v) {
			return append(dst, "-0.0"...)
		}
		return append(dst, "0.0"...)
	}
	// Shortest round-trip digits in scientific form: d.ddde±XX.
	var buf [32]byte
	s := strconv.AppendFloat(buf[:0], v, 'e', -1, 64)
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	ePos := bytes.IndexByte(s, 'e')
	mant, expPart := s[:ePos], s[ePos+1:]
	exp, _ := strconv.Atoi(string(expPart))
	digits := make([]byte, 0, len(mant))
	for _, c := range mant {
		if c != '.' {
			digits = append(digits, c)
		}
	}
	if neg {
		dst = append(dst, '-')
	}
	// Python uses fixed notation when the decimal point position
	// (exp+1) is within (-4, 16].
	if exp >= -4 && exp < 16 {
		if exp < 0 {
			dst = append(dst, '0', '.')
			for i := 0; i < -exp-1; i++ {
				dst = append(dst, '0')
			}
			return append(dst, digits...)
		}
		intLen := exp + 1
		if len(digits) <= intLen {
			dst = append(dst, digits...)
			for i := len(digits); i < intLen; i++ {
				dst = append(dst, '0')
			}
			return append(dst, '.', '0')
		}
		dst = append(dst, digits[:intLen]...)
		dst = append(dst, '.')
		return append(dst, digits[intLen:]...)
	}
	dst = append(dst, digits[0])
	if len(digits) > 1 {
		dst = append(dst, '.')
		dst = append(dst, digits[1:]...)
	}
	dst = append(dst, 'e')
	if exp < 0 {
		dst = append(dst, '-')
		exp = -exp
	} else {
		dst = append(dst, '+')
	}
	if exp < 10 {
		dst = append(dst, '0')
	}
	return strconv.AppendInt(dst, int64(exp), 10)
}

// pyFloat returns v formatted like Python's str(float).
func pyFloat(v float64) string { return string(appendPyFloat(nil, v)) }

// pySpace rewrites compact JSON into Python json.dumps' default spacing
// (", " between items and ": " after keys). Bytes inside strings are
// copied unchanged.
func pySpace(compact []byte) []byte {
	out := make([]byte, 0, len(compact)+len(compact)/4)
	inStr, esc := false, false
	for _, c := range compact {
		out = append(out, c)
		switch {
		case inStr:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == ',' || c == ':':
			out = append(out, ' ')
		}
	}
	return out
}

// MarshalCompact encodes v with encoding/json without HTML escaping and
// without the trailing newline an Encoder adds.
func MarshalCompact(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// FloatPtr and IntPtr return a pointer to v, for the model's optional fields.
func FloatPtr(v float64) *Float { f := Float(v); return &f }
func IntPtr(v int64) *Int       { i := Int(v); return &i }
