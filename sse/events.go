package sse

import (
	"errors"
	"fmt"
)

// Decoders for the OpenAI Responses API (POST /v1/responses) and the
// Anthropic Messages API (POST /v1/messages): their stream events and
// non-streaming bodies, decoded into the same Chunk as chat completions so
// that a client measures all three alike. They reuse the fast scanner's
// lexical layer: no reflection, no allocation per event in steady state.
//
// Every event carries its kind in "type", which sets Chunk.Type. JSON
// rules are encoding/json's (the last of duplicated members wins, escaped
// member names match their unescaped form, null is absent, a field the
// decoder interprets must have its documented type), except that values
// nested deeper than 64 levels are refused.

// Finish reasons in the OpenAI vocabulary, shared read-only.
var (
	finishStop          = []byte("stop")
	finishLength        = []byte("length")
	finishToolCalls     = []byte("tool_calls")
	finishContentFilter = []byte("content_filter")
)

var errMalformed = errors.New("sse: malformed JSON")

// Member names read by the decoders. Each list is indexed by the constants
// below it.
var (
	responsesEventKeys  = [...]string{"type", "delta", "response", "item", "code", "message", "error", "goodput_emit_ns"}
	responseKeys        = [...]string{"id", "status", "usage", "error", "incomplete_details", "output", "goodput_emit_ns"}
	responsesUsageKeys  = [...]string{"input_tokens", "output_tokens", "total_tokens", "input_tokens_details", "output_tokens_details"}
	messagesEventKeys   = [...]string{"type", "message", "content_block", "delta", "usage", "error", "goodput_emit_ns"}
	messageKeys         = [...]string{"id", "type", "content", "stop_reason", "usage", "error", "goodput_emit_ns"}
	messagesUsageKeys   = [...]string{"input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"}
	blockKeys           = [...]string{"type", "text", "thinking", "partial_json", "name", "input", "refusal", "arguments", "summary", "content"}
	errorKeys           = [...]string{"message", "type", "code"}
	responsesUsagePaths = []string{"usage.input_tokens", "usage.output_tokens", "usage.total_tokens"}
	messagesUsagePaths  = []string{"usage.input_tokens", "usage.output_tokens", "usage.cache_creation_input_tokens", "usage.cache_read_input_tokens"}
	stopKeys            = [...]string{"stop_reason"}
	reasonKeys          = [...]string{"reason"}
	cachedKeys          = [...]string{"cached_tokens"}
	reasoningKeys       = [...]string{"reasoning_tokens"}
)

const (
	reType = iota
	reDelta
	reResponse
	reItem
	reCode
	reMessage
	reError
	reEmit
)

const (
	rsID = iota
	rsStatus
	rsUsage
	rsError
	rsIncomplete
	rsOutput
	rsEmit
)

const (
	meType = iota
	meMessage
	meBlock
	meDelta
	meUsage
	meError
	meEmit
)

const (
	msID = iota
	msType
	msContent
	msStop
	msUsage
	msError
	msEmit
)

const (
	bType = iota
	bText
	bThinking
	bPartialJSON
	bName
	bInput
	bRefusal
	bArguments
	bSummary
	bContent
)

// DecodeResponsesEvent decodes the data of one event of an OpenAI Responses
// stream into c, which it Resets first. By type:
//
//	response.created, response.in_progress   ID (response.id)
//	response.output_text.delta               Content (delta)
//	response.refusal.delta                   Refusal
//	response.reasoning_text.delta,
//	response.reasoning_summary_text.delta    Reasoning
//	response.output_item.added               a function_call item: ToolCalls 1, ToolArgs its name
//	response.function_call_arguments.delta   ToolArgs
//	response.completed, response.incomplete  ID, Usage, FinishReason, Done
//	response.failed                          ID, Usage, Err (response.error)
//	error                                    Err (code, message)
//
// FinishReason is "stop" for a completed response, "length" for one
// incomplete at max_output_tokens, "content_filter" for a filtered one.
// Other types set Type only. On error c is left Reset.
func DecodeResponsesEvent(data []byte, c *Chunk) error {
	c.Reset()
	if err := c.responsesEvent(data); err != nil {
		c.Reset()
		return err
	}
	return nil
}

