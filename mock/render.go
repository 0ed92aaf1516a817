package mock

// Chunk rendering. Each request renders its constant head once
// (`data: {"id":"...","object":"...","created":N,"model":"...","choices":[`)
// and every chunk appends the varying parts to a reused buffer: no
// encoding/json, no allocation per chunk. Field order follows vLLM's pydantic
// models; fields vLLM leaves unset are left out, as its exclude_unset does.

const (
	sseData = "data: "
	sseDone = "data: [DONE]\n\n"

	chatRoleDelta   = `{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]`
	chatDeltaOpen   = `{"index":0,"delta":{"content":"`
	chatDeltaClose  = `"},"logprobs":null,"finish_reason":`
	complTextOpen   = `{"index":0,"text":"`
	complTextClose  = `","logprobs":null,"finish_reason":`
	finishNull      = `null`
	stopReasonClose = `,"stop_reason":null}]`
)

// renderer renders one request's payloads.
type renderer struct {
	head       []byte // `{"id":...,"choices":[` of the stream chunks, without "data: "
	api        apiKind
	chat       bool // api == apiChat
	k          uint64
	idHi, idLo uint64
	created    int64
	modelJSON  string
	fpJSON     string // system_fingerprint as a JSON string, "" none (Config.Personality)
	tpc        int    // tokens per chunk
	tokens     int    // output tokens
	prompt     int
	finish     string
	stamp      bool
	contUsage  bool
	zeroUsage  bool // a usage of zeros on every text completion step chunk (Ollama)
	cached     int  // prompt tokens found in the prefix cache
	cacheOn    bool // the prefix cache is on: final usage reports cached tokens
	// llama-server's timings (Config.Personality), on the last chunk: the
	// usage chunk when one is sent (usageChunk), else the last step's.
	timings    bool
	usageChunk bool
	timing     llamaTimings

	// A tool call instead of text (see toolcall.go).
	tool        bool
	toolName    string // the function's name as a JSON string literal
	toolNameRaw string
	argsOpen    string // `{"<property>":"` inside a JSON string
	argsOpenRaw string
}

// appendObjectHead appends `{"id":"...","object":"<object>","created":N,"model":"...","choices":[`.
func (r *renderer) appendObjectHead(b []byte, object string) []byte {
	b = append(b, `{"id":"`...)
	if r.chat {
		b = append(b, "chatcmpl-"...)
	} else {
		b = append(b, "cmpl-"...)
	}
	b = appendHex64(b, r.idHi)
	b = appendHex64(b, r.idLo)
	b = append(b, `","object":"`...)
	b = append(b, object...)
	b = append(b, `","created":`...)
	b = appendInt(b, r.created)
	b = append(b, `,"model":`...)
	b = append(b, r.modelJSON...)
	if r.fpJSON != "" {
		b = append(b, `,"system_fingerprint":`...)
		b = append(b, r.fpJSON...)
	}
	return append(b, `,"choices":[`...)
}

// initHead renders the constant head of the request's stream chunks into
// buf's storage and keeps it.
func (r *renderer) initHead(buf []byte) {
	object := "text_completion"
	if r.chat {
		object = "chat.completion.chunk"
	}
	r.head = r.appendObjectHead(buf[:0], object)
}

const hexDigits = "0123456789abcdef"

// appendHex64 appends v as 16 lower-case hex digits.
func appendHex64(b []byte, v uint64) []byte {
	for shift := 60; shift >= 0; shift -= 4 {
		b = append(b, hexDigits[(v>>uint(shift))&0xf])
	}
	return b
}

// stepTokens returns the number of tokens in step i.
func (r *renderer) stepTokens(i int) int {
	return min(r.tpc, r.tokens-i*r.tpc)
}

// appendText appends the (escape-free) text of step i.
func (r *renderer) appendText(b []byte, i int) []byte {
	first := i * r.tpc
	for t := first; t < first+r.stepTokens(i); t++ {
		b = append(b, tokenText(r.k, t)...)
	}
	return b
}

