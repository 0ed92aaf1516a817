package loadgen

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/goodput-dev/goodput/internal/redact"
	"github.com/goodput-dev/goodput/reqtype"
)

// Endpoint selects the API the client talks to (the request body, the
// stream's events and the headers), named by its default path.
type Endpoint string

// Endpoints: the paths of the request types (reqtype.All) the code names.
const (
	EndpointChat           Endpoint = reqtype.PathChat
	EndpointCompletions    Endpoint = reqtype.PathCompletions
	EndpointResponses      Endpoint = reqtype.PathResponses // OpenAI Responses API
	EndpointMessages       Endpoint = reqtype.PathMessages  // Anthropic Messages API
	EndpointTranscriptions Endpoint = reqtype.PathTranscriptions
	EndpointEmbeddings     Endpoint = reqtype.PathEmbeddings // OpenAI embeddings (vLLM, TEI, Ollama)
	EndpointRerank         Endpoint = reqtype.PathRerank     // Cohere's rerank form, as vLLM and Jina serve it
	EndpointTEIRerank      Endpoint = reqtype.PathTEIRerank  // Hugging Face TEI's rerank: {"query","texts"}
	EndpointNIMRanking     Endpoint = reqtype.PathNIMRanking // NVIDIA NIM's ranking: {"query":{"text"},"passages":[{"text"}]}
	EndpointScore          Endpoint = reqtype.PathScore      // vLLM's score: {"text_1","text_2"}
)

// AnthropicVersion is the anthropic-version header sent to /v1/messages
// unless Headers set one.
const AnthropicVersion = "2023-06-01"

// DefaultMessagesMaxTokens is the max_tokens of a Messages request whose
// output length is not fixed: the API requires the field.
const DefaultMessagesMaxTokens = 4096

// ClientConfig configures the HTTP client. The zero value of each field is
// replaced by the default named in its comment, except where noted.
type ClientConfig struct {
	// Target is the server's base URL, e.g. http://vllm:8000; a trailing
	// "/" or "/v1" is removed.
	Target string
	// Targets, when several, are servers (replicas without a load
	// balancer) requests are spread over by TargetSelection (default
	// round_robin; see targets.go); Target is then the first.
	Targets         []string
	TargetSelection string
	Endpoint        Endpoint // default EndpointChat
	// Path overrides the endpoint's path (its default, e.g.
	// /v1/chat/completions); it is joined to Target, whose own path
	// prefix is kept.
	Path  string
	Model string // required by Do; see ResolveModel
	// Models, when several, are the models requests are sent to (Model
	// is then the first), chosen per request by ModelSelection (default
	// round_robin, or weighted when ModelWeights are given) seeded by
	// ModelSeed; see models.go.
	Models         []string
	ModelWeights   []float64
	ModelSelection string
	ModelSeed      uint64
	// BatchSize is the number of inputs of an embeddings request, or of
	// documents of a rerank or score request (see Client.Group); 0 means 1.
	BatchSize int

	// APIKey is sent as "Authorization: Bearer", or as "x-api-key" to
	// EndpointMessages; never logged.
	APIKey    string
	Headers   map[string]string // extra request headers
	ExtraBody string            // a JSON object merged into every request body
	// ContentExtras is a JSON object whose members every text content
	// part of a user message carries (GuideLLM's extras.content, for chat
	// templates that need metadata beside the text): user messages are
	// then sent as content parts, [{"type":"text","text":…,<members>}]
	// (the Responses API's input_text). Chat completions and Responses
	// only.
	ContentExtras string

	NoStream      bool // send stream:false and read one JSON body
	NoStreamUsage bool // omit stream_options (for servers that reject it)
	NoIgnoreEOS   bool // never send ignore_eos (it is sent when the output length is fixed)
	// MaxTokensField names the output-limit field: "max_tokens" or
	// "max_completion_tokens". Default: both for chat (compatible servers
	// such as Ollama read only max_tokens, OpenAI's reasoning models only
	// max_completion_tokens), max_tokens for completions. Responses
	// always send max_output_tokens and Messages max_tokens.
	MaxTokensField string

	CAFile   string // extra PEM roots for TLS
	Insecure bool   // skip TLS verification

	ConnectTimeout time.Duration // dial and TLS handshake; default 10s
	// StallTimeout fails a request when no chunk (SSE event) arrives for
	// this long, counting from dispatch (so it also bounds connection and
	// header waits); keep-alive comments (": ping") are not chunks. A
	// non-streaming response counts any byte. Default 120s; negative
	// disables.
	StallTimeout time.Duration
	// RequestTimeout bounds a whole request. Default 30m; negative disables.
	RequestTimeout time.Duration

	MaxConns int // connection pool size hint; default 1024
	// LocalAddrs are source IP addresses new connections take in turn:
	// one source IP opens at most its ephemeral ports' worth of
	// connections (about 28,000) to one server address and port. Empty:
	// the system picks.
	LocalAddrs []string

	DisableHTTP2 bool // never negotiate HTTP/2 (it is offered on TLS by default)
	// HTTPClient picks the implementation that sends requests:
	// HTTPClientAuto (the default), HTTPClientGoodput or HTTPClientNet
	// (see h1.go).
	HTTPClient      string
	FollowRedirects bool // follow 3xx responses (default: report them as errors)

	// UserTimestamps stamps each response byte's arrival when the read
	// returns, never with the kernel's receive timestamp (see rxstamp.go);
	// the way other load generators measure.
	UserTimestamps bool

	// KeepText keeps the streamed text in records (for sampled request
	// bodies and client-side token counts).
	KeepText bool
	// CountTokens, when set, counts output tokens client-side from the
	// streamed text (the model's tokenizer); used when the server sends no
	// usage and kept beside it for the mismatch report. Without it the
	// record's client count is unknown (-1).
	CountTokens func(string) int
	// RequestIDPrefix prefixes the X-Request-Id header sent with every
	// request (default "goodput-").
	RequestIDPrefix string
	// SessionHeader, when set, names a header that carries each session
	// turn's stable session id (e.g. x-session-id), for session-affinity
	// routers.
	SessionHeader string
}

