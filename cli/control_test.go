package cli

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/clitest"
	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/report"
)

// pathTap serves the mock and keeps the POSTs it was sent, in order:
// control paths as they are, inference requests as "req"; fail answers
// the paths it names with their status instead of the mock (from the
// failFrom-th call of the path on, 1 when unset).
type pathTap struct {
	h        http.Handler
	fail     map[string]int
	failFrom int
	mu       sync.Mutex
	seq      []string
}

func (p *pathTap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		name := r.URL.Path
		if strings.HasPrefix(name, "/v1/") {
			name = "req"
		}
		p.mu.Lock()
		p.seq = append(p.seq, name)
		n := 0
		for _, s := range p.seq {
			if s == name {
				n++
			}
		}
		p.mu.Unlock()
		if code := p.fail[r.URL.Path]; code != 0 && n >= max(p.failFrom, 1) {
			http.Error(w, `{"error":"profiler not configured"}`, code)
			return
		}
	}
	p.h.ServeHTTP(w, r)
}

// calls returns the POSTs seen, the inference requests between two
// control calls counted: "req×3".
func (p *pathTap) calls() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	n := 0
	flush := func() {
		if n > 0 {
			out = append(out, "req×"+string(rune('0'+n)))
			n = 0
		}
	}
	for _, s := range p.seq {
		if s == "req" {
			n++
			continue
		}
		flush()
		out = append(out, s)
	}
	flush()
	return out
}

func controlMock(t *testing.T, fail map[string]int) (*mock.Server, *pathTap, string) {
	t.Helper()
	cfg := mock.DefaultConfig()
	cfg.TTFT, cfg.TTFTStdev, cfg.ITL, cfg.ITLStdev = 5*time.Millisecond, 0, time.Millisecond, 0
	cfg.PrefixCache = true
	m, err := mock.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	tap := &pathTap{h: m.Handler(), fail: fail}
	srv := httptest.NewServer(tap)
	t.Cleanup(srv.Close)
	return m, tap, srv.URL
}

// AIPerf's control hooks at AIPerf's moments, per benchmark: the KV-cache
// reset before the warmup, the profiler's start after it and its stop
// after the measured phase (docs/tutorials/benchmark-control-hooks.md's
// quick start, with a warmup and two concurrencies); each call is in the
// benchmark's report.
func TestProfileControlHooks(t *testing.T) {
	m, tap, url := controlMock(t, nil)
	dir := t.TempDir()
	code, _, stderr := runGoodput(t, "profile", "--model", "goodput-mock", "--url", url, "--endpoint-type", "chat", "--streaming",
		"--concurrency", "1,2", "--request-count", "4", "--warmup-request-count", "2", "--isl", "16", "--osl", "4",
		"--reset-kv-cache", "--server-profiler", "--no-server-metrics", "--ui-type", "none", "--artifact-dir", dir)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := []string{"/reset_prefix_cache", "req×2", "/start_profile", "req×4", "/stop_profile",
		"/reset_prefix_cache", "req×2", "/start_profile", "req×4", "/stop_profile"}
	if got := tap.calls(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("the mock saw %v, want %v", got, want)
	}
	if st := m.Stats(); st.CacheResets != 2 || st.ProfilerStarts != 2 || st.ProfilerStops != 2 {
		t.Errorf("mock counted %d resets, %d starts, %d stops; want 2 each", st.CacheResets, st.ProfilerStarts, st.ProfilerStops)
	}
	rep := clitest.ReadReport(t, filepath.Join(dir, "goodput.json"))
	for i, b := range rep.Benchmarks {
		var hooks []string
		for _, c := range b.Extras.Control {
			hooks = append(hooks, c.Hook)
			if c.Status != 200 || c.Error != "" || !strings.HasPrefix(c.URL, url+"/") {
				t.Errorf("benchmark %d: %+v", i, c)
			}
		}
		if strings.Join(hooks, ",") != "reset_kv_cache,profiler_start,profiler_stop" {
			t.Errorf("benchmark %d: control calls %v", i, hooks)
		}
	}
}