// DecodeMessagesEvent decodes the data of one event of an Anthropic
// Messages stream into c, which it Resets first. By type:
//
//	message_start        ID, Usage (input and cache tokens as PromptTokens, cache reads as CachedTokens)
//	content_block_start  a text or thinking block's first text; a tool_use block: ToolCalls 1, ToolArgs its name
//	content_block_delta  text_delta: Content; thinking_delta: Reasoning; input_json_delta: ToolArgs
//	message_delta        FinishReason (stop_reason mapped), Usage (output_tokens; Usage.NoPrompt unless input_tokens)
//	message_stop         Done
//	error                Err (error.type, error.message)
//
// stop_reason maps to "stop" (end_turn, stop_sequence), "length"
// (max_tokens), "tool_calls" (tool_use) and "content_filter" (refusal);
// others are kept. ping and other types set Type only. On error c is left
// Reset.
func DecodeMessagesEvent(data []byte, c *Chunk) error {
	c.Reset()
	if err := c.messagesEvent(data); err != nil {
		c.Reset()
		return err
	}
	return nil
}

// DecodeResponsesBody decodes a non-streaming Responses body (a response
// object, or an error body) into c: the output items' text (message
// output_text as Content, refusals, reasoning summaries and text as
// Reasoning, function calls' names and arguments as ToolArgs), ID, Usage,
// FinishReason and Err. It never sets Done. On error c is left Reset.
func DecodeResponsesBody(body []byte, c *Chunk) error {
	c.Reset()
	var v [len(responseKeys)]rawVal
	d, err := c.scanTop(body, responseKeys[:], v[:])
	if err == nil {
		err = d.response(v[:], true)
	}
	if err != nil {
		c.Reset()
	}
	return err
}

// DecodeMessagesBody decodes a non-streaming Messages body (a message, or
// an error body) into c: the content blocks' text (text as Content,
// thinking as Reasoning, tool_use name and input JSON as ToolArgs), ID,
// Usage, FinishReason and Err. It never sets Done. On error c is left Reset.
func DecodeMessagesBody(body []byte, c *Chunk) error {
	c.Reset()
	var v [len(messageKeys)]rawVal
	d, err := c.scanTop(body, messageKeys[:], v[:])
	if err == nil {
		err = d.message(v[:])
	}
	if err != nil {
		c.Reset()
	}
	return err
}

// scanTop reads the object in data into v, the spans of keys.
func (c *Chunk) scanTop(data []byte, keys []string, v []rawVal) (fastDec, error) {
	d := fastDec{data: data, c: c}
	if len(trimSpace(data)) == 0 {
		return d, ErrEmptyPayload
	}
	if !d.members(keys, v) {
		return d, d.syntaxError("event")
	}
	d.ws()
	if d.i != len(data) {
		return d, errMalformed
	}
	return d, nil
}

func (c *Chunk) responsesEvent(data []byte) error {
	var v [len(responsesEventKeys)]rawVal
	d, err := c.scanTop(data, responsesEventKeys[:], v[:])
	if err != nil {
		return err
	}
	typ, err := d.strAt(v[reType], "type")
	if err != nil {
		return err
	}
	c.Type = typ
	if c.EmitNS, _, err = d.intAt(v[reEmit], "goodput_emit_ns"); err != nil {
		return err
	}
	switch string(typ) {
	case "response.output_text.delta":
		c.Content, err = d.strAt(v[reDelta], "delta")
	case "response.refusal.delta":
		c.Refusal, err = d.strAt(v[reDelta], "delta")
	case "response.reasoning_text.delta", "response.reasoning_summary_text.delta":
		c.Reasoning, err = d.strAt(v[reDelta], "delta")
	case "response.function_call_arguments.delta":
		c.ToolArgs, err = d.strAt(v[reDelta], "delta")
	case "response.output_item.added":
		var b [len(blockKeys)]rawVal
		present, err := d.objAt(v[reItem], "item", blockKeys[:], b[:])
		if err != nil || !present {
			return err
		}
		kind, err := d.strAt(b[bType], "item.type")
		if err != nil {
			return err
		}
		if string(kind) == "function_call" {
			c.ToolCalls = 1
			c.ToolArgs, err = d.strAt(b[bName], "item.name")
		}
		return err
	case "response.created", "response.in_progress", "response.completed", "response.incomplete", "response.failed":
		var r [len(responseKeys)]rawVal
		present, err := d.objAt(v[reResponse], "response", responseKeys[:], r[:])
		if err != nil || !present {
			return err
		}
		return d.response(r[:], false)
	case "error":
		var e [len(errorKeys)]rawVal
		if _, err := d.objAt(v[reError], "error", errorKeys[:], e[:]); err != nil {
			return err
		}
		if e[0].kind == 0 || e[0].kind == 'n' {
			// The documented form: code and message at the top.
			e[0], e[2] = v[reMessage], v[reCode]
		}
		return d.setErr(e[:], "error", true)
	}
	return err
}