// Client sends requests and measures them. It is safe for concurrent use.
type Client struct {
	cfg       ClientConfig
	rt        *reqtype.Type // the endpoint's request type
	api       *api          // its body and decoders
	http      *http.Client  // net/http: side requests, and targets it serves
	h1        *h1Transport  // goodput's own HTTP/1.1 client, nil when no target uses it
	clock     *Clock
	extra     []extraField
	parts     []byte   // ContentExtras' members, `,"k":v,…`; nil without
	maxFields []string // the output limit's fields, sent alike
	redactor  *strings.Replacer
	headers   http.Header
	baseURL   string
	targets   []*target // every server requests go to (targets.go); the first is baseURL
	models    *picker
	rxHolder  *os.File // keeps the kernel's receive timestamps on (rxstamp.go)
	readyNote string   // what Ready could not check, "" when it checked all
}

type extraField struct {
	key string
	raw []byte
}

// localDialers is a dialer per ClientConfig.LocalAddrs entry, or one
// without a source address.
func localDialers(cfg ClientConfig) ([]*net.Dialer, error) {
	base := net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: 30 * time.Second}
	if len(cfg.LocalAddrs) == 0 {
		return []*net.Dialer{&base}, nil
	}
	ds := make([]*net.Dialer, 0, len(cfg.LocalAddrs))
	for _, a := range cfg.LocalAddrs {
		ip := net.ParseIP(strings.TrimSpace(a))
		if ip == nil {
			return nil, fmt.Errorf("local address %q: want an IP address, e.g. 127.0.0.2", a)
		}
		d := base
		d.LocalAddr = &net.TCPAddr{IP: ip}
		ds = append(ds, &d)
	}
	return ds, nil
}

