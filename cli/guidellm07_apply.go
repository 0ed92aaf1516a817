package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/slo"
	"github.com/goodput-dev/goodput/sweep"
)

// overSat applies --constraint kind=over_saturation and its keys to
// --over-saturation (loadgen.ParseOverSaturation's form).
func overSat(a *v07Applier, v any) error {
	return a.constraintKey("over-saturation", &a.o.quality.overSat, v, func(s string) error {
		_, err := loadgen.ParseOverSaturation(s)
		return err
	})
}

// targetMOE applies --constraint kind=target_moe and its keys to
// --target-moe (sweep.ParseTargetMOE's form).
func targetMOE(a *v07Applier, v any) error {
	return a.constraintKey("target-moe", &a.o.quality.targetMOE, v, func(s string) error {
		_, err := sweep.ParseTargetMOE(s)
		return err
	})
}

// constraintKey adds the key being applied (none for the kind itself)
// to a constraint flag's key=value items, checked by parse.
func (a *v07Applier) constraintKey(flag string, dst *string, v any, parse func(string) error) error {
	item := "kind=" + a.kind
	if a.key != "" {
		var val string
		switch t := v.(type) {
		case string:
			val = t
		case bool:
			val = strconv.FormatBool(t)
		default:
			f, ok := number(v)
			if !ok {
				return a.bad(v, "a number or a word")
			}
			val = strconv.FormatFloat(f, 'f', -1, 64)
		}
		if a.kind == "over_saturation" && a.key == "mode" && val == "enforce" {
			val = "stop" // GuideLLM's name of stop
		}
		item = *dst + "," + a.key + "=" + val
	}
	if err := parse(item); err != nil {
		where := "kind=" + a.kind
		if a.key != "" {
			where += "," + a.key + "=" + shown(v)
		}
		return Usagef("--constraint %s: %v", where, err)
	}
	return a.set(flag, func() { *dst = item })
}

// v07Applier applies v0.7 option values to the benchmark options.
type v07Applier struct {
	o   *benchOptions
	fs  *pflag.FlagSet
	cli map[string]bool // flags given on the command line
	// the value being applied
	opt, kind, key string
	fromFile       bool
	file           string          // the --config file, for messages
	slo            []slo.Objective // --metrics slo and target_attainment
	outKinds       []string
	outKind        string
}

// set assigns a benchmark flag from a v0.7 option. A flag the command line
// gave wins over a --config file; given twice on the command line, it is
// an error.
func (a *v07Applier) set(flag string, assign func()) error {
	if a.cli[flag] && flag != a.opt {
		if a.fromFile {
			return nil
		}
		return Usagef("--%s %s and --%s both given: give one", a.opt, a.what(), flag)
	}
	assign()
	if f := a.fs.Lookup(flag); f != nil {
		f.Changed = true
	}
	return nil
}

func (a *v07Applier) what() string {
	if a.key == "" {
		return "kind=" + a.kind
	}
	return a.key + "="
}

func (a *v07Applier) bad(v any, want string) error {
	return Usagef("--%s %s=%s: want %s", a.opt, a.key, shown(v), want)
}

// nullable are the keys whose null is not their default: null is "none"
// (timeout: no limit; sample_size: every request).
var nullable = map[string]bool{"timeout": true, "sample_size": true}

// apply applies one value of option opt.
func (a *v07Applier) apply(opt string, v regValue, rows []v07Row) error {
	a.opt, a.kind, a.key = opt, v.kind(), ""
	var kinds []string
	var kindRow *v07Row
	for i, r := range rows {
		if r.Opt != opt || r.Kind == "" || r.Key != "" {
			continue
		}
		kinds = append(kinds, r.Kind)
		if r.Kind == a.kind {
			kindRow = &rows[i]
		}
	}
	if len(kinds) > 0 { // options with kinds (all but --knee-detection)
		if _, ok := v["kind"]; !ok {
			return Usagef("--%s: missing kind (want kind=%s,…)", opt, strings.Join(kinds, "|"))
		}
		if kindRow == nil {
			return Usagef("--%s kind=%s: unknown kind (want %s)", opt, shown(v["kind"]), strings.Join(kinds, ", "))
		}
		if kindRow.Refuse != "" {
			return Usagef("--%s kind=%s: %s", opt, a.kind, kindRow.Refuse)
		}
		if err := kindRow.apply(a, nil); err != nil {
			return err
		}
	}
	keyRow := func(key string) *v07Row {
		for i, r := range rows {
			if r.Opt == opt && r.Key == key && (r.Kind == a.kind || r.Kind == "") {
				return &rows[i]
			}
		}
		return nil
	}
	for _, k := range v.keys() {
		if k == "kind" {
			continue
		}
		a.key = k
		r := keyRow(k)
		if r == nil {
			var known []string
			for _, r := range rows {
				if r.Opt == opt && r.Key != "" && (r.Kind == a.kind || r.Kind == "") {
					known = append(known, r.Key)
				}
			}
			where := "--" + opt
			if a.kind != "" {
				where += " kind=" + a.kind
			}
			return Usagef("%s: unknown key %q (keys: %s)", where, k, strings.Join(known, ", "))
		}
		if v[k] == nil && !nullable[k] {
			continue // GuideLLM's None: the default
		}
		if r.Refuse != "" {
			return Usagef("--%s %s: not supported: %s", opt, k, r.Refuse)
		}
		if err := r.apply(a, v[k]); err != nil {
			return err
		}
	}
	for _, r := range rows {
		if r.Opt == opt && r.Kind == a.kind && r.Required {
			if _, ok := v[r.Key]; !ok {
				return Usagef("--%s kind=%s needs %s=…", opt, a.kind, r.Key)
			}
		}
	}
	return nil
}

