package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/spf13/pflag"
	"sigs.k8s.io/yaml"
)

// AIPerf's YAML config (`aiperf profile --config FILE`, schemaVersion
// "2.0"): the part of it goodput profile runs. Its values go into the
// profile's typed options as if the matching flags had been given, and a
// flag given on the command line wins over the file, as in AIPerf. A key
// outside this part is an error naming the key and the file.

type aiperfConfigFile struct {
	SchemaVersion json.RawMessage `json:"schema_version"`
	RandomSeed    *int64          `json:"random_seed"`
	Benchmark     aiperfBenchmark `json:"benchmark"`
	Sweep         *aiperfSweep    `json:"sweep"`
}

type aiperfBenchmark struct {
	Model     string          `json:"model"`
	Models    []string        `json:"models"`
	Endpoint  *aiperfEndpoint `json:"endpoint"`
	Dataset   *aiperfDataset  `json:"dataset"`
	Datasets  []aiperfDataset `json:"datasets"`
	Phases    json.RawMessage `json:"phases"`
	Artifacts *struct {
		Dir             string `json:"dir"`
		Trace           *bool  `json:"trace"`             // --export-http-trace
		ShowTraceTiming *bool  `json:"show_trace_timing"` // --show-trace-timing
	} `json:"artifacts"`
}

type aiperfEndpoint struct {
	URL       string   `json:"url"`
	Type      string   `json:"type"`
	Streaming *bool    `json:"streaming"`
	APIKey    string   `json:"api_key"`
	Timeout   *float64 `json:"timeout"`
	// The control hooks: false, true or an object of the flags' settings.
	ResetKVCache   json.RawMessage `json:"reset_kv_cache"`
	ServerProfiler json.RawMessage `json:"server_profiler"`
}

// aiperfHook is a control hook's object form.
type aiperfHook struct {
	Path           *string  `json:"path"`       // reset_kv_cache
	StartPath      *string  `json:"start_path"` // server_profiler
	StopPath       *string  `json:"stop_path"`
	TimeoutSeconds *float64 `json:"timeout_seconds"`
}

type aiperfDataset struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Entries *int   `json:"entries"`
	Prompts *struct {
		ISL json.RawMessage `json:"isl"`
		OSL json.RawMessage `json:"osl"`
	} `json:"prompts"`
	Path   string `json:"path"`
	Format string `json:"format"`
}

type aiperfPhase struct {
	Name               string          `json:"name"`
	Kind               string          `json:"kind"`
	Type               string          `json:"type"`
	Concurrency        *int            `json:"concurrency"`
	Rate               *float64        `json:"rate"`
	Requests           *int            `json:"requests"`
	Duration           json.RawMessage `json:"duration"`
	Smoothness         *float64        `json:"smoothness"`
	ConcurrencyRamp    json.RawMessage `json:"concurrency_ramp"`
	RateRamp           json.RawMessage `json:"rate_ramp"`
	ExcludeFromResults *bool           `json:"exclude_from_results"`
	Sessions           *int            `json:"sessions"`
	GracePeriod        json.RawMessage `json:"grace_period"`
	PrefillConcurrency *int            `json:"prefill_concurrency"`
	PrefillRamp        json.RawMessage `json:"prefill_ramp"`
}

type aiperfSweep struct {
	Type       string               `json:"type"`
	Parameters map[string][]float64 `json:"parameters"`
}

