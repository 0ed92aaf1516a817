// Package reqtype is the table of request types: one row per API goodput
// sends (chat, completions, Responses, Messages, transcriptions,
// translations, embeddings, rerank (Cohere's, TEI's, NIM's), score, vLLM's pooling, image
// generation) with its path, its names in
// every dialect (the report's and GuideLLM's request type, AIPerf's
// endpoint type, the aliases the command line accepts), how it streams,
// what its output is counted in, its default SLO and the media it takes.
// The command line, run, the report's exports, slo and the mock loop over
// All; loadgen and the mock attach their body builder, decoder and handler
// to a row's API. It imports nothing of goodput's.
//
// Adding a request type: a row here, its body and decoder in loadgen
// (registered under its API) and the mock's handler (registered the same
// way).
package reqtype

import "strings"

// API names the request body and response a type sends and reads: loadgen
// and the mock register their code under it.
type API uint8

// The APIs.
const (
	APIChat API = iota
	APICompletions
	APIResponses
	APIMessages
	APITranscriptions
	APIEmbeddings
	APIRerank
	APITEIRerank
	APINIMRanking
	APIScore
	APIPooling
	APIImages
)

// Output is what a request's output is counted in.
type Output uint8

const (
	OutputTokens Output = iota // generated tokens (the stream's)
	OutputNone                 // nothing: pooling requests count their inputs and input tokens
	OutputItems                // items (images), counted in the record's inputs
)

// SLO is the family of a default SLO.
type SLO uint8

const (
	SLOTokens  SLO = iota // time to first token and inter-token latency
	SLOLatency            // the request latency: no tokens to time
)

// Type is one request type.
type Type struct {
	Name    string   // the report's request_type and GuideLLM's --request-type, e.g. chat_completions
	Path    string   // the default path, e.g. /v1/chat/completions
	Aliases []string // further --request-type spellings (Name and Path are always accepted)
	Help    string   // what --request-type's help says of it, after its name ("" nothing)
	Report  string   // the report's name of it (its prompt overhead's key) where not Name
	// AIPerf is AIPerf's endpoint type ("" none); Profile says whether
	// goodput profile's --endpoint-type takes it, and Vendor whose path it
	// is in its help ("Anthropic's").
	AIPerf  string
	Profile bool
	Vendor  string
	// KeyEnv is the environment variable read first for the API key (""
	// only $OPENAI_API_KEY).
	KeyEnv string
	// GuideLLM is the request_format the report's spec gives GuideLLM
	// (its closed list), the real path then in api_routes; "" is Path.
	GuideLLM string
	API      API
	// Stream: the type streams unless --no-stream; without it, every
	// request is one JSON body.
	Stream bool
	Output Output
	// Inputs names what the report's extras count per request in
	// "inputs" ("" none).
	Inputs string
	// Batch names what --batch-size sets the number of per request ("":
	// it takes none).
	Batch string
	// SLO is the default SLO's family; NoStreamSLO that of a run with
	// --no-stream.
	SLO, NoStreamSLO SLO
	Media            []string // media kinds the body carries ("image", "audio", "video")
	NeedsMedia       string   // a media kind every request must carry ("" none)
	Tools            bool     // sessions may declare tools
	ServerHistory    bool     // sessions may keep their history on the server
	// MaxTokens are the output limit's default fields, sent alike (none:
	// the body sends no limit); MaxTokensFixed, the API takes no other.
	MaxTokens      []string
	MaxTokensFixed bool
	SendsModel     bool     // the body names the model
	MockPaths      []string // further paths the mock serves the same way
}

// The default paths.
const (
	PathChat           = "/v1/chat/completions"
	PathCompletions    = "/v1/completions"
	PathResponses      = "/v1/responses"
	PathMessages       = "/v1/messages"
	PathEmbeddings     = "/v1/embeddings"
	PathRerank         = "/v1/rerank"
	PathTEIRerank      = "/rerank"
	PathNIMRanking     = "/v1/ranking"
	PathScore          = "/score"
	PathTranscriptions = "/v1/audio/transcriptions"
	PathTranslations   = "/v1/audio/translations"
	PathPooling        = "/pooling"
	PathImages         = "/v1/images/generations"
)