// response interprets a response object's spans. In a stream, usage,
// status and error are read for the terminal events only (c.Type says
// which); a body reads its output items too.
func (d *fastDec) response(v []rawVal, body bool) error {
	c := d.c
	var err error
	if c.ID, err = d.strAt(v[rsID], "response.id"); err != nil {
		return err
	}
	typ := string(c.Type)
	if !body && typ != "response.completed" && typ != "response.incomplete" && typ != "response.failed" {
		return nil
	}
	if err := d.responsesUsage(v[rsUsage]); err != nil {
		return err
	}
	var e [len(errorKeys)]rawVal
	if _, err := d.objAt(v[rsError], "response.error", errorKeys[:], e[:]); err != nil {
		return err
	}
	status, err := d.strAt(v[rsStatus], "response.status")
	if err != nil {
		return err
	}
	if body {
		if c.EmitNS, _, err = d.intAt(v[rsEmit], "goodput_emit_ns"); err != nil {
			return err
		}
		if err := d.outputItems(v[rsOutput]); err != nil {
			return err
		}
		typ = "response." + string(status)
	}
	switch typ {
	case "response.completed":
		c.FinishReason, c.Done = finishStop, !body
	case "response.incomplete":
		var r [1]rawVal
		if _, err := d.objAt(v[rsIncomplete], "response.incomplete_details", reasonKeys[:], r[:]); err != nil {
			return err
		}
		reason, err := d.strAt(r[0], "response.incomplete_details.reason")
		if err != nil {
			return err
		}
		switch string(reason) {
		case "max_output_tokens":
			reason = finishLength
		case "content_filter":
			reason = finishContentFilter
		}
		c.FinishReason, c.Done = reason, !body
	case "response.failed":
		if e[0].kind == 0 || e[0].kind == 'n' {
			c.setError([]byte("response failed"), nil, nil)
			return nil
		}
	}
	return d.setErr(e[:], "response.error", false)
}

// responsesUsage reads a Responses usage object into c.Usage.
func (d *fastDec) responsesUsage(v rawVal) error {
	var u [len(responsesUsageKeys)]rawVal
	present, err := d.objAt(v, "usage", responsesUsageKeys[:], u[:])
	if err != nil || !present {
		return err
	}
	us := &d.c.Usage
	us.Present = true
	for i, dst := range [3]*int{&us.PromptTokens, &us.CompletionTokens, &us.TotalTokens} {
		n, _, err := d.intAt(u[i], responsesUsagePaths[i])
		if err != nil {
			return err
		}
		*dst = int(n)
	}
	if err := d.detailAt(u[3], "usage.input_tokens_details.cached_tokens", cachedKeys[:], &us.CachedTokens); err != nil {
		return err
	}
	return d.detailAt(u[4], "usage.output_tokens_details.reasoning_tokens", reasoningKeys[:], &us.ReasoningTokens)
}

// detailAt reads the one integer of a usage details object into *dst,
// leaving it -1 when absent; path names the integer.
func (d *fastDec) detailAt(v rawVal, path string, keys []string, dst *int) error {
	var x [1]rawVal
	present, err := d.objAt(v, path[:len(path)-len(keys[0])-1], keys, x[:])
	if err != nil || !present {
		return err
	}
	n, ok, err := d.intAt(x[0], path)
	if ok {
		*dst = int(n)
	}
	return err
}

