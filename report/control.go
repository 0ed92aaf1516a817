package report

// Control hooks (AIPerf's --reset-kv-cache and --server-profiler).
const (
	HookResetKVCache  = "reset_kv_cache" // before the benchmark, its warmup included
	HookProfilerStart = "profiler_start" // before the measured phase
	HookProfilerStop  = "profiler_stop"  // after the measured phase
)

// ControlCall is one control request sent to the server around a
// benchmark (AIPerf's benchmark control hooks): an empty POST to one
// target's origin, outside the benchmark's requests and figures.
type ControlCall struct {
	Hook string `json:"hook"` // HookResetKVCache, HookProfilerStart or HookProfilerStop
	URL  string `json:"url"`  // credentials removed
	// Status is the HTTP status answered; 0 when none came.
	Status    Int   `json:"status,omitempty"`
	Time      Float `json:"time"` // Unix seconds when it was sent
	DurationS Float `json:"duration_s"`
	// Error says why the call failed (a status other than 2xx, a
	// transport error, the timeout); "" when it succeeded.
	Error string `json:"error,omitempty"`
}
