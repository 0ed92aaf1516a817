package metadata

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/goodput-dev/goodput/telemetry"
)

// Probe limits: bodies larger than these are cut (JSON answers are then
// unreadable and recorded as such).
const (
	maxJSONBytes    = 4 << 20
	maxMetricsBytes = 16 << 20
)

// modelEntry is one /v1/models entry with the keys engines use for
// revisions.
type modelEntry struct {
	ID       string `json:"id"`
	Root     string `json:"root"`
	OwnedBy  string `json:"owned_by"`
	Revision string `json:"revision"`
	// Other spellings of a revision some servers use.
	ModelRevision string `json:"model_revision"`
	Commit        string `json:"commit"`
	SHA           string `json:"sha"`
}

func (m modelEntry) revision() (string, string) {
	for _, c := range []struct{ key, v string }{
		{"revision", m.Revision}, {"model_revision", m.ModelRevision}, {"commit", m.Commit}, {"sha", m.SHA},
	} {
		if v := strings.TrimSpace(c.v); v != "" {
			return v, c.key
		}
	}
	return "", ""
}

// engineInfo is the answer of one engine's info endpoint (the engine
// table's InfoEndpoint).
type engineInfo struct {
	engine, path string
	telemetry.ServerInfo
}

// source names where one of its fields came from: "GET /info model_id".
func (in engineInfo) source(f telemetry.InfoField) string { return "GET " + in.path + " " + f.Key }

// headerProduct is an engine named by a response header.
type headerProduct struct {
	engine, version, header, path string
}

// serverFacts is what the probes learned. Notes say why a probe gave
// nothing (never with credentials or response bodies).
type serverFacts struct {
	version      string // GET /version
	models       []modelEntry
	modelsOK     bool
	infos        []engineInfo // in the engine table's order
	metricEngine string       // from /metrics family names
	metricPrefix string
	buildVersion string // from a *_build_info{version} family of metricEngine
	buildFamily  string
	headers      []headerProduct
	notes        []string
}

type prober struct {
	client *http.Client
	base   string
	header http.Header
	redact func(string) string
}

// get fetches base+path. It returns the body (at most limit bytes) for a
// 200 answer; otherwise a note-ready error without the URL's credentials.
func (p *prober) get(ctx context.Context, path, accept string, limit int64) ([]byte, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.base+path, nil)
	if err != nil {
		return nil, nil, errors.New("invalid target URL")
	}
	for k, v := range p.header {
		req.Header[k] = append([]string(nil), v...)
	}
	req.Header.Set("Accept", accept)
	resp, err := p.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, nil, errors.New("timed out")
		}
		return nil, nil, errors.New(p.redact(err.Error()))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, resp.Header, statusError(resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, resp.Header, errors.New(p.redact("reading the answer: " + err.Error()))
	}
	if int64(len(body)) > limit {
		return nil, resp.Header, fmt.Errorf("answer larger than %d bytes", limit)
	}
	return body, resp.Header, nil
}

// statusError is a probe's answer other than 200 OK.
type statusError int

// probeRetryDelay is the pause before a probe's second try.
const probeRetryDelay = 200 * time.Millisecond

// getRetry is get, tried once more after a transient failure (no answer:
// a refused or reset connection; HTTP 429 or 5xx: a server that fails
// some scrapes under load), while ctx allows; any other answer is final.
func (p *prober) getRetry(ctx context.Context, path, accept string, limit int64) ([]byte, http.Header, error) {
	body, h, err := p.get(ctx, path, accept, limit)
	var se statusError
	transient := h == nil || errors.As(err, &se) && (se == http.StatusTooManyRequests || se >= 500)
	if err == nil || !transient {
		return body, h, err
	}
	select {
	case <-ctx.Done():
		return body, h, err
	case <-time.After(probeRetryDelay):
	}
	return p.get(ctx, path, accept, limit)
}

func (e statusError) Error() string { return fmt.Sprintf("HTTP %d", int(e)) }

// probeSpec is one GET the prober makes; identity marks those that ask an
// engine who it is (GET /version and the engines' info endpoints), each
// answered by some engines only.
type probeSpec struct {
	path, accept string
	limit        int64
	parse        func([]byte) (func(*serverFacts), error)
	identity     bool
}

// probeResult is what one probe returns to the merge.
type probeResult struct {
	apply    func(*serverFacts)
	header   http.Header
	path     string
	note     string
	notFound bool // an identity probe answered HTTP 404
}