// outputItems reads a response body's output array.
func (d *fastDec) outputItems(v rawVal) error {
	c := d.c
	return d.eachAt(v, "response.output", func(e rawVal) error {
		var b [len(blockKeys)]rawVal
		present, err := d.objAt(e, "response.output[]", blockKeys[:], b[:])
		if err != nil || !present {
			return err
		}
		kind, err := d.strAt(b[bType], "response.output[].type")
		if err != nil {
			return err
		}
		switch string(kind) {
		case "message":
			return d.eachAt(b[bContent], "response.output[].content", func(p rawVal) error {
				var pb [len(blockKeys)]rawVal
				present, err := d.objAt(p, "response.output[].content[]", blockKeys[:], pb[:])
				if err != nil || !present {
					return err
				}
				pk, err := d.strAt(pb[bType], "response.output[].content[].type")
				if err != nil {
					return err
				}
				switch string(pk) {
				case "output_text":
					return d.appendAt(pb[bText], "response.output[].content[].text", &c.Content, &c.contentBuf, &c.contentOwn)
				case "refusal":
					return d.appendAt(pb[bRefusal], "response.output[].content[].refusal", &c.Refusal, &c.refusalBuf, &c.refusalOwn)
				}
				return nil
			})
		case "reasoning":
			for _, k := range [2]int{bSummary, bContent} {
				err := d.eachAt(b[k], "response.output[]."+blockKeys[k], func(p rawVal) error {
					var pb [len(blockKeys)]rawVal
					present, err := d.objAt(p, "response.output[]."+blockKeys[k]+"[]", blockKeys[:], pb[:])
					if err != nil || !present {
						return err
					}
					return d.appendAt(pb[bText], "response.output[]."+blockKeys[k]+"[].text", &c.Reasoning, &c.reasoningBuf, &c.reasoningOwn)
				})
				if err != nil {
					return err
				}
			}
		case "function_call":
			c.ToolCalls++
			if err := d.appendAt(b[bName], "response.output[].name", &c.ToolArgs, &c.toolBuf, &c.toolOwn); err != nil {
				return err
			}
			return d.appendAt(b[bArguments], "response.output[].arguments", &c.ToolArgs, &c.toolBuf, &c.toolOwn)
		}
		return nil
	})
}

func (c *Chunk) messagesEvent(data []byte) error {
	var v [len(messagesEventKeys)]rawVal
	d, err := c.scanTop(data, messagesEventKeys[:], v[:])
	if err != nil {
		return err
	}
	typ, err := d.strAt(v[meType], "type")
	if err != nil {
		return err
	}
	c.Type = typ
	if c.EmitNS, _, err = d.intAt(v[meEmit], "goodput_emit_ns"); err != nil {
		return err
	}
	switch string(typ) {
	case "message_start":
		var m [len(messageKeys)]rawVal
		present, err := d.objAt(v[meMessage], "message", messageKeys[:], m[:])
		if err != nil || !present {
			return err
		}
		if c.ID, err = d.strAt(m[msID], "message.id"); err != nil {
			return err
		}
		return d.messagesUsage(m[msUsage])
	case "content_block_start", "content_block_delta":
		key, path := v[meBlock], "content_block"
		if string(typ) == "content_block_delta" {
			key, path = v[meDelta], "delta"
		}
		var b [len(blockKeys)]rawVal
		present, err := d.objAt(key, path, blockKeys[:], b[:])
		if err != nil || !present {
			return err
		}
		kind, err := d.fieldAt(b[bType], path, "type")
		if err != nil {
			return err
		}
		switch string(kind) {
		case "text", "text_delta":
			c.Content, err = d.fieldAt(b[bText], path, "text")
		case "thinking", "thinking_delta":
			c.Reasoning, err = d.fieldAt(b[bThinking], path, "thinking")
		case "input_json_delta":
			c.ToolArgs, err = d.fieldAt(b[bPartialJSON], path, "partial_json")
		case "tool_use", "server_tool_use":
			c.ToolCalls = 1
			c.ToolArgs, err = d.fieldAt(b[bName], path, "name")
		}
		return err
	case "message_delta":
		var s [1]rawVal
		if _, err := d.objAt(v[meDelta], "delta", stopKeys[:], s[:]); err != nil {
			return err
		}
		if err := d.stopReason(s[0], "delta.stop_reason"); err != nil {
			return err
		}
		return d.messagesUsage(v[meUsage])
	case "message_stop":
		c.Done = true
	case "error":
		var e [len(errorKeys)]rawVal
		if _, err := d.objAt(v[meError], "error", errorKeys[:], e[:]); err != nil {
			return err
		}
		return d.setErr(e[:], "error", true)
	}
	return nil
}

