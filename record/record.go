// Package record defines the per-request measurement record that the load
// engine produces and every report consumes, and its JSON Lines encoding.
//
// A Record is the single source of truth for one request: every report,
// distribution, SLO verdict and merge can be rebuilt from a stream of them.
// All timestamps are Unix nanoseconds derived from the process's monotonic
// clock (a wall-clock anchor taken once, plus monotonic elapsed time), so the
// difference of two timestamps of one process is an exact monotonic interval
// and timestamps of different processes on one host line up. Zero means
// "did not happen".
//
// Write records with NewEncoder(w).Encode (then Flush) and read them back
// with NewDecoder(r, name).Decode; ParseStatus reads a Status.
package record

// Status is the outcome class of a request, in GuideLLM's terms.
type Status uint8

// Statuses. The zero value is invalid so that an unset status is detectable.
const (
	StatusSuccessful Status = iota + 1
	StatusErrored
	StatusIncomplete
)

// String returns the name used in reports: successful, errored or incomplete.
func (s Status) String() string {
	switch s {
	case StatusSuccessful:
		return "successful"
	case StatusErrored:
		return "errored"
	case StatusIncomplete:
		return "incomplete"
	}
	return "unknown"
}

// ParseStatus is the inverse of Status.String.
func ParseStatus(s string) (Status, bool) {
	switch s {
	case "successful":
		return StatusSuccessful, true
	case "errored":
		return StatusErrored, true
	case "incomplete":
		return StatusIncomplete, true
	}
	return 0, false
}

// ErrorClass says why a request did not succeed.
type ErrorClass string

// Error classes. Every errored or incomplete request carries exactly one.
const (
	ErrNone          ErrorClass = ""
	ErrHTTPStatus    ErrorClass = "http_status"    // non-2xx response status
	ErrConnect       ErrorClass = "connect"        // dial failed or refused
	ErrTimeout       ErrorClass = "timeout"        // connect, header or total timeout
	ErrStall         ErrorClass = "stall"          // no chunk within the stall timeout
	ErrDisconnect    ErrorClass = "disconnect"     // connection closed before the stream ended
	ErrStreamError   ErrorClass = "stream_error"   // an {"error": ...} payload inside the stream
	ErrProtocol      ErrorClass = "protocol"       // malformed chunk, wrong content type, bad body
	ErrEmptyResponse ErrorClass = "empty_response" // completed without any output token
	ErrCancelled     ErrorClass = "cancelled"      // cancelled by the run (benchmark end, interrupt)
	ErrClient        ErrorClass = "client"         // the request could not be built or sent
	// ErrToolCallMissing: a session's tool-call turn got no tool call and
	// the session counts that an error (tool_call_missing_behavior=error).
	ErrToolCallMissing ErrorClass = "tool_call_missing"
)

// TokenSource says where Record.OutputTokens came from.
type TokenSource uint8

// Token sources, best first.
const (
	TokensUnknown   TokenSource = iota
	TokensUsage                 // the server's usage block
	TokensTokenizer             // the client's tokenizer on the streamed text
	TokensChunks                // one token per token-bearing chunk (last resort)
)

// String returns the name used in records and reports.
func (t TokenSource) String() string {
	switch t {
	case TokensUsage:
		return "usage"
	case TokensTokenizer:
		return "tokenizer"
	case TokensChunks:
		return "chunks"
	}
	return "unknown"
}

// ParseTokenSource is the inverse of TokenSource.String.
func ParseTokenSource(s string) TokenSource {
	switch s {
	case "usage":
		return TokensUsage
	case "tokenizer":
		return TokensTokenizer
	case "chunks":
		return TokensChunks
	}
	return TokensUnknown
}