// readAIPerfConfig reads FILE into po; flags already given keep their
// values.
func (po *profileOptions) readAIPerfConfig(fs *pflag.FlagSet, path string, getenv func(string) string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Usagef("--config: %v", err)
	}
	if bytes.Contains(raw, []byte("{{")) {
		return Usagef("--config %s: computed values ({{ … }}) are not supported; give the values", path)
	}
	text, err := expandEnv(string(raw), func(k string) (string, bool) { v := getenv(k); return v, v != "" })
	if err != nil {
		return Usagef("--config %s: %v", path, err)
	}
	js, err := yaml.YAMLToJSON([]byte(text))
	if err != nil {
		return Usagef("--config %s: %v", path, oneLineErr(err))
	}
	var tree any
	if err := json.Unmarshal(js, &tree); err != nil {
		return Usagef("--config %s: %v", path, err)
	}
	js, _ = json.Marshal(snakeKeys(tree))
	var cf aiperfConfigFile
	if err := strictJSON(js, &cf); err != nil {
		return Usagef("--config %s: %v", path, err)
	}
	c := configSetter{fs: fs, file: path}
	if err := c.apply(po, &cf); err != nil {
		return err
	}
	return nil
}

// configSetter sets a flag's value from the file unless the command line
// gave the flag (under any of its names), and marks it given.
type configSetter struct {
	fs   *pflag.FlagSet
	file string
}

func (c configSetter) set(names []string, apply func()) {
	if changedAlias(c.fs, names) != "" {
		return
	}
	apply()
	if f := c.fs.Lookup(names[0]); f != nil {
		f.Changed = true
	}
}

// hooks applies endpoint.reset_kv_cache and endpoint.server_profiler:
// false (off), true (on with the defaults) or an object of the settings,
// which turns its hook on, as its flags do.
func (c configSetter) hooks(po *profileOptions, e *aiperfEndpoint) error {
	read := func(key string, raw json.RawMessage, objKeys string) (on bool, h aiperfHook, err error) {
		if len(raw) == 0 || string(raw) == "null" || string(raw) == "false" {
			return false, h, nil
		}
		if string(raw) == "true" {
			return true, h, nil
		}
		if err := strictJSON(raw, &h); err != nil {
			return false, h, c.errf("benchmark.endpoint."+key, "want false, true or an object of %s: %v", objKeys, err)
		}
		return true, h, nil
	}
	on, h, err := read("reset_kv_cache", e.ResetKVCache, "path and timeout_seconds")
	if err != nil {
		return err
	}
	if on && (h.StartPath != nil || h.StopPath != nil) {
		return c.errf("benchmark.endpoint.reset_kv_cache", "takes path and timeout_seconds (start_path and stop_path are server_profiler's)")
	}
	if on {
		c.set([]string{"reset-kv-cache"}, func() { po.control.reset = true })
		if h.Path != nil {
			c.set([]string{"reset-kv-cache-path"}, func() { po.control.resetPath = *h.Path })
		}
		if h.TimeoutSeconds != nil {
			c.set([]string{"reset-kv-cache-timeout-seconds"}, func() { po.control.resetTimeout = *h.TimeoutSeconds })
		}
	}
	if on, h, err = read("server_profiler", e.ServerProfiler, "start_path, stop_path and timeout_seconds"); err != nil {
		return err
	}
	if on && h.Path != nil {
		return c.errf("benchmark.endpoint.server_profiler", "takes start_path, stop_path and timeout_seconds (path is reset_kv_cache's)")
	}
	if on {
		c.set([]string{"server-profiler"}, func() { po.control.profiler = true })
		if h.StartPath != nil {
			c.set([]string{"server-profiler-start-path"}, func() { po.control.startPath = *h.StartPath })
		}
		if h.StopPath != nil {
			c.set([]string{"server-profiler-stop-path"}, func() { po.control.stopPath = *h.StopPath })
		}
		if h.TimeoutSeconds != nil {
			c.set([]string{"server-profiler-timeout-seconds"}, func() { po.control.profilerTimeout = *h.TimeoutSeconds })
		}
	}
	return nil
}

func (c configSetter) errf(key, format string, args ...any) error {
	return Usagef("--config %s: %s: %s", c.file, key, fmt.Sprintf(format, args...))
}

