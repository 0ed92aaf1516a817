package sse

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// The fast path: a hand-written scanner over the top-level object. It
// validates everything it reads, including the values it skips, exactly as
// strictly as encoding/json. It gives up (returns false, and DecodeChunk
// falls back to the reference decoder) on anything it does not handle:
// malformed JSON, an unexpected type, a duplicated key, an escaped key, a
// non-integer count, nesting deeper than maxSkipDepth. Giving up is always
// safe; accepting is only allowed where the reference decoder would give the
// same Chunk.

const maxSkipDepth = 64

type fastDec struct {
	data []byte
	i    int
	c    *Chunk
}

// rawVal is the span of a value whose meaning depends on other fields.
type rawVal struct {
	s, e int
	kind byte // first byte: '"', '{', '[', 't', 'f', 'n', or a number's first byte; 0 when absent
}

// Top-level keys, for duplicate detection.
const (
	kID = 1 << iota
	kObject
	kChoices
	kUsage
	kEmit
	kError
	kMessage
	kType
	kCode
	kErrorType
	kTimings
)

func decodeFast(data []byte, c *Chunk, resp bool) bool {
	d := fastDec{data: data, c: c}
	var seen uint32
	var errVal, message, typ, code, errorType rawVal
	var errMsg, errTyp, errCode rawVal
	empty, ok := d.objStart()
	if !ok {
		return false
	}
	for !empty {
		k, ok := d.key()
		if !ok {
			return false
		}
		var bit uint32
		switch string(k) {
		case "id":
			bit = kID
			ok = d.strOrNull(&c.ID)
		case "object":
			bit = kObject
			ok = d.strOrNull(&c.Object)
		case "choices":
			bit = kChoices
			ok = d.choices()
		case "usage":
			bit = kUsage
			ok = d.usage()
		case "timings":
			bit = kTimings
			ok = d.timings()
		case "goodput_emit_ns":
			bit = kEmit
			c.EmitNS, _, ok = d.intOrNull()
		case "error":
			bit = kError
			d.ws()
			if d.peek() == '{' {
				var members int
				members, ok = d.errorObject(&errMsg, &errTyp, &errCode)
				errVal.kind = '{'
				if members == 0 {
					errVal.kind = 'n' // {} is no error
				}
			} else {
				ok = d.raw(&errVal)
			}
		case "message":
			bit = kMessage
			ok = d.raw(&message)
		case "type":
			bit = kType
			ok = d.raw(&typ)
		case "code":
			bit = kCode
			ok = d.raw(&code)
		case "error_type":
			bit = kErrorType
			ok = d.raw(&errorType)
		case "detail":
			if resp {
				return false // error bodies are rare: leave them to the reference
			}
			ok = d.skip(0)
		default:
			ok = d.skip(0)
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		more, ok := d.next('}')
		if !ok {
			return false
		}
		empty = !more
	}
	d.ws()
	if d.i != len(data) {
		return false
	}
	if errVal.kind == '"' && len(d.stringAt(errVal)) == 0 {
		errVal.kind = 'n' // "" is no error
	}
	switch errVal.kind {
	case 0, 'n':
		if string(c.Object) == "error" && !c.setErrorFrom(&d, message, typ, code) {
			return false
		}
	case '"':
		if errorType.kind != 0 && errorType.kind != 'n' && errorType.kind != '"' {
			return false
		}
		c.setError(d.stringAt(errVal), d.stringAt(errorType), nil)
	case '{':
		if !c.setErrorFrom(&d, errMsg, errTyp, errCode) {
			return false
		}
	default:
		return false
	}
	c.assemble()
	return true
}

// setErrorFrom sets c.Err from message/type/code values, or returns false
// when one has a type the reference decoder rejects.
func (c *Chunk) setErrorFrom(d *fastDec, message, typ, code rawVal) bool {
	for _, v := range [2]rawVal{message, typ} {
		if v.kind != 0 && v.kind != 'n' && v.kind != '"' {
			return false
		}
	}
	var codeText []byte
	switch code.kind {
	case 0, 'n':
	case '"':
		codeText = d.stringAt(code)
	case '{', '[', 't', 'f':
		return false
	default: // a number: its literal text
		codeText = d.data[code.s:code.e:code.e]
	}
	c.setError(d.stringAt(message), d.stringAt(typ), codeText)
	return true
}

// errorObject reads an "error" object's message, type and code, and counts
// its members.
func (d *fastDec) errorObject(message, typ, code *rawVal) (members int, ok bool) {
	empty, ok := d.objStart()
	if !ok {
		return 0, false
	}
	var seen uint32
	for !empty {
		members++
		k, ok := d.key()
		if !ok {
			return 0, false
		}
		var bit uint32
		switch string(k) {
		case "message":
			bit = 1
			ok = d.raw(message)
		case "type":
			bit = 2
			ok = d.raw(typ)
		case "code":
			bit = 4
			ok = d.raw(code)
		default:
			ok = d.skip(0)
		}
		if !ok || seen&bit != 0 {
			return 0, false
		}
		seen |= bit
		more, ok := d.next('}')
		if !ok {
			return 0, false
		}
		empty = !more
	}
	return members, true
}

func (d *fastDec) choices() bool {
	d.ws()
	if d.null() {
		return true
	}
	if d.peek() != '[' {
		return false
	}
	d.i++
	d.ws()
	if d.peek() == ']' {
		d.i++
		return true
	}
	for {
		d.ws()
		if d.peek() != '{' || !d.choice() {
			return false
		}
		d.c.NumChoices++
		more, ok := d.next(']')
		if !ok {
			return false
		}
		if !more {
			return true
		}
	}
}

func (d *fastDec) choice() bool {
	// Filled in place: the record is large, and choices never nest.
	d.c.choices = append(d.c.choices, choiceRec{})
	r := &d.c.choices[len(d.c.choices)-1]
	empty, ok := d.objStart()
	if !ok {
		return false
	}
	var seen uint32
	for !empty {
		k, ok := d.key()
		if !ok {
			return false
		}
		var bit uint32
		switch string(k) {
		case "index":
			bit = 1
			var n int64
			n, _, ok = d.intOrNull()
			r.index = int(n)
		case "text":
			bit = 2
			ok = d.strOrNull(&r.text)
		case "finish_reason":
			bit = 4
			ok = d.strOrNull(&r.finish)
		case "delta":
			bit = 8
			ok = d.msg(&r.delta)
		case "message":
			bit = 16
			ok = d.msg(&r.message)
		default:
			ok = d.skip(0)
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		more, ok := d.next('}')
		if !ok {
			return false
		}
		empty = !more
	}
	return true
}

// msg reads a delta or message object (or null).
func (d *fastDec) msg(m *msgRec) bool {
	d.ws()
	if d.null() {
		return true
	}
	empty, ok := d.objStart()
	if !ok {
		return false
	}
	var seen uint32
	for !empty {
		k, ok := d.key()
		if !ok {
			return false
		}
		var bit uint32
		switch string(k) {
		case "content":
			bit = 1
			ok = d.strOrNull(&m.content)
		case "role":
			bit = 2
			ok = d.strOrNull(&m.role)
		case "reasoning_content":
			bit = 4
			ok = d.strOrNull(&m.reasoningContent)
		case "reasoning":
			bit = 8
			ok = d.strOrNull(&m.reasoning)
		case "refusal":
			bit = 16
			ok = d.strOrNull(&m.refusal)
		case "tool_calls":
			bit = 32
			ok = d.toolCalls(m)
		case "function_call":
			bit = 64
			d.ws()
			if !d.null() {
				m.hasFunctionCall = true
				m.functionCall.index = -1 // a legacy function_call has no index
				ok = d.function(&m.functionCall)
			}
		default:
			ok = d.skip(0)
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		more, ok := d.next('}')
		if !ok {
			return false
		}
		empty = !more
	}
	return true
}

// toolCalls reads a tool_calls value: null, an array of entries, or a
// single entry object.
func (d *fastDec) toolCalls(m *msgRec) bool {
	d.ws()
	if d.null() {
		return true
	}
	c := d.c
	m.toolLo = len(c.tools)
	m.toolHi = m.toolLo
	switch d.peek() {
	case '{':
		if !d.toolEntry() {
			return false
		}
	case '[':
		d.i++
		d.ws()
		if d.peek() == ']' {
			d.i++
			break
		}
		for {
			d.ws()
			if !d.toolEntry() {
				return false
			}
			more, ok := d.next(']')
			if !ok {
				return false
			}
			if !more {
				break
			}
		}
	default:
		return false
	}
	m.toolHi = len(c.tools)
	return true
}

// toolEntry reads one {"index", "id", "type", "function": {...}} entry.
func (d *fastDec) toolEntry() bool {
	t := toolRec{index: -1}
	empty, ok := d.objStart()
	if !ok {
		return false
	}
	var seen uint32
	for !empty {
		k, ok := d.key()
		if !ok {
			return false
		}
		var bit uint32
		switch string(k) {
		case "function":
			bit = 1
			d.ws()
			ok = d.null() || d.function(&t)
		case "index":
			// Anything but an integer or null: the reference decoder
			// ignores it.
			bit = 2
			var n int64
			var present bool
			n, present, ok = d.intOrNull()
			if ok && present {
				if n < math.MinInt32 || n > math.MaxInt32 {
					return false
				}
				t.index = int(n)
			}
		case "id":
			bit = 4
			ok = d.strOrNull(&t.id)
		default:
			ok = d.skip(0)
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		more, ok := d.next('}')
		if !ok {
			return false
		}
		empty = !more
	}
	d.c.tools = append(d.c.tools, t)
	return true
}

// function reads a {"name", "arguments"} object.
func (d *fastDec) function(t *toolRec) bool {
	empty, ok := d.objStart()
	if !ok {
		return false
	}
	var seen uint32
	for !empty {
		k, ok := d.key()
		if !ok {
			return false
		}
		var bit uint32
		switch string(k) {
		case "name":
			bit = 1
			ok = d.strOrNull(&t.name)
		case "arguments":
			bit = 2
			ok = d.strOrNull(&t.args)
		default:
			ok = d.skip(0)
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		more, ok := d.next('}')
		if !ok {
			return false
		}
		empty = !more
	}
	return true
}

func (d *fastDec) usage() bool {
	d.ws()
	if d.null() {
		return true
	}
	empty, ok := d.objStart()
	if !ok {
		return false
	}
	u := &d.c.Usage
	u.Present = true
	var seen uint32
	for !empty {
		k, ok := d.key()
		if !ok {
			return false
		}
		var bit uint32
		var n int64
		switch string(k) {
		case "prompt_tokens":
			bit = 1
			n, _, ok = d.intOrNull()
			u.PromptTokens = int(n)
		case "completion_tokens":
			bit = 2
			n, _, ok = d.intOrNull()
			u.CompletionTokens = int(n)
		case "total_tokens":
			bit = 4
			n, _, ok = d.intOrNull()
			u.TotalTokens = int(n)
		case "prompt_tokens_details":
			bit = 8
			ok = d.detail("cached_tokens", &u.CachedTokens)
		case "completion_tokens_details":
			bit = 16
			ok = d.detail("reasoning_tokens", &u.ReasoningTokens)
		default:
			ok = d.skip(0)
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		more, ok := d.next('}')
		if !ok {
			return false
		}
		empty = !more
	}
	return true
}

// timings reads llama-server's timings object (or null).
func (d *fastDec) timings() bool {
	d.ws()
	if d.null() {
		return true
	}
	empty, ok := d.objStart()
	if !ok {
		return false
	}
	t := &d.c.Timings
	t.Present = true
	var seen uint32
	for !empty {
		k, ok := d.key()
		if !ok {
			return false
		}
		var bit uint32
		switch string(k) {
		case "prompt_n":
			bit = 1
			ok = d.optInt(&t.PromptN)
		case "predicted_n":
			bit = 2
			ok = d.optInt(&t.PredictedN)
		case "cache_n":
			bit = 4
			ok = d.optInt(&t.CacheN)
		case "prompt_ms":
			bit = 8
			ok = d.optFloat(&t.PromptMs)
		case "predicted_ms":
			bit = 16
			ok = d.optFloat(&t.PredictedMs)
		default:
			ok = d.skip(0)
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		more, ok := d.next('}')
		if !ok {
			return false
		}
		empty = !more
	}
	return true
}

// optInt reads an integer or null into *dst, leaving it alone for null.
func (d *fastDec) optInt(dst *int) bool {
	n, present, ok := d.intOrNull()
	if ok && present {
		*dst = int(n)
	}
	return ok
}

// optFloat reads a number or null into *dst, leaving it alone for null.
func (d *fastDec) optFloat(dst *float64) bool {
	d.ws()
	if d.null() {
		return true
	}
	s, _, ok := d.number()
	if !ok {
		return false
	}
	v, err := strconv.ParseFloat(string(d.data[s:d.i]), 64)
	if err != nil {
		return false
	}
	*dst = v
	return true
}

// detail reads a usage details object (or null) and the integer at key,
// leaving *dst at -1 when absent or null.
func (d *fastDec) detail(key string, dst *int) bool {
	d.ws()
	if d.null() {
		return true
	}
	empty, ok := d.objStart()
	if !ok {
		return false
	}
	seen := false
	for !empty {
		k, ok := d.key()
		if !ok {
			return false
		}
		if string(k) == key {
			if seen {
				return false
			}
			seen = true
			n, present, ok := d.intOrNull()
			if !ok {
				return false
			}
			if present {
				*dst = int(n)
			}
		} else if !d.skip(0) {
			return false
		}
		more, ok := d.next('}')
		if !ok {
			return false
		}
		empty = !more
	}
	return true
}

// --- lexical layer ---

// plainStr marks the bytes a string literal may hold that need no attention:
// ASCII from 0x20 up, except '"' and '\\'. It is read-only.
var plainStr = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func (d *fastDec) ws() {
	i, data := d.i, d.data
	for i < len(data) && data[i] <= ' ' && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	d.i = i
}

func (d *fastDec) peek() byte {
	if d.i < len(d.data) {
		return d.data[d.i]
	}
	return 0
}

// null consumes a null literal at d.i if there is one.
func (d *fastDec) null() bool {
	if len(d.data)-d.i >= 4 && string(d.data[d.i:d.i+4]) == "null" {
		d.i += 4
		return true
	}
	return false
}

// objStart consumes '{' and following whitespace; empty reports "{}".
func (d *fastDec) objStart() (empty, ok bool) {
	d.ws()
	if d.peek() != '{' {
		return false, false
	}
	d.i++
	d.ws()
	if d.peek() == '}' {
		d.i++
		return true, true
	}
	return false, true
}

// key reads a member name and the colon after it. Names with escapes are
// refused: the reference decoder compares them unescaped.
func (d *fastDec) key() ([]byte, bool) {
	d.ws()
	if d.peek() != '"' {
		return nil, false
	}
	s, e, esc, ok := d.str()
	if !ok || esc && hasByte(d.data[s:e], '\\') {
		return nil, false
	}
	d.ws()
	if d.peek() != ':' {
		return nil, false
	}
	d.i++
	d.ws()
	return d.data[s:e], true
}

// next consumes the separator after a member or element: more is true after
// ',' and false after the closing byte.
func (d *fastDec) next(closing byte) (more, ok bool) {
	d.ws()
	switch d.peek() {
	case ',':
		d.i++
		return true, true
	case closing:
		d.i++
		return false, true
	}
	return false, false
}

// str scans a string literal at d.i (which holds '"'). It returns the body
// span; esc is set when the body needs decoding (an escape, or invalid
// UTF-8 that decoding replaces).
func (d *fastDec) str() (s, e int, esc, ok bool) {
	data := d.data
	i := d.i + 1
	s = i
	nonASCII := false
	for i < len(data) {
		for i < len(data) && plainStr[data[i]] {
			i++
		}
		if i >= len(data) {
			break
		}
		c := data[i]
		switch {
		case c == '"':
			if nonASCII && !esc && !utf8.Valid(data[s:i]) {
				esc = true
			}
			d.i = i + 1
			return s, i, esc, true
		case c == '\\':
			esc = true
			if i+1 >= len(data) {
				return 0, 0, false, false
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(data) || !isHex(data[i+2]) || !isHex(data[i+3]) || !isHex(data[i+4]) || !isHex(data[i+5]) {
					return 0, 0, false, false
				}
				i += 6
			default:
				return 0, 0, false, false
			}
		case c < 0x20:
			return 0, 0, false, false
		default:
			if c >= utf8.RuneSelf {
				nonASCII = true
			}
			i++
		}
	}
	return 0, 0, false, false
}

// strOrNull reads a string or null into *dst (nil for null and "").
func (d *fastDec) strOrNull(dst *[]byte) bool {
	d.ws()
	switch d.peek() {
	case 'n':
		*dst = nil
		return d.null()
	case '"':
		s, e, esc, ok := d.str()
		if !ok {
			return false
		}
		*dst = d.value(s, e, esc)
		return true
	}
	return false
}

// value returns a string body, aliased when it needs no decoding, else
// decoded into the chunk's scratch buffer; nil when empty.
func (d *fastDec) value(s, e int, esc bool) []byte {
	if !esc {
		if s == e {
			return nil
		}
		return d.data[s:e:e]
	}
	c := d.c
	start := len(c.scratch)
	c.scratch = appendUnquoted(c.scratch, d.data[s:e])
	if len(c.scratch) == start {
		return nil
	}
	return c.scratch[start:len(c.scratch):len(c.scratch)]
}

// stringAt returns the decoded text of a raw string value; nil otherwise.
func (d *fastDec) stringAt(v rawVal) []byte {
	if v.kind != '"' {
		return nil
	}
	body := d.data[v.s+1 : v.e-1]
	esc := hasByte(body, '\\') || !utf8.Valid(body)
	return d.value(v.s+1, v.e-1, esc)
}

// raw records the span and kind of the value at d.i, validating it.
func (d *fastDec) raw(v *rawVal) bool {
	d.ws()
	v.s, v.kind = d.i, d.peek()
	if !d.skip(0) {
		return false
	}
	v.e = d.i
	return true
}

// intOrNull reads an integer or null; present is false for null.
func (d *fastDec) intOrNull() (n int64, present, ok bool) {
	d.ws()
	if d.null() {
		return 0, false, true
	}
	s, isInt, ok := d.number()
	if !ok || !isInt {
		return 0, false, false
	}
	n, ok = parseInt(d.data[s:d.i])
	return n, true, ok
}

// number scans a JSON number; isInt is false when it has a fraction or an
// exponent.
func (d *fastDec) number() (s int, isInt, ok bool) {
	data := d.data
	i := d.i
	s = i
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && data[i] >= '1' && data[i] <= '9':
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
	default:
		return 0, false, false
	}
	isInt = true
	if i < len(data) && data[i] == '.' {
		isInt = false
		i++
		if i >= len(data) || data[i] < '0' || data[i] > '9' {
			return 0, false, false
		}
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		isInt = false
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || data[i] < '0' || data[i] > '9' {
			return 0, false, false
		}
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
	}
	d.i = i
	return s, isInt, true
}

// skip validates and skips any value.
func (d *fastDec) skip(depth int) bool {
	d.ws()
	switch c := d.peek(); {
	case c == '"':
		_, _, _, ok := d.str()
		return ok
	case c == '{':
		if depth >= maxSkipDepth {
			return false
		}
		empty, ok := d.objStart()
		if !ok {
			return false
		}
		for !empty {
			d.ws()
			if d.peek() != '"' {
				return false
			}
			if _, _, _, ok := d.str(); !ok {
				return false
			}
			d.ws()
			if d.peek() != ':' {
				return false
			}
			d.i++
			if !d.skip(depth + 1) {
				return false
			}
			more, ok := d.next('}')
			if !ok {
				return false
			}
			empty = !more
		}
		return true
	case c == '[':
		if depth >= maxSkipDepth {
			return false
		}
		d.i++
		d.ws()
		if d.peek() == ']' {
			d.i++
			return true
		}
		for {
			if !d.skip(depth + 1) {
				return false
			}
			more, ok := d.next(']')
			if !ok {
				return false
			}
			if !more {
				return true
			}
		}
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.null()
	case c == '-' || c >= '0' && c <= '9':
		_, _, ok := d.number()
		return ok
	}
	return false
}

func (d *fastDec) literal(lit string) bool {
	if len(d.data)-d.i >= len(lit) && string(d.data[d.i:d.i+len(lit)]) == lit {
		d.i += len(lit)
		return true
	}
	return false
}

func hasByte(b []byte, c byte) bool {
	for _, x := range b {
		if x == c {
			return true
		}
	}
	return false
}