// rates sets --rate from streams or rate (a number or a list).
func (a *v07Applier) rates(v any, whole bool) error {
	l, ok := numbers(v)
	want := "a number > 0 or a JSON list of them, e.g. [1,2,4]"
	if whole {
		want = "a whole number ≥ 1 or a JSON list of them, e.g. [1,2,4]"
	}
	if !ok {
		return a.bad(v, want)
	}
	for _, f := range l {
		if !(f > 0) || math.IsInf(f, 0) || (whole && f != math.Trunc(f)) {
			return a.bad(v, want)
		}
	}
	return a.setRates(l)
}

// setRates sets --rate to the list l, typed beside its text.
func (a *v07Applier) setRates(l []float64) error {
	return a.set("rate", func() {
		a.o.rate = formatNumbers(l)
		a.o.rates.put(a.o.rate, l)
	})
}

func (a *v07Applier) maxConcurrency(v any) error {
	if v == nil {
		return nil // GuideLLM's None: goodput's default cap
	}
	f, ok := number(v)
	if !ok || f < 1 || f != math.Trunc(f) || f > math.MaxInt32 {
		return a.bad(v, "a whole number ≥ 1, or null")
	}
	return a.set("max-concurrency", func() { a.o.maxConcurrency = int(f) })
}

// oneNumber reads a positive number; GuideLLM's per-benchmark lists are
// refused unless they hold one value.
func (a *v07Applier) oneNumber(v any, want string) (float64, error) {
	l, ok := numbers(v)
	if !ok {
		return 0, a.bad(v, want)
	}
	if len(l) > 1 {
		return 0, Usagef("--%s %s=%s: one value per benchmark is not supported: give one value", a.opt, a.key, shown(v))
	}
	if !(l[0] > 0) || math.IsInf(l[0], 0) {
		return 0, a.bad(v, want)
	}
	return l[0], nil
}

func (a *v07Applier) count(v any, flag string, p *int) error {
	f, err := a.oneNumber(v, "a whole number ≥ 1")
	if err != nil {
		return err
	}
	if f != math.Trunc(f) || f > math.MaxInt32 {
		return a.bad(v, "a whole number ≥ 1")
	}
	return a.set(flag, func() { *p = int(f) })
}

// phase sets --warmup or --cooldown from a TransientPhaseConfig value.
func (a *v07Applier) phase(flag string, p *string, v any) error {
	var s string
	switch t := v.(type) {
	case nil:
		return nil
	case map[string]any:
		s = canonicalJSON(t)
	case string:
		s = t
	default:
		f, ok := number(v)
		if !ok || f < 0 {
			return a.bad(v, "a number (<1 a fraction, ≥1 an amount) or a TransientPhaseConfig object")
		}
		s = strconv.FormatFloat(f, 'g', -1, 64)
	}
	return a.set(flag, func() { *p = s })
}

// backendArg sets one key of --backend-args (the keys it shares with
// GuideLLM's backend), keeping the others.
func (a *v07Applier) backendArg(key string, v any) error {
	return a.set("backend-args", func() {
		m := map[string]any{}
		_ = json.Unmarshal([]byte(a.o.backendArgs), &m) // "" or an object set here
		m[key] = v
		a.o.backendArgs = canonicalJSON(m)
	})
}

// extras applies GuideLLM's request extras: body, headers and content.
func (a *v07Applier) extras(v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return a.bad(v, `an object, e.g. {"body":{"temperature":0}}`)
	}
	keys := regValue(m).keys()
	for _, k := range keys {
		if m[k] == nil {
			continue // GuideLLM's None: unset (a report's extras name every key)
		}
		switch k {
		case "body":
			b, ok := m[k].(map[string]any)
			if !ok {
				return Usagef("--backend extras.body=%s: want an object, e.g. {\"temperature\":0}", shown(m[k]))
			}
			if err := a.set("extra-body", func() { a.o.extraBody = canonicalJSON(b) }); err != nil {
				return err
			}
		case "headers":
			if err := a.headers(m[k]); err != nil {
				return err
			}
		case "content":
			c, ok := m[k].(map[string]any)
			if !ok {
				return Usagef("--backend extras.content=%s: want an object, e.g. {\"source_lang_code\":\"en\"}", shown(m[k]))
			}
			if err := a.set("content-extras", func() { a.o.contentExtras = canonicalJSON(c) }); err != nil {
				return err
			}
		default:
			return Usagef("--backend extras.%s: not supported (goodput takes extras.body, extras.headers and extras.content)", k)
		}
	}
	return nil
}