func (c configSetter) apply(po *profileOptions, cf *aiperfConfigFile) error {
	if len(cf.SchemaVersion) > 0 && strings.Trim(string(cf.SchemaVersion), `"`) != "2.0" {
		return c.errf("schema_version", "%s: goodput reads AIPerf's schema 2.0", cf.SchemaVersion)
	}
	if cf.RandomSeed != nil {
		c.set([]string{"random-seed"}, func() { po.seed = *cf.RandomSeed })
	}
	b := cf.Benchmark
	models := b.Models
	if b.Model != "" {
		models = append([]string{b.Model}, models...)
	}
	if len(models) > 0 {
		c.set([]string{"model", "model-names"}, func() { po.models = models })
	}
	if e := b.Endpoint; e != nil {
		if e.URL != "" {
			c.set([]string{"url"}, func() { po.urls = []string{e.URL} })
		}
		if e.Type != "" {
			c.set([]string{"endpoint-type"}, func() { po.endpointType = e.Type })
		}
		if e.Streaming != nil {
			c.set([]string{"streaming"}, func() { po.streaming = *e.Streaming })
		}
		if e.APIKey != "" {
			c.set([]string{"api-key"}, func() { po.apiKey = e.APIKey })
		}
		if e.Timeout != nil {
			c.set([]string{"request-timeout-seconds"}, func() { po.requestTimeout = *e.Timeout })
		}
		if err := c.hooks(po, e); err != nil {
			return err
		}
	}
	if err := c.dataset(po, b); err != nil {
		return err
	}
	if err := c.phases(po, b.Phases); err != nil {
		return err
	}
	if a := b.Artifacts; a != nil {
		if a.Dir != "" {
			c.set([]string{"artifact-dir", "output-artifact-dir", "output-dir"}, func() { po.artifactDir = a.Dir })
		}
		if a.Trace != nil {
			c.set([]string{"export-http-trace"}, func() { po.exportHTTPTrace = *a.Trace })
		}
		if a.ShowTraceTiming != nil {
			c.set([]string{"show-trace-timing"}, func() { po.showTraceTiming = *a.ShowTraceTiming })
		}
	}
	if s := cf.Sweep; s != nil {
		if s.Type != "" && s.Type != "grid" {
			return c.errf("sweep.type", "%s: goodput profile sweeps one list (grid)", s.Type)
		}
		if len(s.Parameters) > 1 {
			return c.errf("sweep.parameters", "goodput profile sweeps one parameter (concurrency or rate)")
		}
		for k, vs := range s.Parameters {
			list := formatList(vs)
			switch strings.TrimPrefix(k, "phases.profiling.") {
			case "concurrency":
				c.set([]string{"concurrency"}, func() { po.concurrency = list })
			case "rate":
				c.set([]string{"request-rate"}, func() { po.requestRate = list })
			default:
				return c.errf("sweep.parameters."+k, "goodput profile sweeps concurrency or rate")
			}
		}
	}
	return nil
}

func (c configSetter) dataset(po *profileOptions, b aiperfBenchmark) error {
	ds := b.Datasets
	if b.Dataset != nil {
		ds = append([]aiperfDataset{*b.Dataset}, ds...)
	}
	if len(ds) > 1 {
		return c.errf("benchmark.datasets", "one dataset (as AIPerf)")
	}
	if len(ds) == 0 {
		return nil
	}
	d := ds[0]
	switch d.Type {
	case "", "synthetic":
		if d.Path != "" || d.Format != "" {
			return c.errf("benchmark.dataset.path", "a synthetic dataset has no path (type: file)")
		}
		if d.Entries != nil {
			c.set([]string{"num-dataset-entries", "num-prompts"}, func() { po.numEntries = *d.Entries })
		}
		if d.Prompts != nil {
			if err := c.lengths("benchmark.dataset.prompts.isl", d.Prompts.ISL, islFlags, islStddevFlags, &po.isl, &po.islStddev); err != nil {
				return err
			}
			if err := c.lengths("benchmark.dataset.prompts.osl", d.Prompts.OSL, oslFlags, oslStddevFlags, &po.osl, &po.oslStddev); err != nil {
				return err
			}
		}
	case "file":
		if d.Path == "" {
			return c.errf("benchmark.dataset.path", "a file dataset needs its path")
		}
		c.set([]string{"input-file"}, func() { po.inputFile = d.Path })
		if d.Format != "" {
			c.set([]string{"custom-dataset-type"}, func() { po.datasetType = d.Format })
		}
	default:
		return c.errf("benchmark.dataset.type", "%s: goodput profile reads synthetic and file datasets", d.Type)
	}
	return nil
}

