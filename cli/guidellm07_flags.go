package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"
)

// v07State holds the raw values of the v0.7 options, from the command
// line or a --config file, until applyV07.
type v07State struct {
	byOpt    map[string][]string
	fromFile map[string]bool
	cli      map[string]bool // the flags the command line gave
	loading  bool            // a --config file is being applied
}

// applyV07 applies every v0.7 option value to o, in v07Opts order.
func applyV07(o *benchOptions, fs *pflag.FlagSet, st *v07State, file string) error {
	if len(o.override) > 0 {
		return Usagef("--override: not supported: give the list in the option itself (--profile '{\"kind\":\"concurrent\",\"streams\":[1,2,4]}')")
	}
	a := &v07Applier{o: o, fs: fs, cli: st.cli, file: file}
	rows := v07Table()
	for _, opt := range v07Opts {
		seen := map[string]bool{}
		for _, raw := range st.byOpt[opt] {
			v, err := parseRegistry(raw)
			if err != nil {
				return Usagef("--%s %q: %v", opt, raw, err)
			}
			a.fromFile = st.fromFile[opt]
			if opt == "constraint" {
				if seen[v.kind()] {
					return Usagef("--constraint kind=%s given twice", v.kind())
				}
				seen[v.kind()] = true
			}
			if err := a.apply(opt, v, rows); err != nil {
				return err
			}
		}
	}
	a.fromFile = st.fromFile["output"] || st.fromFile["metrics"] || st.fromFile["profile"]
	return a.finish()
}

// v07Value is a v0.7 option's pflag value: its registry form is kept for
// applyV07; a plain word is its pre-0.7 meaning, given to legacy
// (--backend openai_http, --profile sweep, --tokenizer PATH, --seed 42).
type v07Value struct {
	opt    string
	st     *v07State
	legacy func(string) error // nil: the option has no plain form
	repeat bool
	// needKind: a value without kind is the plain form too
	// (--data-column-mapper '{"text_column":"q"}').
	needKind bool
	str      func() string
}

func (v *v07Value) String() string {
	if v.str != nil {
		return v.str()
	}
	return ""
}

func (v *v07Value) Type() string {
	if v.repeat {
		return "stringArray"
	}
	return "string"
}

func (v *v07Value) Set(s string) error {
	r, err := parseRegistry(s)
	plain := err == errNotRegistry || (v.needKind && err == nil && r.kind() == "")
	switch {
	case plain && v.legacy != nil:
		return v.legacy(s)
	case plain:
		return fmt.Errorf("want kind=TYPE,key=value,… or a JSON/YAML object")
	}
	if v.st.loading {
		v.st.fromFile[v.opt] = true
	}
	if !v.repeat {
		v.st.byOpt[v.opt] = nil
	}
	v.st.byOpt[v.opt] = append(v.st.byOpt[v.opt], s)
	return nil
}

// GetSlice lists a repeatable option's values (for --print-config).
func (v *v07Value) GetSlice() []string { return v.st.byOpt[v.opt] }