// headers adds request headers (kept with those of --header).
func (a *v07Applier) headers(v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return Usagef("--backend headers=%s: want an object of strings, e.g. {\"X-Team\":\"a\"}", shown(v))
	}
	if a.cli["header"] && a.fromFile {
		return nil
	}
	names := regValue(m).keys()
	for _, k := range names {
		s, ok := m[k].(string)
		if !ok {
			return Usagef("--backend headers.%s=%s: want a string", k, shown(m[k]))
		}
		a.o.headers = append(a.o.headers, k+": "+s)
	}
	a.fs.Lookup("header").Changed = true
	return nil
}

func (a *v07Applier) outputKind(kind string) error {
	for _, k := range a.outKinds {
		if k == kind {
			return Usagef("--output kind=%s given twice", kind)
		}
	}
	a.outKinds, a.outKind = append(a.outKinds, kind), kind
	return nil
}

// GuideLLM's file names, for an --output path that is a directory.
var v07OutputNames = map[string]string{"json": "benchmarks.json", "yaml": "benchmarks.yaml", "csv": "benchmarks.csv", "html": "benchmarks.html"}

func (a *v07Applier) outputPath(v any) error {
	p, ok := v.(string)
	if !ok || strings.TrimSpace(p) == "" {
		return a.bad(v, "a file path")
	}
	name, ok := v07OutputNames[a.outKind]
	if !ok {
		return Usagef("--output kind=%s: takes no path", a.outKind)
	}
	if st, err := os.Stat(p); strings.HasSuffix(p, "/") || (err == nil && st.IsDir()) {
		p = filepath.Join(p, name)
	}
	a.o.namedOutputs = append(a.o.namedOutputs, p)
	if a.outKind == "json" {
		if filepath.Ext(p) != ".json" {
			return Usagef("--output kind=json,path=%s: want a .json file or a directory", p)
		}
		return a.set("output-path", func() { a.o.outputPath = p })
	}
	if a.cli["outputs"] && a.fromFile {
		return nil
	}
	if a.o.outputFiles == nil {
		a.o.outputFiles = map[string]string{}
	}
	a.o.outputFiles[a.outKind] = p
	return nil
}

// v07SLOMetrics are the metrics of GuideLLM's --metrics slo thresholds
// (GuideLLM compares tpot_ms with the inter-token latency).
var v07SLOMetrics = map[string]slo.Metric{"ttft_ms": slo.TTFT, "tpot_ms": slo.ITL, "itl_ms": slo.ITL, "e2el_ms": slo.E2E, "request_latency_ms": slo.E2E}

// sloObjectives maps GuideLLM's --metrics slo thresholds to per-request
// objectives.
func (a *v07Applier) sloObjectives(v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return a.bad(v, `an object of thresholds in ms, e.g. {"ttft_ms":200,"tpot_ms":50}`)
	}
	for _, k := range regValue(m).keys() {
		metric, ok := v07SLOMetrics[k]
		if !ok {
			return Usagef("--metrics slo.%s: unknown objective (want ttft_ms, tpot_ms, itl_ms, e2el_ms)", k)
		}
		f, ok := number(m[k])
		if !ok || !(f > 0) || math.IsInf(f, 0) {
			return Usagef("--metrics slo.%s=%s: want milliseconds > 0", k, shown(m[k]))
		}
		a.slo = append(a.slo, slo.Objective{Metric: metric, Stat: slo.Each, Threshold: f})
	}
	return nil
}

// finish sets what several values build together: the outputs and the
// SLO, each typed beside the text --print-config shows.
func (a *v07Applier) finish() error {
	a.opt, a.key = "output", ""
	if len(a.outKinds) > 0 {
		a.kind = a.outKinds[0]
		kinds := map[string]bool{}
		for _, k := range a.outKinds {
			kinds[k] = true
		}
		if err := a.set("outputs", func() {
			a.o.outputs = strings.Join(a.outKinds, ",")
			a.o.outputKinds.put(a.o.outputs, kinds)
		}); err != nil {
			return err
		}
	}
	if len(a.slo) > 0 {
		a.opt, a.key = "metrics", "slo"
		spec, err := slo.New(a.slo...)
		if err != nil {
			return Usagef("--metrics slo: %v", err)
		}
		terms := make([]string, len(spec.Objectives))
		for i, o := range spec.Objectives {
			terms[i] = o.String()
		}
		sort.Strings(terms)
		if err := a.set("slo", func() {
			a.o.sweep.slo = strings.Join(terms, ",")
			a.o.sweep.given.put(a.o.sweep.slo, spec)
		}); err != nil {
			return err
		}
	}
	return nil
}
