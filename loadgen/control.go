package loadgen

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/internal/redact"
	"github.com/goodput-dev/goodput/report"
)

// Control hooks, AIPerf's benchmark control hooks (--reset-kv-cache,
// --server-profiler): empty POSTs to every target's origin around a
// benchmark, outside its requests and figures, with the requests' auth
// headers. Any 2xx answer is a success.

// The default control paths (vLLM's; SGLang resets at /flush_cache).
const (
	DefaultResetPath     = "/reset_prefix_cache"
	DefaultProfilerStart = "/start_profile"
	DefaultProfilerStop  = "/stop_profile"
)

// Control is what a benchmark asks of the server around its phases.
type Control struct {
	// ResetPath, when set, is POSTed once before the benchmark, before
	// its warmup (AIPerf resets once per run, before any load); a failure
	// fails the benchmark before it sends anything.
	ResetPath    string
	ResetTimeout time.Duration // per call; 0: the client's RequestTimeout
	// ProfilerStart and ProfilerStop, set together, are POSTed right
	// before the measured phase (never around the warmup) and right after
	// its last request resolved. A failed start fails the benchmark (the
	// origins already started are stopped); a failed stop is recorded in
	// the result and the run goes on.
	ProfilerStart, ProfilerStop string
	ProfilerTimeout             time.Duration // per call; 0: the client's RequestTimeout
}

// ErrControl marks a control request whose failure stops the run: a
// KV-cache reset or a profiler start the server did not accept.
var ErrControl = errors.New("server control request failed")

// ValidateControlPath checks a control path: relative to the targets'
// origin, as AIPerf takes it ("/reset_prefix_cache"), a query allowed
// (SGLang's "/flush_cache?timeout=30").
func ValidateControlPath(p string) error {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.Contains(p, "://") || strings.ContainsAny(p, "# \t\n") {
		return fmt.Errorf("want a path such as /reset_prefix_cache or /flush_cache?timeout=30 (it is joined to each --url's scheme://host:port)")
	}
	return nil
}

// controlOrigin is one origin control requests go to.
type controlOrigin struct{ url, public string }

// controlOrigins are the targets' distinct origins (scheme://host:port,
// credentials kept for the request), in the order given.
func (c *Client) controlOrigins() []controlOrigin {
	var out []controlOrigin
	seen := map[string]bool{}
	for _, t := range c.targets {
		u, err := url.Parse(t.base)
		if err != nil { // cannot happen: NormalizeTarget parsed it
			continue
		}
		o := (&url.URL{Scheme: u.Scheme, User: u.User, Host: u.Host}).String()
		if !seen[o] {
			seen[o] = true
			out = append(out, controlOrigin{url: o, public: redact.URL(o)})
		}
	}
	return out
}

// control POSTs path to each origin and returns the calls made; err
// (wrapping ErrControl) names the first that failed. With stopAt, the
// first failure ends the calls.
func (c *Client) control(ctx context.Context, hook, path string, timeout time.Duration, origins []controlOrigin, stopAt bool) ([]report.ControlCall, error) {
	if timeout == 0 {
		timeout = c.cfg.RequestTimeout
	}
	var calls []report.ControlCall
	var first error
	for _, o := range origins {
		call := c.controlCall(ctx, hook, o, path, timeout)
		calls = append(calls, call)
		if call.Error != "" && first == nil {
			first = fmt.Errorf("%w: %s: POST %s%s: %s", ErrControl, hook, o.public, path, call.Error)
			if stopAt {
				break
			}
		}
	}
	return calls, first
}

// controlCall sends one control request.
func (c *Client) controlCall(ctx context.Context, hook string, o controlOrigin, path string, timeout time.Duration) report.ControlCall {
	start := time.Now()
	call := report.ControlCall{Hook: hook, URL: o.public + path, Time: report.Float(float64(start.UnixNano()) / 1e9)}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.url+path, http.NoBody)
	if err != nil {
		call.Error = err.Error()
		return call
	}
	for k, v := range c.headers {
		if k != "Content-Type" && k != "Accept" {
			req.Header[k] = v
		}
	}
	resp, err := c.http.Do(req)
	call.DurationS = report.Float(time.Since(start).Seconds())
	if err != nil {
		call.Error = c.Redact(rootCause(err))
		if ctx.Err() == context.DeadlineExceeded {
			call.Error = fmt.Sprintf("no answer within %v", timeout)
		}
		return call
	}
	defer resp.Body.Close()
	call.Status = report.Int(resp.StatusCode)
	if resp.StatusCode/100 != 2 {
		call.Error = fmt.Sprintf("HTTP %d%s", resp.StatusCode, c.errorBody(resp))
		if resp.StatusCode == http.StatusNotFound {
			call.Error += notServed[hook]
		}
	}
	return call
}

// notServed says where the servers serve each hook, for a 404.
var notServed = map[string]string{
	report.HookResetKVCache:  " (vLLM serves /reset_prefix_cache with VLLM_SERVER_DEV_MODE=1; SGLang resets at /flush_cache: give that path)",
	report.HookProfilerStart: " (vLLM serves /start_profile with a profiler configured, e.g. --profiler-config; SGLang always)",
	report.HookProfilerStop:  " (vLLM serves /stop_profile with a profiler configured, e.g. --profiler-config; SGLang always)",
}

// reset runs the control's KV-cache reset, if any.
func (c *Client) reset(ctx context.Context, ct *Control) ([]report.ControlCall, error) {
	if ct == nil || ct.ResetPath == "" {
		return nil, nil
	}
	return c.control(ctx, report.HookResetKVCache, ct.ResetPath, ct.ResetTimeout, c.controlOrigins(), false)
}

// profile runs measure between the profiler's start and stop, if the
// control has them: a failed start stops the origins it started and
// returns the error without measuring; a failed stop is recorded only.
func (c *Client) profile(ctx context.Context, ct *Control, measure func() (Result, error)) (Result, []report.ControlCall, error) {
	if ct == nil || ct.ProfilerStart == "" {
		res, err := measure()
		return res, nil, err
	}
	origins := c.controlOrigins()
	calls, err := c.control(ctx, report.HookProfilerStart, ct.ProfilerStart, ct.ProfilerTimeout, origins, true)
	if err != nil {
		started := origins[:len(calls)-1]
		stops, _ := c.control(context.WithoutCancel(ctx), report.HookProfilerStop, ct.ProfilerStop, ct.ProfilerTimeout, started, false)
		return Result{}, append(calls, stops...), err
	}
	res, err := measure()
	// The profiler is stopped even when the phase was interrupted.
	stops, _ := c.control(context.WithoutCancel(ctx), report.HookProfilerStop, ct.ProfilerStop, ct.ProfilerTimeout, origins, false)
	return res, append(calls, stops...), err
}