// NewClient validates cfg and builds a client on clock.
func NewClient(cfg ClientConfig, clock *Clock) (*Client, error) {
	if cfg.Endpoint == "" {
		cfg.Endpoint = EndpointChat
	}
	rt, ok := cfg.Endpoint.Type()
	if !ok || apis[rt.API] == nil {
		return nil, fmt.Errorf("endpoint %q: want %s", cfg.Endpoint, reqtype.Names(nil, func(t *reqtype.Type) string { return t.Path }, "or"))
	}
	if rt.Batch != "" && cfg.BatchSize < 0 {
		return nil, fmt.Errorf("batch size %d: want 1 or more %s per request", cfg.BatchSize, rt.Batch)
	}
	if len(cfg.Targets) > 0 {
		cfg.Target = cfg.Targets[0]
	}
	base, err := NormalizeTarget(cfg.Target)
	if err != nil {
		return nil, err
	}
	path := string(cfg.Endpoint)
	if cfg.Path != "" {
		if !strings.HasPrefix(cfg.Path, "/") || strings.ContainsAny(cfg.Path, "?# ") {
			return nil, fmt.Errorf("request path %q: want a path like /v1/chat/completions", cfg.Path)
		}
		path = cfg.Path
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 10 * time.Second
	}
	if cfg.StallTimeout == 0 {
		cfg.StallTimeout = 120 * time.Second
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = 30 * time.Minute
	}
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = 1024
	}
	if cfg.RequestIDPrefix == "" {
		cfg.RequestIDPrefix = "goodput-"
	}
	targets, err := newTargets(&cfg, path)
	if err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, rt: rt, api: apis[rt.API], baseURL: base, targets: targets, clock: clock}
	switch cfg.MaxTokensField {
	case "":
		c.maxFields = rt.MaxTokens
		if len(c.maxFields) == 0 {
			c.maxFields = []string{"max_tokens"}
		}
	case "max_tokens", "max_completion_tokens":
		if rt.MaxTokensFixed {
			return nil, fmt.Errorf("max tokens field %q: only for %s (%s sends its own)", cfg.MaxTokensField,
				reqtype.Names(func(t *reqtype.Type) bool { return len(t.MaxTokens) > 0 && !t.MaxTokensFixed },
					func(t *reqtype.Type) string { return t.Path }, "and"), cfg.Endpoint)
		}
		c.maxFields = []string{cfg.MaxTokensField}
	default:
		return nil, fmt.Errorf("max tokens field %q: want max_tokens or max_completion_tokens", cfg.MaxTokensField)
	}
	if cfg.ExtraBody != "" {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(cfg.ExtraBody), &m); err != nil {
			return nil, fmt.Errorf("extra body: want a JSON object, e.g. '{\"temperature\":0}': %v", err)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			c.extra = append(c.extra, extraField{key: k, raw: m[k]})
		}
	}
	if cfg.ContentExtras != "" {
		if c.parts, err = contentExtras(cfg.ContentExtras, rt); err != nil {
			return nil, err
		}
	}
	tlsConf := &tls.Config{InsecureSkipVerify: cfg.Insecure} //nolint:gosec // opt-in via --insecure
	if cfg.CAFile != "" {
		pem, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, fmt.Errorf("CA file: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("CA file %s: no PEM certificates found", cfg.CAFile)
		}
		tlsConf.RootCAs = pool
	}
	dialers, err := localDialers(cfg)
	if err != nil {
		return nil, err
	}
	var next atomic.Uint64
	pick := func() *net.Dialer { return dialers[(next.Add(1)-1)%uint64(len(dialers))] }
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		return pick().DialContext(ctx, network, addr)
	}
	if !cfg.UserTimestamps {
		// Collected with the client; the runtime's finalizer closes it.
		c.rxHolder = holdRxStamps()
		dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			return dialStamped(ctx, pick(), network, addr)
		}
	}
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dial,
		TLSClientConfig:       tlsConf,
		TLSHandshakeTimeout:   cfg.ConnectTimeout,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          cfg.MaxConns,
		MaxIdleConnsPerHost:   cfg.MaxConns,
		IdleConnTimeout:       90 * time.Second,
		DisableCompression:    true,
		ExpectContinueTimeout: 0,
		WriteBufferSize:       16 << 10,
		ReadBufferSize:        32 << 10,
	}
	if cfg.DisableHTTP2 {
		tr.ForceAttemptHTTP2 = false
		tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	}
	c.http = &http.Client{Transport: tr}
	if !cfg.FollowRedirects {
		c.http.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	}
	h1 := &h1Transport{dial: dial, tls: tlsConf, tlsTimeout: cfg.ConnectTimeout, maxIdle: cfg.MaxConns, idleTimeout: tr.IdleConnTimeout}
	for _, t := range targets {
		own, err := ownClient(cfg, t.base, tr.Proxy)
		if err != nil {
			return nil, err
		}
		t.http = c.http
		if own {
			c.h1 = h1
			t.http = &http.Client{Transport: h1, CheckRedirect: c.http.CheckRedirect}
			t.client = HTTPClientGoodput
			if !cfg.FollowRedirects {
				t.direct = h1
			}
		}
	}
	var secrets []string
	if cfg.APIKey != "" {
		secrets = append(secrets, cfg.APIKey, "***")
	}
	for _, t := range append([]string{cfg.Target}, cfg.Targets...) {
		for _, s := range urlSecrets(t) {
			secrets = append(secrets, s, "***")
		}
	}
	c.redactor = strings.NewReplacer(secrets...)
	c.headers = http.Header{}
	for k, v := range cfg.Headers {
		c.headers.Set(k, v)
	}
	c.headers.Set("Content-Type", "application/json")
	if c.api.contentType != "" {
		c.headers.Set("Content-Type", c.api.contentType)
	}
	if cfg.NoStream || !rt.Stream {
		c.headers.Set("Accept", "application/json")
	} else {
		c.headers.Set("Accept", "text/event-stream")
	}
	switch {
	case c.api.auth != nil:
		c.api.auth(c.headers, cfg.APIKey)
	case cfg.APIKey != "":
		c.headers.Set("Authorization", "Bearer "+cfg.APIKey)
	}
	if len(cfg.Models) > 0 {
		c.cfg.Model = cfg.Models[0]
	}
	if c.models, err = newPicker(&c.cfg); err != nil {
		return nil, err
	}
	return c, nil
}

