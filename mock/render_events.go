package mock

// Rendering of the OpenAI Responses (POST /v1/responses) and Anthropic
// Messages (POST /v1/messages) streams and bodies, in the shapes of the
// providers' documentation: a text response, one content part, usage in
// the terminal event. As for chat, payloads are appended to a reused
// buffer without encoding/json, each with the emission stamp.

// Responses sequence numbers: four events open a text stream (created,
// in_progress, output_item.added, content_part.added), three a function
// call's (no content part), then one delta per step, then four (three)
// close it.
func (r *renderer) responsesOpening() int {
	if r.tool {
		return 3
	}
	return 4
}

// appendEventHead appends `event: <typ>\ndata: {"type":"<typ>"`.
func appendEventHead(b []byte, typ string) []byte {
	b = append(b, "event: "...)
	b = append(b, typ...)
	b = append(b, "\ndata: {\"type\":\""...)
	b = append(b, typ...)
	return append(b, '"')
}

// appendSeq appends `,"sequence_number":n`.
func appendSeq(b []byte, n int) []byte {
	b = append(b, `,"sequence_number":`...)
	return appendInt(b, int64(n))
}

func (r *renderer) steps() int { return (r.tokens + r.tpc - 1) / r.tpc }

// appendFullText appends the whole output text.
func (r *renderer) appendFullText(b []byte) []byte {
	for i := range r.steps() {
		b = r.appendText(b, i)
	}
	return b
}

// appendResponseID appends the response's id, appendMessageID its
// message's (the Messages API's message id too).
func (r *renderer) appendResponseID(b []byte) []byte {
	b = append(b, "resp_"...)
	b = appendHex64(b, r.idHi)
	return appendHex64(b, r.idLo)
}

func (r *renderer) appendMessageID(b []byte) []byte {
	b = append(b, "msg_"...)
	b = appendHex64(b, r.idLo)
	return appendHex64(b, r.idHi)
}

// appendResponsesItem appends the output item: the message, or the
// function call.
func (r *renderer) appendResponsesItem(b []byte, status string) []byte {
	if r.tool {
		b = append(b, `{"id":"`...)
		b = r.appendCallID(b, "fc_")
		b = append(b, `","type":"function_call","status":"`...)
		b = append(b, status...)
		b = append(b, `","arguments":"`...)
		if status != "in_progress" {
			b = r.appendFullArgs(b, true)
		}
		b = append(b, `","call_id":"`...)
		b = r.appendCallID(b, "call_")
		b = append(b, `","name":`...)
		b = append(b, r.toolName...)
		return append(b, '}')
	}
	b = append(b, `{"id":"`...)
	b = r.appendMessageID(b)
	b = append(b, `","type":"message","status":"`...)
	b = append(b, status...)
	b = append(b, `","role":"assistant","content":[`...)
	if status != "in_progress" {
		b = append(b, `{"type":"output_text","text":"`...)
		b = r.appendFullText(b)
		b = append(b, `","annotations":[]}`...)
	}
	return append(b, "]}"...)
}

// appendResponseObject appends the response object: in progress (no
// output, usage null) or final (completed, or incomplete at the length
// limit, with the output item and usage).
func (r *renderer) appendResponseObject(b []byte, final bool) []byte {
	b = append(b, `{"id":"`...)
	b = r.appendResponseID(b)
	b = append(b, `","object":"response","created_at":`...)
	b = appendInt(b, r.created)
	switch {
	case !final:
		b = append(b, `,"status":"in_progress","error":null,"incomplete_details":null`...)
	case r.finish == "length":
		b = append(b, `,"status":"incomplete","error":null,"incomplete_details":{"reason":"max_output_tokens"}`...)
	default:
		b = append(b, `,"status":"completed","error":null,"incomplete_details":null`...)
	}
	b = append(b, `,"model":`...)
	b = append(b, r.modelJSON...)
	b = append(b, `,"output":[`...)
	if final {
		b = r.appendResponsesItem(b, "completed")
	}
	b = append(b, `],"usage":`...)
	if !final {
		return append(b, "null}"...)
	}
	b = append(b, `{"input_tokens":`...)
	b = appendInt(b, int64(r.prompt))
	b = append(b, `,"input_tokens_details":{"cached_tokens":`...)
	b = appendInt(b, int64(r.cached))
	b = append(b, `},"output_tokens":`...)
	b = appendInt(b, int64(r.tokens))
	b = append(b, `,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":`...)
	b = appendInt(b, int64(r.prompt+r.tokens))
	return append(b, "}}"...)
}

