package sse

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// DecodeChunkFull is the reference decoder: it decodes one stream chunk with
// encoding/json and defines the results DecodeChunk must reproduce. It is
// slower and allocates; use DecodeChunk. On error c is left Reset.
func DecodeChunkFull(data []byte, c *Chunk) error {
	return decodeFull(data, c, false)
}

type rawObject = map[string]json.RawMessage

// decodeReference implements DecodeChunkFull, and DecodeResponse when resp
// is set (no [DONE], and a FastAPI "detail" is read as an error message).
func decodeReference(data []byte, c *Chunk, resp bool) error {
	c.Reset()
	t := trimSpace(data)
	if len(t) == 0 {
		return ErrEmptyPayload
	}
	if !resp && string(t) == "[DONE]" {
		c.Done = true
		return nil
	}
	var top rawObject
	if err := json.Unmarshal(data, &top); err != nil {
		return jsonError(data, err)
	}
	if top == nil {
		return errors.New("sse: want a JSON object, got null")
	}
	var err error
	if c.ID, err = fullString(top["id"], "id"); err != nil {
		return err
	}
	if c.Object, err = fullString(top["object"], "object"); err != nil {
		return err
	}
	if err := c.fullChoices(top["choices"]); err != nil {
		return err
	}
	if err := c.fullUsage(top["usage"]); err != nil {
		return err
	}
	if err := c.fullTimings(top["timings"]); err != nil {
		return err
	}
	if c.EmitNS, _, err = fullInt(top["goodput_emit_ns"], "goodput_emit_ns"); err != nil {
		return err
	}
	if err := c.fullError(top, resp); err != nil {
		return err
	}
	c.assemble()
	return nil
}

func (c *Chunk) fullChoices(raw json.RawMessage) error {
	elems, err := fullArray(raw, "choices")
	if err != nil {
		return err
	}
	c.NumChoices = len(elems)
	for i, e := range elems {
		path := "choices[" + strconv.Itoa(i) + "]"
		obj, err := fullObject(e, path, false)
		if err != nil {
			return err
		}
		var r choiceRec
		idx, _, err := fullInt(obj["index"], path+".index")
		if err != nil {
			return err
		}
		r.index = int(idx)
		if r.text, err = fullString(obj["text"], path+".text"); err != nil {
			return err
		}
		if r.finish, err = fullString(obj["finish_reason"], path+".finish_reason"); err != nil {
			return err
		}
		if err := c.fullMsg(obj["delta"], path+".delta", &r.delta); err != nil {
			return err
		}
		if err := c.fullMsg(obj["message"], path+".message", &r.message); err != nil {
			return err
		}
		c.choices = append(c.choices, r)
	}
	return nil
}

func (c *Chunk) fullMsg(raw json.RawMessage, path string, m *msgRec) error {
	obj, err := fullObject(raw, path, true)
	if err != nil || obj == nil {
		return err
	}
	if m.role, err = fullString(obj["role"], path+".role"); err != nil {
		return err
	}
	if m.content, err = fullString(obj["content"], path+".content"); err != nil {
		return err
	}
	if m.reasoningContent, err = fullString(obj["reasoning_content"], path+".reasoning_content"); err != nil {
		return err
	}
	if m.reasoning, err = fullString(obj["reasoning"], path+".reasoning"); err != nil {
		return err
	}
	if m.refusal, err = fullString(obj["refusal"], path+".refusal"); err != nil {
		return err
	}
	m.toolLo = len(c.tools)
	switch tc := obj["tool_calls"]; kindOf(tc) {
	case "", "null":
	case "object":
		t, err := fullToolEntry(tc, path+".tool_calls", true)
		if err != nil {
			return err
		}
		c.tools = append(c.tools, t)
	case "array":
		elems, err := fullArray(tc, path+".tool_calls")
		if err != nil {
			return err
		}
		for i, e := range elems {
			t, err := fullToolEntry(e, path+".tool_calls["+strconv.Itoa(i)+"]", true)
			if err != nil {
				return err
			}
			c.tools = append(c.tools, t)
		}
	default:
		return typeError(path+".tool_calls", "array, object or null", tc)
	}
	m.toolHi = len(c.tools)
	if fc := obj["function_call"]; fc != nil && kindOf(fc) != "null" {
		if m.functionCall, err = fullToolEntry(fc, path+".function_call", false); err != nil {
			return err
		}
		m.hasFunctionCall = true
	}
	return nil
}