// SetModel sets the model name sent in every request.
func (c *Client) SetModel(model string) {
	c.cfg.Model, c.cfg.Models, c.cfg.ModelWeights, c.cfg.ModelSelection = model, nil, nil, ""
	c.models, _ = newPicker(&c.cfg) // one model: no error
}

// SetCountTokens sets the client-side output token counter (the model's
// tokenizer). Call it before sending requests.
func (c *Client) SetCountTokens(f func(string) int) { c.cfg.CountTokens = f }

// HTTP returns the client's HTTP client (its transport, TLS settings and
// redirect policy), for side requests such as metadata probes.
func (c *Client) HTTP() *http.Client { return c.http }

// Header returns a copy of the headers sent with every request (including
// Authorization or x-api-key when an API key is set).
func (c *Client) Header() http.Header { return c.headers.Clone() }

// Secrets returns the strings Redact removes (API key, URL credentials).
func (c *Client) Secrets() []string {
	var out []string
	if c.cfg.APIKey != "" {
		out = append(out, c.cfg.APIKey)
	}
	for _, t := range append([]string{c.cfg.Target}, c.cfg.Targets...) {
		out = append(out, urlSecrets(t)...)
	}
	return out
}

// urlSecrets returns the forms in which credentials embedded in a target
// URL can come back: the userinfo as written, the password alone, and the
// base64 "user:password" that net/http sends as Basic authorization (a
// server may echo that header in an error body). Longest first, so that a
// replacer removes the whole of a longer form.
func urlSecrets(target string) []string {
	u, err := url.Parse(target)
	if err != nil || u.User == nil {
		return nil
	}
	name := u.User.Username()
	pass, _ := u.User.Password()
	out := []string{base64.StdEncoding.EncodeToString([]byte(name + ":" + pass)), u.User.String()}
	if pass != "" {
		out = append(out, pass)
	} else if name != "" {
		out = append(out, name)
	}
	return out
}

// PublicURL is the normalized target URL without embedded credentials
// (user:password@ becomes ***@): the form written to logs and reports.
func (c *Client) PublicURL() string { return redact.URL(c.baseURL) }