// lengths reads isl/osl: a number, or {mean, stddev}.
func (c configSetter) lengths(key string, raw json.RawMessage, mean, stddev []string, m, sd *int) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var n int
	if err := json.Unmarshal(raw, &n); err == nil {
		c.set(mean, func() { *m = n })
		return nil
	}
	var d struct {
		Mean   *int `json:"mean"`
		Stddev *int `json:"stddev"`
	}
	if err := strictJSON(raw, &d); err != nil {
		return c.errf(key, "want a token count or {mean: N, stddev: N} (%v)", err)
	}
	if d.Mean != nil {
		c.set(mean, func() { *m = *d.Mean })
	}
	if d.Stddev != nil {
		c.set(stddev, func() { *sd = *d.Stddev })
	}
	return nil
}

// phases reads the profiling phase (a flat mapping, or the list's phase
// named or of kind profiling) and a warmup phase's length.
func (c configSetter) phases(po *profileOptions, raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var list []aiperfPhase
	if raw[0] == '{' {
		var one aiperfPhase
		if err := strictJSON(raw, &one); err != nil {
			return c.errf("benchmark.phases", "%v", err)
		}
		list = []aiperfPhase{one}
	} else if err := strictJSON(raw, &list); err != nil {
		return c.errf("benchmark.phases", "%v", err)
	}
	var profiling, warmup *aiperfPhase
	for i := range list {
		ph := &list[i]
		kind := ph.Kind
		if kind == "" && ph.Name == "warmup" {
			kind = "warmup"
		}
		switch {
		case kind == "warmup" && warmup == nil:
			warmup = ph
		case (kind == "" || kind == "profiling") && profiling == nil:
			profiling = ph
		default:
			return c.errf("benchmark.phases", "one warmup and one profiling phase (goodput runs one measured phase per benchmark)")
		}
	}
	if profiling != nil {
		if err := c.profilingPhase(po, profiling); err != nil {
			return err
		}
	}
	if warmup != nil {
		return c.warmupPhase(po, warmup)
	}
	return nil
}