// appendItemRef appends `,"item_id":"msg_...","output_index":0,"content_index":0`
// (`,"item_id":"fc_...","output_index":0` for a function call).
func (r *renderer) appendItemRef(b []byte) []byte {
	if r.tool {
		b = append(b, `,"item_id":"`...)
		b = r.appendCallID(b, "fc_")
		return append(b, `","output_index":0`...)
	}
	b = append(b, `,"item_id":"`...)
	b = r.appendMessageID(b)
	return append(b, `","output_index":0,"content_index":0`...)
}

func (r *renderer) appendResponsesOpening(b []byte, ns int64) []byte {
	for i, typ := range [2]string{"response.created", "response.in_progress"} {
		b = appendEventHead(b, typ)
		b = appendSeq(b, i)
		b = append(b, `,"response":`...)
		b = r.appendResponseObject(b, false)
		b = r.appendTail(b, false, 0, ns)
	}
	b = appendEventHead(b, "response.output_item.added")
	b = appendSeq(b, 2)
	b = append(b, `,"output_index":0,"item":`...)
	b = r.appendResponsesItem(b, "in_progress")
	b = r.appendTail(b, false, 0, ns)
	if r.tool {
		return b
	}
	b = appendEventHead(b, "response.content_part.added")
	b = appendSeq(b, 3)
	b = r.appendItemRef(b)
	b = append(b, `,"part":{"type":"output_text","text":"","annotations":[]}`...)
	return r.appendTail(b, false, 0, ns)
}

func (r *renderer) appendResponsesDelta(b []byte, i int, ns int64) []byte {
	if r.tool {
		b = appendEventHead(b, "response.function_call_arguments.delta")
		b = appendSeq(b, r.responsesOpening()+i)
		b = r.appendItemRef(b)
		b = append(b, `,"delta":"`...)
		b = r.appendArgsDelta(b, i)
		b = append(b, '"')
		return r.appendTail(b, false, 0, ns)
	}
	b = appendEventHead(b, "response.output_text.delta")
	b = appendSeq(b, r.responsesOpening()+i)
	b = r.appendItemRef(b)
	b = append(b, `,"delta":"`...)
	b = r.appendText(b, i)
	b = append(b, `","logprobs":[]`...)
	return r.appendTail(b, false, 0, ns)
}

func (r *renderer) appendResponsesClosing(b []byte, ns int64) []byte {
	seq := r.responsesOpening() + r.steps()
	if r.tool {
		b = appendEventHead(b, "response.function_call_arguments.done")
		b = appendSeq(b, seq)
		b = r.appendItemRef(b)
		b = append(b, `,"name":`...)
		b = append(b, r.toolName...)
		b = append(b, `,"arguments":"`...)
		b = r.appendFullArgs(b, true)
		b = append(b, '"')
		b = r.appendTail(b, false, 0, ns)
		return r.appendResponsesEnd(b, seq+1, ns) // no content part
	}
	b = appendEventHead(b, "response.output_text.done")
	b = appendSeq(b, seq)
	b = r.appendItemRef(b)
	b = append(b, `,"text":"`...)
	b = r.appendFullText(b)
	b = append(b, `","logprobs":[]`...)
	b = r.appendTail(b, false, 0, ns)
	b = appendEventHead(b, "response.content_part.done")
	b = appendSeq(b, seq+1)
	b = r.appendItemRef(b)
	b = append(b, `,"part":{"type":"output_text","text":"`...)
	b = r.appendFullText(b)
	b = append(b, `","annotations":[]}`...)
	b = r.appendTail(b, false, 0, ns)
	return r.appendResponsesEnd(b, seq+2, ns)
}

// appendResponsesEnd appends response.output_item.done (sequence number
// seq) and the terminal event.
func (r *renderer) appendResponsesEnd(b []byte, seq int, ns int64) []byte {
	b = appendEventHead(b, "response.output_item.done")
	b = appendSeq(b, seq)
	b = append(b, `,"output_index":0,"item":`...)
	b = r.appendResponsesItem(b, "completed")
	b = r.appendTail(b, false, 0, ns)
	final := "response.completed"
	if r.finish == "length" {
		final = "response.incomplete"
	}
	b = appendEventHead(b, final)
	b = appendSeq(b, seq+1)
	b = append(b, `,"response":`...)
	b = r.appendResponseObject(b, true)
	return r.appendTail(b, false, 0, ns)
}

// appendMessagesUsage appends Anthropic's usage object: input_tokens are
// the prompt tokens not read from the cache, cache_read_input_tokens those
// that were, as Anthropic counts them.
func (r *renderer) appendMessagesUsage(b []byte, output int) []byte {
	b = append(b, `{"input_tokens":`...)
	b = appendInt(b, int64(r.prompt-r.cached))
	b = append(b, `,"cache_creation_input_tokens":0,"cache_read_input_tokens":`...)
	b = appendInt(b, int64(r.cached))
	b = append(b, `,"output_tokens":`...)
	b = appendInt(b, int64(output))
	return append(b, '}')
}

