package mock

import (
	"net/http"
	"strconv"
)

// serveModels answers GET /v1/models in vLLM's shape, with the one served model.
func (s *Server) serveModels(w http.ResponseWriter, _ *http.Request) {
	b := make([]byte, 0, 256)
	b = append(b, `{"object":"list","data":[{"id":`...)
	b = append(b, s.modelJSON...)
	b = append(b, `,"object":"model","created":`...)
	b = appendInt(b, s.started.Unix())
	b = append(b, `,"owned_by":"goodput","root":`...)
	b = append(b, s.modelJSON...)
	b = append(b, `,"parent":null,"max_model_len":`...)
	b = appendInt(b, int64(s.cfg.MaxModelLen))
	b = append(b, `,"permission":[]}]}`...)
	writeJSON(w, http.StatusOK, b)
}

// serveVersion answers GET /version: {"version": Config.Version}.
func (s *Server) serveVersion(w http.ResponseWriter, _ *http.Request) {
	b := append([]byte(`{"version":`), jsonString(s.cfg.Version)...)
	writeJSON(w, http.StatusOK, append(b, '}'))
}

// serveMetrics answers GET /metrics with the Prometheus text exposition.
func (s *Server) serveMetrics(w http.ResponseWriter, _ *http.Request) {
	b := s.metrics.appendExposition(make([]byte, 0, 16<<10), s.cfg.Model, s.cfg.KVCacheTokens, s.gauges())
	h := w.Header()
	h.Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// serveFallback answers unknown paths and wrong methods as vLLM's FastAPI
// does: {"detail":"Not Found"} or {"detail":"Method Not Allowed"}.
func serveFallback(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/v1/chat/completions", "/v1/completions":
		w.Header().Set("Allow", "POST")
	case "/v1/models", "/health", "/version", "/metrics", "/dcgm/metrics":
		w.Header().Set("Allow", "GET, HEAD")
	default:
		writeJSON(w, http.StatusNotFound, []byte(`{"detail":"Not Found"}`))
		return
	}
	writeJSON(w, http.StatusMethodNotAllowed, []byte(`{"detail":"Method Not Allowed"}`))
}

// writeJSON writes a complete JSON response.
func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