// Record is one request's measurements. Times are Unix nanoseconds (see the
// package comment); zero means the event did not happen.
type Record struct {
	ID        uint64 // unique within a run, in order of scheduling
	Benchmark int    // index of the benchmark (round) within the run
	Shard     int    // shard index for multi-pod runs (0 otherwise)
	// Warmup marks a request of the warmup phase run before the
	// benchmark's measured one (AIPerf's warmup): reports leave it out.
	Warmup bool

	Status     Status
	ErrorClass ErrorClass
	Error      string // short message; never contains secrets
	HTTPStatus int    // response status code, 0 if none was received

	ResponseID   string // the server's id for the completion
	FinishReason string

	Intended         int64 // when the schedule wanted the request sent
	Dispatched       int64 // when the client began the request (GuideLLM's request_start)
	Connected        int64 // when the request got its connection (taken from the pool or dialled for it)
	Sent             int64 // when the request was fully written
	Headers          int64 // when the response headers arrived
	FirstChunk       int64 // first SSE event of any kind
	FirstToken       int64 // first chunk carrying content, reasoning or a tool call
	FirstOutputToken int64 // first chunk carrying non-reasoning content or a tool call
	LastToken        int64 // last token-bearing chunk
	End              int64 // stream closed or body read, or the request failed

	// ChunkTimes holds the arrival time of every token-bearing chunk, in
	// order; ChunkTokens the number of tokens each carried when the server
	// reported it (continuous usage stats), else nil. EmitTimes holds the
	// emission timestamp a goodput mock stamps on each such chunk, else nil.
	ChunkTimes  []int64
	ChunkTokens []int32
	EmitTimes   []int64

	Iterations int // SSE events received (GuideLLM's request_iterations)

	// ConnReused says the request went on a kept-alive connection from
	// the pool (known when Connected is set).
	ConnReused bool

	// RxKernel says Headers, FirstChunk, the token times, ChunkTimes and
	// End (of a completed stream) are the kernel's receive timestamps of
	// the bytes, converted to the run clock; otherwise they are the times
	// the client's reads returned. MaxReadLag is then the longest the
	// client took to read bytes after the kernel received them, in ns.
	RxKernel   bool
	MaxReadLag int64

	// Token counts. PromptTokens and OutputTokens are the figures used in
	// metrics (server usage first); the Server* and Client* fields keep both
	// sides for the mismatch report (-1 when that side is unknown: the
	// client counts only with a tokenizer, never by chunks).
	// ClientPromptTokens counts the raw prompt content (Request.Text()),
	// without the chat template or special tokens the server adds.
	PromptTokens       int
	OutputTokens       int
	ReasoningTokens    int
	CachedTokens       int // -1 when unknown
	OutputSource       TokenSource
	ServerPromptTokens int
	ServerOutputTokens int
	ClientPromptTokens int
	ClientOutputTokens int

	// Model is the model the request was sent to, and Target the server
	// (its public URL), when the run has several; "" otherwise.
	Model, Target string

	// MediaBytes is the size of the images and audio a request sent
	// (before base64); 0 without. AudioSeconds is the length of its audio
	// (a transcription's file), 0 without.
	MediaBytes   int
	AudioSeconds float64
	// Media is the request's media by kind, in GuideLLM's input_metrics
	// terms; a figure not known (a .webp image's pixels, an .mp3's
	// samples, an .mp4's frames) is 0 for the whole request.
	Media Media

	// Inputs is the number of inputs of a pooling request: the texts of
	// an embeddings request, the documents of a rerank or score request;
	// 0 for generative requests.
	Inputs int

	// What the request asked for (-1 when not set).
	RequestedPromptTokens int
	RequestedOutputTokens int

	// OutputText and ReasoningText are kept only when the run samples
	// request bodies; empty otherwise.
	OutputText    string
	ReasoningText string

	// Session is set when the request is a turn of a conversation (a
	// session); its zero value means a standalone request.
	Session Session

	// ServerTimings are the server's own times for the request, when its
	// response carried them (llama-server's "timings"); zero otherwise.
	ServerTimings ServerTimings
}

// ServerTimings are a server's own per-request times (llama-server's
// "timings": prompt_n, prompt_ms, predicted_n, predicted_ms, cache_n),
// with the milliseconds converted to nanoseconds. PromptNS is the prefill:
// from the slot starting to process the prompt to the first token sampled,
// so it does not contain time spent waiting for a slot. PredictedNS runs
// from the first token sampled to the last, PredictedTokens of them.
type ServerTimings struct {
	Present         bool
	PromptTokens    int   // prompt tokens processed (cached ones excluded); -1 unknown
	CachedTokens    int   // prompt tokens reused from the cache; -1 unknown
	PredictedTokens int   // -1 unknown
	PromptNS        int64 // -1 unknown
	PredictedNS     int64 // -1 unknown
}

// Session places a request within its conversation.
type Session struct {
	ID    string // stable per-session id ("" outside sessions)
	Turn  int    // 0-based turn index
	Turns int    // turns the session was to have
	// HistoryMessages counts the messages sent before this turn's own
	// user message (system prefix, earlier turns, replies, tool calls and
	// results); HistoryTokens is the tokens of that history as the
	// previous turn's usage reported them (its prompt plus its output),
	// -1 when unknown.
	HistoryMessages int
	HistoryTokens   int
	// ToolCalls is the number of tool calls the response carried.
	ToolCalls int
}

// Reset clears r for reuse, keeping the capacity of its slices.
func (r *Record) Reset() {
	ct, ck, et := r.ChunkTimes[:0], r.ChunkTokens[:0], r.EmitTimes[:0]
	*r = Record{}
	r.ChunkTimes, r.ChunkTokens, r.EmitTimes = ct, ck, et
	r.CachedTokens = -1
	r.ServerPromptTokens, r.ServerOutputTokens = -1, -1
	r.ClientPromptTokens, r.ClientOutputTokens = -1, -1
	r.RequestedPromptTokens, r.RequestedOutputTokens = -1, -1
}

// UnknownServerTimings is a present ServerTimings with every figure
// unknown: fill what the response gave.
func UnknownServerTimings() ServerTimings {
	return ServerTimings{Present: true, PromptTokens: -1, CachedTokens: -1, PredictedTokens: -1, PromptNS: -1, PredictedNS: -1}
}

// Media is what a request's images, audio and video were (0: none, or
// not known). The audio's length is Record.AudioSeconds.
type Media struct {
	ImageCount, ImagePixels, ImageBytes int
	AudioSamples, AudioBytes            int
	VideoFrames, VideoBytes             int
	VideoSeconds                        float64
}

// New returns a record with every "unknown" field set to -1.
func New() *Record {
	r := &Record{}
	r.Reset()
	return r
}

// Started is the request's start time in GuideLLM's sense: dispatch, or the
// intended time when the request never got that far.
func (r *Record) Started() int64 {
	if r.Dispatched != 0 {
		return r.Dispatched
	}
	return r.Intended
}