// appendUsage appends `"usage":{...}` (no leading comma); with details,
// and the prefix cache on, prompt_tokens_details.cached_tokens too (as
// OpenAI reports it, and vLLM with --enable-prompt-tokens-details).
func (r *renderer) appendUsage(b []byte, completion int, details bool) []byte {
	b = append(b, `"usage":{"prompt_tokens":`...)
	b = appendInt(b, int64(r.prompt))
	b = append(b, `,"total_tokens":`...)
	b = appendInt(b, int64(r.prompt+completion))
	b = append(b, `,"completion_tokens":`...)
	b = appendInt(b, int64(completion))
	if details && r.cacheOn {
		b = append(b, `,"prompt_tokens_details":{"cached_tokens":`...)
		b = appendInt(b, int64(r.cached))
		b = append(b, '}')
	}
	return append(b, '}')
}

// appendTail closes a payload: continuous usage if asked, the stamp, the
// closing brace and the SSE event terminator.
func (r *renderer) appendTail(b []byte, usage bool, completion int, stampNs int64) []byte {
	if usage {
		b = append(b, ',')
		b = r.appendUsage(b, completion, false)
	}
	if r.stamp {
		b = append(b, `,"goodput_emit_ns":`...)
		b = appendInt(b, stampNs)
	}
	return append(b, "}\n\n"...)
}

// appendOpening appends what a stream sends with its first step: chat's
// role chunk, the Responses and Messages opening events; nothing for
// completions.
func (r *renderer) appendOpening(b []byte, stampNs int64) []byte {
	switch r.api {
	case apiChat:
		return r.appendRoleChunk(b, stampNs)
	case apiResponses:
		return r.appendResponsesOpening(b, stampNs)
	case apiMessages:
		return r.appendMessagesOpening(b, stampNs)
	}
	return b
}

// appendClosing appends what a stream sends after its last step: the
// OpenAI APIs' usage chunk (when asked for) and [DONE], the Responses and
// Messages closing events.
func (r *renderer) appendClosing(b []byte, includeUsage bool, stampNs int64) []byte {
	switch r.api {
	case apiResponses:
		return r.appendResponsesClosing(b, stampNs)
	case apiMessages:
		return r.appendMessagesClosing(b, stampNs)
	}
	if includeUsage {
		b = r.appendUsageChunk(b, stampNs)
	}
	return append(b, sseDone...)
}

// appendRoleChunk appends the chat stream's first chunk (role, empty content).
func (r *renderer) appendRoleChunk(b []byte, stampNs int64) []byte {
	b = append(b, sseData...)
	b = append(b, r.head...)
	b = append(b, chatRoleDelta...)
	return r.appendTail(b, r.contUsage, 0, stampNs)
}

// appendStepChunk appends the chunk of step i; the last step carries the
// finish reason and stop_reason, as vLLM's final token chunk does.
func (r *renderer) appendStepChunk(b []byte, i int, steps int, stampNs int64) []byte {
	switch r.api {
	case apiResponses:
		return r.appendResponsesDelta(b, i, stampNs)
	case apiMessages:
		return r.appendMessagesDelta(b, i, stampNs)
	}
	b = append(b, sseData...)
	b = append(b, r.head...)
	if r.chat && r.tool {
		b = r.appendToolCallDelta(b, i)
	} else if r.chat {
		b = append(b, chatDeltaOpen...)
		b = r.appendText(b, i)
		b = append(b, chatDeltaClose...)
	} else {
		b = append(b, complTextOpen...)
		b = r.appendText(b, i)
		b = append(b, complTextClose...)
	}
	if i == steps-1 {
		b = append(b, '"')
		b = append(b, r.finish...)
		b = append(b, '"')
		b = append(b, stopReasonClose...)
	} else if r.chat {
		b = append(b, finishNull...)
		b = append(b, "}]"...)
	} else {
		b = append(b, finishNull...)
		b = append(b, stopReasonClose...)
	}
	if i == steps-1 && !r.usageChunk {
		b = r.appendTimings(b)
	}
	if r.zeroUsage && !r.chat && !r.contUsage {
		b = append(b, `,"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}`...)
	}
	completion := min((i+1)*r.tpc, r.tokens)
	return r.appendTail(b, r.contUsage, completion, stampNs)
}