// fullToolEntry decodes a tool_calls entry ({"function": {"name", "arguments"}})
// when nested is set, else a legacy function_call ({"name", "arguments"}).
func fullToolEntry(raw json.RawMessage, path string, nested bool) (toolRec, error) {
	t := toolRec{index: -1}
	obj, err := fullObject(raw, path, false)
	if err != nil {
		return t, err
	}
	if nested {
		// index and id are read when well formed and otherwise ignored,
		// as they were before they were read at all.
		if kindOf(obj["index"]) == "number" {
			if n, ok := parseInt(obj["index"]); ok && n >= math.MinInt32 && n <= math.MaxInt32 {
				t.index = int(n)
			}
		}
		if kindOf(obj["id"]) == "string" {
			t.id, _ = fullString(obj["id"], path+".id")
		}
		path += ".function"
		if obj, err = fullObject(obj["function"], path, true); err != nil || obj == nil {
			return t, err
		}
	}
	if t.name, err = fullString(obj["name"], path+".name"); err != nil {
		return t, err
	}
	if t.args, err = fullString(obj["arguments"], path+".arguments"); err != nil {
		return t, err
	}
	return t, nil
}

func (c *Chunk) fullUsage(raw json.RawMessage) error {
	obj, err := fullObject(raw, "usage", true)
	if err != nil || obj == nil {
		return err
	}
	u := &c.Usage
	u.Present = true
	var n int64
	if n, _, err = fullInt(obj["prompt_tokens"], "usage.prompt_tokens"); err != nil {
		return err
	}
	u.PromptTokens = int(n)
	if n, _, err = fullInt(obj["completion_tokens"], "usage.completion_tokens"); err != nil {
		return err
	}
	u.CompletionTokens = int(n)
	if n, _, err = fullInt(obj["total_tokens"], "usage.total_tokens"); err != nil {
		return err
	}
	u.TotalTokens = int(n)
	if u.CachedTokens, err = fullDetail(obj["prompt_tokens_details"], "usage.prompt_tokens_details", "cached_tokens"); err != nil {
		return err
	}
	if u.ReasoningTokens, err = fullDetail(obj["completion_tokens_details"], "usage.completion_tokens_details", "reasoning_tokens"); err != nil {
		return err
	}
	return nil
}

func (c *Chunk) fullTimings(raw json.RawMessage) error {
	obj, err := fullObject(raw, "timings", true)
	if err != nil || obj == nil {
		return err
	}
	t := &c.Timings
	t.Present = true
	for _, f := range [...]struct {
		key string
		dst *int
	}{{"prompt_n", &t.PromptN}, {"predicted_n", &t.PredictedN}, {"cache_n", &t.CacheN}} {
		n, ok, err := fullInt(obj[f.key], "timings."+f.key)
		if err != nil {
			return err
		}
		if ok {
			*f.dst = int(n)
		}
	}
	for _, f := range [...]struct {
		key string
		dst *float64
	}{{"prompt_ms", &t.PromptMs}, {"predicted_ms", &t.PredictedMs}} {
		v, ok, err := fullFloat(obj[f.key], "timings."+f.key)
		if err != nil {
			return err
		}
		if ok {
			*f.dst = v
		}
	}
	return nil
}

// fullDetail reads an integer from a usage details object; -1 when the object
// or the field is absent or null.
func fullDetail(raw json.RawMessage, path, key string) (int, error) {
	obj, err := fullObject(raw, path, true)
	if err != nil || obj == nil {
		return -1, err
	}
	n, ok, err := fullInt(obj[key], path+"."+key)
	if err != nil || !ok {
		return -1, err
	}
	return int(n), nil
}

func (c *Chunk) fullError(top rawObject, resp bool) error {
	// Like the OpenAI SDK, which tests the truthiness of data["error"], an
	// empty string or an empty object is no error.
	switch e := top["error"]; kindOf(e) {
	case "", "null":
	case "string":
		msg, err := fullString(e, "error")
		if err != nil {
			return err
		}
		if msg != nil {
			typ, err := fullString(top["error_type"], "error_type")
			if err != nil {
				return err
			}
			c.setError(msg, typ, nil)
			return nil
		}
	case "object":
		obj, err := fullObject(e, "error", false)
		if err != nil {
			return err
		}
		if len(obj) > 0 {
			return c.fullErrorFields(obj, "error.")
		}
	default:
		return typeError("error", "object, string or null", e)
	}
	if string(c.Object) == "error" {
		return c.fullErrorFields(top, "")
	}
	if d := top["detail"]; resp && d != nil && kindOf(d) != "null" {
		if kindOf(d) == "string" {
			msg, err := fullString(d, "detail")
			if err != nil {
				return err
			}
			c.setError(msg, nil, nil)
		} else {
			c.setError(d, nil, nil)
		}
	}
	return nil
}