// warmupPhase reads a warmup phase into the warmup options. Its load is
// its own: a concurrency phase without a concurrency has 1 stream, as in
// AIPerf, and inherits no rate from the profiling phase.
func (c configSetter) warmupPhase(po *profileOptions, ph *aiperfPhase) error {
	key := "benchmark.phases." + ph.Name
	if ph.Name == "" {
		key = "benchmark.phases.warmup"
	}
	switch {
	case ph.ExcludeFromResults != nil && !*ph.ExcludeFromResults:
		return c.errf(key+".exclude_from_results", "a warmup phase is left out of the results")
	case ph.Requests == nil && ph.Sessions == nil && len(ph.Duration) == 0:
		return c.errf(key, "give the warmup's length: requests, duration or sessions")
	}
	switch ph.Type {
	case "", "concurrency":
		if ph.Rate != nil {
			return c.errf(key+".rate", "a concurrency phase has no rate (type: poisson, constant or gamma)")
		}
		n := 1
		if ph.Concurrency != nil {
			n = *ph.Concurrency
		}
		c.set([]string{"warmup-concurrency"}, func() { po.warmupConc = n })
		po.warmupClosed = po.warmupRate == 0
	case "poisson", "constant", "gamma":
		if ph.Rate == nil {
			return c.errf(key+".rate", "a %s phase needs its rate (requests per second)", ph.Type)
		}
		mode, r := ph.Type, *ph.Rate
		c.set([]string{"warmup-arrival-pattern"}, func() { po.warmupPattern = mode })
		c.set([]string{"warmup-request-rate"}, func() { po.warmupRate = r })
		if ph.Concurrency != nil {
			n := *ph.Concurrency
			c.set([]string{"warmup-concurrency"}, func() { po.warmupConc = n })
		}
		if ph.Smoothness != nil {
			po.warmupSmoothness = *ph.Smoothness
		}
	default:
		return c.errf(key+".type", "%s: a warmup phase is concurrency, poisson, constant or gamma", ph.Type)
	}
	if ph.Requests != nil {
		n := *ph.Requests
		c.set([]string{"warmup-request-count", "num-warmup-requests"}, func() { po.warmupCount = n })
	}
	if ph.Sessions != nil {
		n := *ph.Sessions
		c.set([]string{"num-warmup-sessions"}, func() { po.warmupSessions = n })
	}
	if ph.PrefillConcurrency != nil {
		n := *ph.PrefillConcurrency
		c.set([]string{"warmup-prefill-concurrency"}, func() { po.warmupPrefill = n })
	}
	if len(ph.GracePeriod) > 0 {
		g, err := phaseSeconds(ph.GracePeriod)
		if err != nil {
			return c.errf(key+".grace_period", "%v", err)
		}
		c.set([]string{"warmup-grace-period"}, func() { po.warmupGrace = strconv.FormatFloat(g, 'f', -1, 64) })
	}
	return c.phaseSeconds(key, []phaseField{
		{"duration", ph.Duration, []string{"warmup-duration"}, &po.warmupDuration},
		{"concurrency_ramp", ph.ConcurrencyRamp, []string{"warmup-concurrency-ramp-duration"}, &po.warmupConcRamp},
		{"rate_ramp", ph.RateRamp, []string{"warmup-request-rate-ramp-duration"}, &po.warmupRateRamp},
		{"prefill_ramp", ph.PrefillRamp, []string{"warmup-prefill-concurrency-ramp-duration"}, &po.warmupPrefillRamp},
	})
}

// phaseField is a phase's duration or ramp key and the flag it sets.
type phaseField struct {
	field string
	raw   json.RawMessage
	flag  []string
	dst   *float64
}

// phaseSeconds reads a phase's durations (seconds) and ramps (seconds or
// {duration, strategy}) into their flags.
func (c configSetter) phaseSeconds(key string, fields []phaseField) error {
	for _, d := range fields {
		if len(d.raw) == 0 {
			continue
		}
		read := phaseSeconds
		if strings.HasSuffix(d.field, "_ramp") {
			read = rampSeconds
		}
		s, err := read(d.raw)
		if err != nil {
			return c.errf(key+"."+d.field, "%v", err)
		}
		dst := d.dst
		c.set(d.flag, func() { *dst = s })
	}
	return nil
}

