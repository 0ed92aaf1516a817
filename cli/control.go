package cli

import (
	"math"
	"time"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/loadgen"
)

// controlOptions are AIPerf's benchmark control hooks, the same flags in
// goodput benchmark and goodput profile: a KV-cache reset before each
// round (after the wait for an idle server, before the round's warmup)
// and the server's profiler around each round's measured phase. Setting a
// path or a timeout turns its hook on, as in AIPerf.
type controlOptions struct {
	reset, profiler                bool
	resetPath, startPath, stopPath string
	resetTimeout, profilerTimeout  float64 // seconds; 0: the request timeout
}

// The flags that turn each hook on.
var (
	resetFlags    = []string{"reset-kv-cache", "reset-kv-cache-path", "reset-kv-cache-timeout-seconds"}
	profilerFlags = []string{"server-profiler", "server-profiler-start-path", "server-profiler-stop-path", "server-profiler-timeout-seconds"}
)

func controlFlags(o *controlOptions, fs *pflag.FlagSet) {
	fs.BoolVar(&o.reset, "reset-kv-cache", false, "before each benchmark (after the wait for an idle server, before its warmup) POST --reset-kv-cache-path to every --url/--target origin, emptying the server's prefix cache so that no benchmark inherits an earlier one's; a refusal stops the run (AIPerf's --reset-kv-cache)")
	fs.StringVar(&o.resetPath, "reset-kv-cache-path", loadgen.DefaultResetPath, "the KV-cache reset's path: vLLM's /reset_prefix_cache (served with VLLM_SERVER_DEV_MODE=1), SGLang's /flush_cache; implies --reset-kv-cache")
	fs.Float64Var(&o.resetTimeout, "reset-kv-cache-timeout-seconds", 0, "seconds the reset may take (default: the request timeout); implies --reset-kv-cache")
	fs.BoolVar(&o.profiler, "server-profiler", false, "POST --server-profiler-start-path to every origin right before each benchmark's measured phase (not its warmup) and --server-profiler-stop-path right after it; a refused start stops the run, a refused stop is a warning (AIPerf's --server-profiler; vLLM and SGLang's torch profiler)")
	fs.StringVar(&o.startPath, "server-profiler-start-path", loadgen.DefaultProfilerStart, "the profiler's start path; implies --server-profiler")
	fs.StringVar(&o.stopPath, "server-profiler-stop-path", loadgen.DefaultProfilerStop, "the profiler's stop path; implies --server-profiler")
	fs.Float64Var(&o.profilerTimeout, "server-profiler-timeout-seconds", 0, "seconds each profiler request may take (default: the request timeout); implies --server-profiler")
}

// errControlShard refuses the control hooks in one shard of a multi-pod
// run.
var errControlShard = Usagef("--reset-kv-cache, --server-profiler: the shards of a run start their benchmarks on one timetable, where no pod may reset or profile the server for the others: reset or profile around the sharded run")

// control checks the flags and returns the rounds' control, nil when no
// hook is on.
func (o *controlOptions) control(fs *pflag.FlagSet) (*loadgen.Control, error) {
	changed := func(names []string) string {
		for _, n := range names {
			if fs != nil && fs.Changed(n) {
				return n
			}
		}
		return ""
	}
	reset := o.reset || changed(resetFlags[1:]) != ""
	profiler := o.profiler || changed(profilerFlags[1:]) != ""
	if !reset && !profiler {
		return nil, nil
	}
	ct := &loadgen.Control{}
	seconds := func(name string, s float64) (time.Duration, error) {
		if s < 0 || math.IsNaN(s) || math.IsInf(s, 0) || (s == 0 && fs != nil && fs.Changed(name)) {
			return 0, Usagef("--%s %v: want seconds > 0", name, s)
		}
		return time.Duration(s * float64(time.Second)), nil
	}
	var err error
	if reset {
		if err := loadgen.ValidateControlPath(o.resetPath); err != nil {
			return nil, Usagef("--reset-kv-cache-path %q: %v", o.resetPath, err)
		}
		ct.ResetPath = o.resetPath
		if ct.ResetTimeout, err = seconds("reset-kv-cache-timeout-seconds", o.resetTimeout); err != nil {
			return nil, err
		}
	}
	if profiler {
		for _, f := range []struct{ name, path string }{{"server-profiler-start-path", o.startPath}, {"server-profiler-stop-path", o.stopPath}} {
			if err := loadgen.ValidateControlPath(f.path); err != nil {
				return nil, Usagef("--%s %q: %v", f.name, f.path, err)
			}
		}
		ct.ProfilerStart, ct.ProfilerStop = o.startPath, o.stopPath
		if ct.ProfilerTimeout, err = seconds("server-profiler-timeout-seconds", o.profilerTimeout); err != nil {
			return nil, err
		}
	}
	return ct, nil
}