// probeServer runs every probe concurrently and merges what they found.
// Each probe writes only its own result slot; the merge runs after all of
// them returned.
func (p *prober) probeServer(ctx context.Context, wantModels bool) serverFacts {
	probes := []probeSpec{{"/version", "application/json", maxJSONBytes, parseVersion, true}}
	for _, e := range telemetry.Engines() {
		for _, ep := range e.Info {
			probes = append(probes, probeSpec{ep.Path, "application/json", maxJSONBytes, infoParser(e.Name, ep), true})
		}
	}
	probes = append(probes, probeSpec{"/metrics", "text/plain;version=0.0.4", maxMetricsBytes, parseMetrics, false})
	if wantModels {
		probes = append(probes, probeSpec{"/v1/models", "application/json", maxJSONBytes, parseModels, false})
	}
	results := make([]probeResult, len(probes))
	var wg sync.WaitGroup
	for i, pr := range probes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := probeResult{path: pr.path}
			body, h, err := p.getRetry(ctx, pr.path, pr.accept, pr.limit)
			r.header = h
			if err == nil {
				r.apply, err = pr.parse(body)
			}
			if err != nil {
				r.note = fmt.Sprintf("GET %s: %s", pr.path, p.redact(err.Error()))
				var se statusError
				r.notFound = pr.identity && errors.As(err, &se) && se == http.StatusNotFound
			}
			results[i] = r
		}()
	}
	wg.Wait()
	var f serverFacts
	for _, r := range results {
		if r.apply != nil {
			r.apply(&f)
		}
	}
	for _, r := range results {
		// Once an engine's own info endpoint answered, the other engines'
		// endpoints it lacks are no news.
		if r.note != "" && !(r.notFound && len(f.infos) > 0) {
			f.notes = append(f.notes, r.note)
		}
		for _, name := range []string{"Server", "X-Powered-By"} {
			for _, v := range r.header.Values(name) {
				if e, ver := headerEngine(v); e != "" {
					f.headers = append(f.headers, headerProduct{engine: e, version: cleanValue(ver), header: name, path: r.path})
				}
			}
		}
	}
	return f
}

// decodeObject reads a JSON object; anything else is an error.
func decodeObject(body []byte, v any) error {
	b := strings.TrimSpace(string(body))
	if !strings.HasPrefix(b, "{") {
		return errors.New("answer is not a JSON object")
	}
	if err := json.Unmarshal([]byte(b), v); err != nil {
		return errors.New("answer is not the expected JSON")
	}
	return nil
}

// cleanValue keeps a short single-line printable value from a server.
func cleanValue(s string) string { return telemetry.CleanInfoValue(s) }

func parseVersion(body []byte) (func(*serverFacts), error) {
	var v struct {
		Version json.RawMessage `json:"version"`
	}
	if err := decodeObject(body, &v); err != nil {
		return nil, err
	}
	var s string
	if json.Unmarshal(v.Version, &s) != nil || cleanValue(s) == "" {
		return nil, errors.New(`answer has no "version" string`)
	}
	s = cleanValue(s)
	return func(f *serverFacts) { f.version = s }, nil
}

func parseModels(body []byte) (func(*serverFacts), error) {
	var v struct {
		Data []modelEntry `json:"data"`
	}
	if err := decodeObject(body, &v); err != nil {
		return nil, err
	}
	return func(f *serverFacts) { f.models, f.modelsOK = v.Data, true }, nil
}

// infoParser reads an engine's info endpoint.
func infoParser(engine string, ep telemetry.InfoEndpoint) func([]byte) (func(*serverFacts), error) {
	return func(body []byte) (func(*serverFacts), error) {
		in, err := ep.Parse(body)
		if err != nil {
			return nil, err
		}
		return func(f *serverFacts) { f.infos = append(f.infos, engineInfo{engine, ep.Path, in}) }, nil
	}
}

// parseMetrics reads the family names of a Prometheus text exposition: the
// engine from their prefix, and its version from a build-info family
// (NAME_build_info or NAME_version_info with a "version" label). A syntax
// error ends the parse but keeps what was read before it.
func parseMetrics(body []byte) (func(*serverFacts), error) {
	dec := expfmt.NewDecoder(strings.NewReader(string(body)), expfmt.NewFormat(expfmt.TypeTextPlain))
	var engine, prefix, version, family string
	n := 0
	for {
		mf := &dto.MetricFamily{}
		err := dec.Decode(mf)
		if err != nil {
			if n == 0 && !errors.Is(err, io.EOF) {
				return nil, errors.New("answer is not a Prometheus text exposition")
			}
			break
		}
		n++
		name := mf.GetName()
		if e, p, ok := telemetry.EngineOfMetric(name); ok {
			if engine == "" {
				engine, prefix = e.Name, p
			}
			if e.Name == engine && version == "" &&
				(strings.HasSuffix(name, "build_info") || strings.HasSuffix(name, "version_info")) {
				for _, m := range mf.GetMetric() {
					for _, lp := range m.GetLabel() {
						if lp.GetName() == "version" && cleanValue(lp.GetValue()) != "" {
							version, family = cleanValue(lp.GetValue()), name
						}
					}
				}
			}
		}
	}
	if n == 0 {
		return nil, errors.New("empty exposition")
	}
	return func(f *serverFacts) {
		f.metricEngine, f.metricPrefix, f.buildVersion, f.buildFamily = engine, prefix, version, family
	}, nil
}