// stopReason is the Anthropic stop_reason of the request's finish.
func (r *renderer) stopReason() string {
	if r.tool {
		return "tool_use"
	}
	if r.finish == "length" {
		return "max_tokens"
	}
	return "end_turn"
}

func (r *renderer) appendMessagesOpening(b []byte, ns int64) []byte {
	b = appendEventHead(b, "message_start")
	b = append(b, `,"message":{"id":"`...)
	b = r.appendMessageID(b)
	b = append(b, `","type":"message","role":"assistant","content":[],"model":`...)
	b = append(b, r.modelJSON...)
	b = append(b, `,"stop_reason":null,"stop_sequence":null,"usage":`...)
	b = r.appendMessagesUsage(b, 1)
	b = append(b, '}')
	b = r.appendTail(b, false, 0, ns)
	b = appendEventHead(b, "content_block_start")
	if r.tool {
		b = append(b, `,"index":0,"content_block":{"type":"tool_use","id":"`...)
		b = r.appendCallID(b, "toolu_")
		b = append(b, `","name":`...)
		b = append(b, r.toolName...)
		b = append(b, `,"input":{}}`...)
	} else {
		b = append(b, `,"index":0,"content_block":{"type":"text","text":""}`...)
	}
	b = r.appendTail(b, false, 0, ns)
	b = appendEventHead(b, "ping")
	return r.appendTail(b, false, 0, ns)
}

func (r *renderer) appendMessagesDelta(b []byte, i int, ns int64) []byte {
	b = appendEventHead(b, "content_block_delta")
	if r.tool {
		b = append(b, `,"index":0,"delta":{"type":"input_json_delta","partial_json":"`...)
		b = r.appendArgsDelta(b, i)
	} else {
		b = append(b, `,"index":0,"delta":{"type":"text_delta","text":"`...)
		b = r.appendText(b, i)
	}
	b = append(b, `"}`...)
	return r.appendTail(b, false, 0, ns)
}

func (r *renderer) appendMessagesClosing(b []byte, ns int64) []byte {
	b = appendEventHead(b, "content_block_stop")
	b = append(b, `,"index":0`...)
	b = r.appendTail(b, false, 0, ns)
	b = appendEventHead(b, "message_delta")
	b = append(b, `,"delta":{"stop_reason":"`...)
	b = append(b, r.stopReason()...)
	b = append(b, `","stop_sequence":null},"usage":{"output_tokens":`...)
	b = appendInt(b, int64(r.tokens))
	b = append(b, '}')
	b = r.appendTail(b, false, 0, ns)
	b = appendEventHead(b, "message_stop")
	return r.appendTail(b, false, 0, ns)
}

// appendEventsStreamError appends the API's mid-stream error event
// before step i: Responses' "error" event, Anthropic's "error" event.
func (r *renderer) appendEventsStreamError(b []byte, i int, ns int64) []byte {
	b = appendEventHead(b, "error")
	if r.api == apiMessages {
		b = append(b, `,"error":{"type":"api_error","message":"goodput mock: injected stream error"}`...)
		return r.appendTail(b, false, 0, ns)
	}
	seq := 0
	if i > 0 {
		seq = r.responsesOpening() + i
	}
	b = appendSeq(b, seq)
	b = append(b, `,"code":"server_error","message":"goodput mock: injected stream error","param":null`...)
	return r.appendTail(b, false, 0, ns)
}

// appendEventsBody appends a non-streaming Responses or Messages body.
func (r *renderer) appendEventsBody(b []byte, ns int64) []byte {
	if r.api == apiResponses {
		b = r.appendResponseObject(b, true)
		b = b[:len(b)-1]
	} else {
		b = append(b, `{"id":"`...)
		b = r.appendMessageID(b)
		b = append(b, `","type":"message","role":"assistant","model":`...)
		b = append(b, r.modelJSON...)
		if r.tool {
			b = append(b, `,"content":[{"type":"tool_use","id":"`...)
			b = r.appendCallID(b, "toolu_")
			b = append(b, `","name":`...)
			b = append(b, r.toolName...)
			b = append(b, `,"input":`...)
			b = r.appendFullArgs(b, false)
			b = append(b, `}],"stop_reason":"`...)
		} else {
			b = append(b, `,"content":[{"type":"text","text":"`...)
			b = r.appendFullText(b)
			b = append(b, `"}],"stop_reason":"`...)
		}
		b = append(b, r.stopReason()...)
		b = append(b, `","stop_sequence":null,"usage":`...)
		b = r.appendMessagesUsage(b, r.tokens)
	}
	if r.stamp {
		b = append(b, `,"goodput_emit_ns":`...)
		b = appendInt(b, ns)
	}
	return append(b, '}')
}