// appendUsageChunk appends the final usage-only chunk (`"choices":[]`).
func (r *renderer) appendUsageChunk(b []byte, stampNs int64) []byte {
	b = append(b, sseData...)
	b = append(b, r.head...)
	b = append(b, "],"...)
	b = r.appendUsage(b, r.tokens, true)
	b = r.appendTimings(b)
	return r.appendTail(b, false, 0, stampNs)
}

// appendStreamError appends a vLLM-style mid-stream error payload and
// [DONE], or the Responses or Messages error event, in place of step i.
func (r *renderer) appendStreamError(b []byte, i int, stampNs int64) []byte {
	if r.api == apiResponses || r.api == apiMessages {
		return r.appendEventsStreamError(b, i, stampNs)
	}
	b = append(b, sseData...)
	b = append(b, `{"error":{"message":"goodput mock: injected stream error","type":"InternalServerError","param":null,"code":500}`...)
	b = r.appendTail(b, false, 0, stampNs)
	return append(b, sseDone...)
}

// appendBody appends the non-streaming response body.
func (r *renderer) appendBody(b []byte, stampNs int64) []byte {
	if r.api == apiResponses || r.api == apiMessages {
		return r.appendEventsBody(b, stampNs)
	}
	switch {
	case r.chat && r.tool:
		b = r.appendObjectHead(b, "chat.completion")
		b = append(b, `{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"`...)
		b = r.appendCallID(b, chatToolIDPrefix)
		b = append(b, `","type":"function","function":{"name":`...)
		b = append(b, r.toolName...)
		b = append(b, `,"arguments":"`...)
		b = r.appendFullArgs(b, true)
		b = append(b, `"}}]},"logprobs":null,"finish_reason":"`...)
	case r.chat:
		b = r.appendObjectHead(b, "chat.completion")
		b = append(b, `{"index":0,"message":{"role":"assistant","content":"`...)
	default:
		b = r.appendObjectHead(b, "text_completion")
		b = append(b, complTextOpen...)
	}
	if !r.tool {
		b = r.appendFullText(b)
	}
	switch {
	case r.tool:
	case r.chat:
		b = append(b, `","tool_calls":[]},"logprobs":null,"finish_reason":"`...)
	default:
		b = append(b, `","logprobs":null,"finish_reason":"`...)
	}
	b = append(b, r.finish...)
	if r.chat {
		b = append(b, `","stop_reason":null}],`...)
		b = r.appendUsage(b, r.tokens, true)
		b = append(b, `,"prompt_logprobs":null`...)
	} else {
		b = append(b, `","stop_reason":null,"prompt_logprobs":null}],`...)
		b = r.appendUsage(b, r.tokens, true)
	}
	b = r.appendTimings(b)
	if r.stamp {
		b = append(b, `,"goodput_emit_ns":`...)
		b = appendInt(b, stampNs)
	}
	return append(b, '}')
}

// chatToolIDPrefix starts a chat tool call's id, as vLLM's do.
const chatToolIDPrefix = "chatcmpl-tool-"

// appendToolCallDelta appends a chat chunk's choice for step i of a tool
// call, up to the finish reason: the first step carries the call's index,
// id, type and name with the first arguments delta, the others
// {"index":0,"function":{"arguments":"..."}}.
func (r *renderer) appendToolCallDelta(b []byte, i int) []byte {
	b = append(b, `{"index":0,"delta":{"tool_calls":[{"index":0,`...)
	if i == 0 {
		b = append(b, `"id":"`...)
		b = r.appendCallID(b, chatToolIDPrefix)
		b = append(b, `","type":"function","function":{"name":`...)
		b = append(b, r.toolName...)
		b = append(b, `,"arguments":"`...)
	} else {
		b = append(b, `"function":{"arguments":"`...)
	}
	b = r.appendArgsDelta(b, i)
	return append(b, `"}}]},"logprobs":null,"finish_reason":`...)
}