// Model returns the model name sent in requests.
func (c *Client) Model() string { return c.cfg.Model }

// Config returns the effective configuration (defaults filled in).
func (c *Client) Config() ClientConfig { return c.cfg }

// BaseURL returns the normalized target URL.
func (c *Client) BaseURL() string { return c.baseURL }

// Redact removes secrets (the API key, URL credentials) from s.
func (c *Client) Redact(s string) string { return c.redactor.Replace(s) }

// CloseIdle closes idle pooled connections.
func (c *Client) CloseIdle() {
	c.http.CloseIdleConnections()
	if c.h1 != nil {
		c.h1.closeIdle()
	}
}

// HTTPClients says which implementation sends each target's requests
// (HTTPClientGoodput or HTTPClientNet), in the order of the targets.
func (c *Client) HTTPClients() []string {
	out := make([]string, len(c.targets))
	for i, t := range c.targets {
		out[i] = t.client
	}
	return out
}

// connStats counts, since the client was made, the requests sent again
// on a new connection after their reused one turned out closed, and the
// idle connections found closed by the server when taken (h1.go).
func (c *Client) connStats() (retries, closedIdle int64) {
	if c.h1 == nil {
		return 0, 0
	}
	return c.h1.retries.Load(), c.h1.closedIdle.Load()
}

// httpClientLabel names what sends the requests, for the report: one
// implementation, or each with its target count.
func (c *Client) httpClientLabel() string {
	own := 0
	for _, t := range c.targets {
		if t.client == HTTPClientGoodput {
			own++
		}
	}
	switch own {
	case len(c.targets):
		return HTTPClientGoodput
	case 0:
		return HTTPClientNet
	}
	return fmt.Sprintf("%s for %d of %d targets, else %s", HTTPClientGoodput, own, len(c.targets), HTTPClientNet)
}

// ownClient says whether goodput's own HTTP/1.1 client serves the target
// at base under cfg.HTTPClient: forced, or, by default, for plain HTTP and
// for TLS without HTTP/2, when proxy gives no proxy for it.
func ownClient(cfg ClientConfig, base string, proxy func(*http.Request) (*url.URL, error)) (bool, error) {
	switch cfg.HTTPClient {
	case HTTPClientGoodput:
		return true, nil
	case HTTPClientNet:
		return false, nil
	case "", HTTPClientAuto:
	default:
		return false, fmt.Errorf("HTTP client %q: want %s, %s or %s", cfg.HTTPClient, HTTPClientAuto, HTTPClientGoodput, HTTPClientNet)
	}
	u, err := url.Parse(base)
	if err != nil {
		return false, err
	}
	if u.Scheme == "https" && !cfg.DisableHTTP2 {
		return false, nil // HTTP/2 may be negotiated
	}
	via, err := proxy(&http.Request{URL: u})
	return err == nil && via == nil, nil
}

// NormalizeTarget validates a target URL and strips a trailing "/" and
// "/v1" (GuideLLM's rule).
func NormalizeTarget(target string) (string, error) {
	if target == "" {
		return "", errors.New("target: missing, want a URL like http://localhost:8000")
	}
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("target %q: want an http:// or https:// URL like http://localhost:8000", redact.URL(target))
	}
	s := strings.TrimRight(target, "/")
	s = strings.TrimSuffix(s, "/v1")
	return strings.TrimRight(s, "/"), nil
}

// ModelInfo is one entry of GET /v1/models.
type ModelInfo struct {
	ID      string `json:"id"`
	Root    string `json:"root"`
	OwnedBy string `json:"owned_by"`
	// MaxModelLen is vLLM's context length, 0 when the server does not say.
	MaxModelLen int `json:"max_model_len"`
}

// noModelsList is the error of a GET /v1/models answered 404.
type noModelsList struct{ error }

// Models lists the server's models (GET /v1/models); with several
// targets, the first's.
func (c *Client) Models(ctx context.Context) ([]ModelInfo, error) { return c.modelsAt(ctx, c.baseURL) }