// v07Flags registers the v0.7 options and the configuration file flags.
func v07Flags(o *benchOptions, fs *pflag.FlagSet) {
	st := &v07State{byOpt: map[string][]string{}, fromFile: map[string]bool{}}
	o.v07 = st
	to := func(flag string) func(string) error {
		return func(s string) error {
			if st.loading && st.cli[flag] {
				return nil
			}
			return fs.Set(flag, s)
		}
	}
	add := func(name string, v *v07Value, usage string) {
		v.opt, v.st = name, st
		fs.Var(v, name, usage)
	}
	add("backend", &v07Value{legacy: to("backend-type")}, "GuideLLM v0.7: kind=openai_http,target=URL,model=…,request_format=…,api_key=…,timeout=…,http2=…,extras=… or a JSON/YAML object (a plain openai_http: --backend-type)")
	add("profile", &v07Value{legacy: to("rate-type")}, "GuideLLM v0.7: kind=synchronous|concurrent|throughput|constant|poisson|sweep|replay|goodput with streams, rate, max_concurrency, sweep_size, strategy_type, time_scale, rampup_duration, warmup, cooldown (a plain name: --rate-type)")
	add("constraint", &v07Value{repeat: true}, "GuideLLM v0.7 (repeatable): kind=max_duration,seconds=N | max_requests,count=N | max_errors,count=N | max_error_rate,rate=X,window=N | max_global_error_rate,rate=X,minimum=N | over_saturation[,mode=…,min_seconds=…] (--over-saturation) | target_moe,metric=…,statistic=…,moe=… (--target-moe)")
	add("output", &v07Value{repeat: true}, "GuideLLM v0.7 (repeatable): kind=json|yaml|csv|html|console,path=FILE")
	add("tokenizer", &v07Value{legacy: to("processor")}, "GuideLLM v0.7: kind=huggingface_auto,model=PATH (a plain path: --processor)")
	fs.Var(&v07Value{opt: "data-column-mapper", st: st, needKind: true, legacy: func(s string) error { o.columnMapper = s; return nil }, str: func() string { return o.columnMapper }},
		"data-column-mapper", `map data file columns: kind=generative_column_mapper,column_mappings.text_column=article, or '{"text_column":"question","output_tokens_count_column":"max_len"}'`)
	add("data-loader", &v07Value{}, "GuideLLM v0.7: kind=pytorch,samples=N,shuffle=true (--data-samples, --data-shuffle)")
	add("data-preprocessor", &v07Value{repeat: true}, "GuideLLM v0.7: kind=encode_media (the default) only")
	add("data-finalizer", &v07Value{}, "GuideLLM v0.7: kind=generative (the default) only")
	add("seed", &v07Value{legacy: to("random-seed")}, "GuideLLM v0.7: kind=static,value=N, or N (--random-seed)")
	add("metrics", &v07Value{}, `GuideLLM: kind=generative,sample_size=N (--sample-requests), or '{"kind":"generative","slo":{"ttft_ms":200,"tpot_ms":50}}' (--slo)`)
	fs.StringArrayVar(&o.override, "override", nil, "GuideLLM's --override KEY VALUES: not supported (give lists in the option)")
	fs.IntVar(&o.errorRateWindow, "error-rate-window", 0, "requests in --max-error-rate's sliding window (default 30, GuideLLM's window)")
	fs.StringVarP(&o.configFile, "config", "c", "", "a configuration file (YAML or JSON): goodput's (every long flag is a key), a GuideLLM scenario (spec: {backend, profile, data, constraints, outputs…}) or report, or GuideLLM's built-in scenario chat or rag; flags given on the command line win")
	fs.StringVar(&o.configFile, "scenario", "", "alias of --config")
	fs.BoolVar(&o.printConfig, "print-config", false, "print the effective configuration as a goodput --config YAML file (e.g. for a ConfigMap) and exit; the API key is left out")
}

// normalizeData rewrites a GuideLLM v0.7 --data value for goodput's data
// reader: dotted keys (load_kwargs.name=3.0.0) become a JSON object, and
// load_kwargs {"split": "train"} on a file kind, that file's only split
// as GuideLLM loads it, is dropped.
func normalizeData(s string) string {
	v, err := parseRegistry(s)
	if err != nil || v.kind() == "" {
		return s
	}
	changed := false
	if lk, ok := v["load_kwargs"].(map[string]any); ok && strings.HasSuffix(v.kind(), "_file") && len(lk) == 1 && lk["split"] == "train" {
		delete(v, "load_kwargs")
		changed = true
	}
	if !strings.HasPrefix(strings.TrimSpace(s), "{") {
		for _, x := range v {
			if _, nested := x.(map[string]any); nested {
				changed = true
			}
		}
	}
	if !changed {
		return s
	}
	return canonicalJSON(map[string]any(v))
}

// existingFiles are the paths of names that exist.
func existingFiles(names []string) []string {
	var out []string
	for _, n := range names {
		if _, err := os.Stat(n); err == nil {
			out = append(out, n)
		}
	}
	return out
}