func (c configSetter) profilingPhase(po *profileOptions, ph *aiperfPhase) error {
	key := "benchmark.phases"
	if ph.Name != "" {
		key += "." + ph.Name
	}
	switch ph.Type {
	case "", "concurrency":
		if ph.Rate != nil {
			return c.errf(key+".rate", "a concurrency phase has no rate (type: poisson, constant or gamma)")
		}
	case "poisson", "constant", "gamma":
		mode := ph.Type
		c.set([]string{"request-rate-mode", "arrival-pattern"}, func() { po.rateMode = mode })
		if ph.Rate != nil {
			r := *ph.Rate
			c.set([]string{"request-rate"}, func() { po.requestRate = strconv.FormatFloat(r, 'f', -1, 64) })
		}
	case "fixed_schedule":
		c.set([]string{"fixed-schedule"}, func() { po.fixedSchedule = true })
	default:
		return c.errf(key+".type", "%s: goodput profile runs concurrency, poisson, constant, gamma and fixed_schedule phases", ph.Type)
	}
	if ph.Concurrency != nil {
		n := *ph.Concurrency
		c.set([]string{"concurrency"}, func() { po.concurrency = strconv.Itoa(n) })
	}
	if ph.Requests != nil {
		c.set([]string{"request-count", "num-requests"}, func() { po.requestCount = *ph.Requests })
	}
	if ph.PrefillConcurrency != nil {
		n := *ph.PrefillConcurrency
		c.set([]string{"prefill-concurrency"}, func() { po.prefill = n })
	}
	if err := c.phaseSeconds(key, []phaseField{
		{"duration", ph.Duration, []string{"benchmark-duration"}, &po.duration},
		{"concurrency_ramp", ph.ConcurrencyRamp, []string{"concurrency-ramp-duration"}, &po.concRamp},
		{"rate_ramp", ph.RateRamp, []string{"request-rate-ramp-duration"}, &po.rateRamp},
		{"prefill_ramp", ph.PrefillRamp, []string{"prefill-concurrency-ramp-duration"}, &po.prefillRamp},
	}); err != nil {
		return err
	}
	if ph.Smoothness != nil {
		c.set([]string{"arrival-smoothness", "vllm-burstiness"}, func() { po.smoothness = *ph.Smoothness })
	}
	if ph.ExcludeFromResults != nil && *ph.ExcludeFromResults {
		return c.errf(key+".exclude_from_results", "the profiling phase is the measured one")
	}
	return nil
}

// phaseSeconds reads a duration: seconds as a number, or a string such
// as "120", "90s" or "5m".
func phaseSeconds(raw json.RawMessage) (float64, error) {
	var f float64
	if err := json.Unmarshal(raw, &f); err == nil {
		return f, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return 0, errors.New("want seconds or a duration such as 90s or 5m")
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q: want seconds or a duration such as 90s or 5m", s)
	}
	return d.Seconds(), nil
}

// rampSeconds reads a phase's ramp: its seconds, or AIPerf's
// {duration, strategy} with the linear strategy (goodput's caps and rate
// ramp are linear).
func rampSeconds(raw json.RawMessage) (float64, error) {
	var spec struct {
		Duration json.RawMessage `json:"duration"`
		Strategy string          `json:"strategy"`
	}
	if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
		if err := strictJSON(raw, &spec); err != nil || len(spec.Duration) == 0 {
			return 0, errors.New("want seconds or {duration: seconds, strategy: linear}")
		}
		if spec.Strategy != "" && spec.Strategy != "linear" {
			return 0, fmt.Errorf("strategy %q: goodput ramps linearly (want linear)", spec.Strategy)
		}
		raw = spec.Duration
	}
	return phaseSeconds(raw)
}

// strictJSON decodes refusing unknown keys.
func strictJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if msg, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return fmt.Errorf("unknown key %s", msg)
		}
		return err
	}
	return nil
}

// snakeKeys turns AIPerf's camelCase keys (schemaVersion, randomSeed)
// into snake_case, recursively; sweep parameter paths keep their dots.
func snakeKeys(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[snake(k)] = snakeKeys(x)
		}
		return out
	case []any:
		for i := range t {
			t[i] = snakeKeys(t[i])
		}
	}
	return v
}

func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([^}]*))?\}`)

// expandEnv substitutes AIPerf's ${VAR} (required) and ${VAR:default}.
func expandEnv(s string, lookup func(string) (string, bool)) (string, error) {
	var missing string
	out := envRef.ReplaceAllStringFunc(s, func(m string) string {
		g := envRef.FindStringSubmatch(m)
		if v, ok := lookup(g[1]); ok {
			return v
		}
		if strings.Contains(m, ":") {
			return g[2]
		}
		if missing == "" {
			missing = g[1]
		}
		return m
	})
	if missing != "" {
		return "", fmt.Errorf("${%s} is not set (give ${%s:default} for an optional value)", missing, missing)
	}
	return out, nil
}