// message interprets a Messages body's spans.
func (d *fastDec) message(v []rawVal) error {
	c := d.c
	var err error
	if c.ID, err = d.strAt(v[msID], "id"); err != nil {
		return err
	}
	if c.Type, err = d.strAt(v[msType], "type"); err != nil {
		return err
	}
	if c.EmitNS, _, err = d.intAt(v[msEmit], "goodput_emit_ns"); err != nil {
		return err
	}
	var e [len(errorKeys)]rawVal
	if _, err := d.objAt(v[msError], "error", errorKeys[:], e[:]); err != nil {
		return err
	}
	if err := d.setErr(e[:], "error", string(c.Type) == "error"); err != nil {
		return err
	}
	if err := d.stopReason(v[msStop], "stop_reason"); err != nil {
		return err
	}
	if err := d.messagesUsage(v[msUsage]); err != nil {
		return err
	}
	return d.eachAt(v[msContent], "content", func(p rawVal) error {
		var b [len(blockKeys)]rawVal
		present, err := d.objAt(p, "content[]", blockKeys[:], b[:])
		if err != nil || !present {
			return err
		}
		kind, err := d.strAt(b[bType], "content[].type")
		if err != nil {
			return err
		}
		switch string(kind) {
		case "text":
			return d.appendAt(b[bText], "content[].text", &c.Content, &c.contentBuf, &c.contentOwn)
		case "thinking":
			return d.appendAt(b[bThinking], "content[].thinking", &c.Reasoning, &c.reasoningBuf, &c.reasoningOwn)
		case "tool_use", "server_tool_use":
			c.ToolCalls++
			if err := d.appendAt(b[bName], "content[].name", &c.ToolArgs, &c.toolBuf, &c.toolOwn); err != nil {
				return err
			}
			if in := b[bInput]; in.kind != 0 && in.kind != 'n' {
				c.ToolArgs = appendPiece(c.ToolArgs, &c.toolBuf, &c.toolOwn, d.data[in.s:in.e:in.e])
			}
		}
		return nil
	})
}

// stopReason sets c.FinishReason from an Anthropic stop_reason.
func (d *fastDec) stopReason(v rawVal, path string) error {
	r, err := d.strAt(v, path)
	if err != nil {
		return err
	}
	switch string(r) {
	case "end_turn", "stop_sequence":
		r = finishStop
	case "max_tokens":
		r = finishLength
	case "tool_use":
		r = finishToolCalls
	case "refusal":
		r = finishContentFilter
	}
	d.c.FinishReason = r
	return nil
}

// messagesUsage reads an Anthropic usage object into c.Usage: the prompt
// is input_tokens plus the cache writes and reads, as OpenAI's
// prompt_tokens counts cached tokens.
func (d *fastDec) messagesUsage(v rawVal) error {
	var u [len(messagesUsageKeys)]rawVal
	present, err := d.objAt(v, "usage", messagesUsageKeys[:], u[:])
	if err != nil || !present {
		return err
	}
	us := &d.c.Usage
	us.Present = true
	var n [4]int64
	var has [4]bool
	for i := range u {
		if n[i], has[i], err = d.intAt(u[i], messagesUsagePaths[i]); err != nil {
			return err
		}
	}
	us.PromptTokens = int(n[0] + n[2] + n[3])
	us.NoPrompt = !has[0]
	us.CompletionTokens = int(n[1])
	us.TotalTokens = us.PromptTokens + us.CompletionTokens
	if has[3] {
		us.CachedTokens = int(n[3])
	}
	return nil
}

// setErr sets c.Err from the spans of message, type and code; with force
// an error is set even when they are all absent (an error event).
func (d *fastDec) setErr(e []rawVal, path string, force bool) error {
	msg, err := d.fieldAt(e[0], path, "message")
	if err != nil {
		return err
	}
	typ, err := d.fieldAt(e[1], path, "type")
	if err != nil {
		return err
	}
	var code []byte
	switch v := e[2]; v.kind {
	case 0, 'n':
	case '"':
		code = d.stringAt(v)
	case '{', '[', 't', 'f':
		return fmt.Errorf("sse: %s.code: want a string, a number or null", path)
	default:
		code = d.data[v.s:v.e:v.e]
	}
	if !force && msg == nil && typ == nil && code == nil {
		return nil
	}
	d.c.setError(msg, typ, code)
	return nil
}