// AIPerf's failure policy: a refused reset or profiler start stops the
// run (exit 1, no load sent to that round), a refused stop is a warning
// and the run's outputs record it; a path override reaches the server
// (SGLang's /flush_cache); llama.cpp serves no reset (404, with the hint).
func TestControlHookFailures(t *testing.T) {
	base := []string{"profile", "--model", "goodput-mock", "--endpoint-type", "chat", "--request-count", "3", "--concurrency", "1",
		"--isl", "8", "--osl", "2", "--no-server-metrics", "--ui-type", "none"}
	run := func(fail map[string]int, args ...string) (int, string, []string, string) {
		_, tap, url := controlMock(t, fail)
		dir := t.TempDir()
		code, _, stderr := runGoodput(t, append(append(base, "--url", url, "--artifact-dir", dir), args...)...)
		return code, stderr, tap.calls(), dir
	}
	code, stderr, calls, _ := run(map[string]int{"/reset_prefix_cache": 404}, "--reset-kv-cache")
	if code != ExitFailure || !strings.Contains(stderr, "reset_kv_cache: POST") || !strings.Contains(stderr, "HTTP 404") ||
		!strings.Contains(stderr, "VLLM_SERVER_DEV_MODE") || strings.Join(calls, " ") != "/reset_prefix_cache" {
		t.Errorf("refused reset: exit %d, calls %v, stderr %q", code, calls, stderr)
	}
	code, stderr, calls, _ = run(nil, "--reset-kv-cache-path", "/flush_cache", "--reset-kv-cache-timeout-seconds", "5")
	if code != ExitOK || strings.Join(calls, " ") != "/flush_cache req×3" {
		t.Errorf("SGLang's path: exit %d, calls %v: %s", code, calls, stderr)
	}
	code, stderr, calls, _ = run(map[string]int{"/start_profile": 404}, "--server-profiler")
	if code != ExitFailure || !strings.Contains(stderr, "profiler_start: POST") || strings.Join(calls, " ") != "/start_profile" {
		t.Errorf("refused start: exit %d, calls %v, stderr %q", code, calls, stderr)
	}
	code, stderr, calls, dir := run(map[string]int{"/stop_profile": 500}, "--server-profiler-stop-path", "/stop_profile")
	if code != ExitOK || !strings.Contains(stderr, "WARNING: benchmark 0") || !strings.Contains(stderr, "profiler_stop POST") ||
		strings.Join(calls, " ") != "/start_profile req×3 /stop_profile" {
		t.Errorf("refused stop: exit %d, calls %v, stderr %q", code, calls, stderr)
	}
	if code == ExitOK {
		c := clitest.ReadReport(t, filepath.Join(dir, "goodput.json")).Benchmarks[0].Extras.Control
		if len(c) != 2 || c[1].Hook != report.HookProfilerStop || c[1].Status != 500 || !strings.Contains(c[1].Error, "HTTP 500") {
			t.Errorf("refused stop: the report's calls %+v", c)
		}
	}
	// llama.cpp serves neither route.
	url := clitest.Mock(t, func(c *mock.Config) { c.Personality = mock.PersonalityLlamaCpp })
	code, _, stderr = runGoodput(t, append(base, "--url", url, "--artifact-dir", t.TempDir(), "--server-profiler")...)
	if code != ExitFailure || !strings.Contains(stderr, "HTTP 404") {
		t.Errorf("llama.cpp: exit %d, stderr %q", code, stderr)
	}
}

// A reset refused before the second round ends the run with exit 1
// after writing the first round, whose report records its reset.
func TestControlFailureKeepsTheRoundsDone(t *testing.T) {
	_, tap, url := controlMock(t, map[string]int{"/reset_prefix_cache": 503})
	tap.failFrom = 2
	dir := t.TempDir()
	code, _, stderr := runGoodput(t, "profile", "--model", "goodput-mock", "--url", url, "--concurrency", "1,2", "--request-count", "3",
		"--isl", "8", "--osl", "2", "--no-server-metrics", "--ui-type", "none", "--artifact-dir", dir, "--reset-kv-cache")
	if code != ExitFailure || !strings.Contains(stderr, "reset_kv_cache: POST "+url+"/reset_prefix_cache: HTTP 503") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if got := strings.Join(tap.calls(), " "); got != "/reset_prefix_cache req×3 /reset_prefix_cache" {
		t.Errorf("the mock saw %s", got)
	}
	rep := clitest.ReadReport(t, filepath.Join(dir, "goodput.json"))
	if len(rep.Benchmarks) != 1 || len(rep.Benchmarks[0].Extras.Control) != 1 || rep.Benchmarks[0].Extras.Control[0].Status != 200 {
		t.Fatalf("%d benchmarks written, the first's control %+v", len(rep.Benchmarks), rep.Benchmarks[0].Extras.Control)
	}
}