// All is the table, in the order the command line lists it.
var All = [...]Type{
	{Name: "chat_completions", Path: PathChat, Aliases: []string{"chat"}, AIPerf: "chat", Profile: true,
		API: APIChat, Stream: true, Output: OutputTokens, SLO: SLOTokens, NoStreamSLO: SLOTokens,
		Media: []string{"image", "audio", "video"}, Tools: true, MaxTokens: []string{"max_tokens", "max_completion_tokens"}, SendsModel: true},
	{Name: "text_completions", Path: PathCompletions, Aliases: []string{"completions"}, AIPerf: "completions", Profile: true,
		API: APICompletions, Stream: true, Output: OutputTokens, SLO: SLOTokens, NoStreamSLO: SLOTokens, MaxTokens: []string{"max_tokens"}, SendsModel: true},
	{Name: "responses", Path: PathResponses, Help: "OpenAI Responses", AIPerf: "responses", Profile: true,
		API: APIResponses, Stream: true, Output: OutputTokens, SLO: SLOTokens, NoStreamSLO: SLOTokens,
		Media: []string{"image"}, Tools: true, ServerHistory: true, MaxTokens: []string{"max_output_tokens"}, MaxTokensFixed: true, SendsModel: true},
	{Name: "messages", Path: PathMessages, Aliases: []string{"anthropic_messages"}, Help: "Anthropic Messages",
		AIPerf: "messages", Profile: true, Vendor: "Anthropic's", KeyEnv: "ANTHROPIC_API_KEY", GuideLLM: PathChat,
		API: APIMessages, Stream: true, Output: OutputTokens, SLO: SLOTokens, NoStreamSLO: SLOTokens,
		Media: []string{"image"}, Tools: true, MaxTokens: []string{"max_tokens"}, MaxTokensFixed: true, SendsModel: true},
	{Name: "embeddings", Path: PathEmbeddings, AIPerf: "embeddings", Profile: true,
		API: APIEmbeddings, Output: OutputNone, Inputs: "inputs", Batch: "inputs", SLO: SLOLatency, NoStreamSLO: SLOLatency, SendsModel: true},
	{Name: "rerank", Path: PathRerank, Aliases: []string{"cohere_rankings"}, Help: "Cohere/vLLM form", AIPerf: "cohere_rankings", Profile: true,
		GuideLLM: "/pooling", API: APIRerank, Output: OutputNone, Inputs: "documents", Batch: "documents",
		SLO: SLOLatency, NoStreamSLO: SLOLatency, SendsModel: true, MockPaths: []string{"/v2/rerank"}},
	{Name: "tei_rerank", Path: PathTEIRerank, Aliases: []string{"hf_tei_rankings"}, Help: "Hugging Face TEI", AIPerf: "hf_tei_rankings", Profile: true,
		Vendor: "TEI's", GuideLLM: "/pooling", API: APITEIRerank, Output: OutputNone, Inputs: "documents", Batch: "documents",
		SLO: SLOLatency, NoStreamSLO: SLOLatency},
	{Name: "nim_rerank", Path: PathNIMRanking, Aliases: []string{"nim_rankings"}, Help: "NVIDIA NIM", AIPerf: "nim_rankings", Profile: true,
		Vendor: "NIM's", GuideLLM: "/pooling", API: APINIMRanking, Output: OutputNone, Inputs: "documents", Batch: "documents",
		SLO: SLOLatency, NoStreamSLO: SLOLatency, SendsModel: true},
	{Name: "score", Path: PathScore, Help: "vLLM", GuideLLM: "/pooling", API: APIScore, Output: OutputNone, Inputs: "documents",
		Batch: "documents", SLO: SLOLatency, NoStreamSLO: SLOLatency, SendsModel: true, MockPaths: []string{"/v1/score"}},
	{Name: "pooling", Path: PathPooling, Help: "vLLM: a pooling_column's objects, else the prompt",
		API: APIPooling, Output: OutputNone, Inputs: "inputs", SLO: SLOLatency, NoStreamSLO: SLOLatency, SendsModel: true},
	{Name: "audio_transcriptions", Path: PathTranscriptions, Aliases: []string{"transcriptions"},
		Help: "multipart; needs audio in the data", Report: "audio/transcriptions", AIPerf: "audio_transcriptions", API: APITranscriptions, Stream: true,
		Output: OutputTokens, Inputs: "audio_seconds", SLO: SLOTokens, NoStreamSLO: SLOLatency,
		Media: []string{"image", "audio", "video"}, NeedsMedia: "audio", SendsModel: true},
	{Name: "audio_translations", Path: PathTranslations, Aliases: []string{"translations"},
		Help: "multipart, into English; needs audio in the data", Report: "audio/translations", API: APITranscriptions, Stream: true,
		Output: OutputTokens, Inputs: "audio_seconds", SLO: SLOTokens, NoStreamSLO: SLOLatency,
		Media: []string{"image", "audio", "video"}, NeedsMedia: "audio", SendsModel: true},
	{Name: "image_generation", Path: PathImages, Help: "OpenAI images; --batch-size sets n", AIPerf: "image_generation", Profile: true,
		GuideLLM: "/pooling", API: APIImages, Output: OutputItems, Inputs: "images", Batch: "images",
		SLO: SLOLatency, NoStreamSLO: SLOLatency, SendsModel: true},
}