// modelsAt lists the models of the server at base.
func (c *Client) modelsAt(ctx context.Context, base string) ([]ModelInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.ConnectTimeout+20*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v1/models", nil)
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", redact.URL(base), err)
	}
	for k, v := range c.headers {
		if k != "Content-Type" && k != "Accept" {
			req.Header[k] = v
		}
	}
	resp, err := c.http.Do(req)
	if err != nil {
		hint := ""
		if untrustedCert(err) {
			hint = " (the server's certificate is not trusted: give its CA with --ca-file, or skip verification with --insecure)"
		}
		return nil, fmt.Errorf("target %s unreachable: %s%s", redact.URL(base), c.Redact(rootCause(err)), hint)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		err := fmt.Errorf("target %s: GET /v1/models returned HTTP %d%s", redact.URL(base), resp.StatusCode, c.errorBody(resp))
		if resp.StatusCode == http.StatusNotFound {
			err = noModelsList{err}
		}
		return nil, err
	}
	var body struct {
		Data []ModelInfo `json:"data"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(nil, resp.Body, 8<<20)).Decode(&body); err != nil {
		return nil, fmt.Errorf("target %s: GET /v1/models: invalid JSON: %v", redact.URL(base), err)
	}
	return body.Data, nil
}

// Ready performs the readiness check before a run: the server answers
// /v1/models, and the configured models are among them (a bare name
// stands for name:latest where only that is listed, as Ollama resolves
// it: requests then name the listed id). With no model
// configured, it picks the first listed (GuideLLM's default) and sets it.
// A server without /v1/models (HTTP 404: some gateways and custom
// servers) is ready when a model is configured, unchecked: ReadyNote says
// so. With several targets every one is checked; the first's models are
// returned.
func (c *Client) Ready(ctx context.Context) ([]ModelInfo, error) {
	c.readyNote = ""
	var first []ModelInfo
	var notes []string
	for i, t := range c.targets {
		models, err := c.readyAt(ctx, t.base)
		var none noModelsList
		if errors.As(err, &none) && c.cfg.Model != "" {
			notes = append(notes, fmt.Sprintf("GET /v1/models answered HTTP 404: model %q not checked", c.cfg.Model))
			if len(c.targets) > 1 {
				notes[len(notes)-1] = t.public + ": " + notes[len(notes)-1]
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		if i == 0 {
			first = models
		}
	}
	c.readyNote = strings.Join(notes, "; ")
	return first, nil
}

// readyAt checks the server at base (see Ready).
func (c *Client) readyAt(ctx context.Context, base string) ([]ModelInfo, error) {
	models, err := c.modelsAt(ctx, base)
	var none noModelsList
	if errors.As(err, &none) && c.cfg.Model != "" {
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	if len(models) == 0 {
		return nil, fmt.Errorf("target %s: GET /v1/models lists no model", redact.URL(base))
	}
	if c.cfg.Model == "" {
		c.SetModel(models[0].ID)
		return models, nil
	}
	ids := make([]string, 0, len(models))
	served := map[string]bool{}
	for _, m := range models {
		served[m.ID] = true
		ids = append(ids, m.ID)
	}
	for i, name := range c.models.names {
		id, ok := servedAs(name, served)
		if !ok {
			return nil, fmt.Errorf("model %q is not served by %s (it serves: %s)", name, redact.URL(base), strings.Join(ids, ", "))
		}
		if id != name {
			c.renameModel(i, id)
		}
	}
	return models, nil
}

// ReadyNote says what the last Ready could not check ("" when nothing).
func (c *Client) ReadyNote() string { return c.readyNote }

// rootCause gives the innermost error text of a transport error, e.g.
// "dial tcp 127.0.0.1:1: connect: connection refused".
func rootCause(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}

// untrustedCert reports whether err is a failed verification of the
// server's TLS certificate (unknown authority, wrong host name, expired).
func untrustedCert(err error) bool {
	var cv *tls.CertificateVerificationError
	var ua x509.UnknownAuthorityError
	var he x509.HostnameError
	var ci x509.CertificateInvalidError
	return errors.As(err, &cv) || errors.As(err, &ua) || errors.As(err, &he) || errors.As(err, &ci)
}