// goodput benchmark takes the same flags: one reset before each round of
// a sweep, after the wait for an idle server.
func TestBenchmarkResetKVCache(t *testing.T) {
	m, tap, url := controlMock(t, nil)
	code, _, stderr := runGoodput(t, "benchmark", "--target", url, "--data", "prompt_tokens=8,output_tokens=4",
		"--rate-type", "concurrent", "--rate", "1,2", "--max-requests", "3", "--outputs", "json", "--server-metrics", "off",
		"--disable-progress", "--output-dir", t.TempDir(), "--reset-kv-cache")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := strings.Join(tap.calls(), " "); got != "/reset_prefix_cache req×3 /reset_prefix_cache req×3" || m.Stats().CacheResets != 2 {
		t.Errorf("the mock saw %s, %d resets", got, m.Stats().CacheResets)
	}
}

// Bad control flags: one line naming the flag and the accepted form.
func TestControlFlagErrors(t *testing.T) {
	url := clitest.Mock(t, nil)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--reset-kv-cache-path", "http://x/reset"}, "--reset-kv-cache-path \"http://x/reset\": want a path such as /reset_prefix_cache"},
		{[]string{"--server-profiler-start-path", "start_profile"}, "--server-profiler-start-path \"start_profile\": want a path"},
		{[]string{"--reset-kv-cache-timeout-seconds", "0"}, "--reset-kv-cache-timeout-seconds 0: want seconds > 0"},
		{[]string{"--server-profiler-timeout-seconds", "-1"}, "--server-profiler-timeout-seconds -1: want seconds > 0"},
	} {
		code, _, stderr := runGoodput(t, append([]string{"profile", "--model", "goodput-mock", "--url", url, "--ui-type", "none"}, c.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and one line with %q", c.args, code, stderr, c.want)
		}
	}
	code, _, stderr := runGoodput(t, "benchmark", "--target", url, "--data", "prompt_tokens=8,output_tokens=4", "--rate-type", "synchronous",
		"--max-requests", "2", "--shard-count", "2", "--shard-index", "0", "--start-at", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10), "--server-profiler")
	if code != ExitUsage || !strings.Contains(stderr, "the shards of a run start their benchmarks on one timetable") {
		t.Errorf("sharded: exit %d, stderr %q", code, stderr)
	}
}

// AIPerf's YAML forms of the hooks (benchmark-control-hooks.md): true
// with the defaults, an object of the settings, false off; a flag given
// on the command line wins over the file.
func TestProfileConfigControlHooks(t *testing.T) {
	for _, c := range []struct {
		hooks string
		args  []string
		want  *loadgen.Control
	}{
		{"reset_kv_cache: true\n    server_profiler: true", nil,
			&loadgen.Control{ResetPath: "/reset_prefix_cache", ProfilerStart: "/start_profile", ProfilerStop: "/stop_profile"}},
		{"reset_kv_cache: false\n    server_profiler: false", nil, nil},
		{`reset_kv_cache:
      path: /v1/admin/reset_prefix_cache
      timeout_seconds: 30
    server_profiler:
      start_path: /v1/admin/start_profile
      stop_path: /v1/admin/stop_profile
      timeout_seconds: 15`, []string{"--server-profiler-timeout-seconds", "5"},
			&loadgen.Control{ResetPath: "/v1/admin/reset_prefix_cache", ResetTimeout: 30 * time.Second,
				ProfilerStart: "/v1/admin/start_profile", ProfilerStop: "/v1/admin/stop_profile", ProfilerTimeout: 5 * time.Second}},
	} {
		config := writeFile(t, "hooks.yaml", "benchmark:\n  models: [your-model]\n  endpoint:\n    url: http://localhost:8000\n    type: chat\n    "+c.hooks+"\n")
		s, err := setupProfile(t, append([]string{"--config", config}, c.args...)...)
		if err != nil {
			t.Fatalf("%s: %v", c.hooks, err)
		}
		if got := s.cfg.Plan.Control; (got == nil) != (c.want == nil) || (got != nil && *got != *c.want) {
			t.Errorf("%s: control %+v, want %+v", c.hooks, got, c.want)
		}
	}
	config := writeFile(t, "bad.yaml", "benchmark:\n  endpoint:\n    reset_kv_cache: {start_path: /x}\n")
	if _, err := setupProfile(t, "--config", config); err == nil || !strings.Contains(err.Error(), "benchmark.endpoint.reset_kv_cache") {
		t.Errorf("reset_kv_cache.start_path: %v", err)
	}
}
