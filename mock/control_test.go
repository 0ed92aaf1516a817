package mock

import (
	"net/http"
	"testing"
)

// A reset (vLLM's path or SGLang's) empties the prefix cache: the prompt
// that hit before misses after it. The profiler's start and stop pair up:
// a second start, or a stop without a start, is answered 400. Stats
// counts what was accepted; llama.cpp serves none of the routes.
func TestControlRoutes(t *testing.T) {
	cfg := fastConfig()
	cfg.BlockSize = 4
	s := startServer(t, cfg)
	status := func(path string) int {
		t.Helper()
		resp := post(t, nil, s.URL()+path, "")
		readAll(t, resp)
		return resp.StatusCode
	}
	prompt := idsPrompt(seqIDs(1, 10), "")
	for _, reset := range []string{"/reset_prefix_cache", "/flush_cache"} {
		usageOf(t, s.URL(), "/v1/completions", prompt)
		if _, cached := usageOf(t, s.URL(), "/v1/completions", prompt); cached != 8 {
			t.Fatalf("before %s: %d cached, want 8", reset, cached)
		}
		if code := status(reset); code != http.StatusOK {
			t.Fatalf("%s: HTTP %d", reset, code)
		}
		if _, cached := usageOf(t, s.URL(), "/v1/completions", prompt); cached != 0 {
			t.Errorf("after %s: %d cached, want 0", reset, cached)
		}
	}
	for i, c := range []struct {
		path string
		want int
	}{{"/stop_profile", 400}, {"/start_profile", 200}, {"/start_profile", 400}, {"/stop_profile", 200}, {"/stop_profile", 400}} {
		if code := status(c.path); code != c.want {
			t.Errorf("call %d, %s: HTTP %d, want %d", i, c.path, code, c.want)
		}
	}
	if st := s.Stats(); st.CacheResets != 2 || st.ProfilerStarts != 1 || st.ProfilerStops != 1 {
		t.Errorf("Stats: %d resets, %d starts, %d stops; want 2, 1, 1", st.CacheResets, st.ProfilerStarts, st.ProfilerStops)
	}
	cfg.Personality = PersonalityLlamaCpp
	l := startServer(t, cfg)
	for _, p := range []string{"/reset_prefix_cache", "/start_profile"} {
		resp := post(t, nil, l.URL()+p, "")
		readAll(t, resp)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("llama.cpp %s: HTTP %d, want 404", p, resp.StatusCode)
		}
	}
}