// --- spans ---

// members reads the object at d.i: out[j] becomes the span of the last
// member named keys[j] (kind 0 when there is none). Every value is
// validated, the ones not asked for too.
func (d *fastDec) members(keys []string, out []rawVal) bool {
	for j := range out {
		out[j] = rawVal{}
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
		s, e, esc, ok := d.str()
		if !ok {
			return false
		}
		name := d.data[s:e]
		if esc {
			mark := len(d.c.scratch)
			d.c.scratch = appendUnquoted(d.c.scratch, name)
			name = d.c.scratch[mark:]
			d.c.scratch = d.c.scratch[:mark]
		}
		d.ws()
		if d.peek() != ':' {
			return false
		}
		d.i++
		j := 0
		for j < len(keys) && keys[j] != string(name) {
			j++
		}
		if j < len(keys) {
			ok = d.raw(&out[j])
		} else {
			ok = d.skip(0)
		}
		if !ok {
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

// at returns a decoder positioned on span v.
func (d *fastDec) at(v rawVal) fastDec {
	return fastDec{data: d.data[:v.e], i: v.s, c: d.c}
}

// objAt reads the object span v into out; present is false for an
// absent or null value.
func (d *fastDec) objAt(v rawVal, path string, keys []string, out []rawVal) (present bool, err error) {
	for j := range out {
		out[j] = rawVal{}
	}
	switch v.kind {
	case 0, 'n':
		return false, nil
	case '{':
		sub := d.at(v)
		if !sub.members(keys, out) {
			return false, errMalformed // cannot happen: v was validated
		}
		return true, nil
	}
	return false, fmt.Errorf("sse: %s: want an object or null", path)
}

// eachAt calls f with the span of each element of the array span v
// (absent or null: none).
func (d *fastDec) eachAt(v rawVal, path string, f func(rawVal) error) error {
	switch v.kind {
	case 0, 'n':
		return nil
	case '[':
	default:
		return fmt.Errorf("sse: %s: want an array or null", path)
	}
	sub := d.at(v)
	sub.i++
	sub.ws()
	if sub.peek() == ']' {
		return nil
	}
	for {
		var e rawVal
		if !sub.raw(&e) {
			return errMalformed
		}
		if err := f(e); err != nil {
			return err
		}
		more, ok := sub.next(']')
		if !ok {
			return errMalformed
		}
		if !more {
			return nil
		}
	}
}

// strAt returns the text of the string span v (nil when absent, null or
// empty).
func (d *fastDec) strAt(v rawVal, path string) ([]byte, error) {
	switch v.kind {
	case 0, 'n':
		return nil, nil
	case '"':
		return d.stringAt(v), nil
	}
	return nil, fmt.Errorf("sse: %s: want a string or null", path)
}

// fieldAt is strAt for the member field of the object at path; the
// path is joined only for an error.
func (d *fastDec) fieldAt(v rawVal, path, field string) ([]byte, error) {
	if v.kind == 0 || v.kind == 'n' || v.kind == '"' {
		return d.strAt(v, "")
	}
	return d.strAt(v, path+"."+field)
}

// appendAt appends the string span v to a Chunk text field.
func (d *fastDec) appendAt(v rawVal, path string, dst *[]byte, buf *[]byte, own *bool) error {
	s, err := d.strAt(v, path)
	*dst = appendPiece(*dst, buf, own, s)
	return err
}

// intAt returns the integer span v; ok is false when absent or null.
func (d *fastDec) intAt(v rawVal, path string) (n int64, ok bool, err error) {
	switch {
	case v.kind == 0 || v.kind == 'n':
		return 0, false, nil
	case v.kind == '-' || v.kind >= '0' && v.kind <= '9':
		if n, ok := parseInt(d.data[v.s:v.e]); ok {
			return n, true, nil
		}
	}
	return 0, false, fmt.Errorf("sse: %s: want an integer or null", path)
}

// syntaxError describes why the scanner refused data.
func (d *fastDec) syntaxError(what string) error {
	d.i = 0
	d.ws()
	if d.peek() != '{' {
		return fmt.Errorf("sse: %s: want a JSON object", what)
	}
	return errMalformed
}