// ByName finds a type by its name, an alias or its path (the forms
// --request-type and GuideLLM's request_format take).
func ByName(s string) (*Type, bool) {
	for i := range All {
		t := &All[i]
		if s == t.Name || s == t.Path || contains(t.Aliases, s) {
			return t, true
		}
	}
	return nil, false
}

// ByPath finds a type by its default path.
func ByPath(path string) (*Type, bool) {
	for i := range All {
		if All[i].Path == path {
			return &All[i], true
		}
	}
	return nil, false
}

// ByAIPerf finds a type goodput profile takes by AIPerf's endpoint type.
func ByAIPerf(s string) (*Type, bool) {
	for i := range All {
		if t := &All[i]; t.Profile && t.AIPerf == s {
			return t, true
		}
	}
	return nil, false
}

// Pooling reports whether t is a pooling type: one JSON body answering its
// inputs, no output.
func (t *Type) Pooling() bool { return t.Output == OutputNone }

// DefaultSLO is the family of t's default SLO, streamed or not.
func (t *Type) DefaultSLO(stream bool) SLO {
	if stream && t.Stream {
		return t.SLO
	}
	return t.NoStreamSLO
}

// Takes reports whether t's body carries media of kind.
func (t *Type) Takes(kind string) bool { return contains(t.Media, kind) }

// ReportName is the report's name of t.
func (t *Type) ReportName() string {
	if t.Report != "" {
		return t.Report
	}
	return t.Name
}

// RouteFormat is the request_format GuideLLM reads for t.
func (t *Type) RouteFormat() string {
	if t.GuideLLM != "" {
		return t.GuideLLM
	}
	return t.Path
}

// Names lists the field f of the types keep selects, joined as a list
// ("a, b or c"), e.g. the names an error message offers.
func Names(keep func(*Type) bool, f func(*Type) string, last string) string {
	var ns []string
	for i := range All {
		if t := &All[i]; keep == nil || keep(t) {
			ns = append(ns, f(t))
		}
	}
	return Join(ns, last)
}

// Join joins a list as prose: "a, b or c" with last "or", "a, b, c" with
// last "".
func Join(ns []string, last string) string {
	if len(ns) < 2 || last == "" {
		return strings.Join(ns, ", ")
	}
	return strings.Join(ns[:len(ns)-1], ", ") + " " + last + " " + ns[len(ns)-1]
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