func (c *Chunk) fullErrorFields(obj rawObject, prefix string) error {
	msg, err := fullString(obj["message"], prefix+"message")
	if err != nil {
		return err
	}
	typ, err := fullString(obj["type"], prefix+"type")
	if err != nil {
		return err
	}
	var code []byte
	switch raw := obj["code"]; kindOf(raw) {
	case "", "null":
	case "string":
		if code, err = fullString(raw, prefix+"code"); err != nil {
			return err
		}
	case "number":
		code = raw
	default:
		return typeError(prefix+"code", "string, number or null", raw)
	}
	c.setError(msg, typ, code)
	return nil
}

// kindOf names the JSON kind of a raw value; "" when absent.
func kindOf(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

func typeError(path, want string, raw json.RawMessage) error {
	return fmt.Errorf("sse: field %s: want %s, got %s", path, want, kindOf(raw))
}

// fullString decodes a string field; absent, null and "" all give nil.
func fullString(raw json.RawMessage, path string) ([]byte, error) {
	switch kindOf(raw) {
	case "", "null":
		return nil, nil
	case "string":
	default:
		return nil, typeError(path, "string or null", raw)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("sse: field %s: %w", path, err)
	}
	if s == "" {
		return nil, nil
	}
	return []byte(s), nil
}

// fullInt decodes an integer field; ok is false when absent or null.
func fullInt(raw json.RawMessage, path string) (n int64, ok bool, err error) {
	switch kindOf(raw) {
	case "", "null":
		return 0, false, nil
	case "number":
	default:
		return 0, false, typeError(path, "integer or null", raw)
	}
	n, ok = parseInt(raw)
	if !ok {
		return 0, false, fmt.Errorf("sse: field %s: want an integer in int64 range, got %.32s", path, raw)
	}
	return n, true, nil
}

// fullFloat decodes a number field; ok is false when absent or null.
func fullFloat(raw json.RawMessage, path string) (v float64, ok bool, err error) {
	switch kindOf(raw) {
	case "", "null":
		return 0, false, nil
	case "number":
	default:
		return 0, false, typeError(path, "number or null", raw)
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return 0, false, fmt.Errorf("sse: field %s: want a number in float64 range, got %.32s", path, raw)
	}
	return v, true, nil
}

// fullObject decodes an object field. With nullable, absent and null give a
// nil map; otherwise they are type errors.
func fullObject(raw json.RawMessage, path string, nullable bool) (rawObject, error) {
	switch k := kindOf(raw); {
	case k == "object":
	case nullable && (k == "" || k == "null"):
		return nil, nil
	case nullable:
		return nil, typeError(path, "object or null", raw)
	default:
		if k == "" {
			k = "nothing"
		}
		return nil, fmt.Errorf("sse: field %s: want object, got %s", path, k)
	}
	var obj rawObject
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("sse: field %s: %w", path, err)
	}
	return obj, nil
}

// fullArray decodes an array field; absent and null give nil.
func fullArray(raw json.RawMessage, path string) ([]json.RawMessage, error) {
	switch kindOf(raw) {
	case "", "null":
		return nil, nil
	case "array":
	default:
		return nil, typeError(path, "array or null", raw)
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return nil, fmt.Errorf("sse: field %s: %w", path, err)
	}
	return elems, nil
}

// jsonError turns an encoding/json error on the whole payload into a short
// message: what is wrong and where, with at most 24 bytes of context.
func jsonError(data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// Offset counts the bytes read, the offending one included, except
		// at an unexpected end.
		off := int(se.Offset)
		if off > len(data) {
			off = len(data)
		}
		if off > 0 && off < len(data) || off == len(data) && off > 0 && !strings.HasPrefix(se.Error(), "unexpected end") {
			off--
		}
		from := off - 24
		if from < 0 {
			from = 0
		}
		return fmt.Errorf("sse: malformed JSON at byte %d (after %q): %s", off, data[from:off], se.Error())
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("sse: want a JSON object, got %s", te.Value)
	}
	return fmt.Errorf("sse: decoding JSON: %w", err)
}

// parseInt parses a JSON number that is a plain integer (no fraction or
// exponent) within int64 range. Both decoders use it.
func parseInt(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && b[0] == '-' {
		neg = true
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	const limit = uint64(1) << 63 // |math.MinInt64|
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (limit-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	if neg {
		return -int64(n), true // -(1<<63) wraps to itself: correct
	}
	if n > 1<<63-1 {
		return 0, false
	}
	return int64(n), true
}
