package mock

import (
	"net/http"
	"sync/atomic"
)

// Control routes: vLLM's POST /reset_prefix_cache (SGLang's /flush_cache
// does the same) empties the prefix cache; POST /start_profile and
// /stop_profile start and stop the server's profiler, as vLLM serves them
// with a profiler configured. A start while the profiler runs, or a stop
// while it does not, is answered 400, so a test sees a client that does
// not pair them. Stats counts each; llama.cpp and Ollama serve none of
// them (404).

// control is the state of the control routes.
type control struct {
	resets, starts, stops atomic.Uint64
	profiling             atomic.Bool
}

// serveControl registers the control routes on s's mux.
func (s *Server) serveControl() {
	reset := func(w http.ResponseWriter, _ *http.Request) {
		if c := s.prefix; c != nil {
			c.reset()
		}
		s.control.resets.Add(1)
		w.WriteHeader(http.StatusOK)
	}
	s.mux.HandleFunc("POST /reset_prefix_cache", reset)
	s.mux.HandleFunc("POST /flush_cache", reset)
	s.mux.HandleFunc("POST /start_profile", func(w http.ResponseWriter, _ *http.Request) {
		if !s.control.profiling.CompareAndSwap(false, true) {
			writeAPIError(w, badRequest("", "the profiler is already running"))
			return
		}
		s.control.starts.Add(1)
		w.WriteHeader(http.StatusOK)
	})
	s.mux.HandleFunc("POST /stop_profile", func(w http.ResponseWriter, _ *http.Request) {
		if !s.control.profiling.CompareAndSwap(true, false) {
			writeAPIError(w, badRequest("", "the profiler is not running"))
			return
		}
		s.control.stops.Add(1)
		w.WriteHeader(http.StatusOK)
	})
}

// reset empties the cache (its counters go on).
func (c *prefixCache) reset() {
	c.mu.Lock()
	clear(c.index)
	c.nodes = c.nodes[:0]
	c.head, c.tail = -1, -1
	c.mu.Unlock()
}
