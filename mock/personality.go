package mock

import (
	"bufio"
	"net/http"
	"sort"
	"strings"
	"time"
)

// Personalities: the servers whose habits the mock can show
// (Config.Personality). Each is one row of personalities; the code that
// serves a habit reads the row.
const (
	// PersonalityVLLM is vLLM: the mock's own behaviour.
	PersonalityVLLM = "vllm"
	// PersonalityLlamaCpp is llama.cpp's llama-server: it closes the
	// connection right after every streamed response (advertising
	// keep-alive, without Connection: close), serves llamacpp:* series
	// at /metrics and GET /props, and puts timings and a
	// system_fingerprint in its responses; its POST /tokenize takes
	// {"content"} and answers {"tokens"}, where vLLM's takes {"prompt"}.
	PersonalityLlamaCpp = "llamacpp"
	// PersonalityOllama is Ollama's OpenAI-compatible API: it reads the
	// output limit from max_tokens only (not max_completion_tokens) and
	// knows no ignore_eos, serves the model as name:latest (and resolves
	// name to it), answers GET /api/version, fingerprints every chunk
	// fp_ollama, reads only include_usage of stream_options, puts a usage
	// of zeros on every text completion chunk (the real one comes last,
	// when asked for), wraps text completions in the template too (their
	// prompts bill ChatTemplateTokens more), cuts a prompt longer than
	// MaxModelLen (num_ctx) to it instead of refusing it, and has no
	// /metrics nor /tokenize.
	PersonalityOllama = "ollama"
)

// Which exposition GET /metrics serves.
const (
	metricsVLLM = iota
	metricsLlamaCpp
	metricsNone
)

// personality is what a server does differently from vLLM.
type personality struct {
	closeAfterStream bool   // end the connection after every streamed response
	keepAlive        string // a Keep-Alive header on streamed responses, "" none
	metrics          int
	props            bool   // GET /props (llama-server)
	apiVersion       bool   // GET /api/version (Ollama)
	timings          bool   // llama-server's per-response timings
	fingerprint      string // system_fingerprint on every chunk: "" none, "version" Config.Version
	maxTokensOnly    bool   // max_completion_tokens and ignore_eos are not read
	latestTag        bool   // the model is name:latest, and name resolves to it
	zeroChunkUsage   bool   // a usage of zeros on every text completion chunk (Ollama)
	includeUsageOnly bool   // stream_options.continuous_usage_stats (vLLM's) is not read
	templateAll      bool   // ChatTemplateTokens on text completions too (Ollama templates every prompt)
	cutToContext     bool   // a prompt longer than MaxModelLen is cut to it, and a limit past it is not refused
	tokenize         int    // the form of POST /tokenize and /detokenize
	noControl        bool   // no cache reset nor profiler routes (control.go)
}

var personalities = map[string]personality{
	PersonalityVLLM: {},
	PersonalityLlamaCpp: {closeAfterStream: true, keepAlive: "timeout=5, max=100", metrics: metricsLlamaCpp, props: true,
		timings: true, fingerprint: "version", tokenize: tokenizeLlamaCpp, noControl: true},
	PersonalityOllama: {metrics: metricsNone, apiVersion: true, fingerprint: "fp_ollama", maxTokensOnly: true, latestTag: true,
		zeroChunkUsage: true, includeUsageOnly: true, templateAll: true, cutToContext: true, tokenize: tokenizeNone, noControl: true},
}

// PersonalityNames lists the personalities, sorted.
func PersonalityNames() []string {
	names := make([]string, 0, len(personalities))
	for n := range personalities {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// pers is the configured personality ("" is vLLM).
func (c *Config) pers() personality { return personalities[c.Personality] }

// resolveModel is the served model a request's model names: with Ollama's
// habit, a name without a tag is name:latest.
func (c *Config) resolveModel(model string) string {
	if c.pers().latestTag && model != "" && !strings.Contains(model, ":") {
		return model + ":latest"
	}
	return model
}

// fingerprintJSON is the system_fingerprint value as a JSON string, ""
// when the personality sends none.
func (c *Config) fingerprintJSON() string {
	switch f := c.pers().fingerprint; f {
	case "":
		return ""
	case "version":
		return jsonString(c.Version)
	default:
		return jsonString(f)
	}
}

// closeAfterResponse ends the connection of a streamed response once all
// of it is written, as llama-server does: the chunked encoding's last
// chunk goes out and the connection closes, with no Connection: close
// announced before. Without a hijackable connection (HTTP/2) it does
// nothing.
func closeAfterResponse(w http.ResponseWriter) {
	conn, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	_ = conn.SetWriteDeadline(time.Now().Add(time.Second))
	writeLastChunk(rw.Writer)
}

func writeLastChunk(w *bufio.Writer) {
	_, _ = w.WriteString("0\r\n\r\n")
	_ = w.Flush()
}

// serveProps answers llama-server's GET /props: its build and slots.
func (s *Server) serveProps(w http.ResponseWriter, _ *http.Request) {
	b := append([]byte(`{"model_path":`), s.modelJSON...)
	if c := s.cfg.Capacity; c != nil {
		b = append(b, `,"total_slots":`...)
		b = appendInt(b, int64(c.MaxNumSeqs))
	}
	b = append(b, `,"default_generation_settings":{"n_ctx":`...)
	b = appendInt(b, int64(s.cfg.MaxModelLen))
	b = append(b, `},"build_info":`...)
	b = append(b, jsonString(s.cfg.Version)...)
	writeJSON(w, http.StatusOK, append(b, '}'))
}

// serveAPIVersion answers Ollama's GET /api/version.
func (s *Server) serveAPIVersion(w http.ResponseWriter, _ *http.Request) {
	s.serveVersion(w, nil)
}
