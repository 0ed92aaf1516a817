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
	b = append(b, `,"permission":[]}`...)
	b = s.appendLoRAModels(b)
	writeJSON(w, http.StatusOK, append(b, "]}"...))
}

// serveVersion answers GET /version: {"version": Config.Version}.
func (s *Server) serveVersion(w http.ResponseWriter, _ *http.Request) {
	b := append([]byte(`{"version":`), jsonString(s.cfg.Version)...)
	writeJSON(w, http.StatusOK, append(b, '}'))
}

// serveMetrics answers GET /metrics with the Prometheus text exposition,
// or with a 500 for the scrapes Config.MetricsErrorRate picks.
func (s *Server) serveMetrics(w http.ResponseWriter, _ *http.Request) {
	j := s.scrapes.Add(1) - 1
	if rate := s.cfg.MetricsErrorRate; rate > 0 && scrapeDraw(s.cfg.Seed, j) < rate {
		s.stats.metricsErrors.Add(1)
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	var b []byte
	if s.pers.metrics == metricsLlamaCpp {
		b = s.appendLlamaCppExposition(make([]byte, 0, 4<<10))
	} else {
		series := !s.cfg.LazyMetrics || s.seq.Load() > 0
		b = s.metrics.appendExposition(make([]byte, 0, 16<<10), s.cfg.Model, s.cfg.KVCacheTokens, s.gauges(), series)
		if series {
			b = s.appendPrefixCacheMetrics(b)
		}
	}
	h := w.Header()
	h.Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// scrapeDraw is the uniform draw in [0,1) deciding whether scrape j fails:
// a function of seed and j only, apart from the requests' draws.
func scrapeDraw(seed, j uint64) float64 {
	return float64(splitmix64(j^splitmix64(seed^0x6d6574726963732f))>>11) / (1 << 53)
}

// serveFallback answers unknown paths and wrong methods as vLLM's FastAPI
// does: {"detail":"Not Found"} or {"detail":"Method Not Allowed"}.
func serveFallback(w http.ResponseWriter, r *http.Request) {
	_, post := servedPaths()[r.URL.Path]
	switch r.URL.Path {
	case "/v1/models", "/health", "/version", "/metrics", "/dcgm/metrics":
		w.Header().Set("Allow", "GET, HEAD")
	default:
		if post {
			w.Header().Set("Allow", "POST")
			break
		}
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
