package cli

import (
	"embed"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"sigs.k8s.io/yaml"
)

// goodput benchmark --config FILE: a configuration file, in one of three
// forms told apart by their top-level keys:
//
//   - goodput's own: every key a long flag of goodput benchmark
//     (max-seconds: 60, rate: [2, 4], constraint: [{kind: max_requests,
//     count: 100}]), the form --print-config writes;
//   - a GuideLLM scenario: spec: {backend, profile, data, constraints,
//     outputs, …} (GuideLLM v0.7's BenchmarkScenario), with metadata.labels;
//     a GuideLLM report's config key is read the same way;
//   - GuideLLM's built-in scenarios by name: chat, rag.
//
// Each key becomes the flag's value, unless the command line gave that
// flag: the command line wins, as in GuideLLM.

// builtinScenarios are GuideLLM v0.7.3's src/guidellm/benchmark/scenarios
// files, as GuideLLM ships them (Apache-2.0).
//
//go:embed scenarios/chat.json scenarios/rag.json
var builtinScenarios embed.FS

// configEntry is one flag's values from a file.
type configEntry struct {
	flag   string
	values []string
}

// readConfig reads name: a built-in scenario or a file.
func readConfig(name string) (map[string]any, string, error) {
	base := strings.TrimSuffix(name, ".json")
	var data []byte
	var err error
	if (base == "chat" || base == "rag") && !fileExists(name) {
		data, err = builtinScenarios.ReadFile("scenarios/" + base + ".json")
	} else {
		data, err = os.ReadFile(name)
	}
	if err != nil {
		return nil, name, Usagef("--config %s: %v (want a YAML or JSON file, or chat or rag)", name, unwrapPathErr(err))
	}
	var m map[string]any
	if err := yaml.Unmarshal(data, &m); err != nil {
		return nil, name, Usagef("--config %s: not a YAML or JSON object: %s", name, firstLine(err.Error()))
	}
	if m == nil {
		return nil, name, Usagef("--config %s: empty", name)
	}
	return m, name, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func unwrapPathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// configEntries turns a file's object into flag values.
func configEntries(m map[string]any, file string, fs *pflag.FlagSet) ([]configEntry, error) {
	if c, ok := m["config"].(map[string]any); ok && len(m) > 1 && m["benchmarks"] != nil {
		m = c // a GuideLLM report: its config is the scenario
	}
	if _, ok := m["spec"]; ok {
		return scenarioEntries(m, file)
	}
	var out []configEntry
	for _, k := range regValue(m).keys() {
		name := k
		f := fs.Lookup(name)
		if f == nil {
			name = strings.ReplaceAll(k, "_", "-")
			f = fs.Lookup(name)
		}
		if f == nil || name == "config" || name == "scenario" || name == "print-config" || name == "help" {
			return nil, Usagef("--config %s: unknown key %q (keys are goodput benchmark's long flags, or GuideLLM's spec)", file, k)
		}
		if target, ok := aliasOf(f); ok {
			name = target
		}
		vals, err := flagValues(f, m[k])
		if err != nil {
			return nil, Usagef("--config %s: key %q: %v", file, k, err)
		}
		out = append(out, configEntry{name, vals})
	}
	return out, nil
}

// scenarioKeys maps GuideLLM's spec keys to goodput's options.
var scenarioKeys = map[string]string{
	"backend": "backend", "profile": "profile", "constraints": "constraint", "tokenizer": "tokenizer",
	"data": "data", "data_column_mapper": "data-column-mapper", "data_preprocessors": "data-preprocessor",
	"data_finalizer": "data-finalizer", "data_loader": "data-loader", "seed": "seed", "outputs": "output",
	"metrics": "metrics", "knee_detection": "knee-detection",
}

// scenarioEntries reads a GuideLLM scenario (spec, metadata, benchmarks).
func scenarioEntries(m map[string]any, file string) ([]configEntry, error) {
	var out []configEntry
	for _, k := range regValue(m).keys() {
		switch k {
		case "spec":
		case "metadata":
			md, ok := m[k].(map[string]any)
			if !ok {
				return nil, Usagef("--config %s: metadata: want an object", file)
			}
			var labels []string
			for _, mk := range regValue(md).keys() {
				if mk != "labels" {
					return nil, Usagef("--config %s: unknown key \"metadata.%s\" (goodput reads metadata.labels)", file, mk)
				}
				l, ok := md[mk].(map[string]any)
				if !ok {
					return nil, Usagef("--config %s: metadata.labels: want an object of strings", file)
				}
				for _, lk := range regValue(l).keys() {
					labels = append(labels, lk+"="+shown(l[lk]))
				}
			}
			if len(labels) > 0 {
				out = append(out, configEntry{"label", labels})
			}
		case "benchmarks":
			if l, ok := m[k].([]any); !ok || len(l) > 1 || (len(l) == 1 && l[0] != nil) {
				return nil, Usagef("--config %s: benchmarks: per-benchmark overrides are not supported (give the lists in spec.profile)", file)
			}
		default:
			return nil, Usagef("--config %s: unknown key %q (a GuideLLM scenario has spec, metadata and benchmarks)", file, k)
		}
	}
	spec, ok := m["spec"].(map[string]any)
	if !ok {
		return nil, Usagef("--config %s: spec: want an object", file)
	}
	for _, k := range regValue(spec).keys() {
		name, ok := scenarioKeys[strings.ReplaceAll(k, "-", "_")]
		if !ok {
			return nil, Usagef("--config %s: unknown key \"spec.%s\" (GuideLLM's keys: %s)", file, k, strings.Join(regValue(anyMap(scenarioKeys)).keys(), ", "))
		}
		v := spec[k]
		if name == "data" {
			l, isList := v.([]any)
			if isList && len(l) != 1 {
				return nil, Usagef("--config %s: spec.data: give one data source (goodput reads one)", file)
			}
			if isList {
				v = l[0]
			}
		}
		var vals []string
		if l, isList := v.([]any); isList {
			for _, x := range l {
				vals = append(vals, valueString(x))
			}
		} else if v != nil {
			vals = []string{valueString(v)}
		}
		out = append(out, configEntry{name, vals})
	}
	return out, nil
}

func anyMap(m map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// valueString is a decoded value as a flag takes it: objects as JSON.
func valueString(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case bool:
		return strconv.FormatBool(t)
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	}
	return canonicalJSON(v)
}

// repeatable reports whether a flag takes several values.
func repeatable(f *pflag.Flag) bool {
	return f.Value.Type() == "stringArray"
}

// flagValues converts a file's value to the flag's values: a list for a
// repeatable flag gives one value each, a list of numbers or words for
// another flag is its comma list (rate: [2, 4]), an object is JSON (or
// key=value entries for --label and 'Name: value' for --header).
func flagValues(f *pflag.Flag, v any) ([]string, error) {
	switch t := v.(type) {
	case nil:
		return nil, nil
	case []any:
		if repeatable(f) {
			out := make([]string, 0, len(t))
			for _, x := range t {
				out = append(out, valueString(x))
			}
			return out, nil
		}
		parts := make([]string, 0, len(t))
		for _, x := range t {
			switch x.(type) {
			case map[string]any, []any:
				if len(t) == 1 {
					return []string{valueString(x)}, nil
				}
				return nil, fmt.Errorf("want one value")
			}
			parts = append(parts, valueString(x))
		}
		return []string{strings.Join(parts, ",")}, nil
	case map[string]any:
		if f.Name == "label" || f.Name == "header" {
			sep := "="
			if f.Name == "header" {
				sep = ": "
			}
			var out []string
			for _, k := range regValue(t).keys() {
				out = append(out, k+sep+valueString(t[k]))
			}
			return out, nil
		}
	}
	return []string{valueString(v)}, nil
}

// aliasOf is the flag an alias stands for ("alias of --x" in its usage).
func aliasOf(f *pflag.Flag) (string, bool) {
	rest, ok := strings.CutPrefix(f.Usage, "alias of --")
	if !ok {
		return "", false
	}
	name, _, _ := strings.Cut(rest, " ")
	return name, true
}

// applyConfig applies --config's file to the flags the command line left.
func applyConfig(o *benchOptions, fs *pflag.FlagSet) error {
	if o.configFile == "" {
		return nil
	}
	m, file, err := readConfig(o.configFile)
	if err != nil {
		return err
	}
	entries, err := configEntries(m, file, fs)
	if err != nil {
		return err
	}
	st := o.v07
	st.loading = true
	defer func() { st.loading = false }()
	for _, e := range entries {
		if st.cli[e.flag] && len(e.values) == 1 {
			if err := mergeV07(fs, st, e.flag, e.values[0]); err != nil {
				return Usagef("--config %s: key %q: %v", file, e.flag, err)
			}
		}
		if st.cli[e.flag] || len(e.values) == 0 {
			continue
		}
		f := fs.Lookup(e.flag)
		if f == nil {
			return Usagef("--config %s: unknown key %q", file, e.flag)
		}
		if !repeatable(f) && len(e.values) > 1 {
			return Usagef("--config %s: key %q: want one value", file, e.flag)
		}
		for _, v := range e.values {
			if err := fs.Set(e.flag, v); err != nil {
				return Usagef("--config %s: key %q: %v", file, e.flag, err)
			}
		}
	}
	return nil
}

// mergeV07 merges a file's value of a v0.7 option (not repeatable) into
// the command line's of the same kind, the command line's keys winning,
// as GuideLLM's deep update does: a scenario's backend model stays when
// the command line gives --backend kind=openai_http,target=….
func mergeV07(fs *pflag.FlagSet, st *v07State, flag, fileValue string) error {
	v, ok := fs.Lookup(flag).Value.(*v07Value)
	cli := st.byOpt[flag]
	if !ok || v.repeat || len(cli) != 1 {
		return nil
	}
	base, err := parseRegistry(fileValue)
	if err != nil {
		return nil // the plain form: nothing to merge
	}
	over, err := parseRegistry(cli[0])
	if err != nil || over.kind() != base.kind() {
		return nil
	}
	deepUpdate(base, over)
	st.byOpt[flag] = []string{canonicalJSON(map[string]any(base))}
	return nil
}

// deepUpdate sets every key of over in base, merging nested objects.
func deepUpdate(base, over map[string]any) {
	for k, v := range over {
		if bm, ok := base[k].(map[string]any); ok {
			if om, ok := v.(map[string]any); ok {
				deepUpdate(bm, om)
				continue
			}
		}
		base[k] = v
	}
}

// changedFlags is the set of flags given (an alias counts as its flag).
func changedFlags(fs *pflag.FlagSet) map[string]bool {
	out := map[string]bool{}
	fs.Visit(func(f *pflag.Flag) {
		out[f.Name] = true
		if target, ok := aliasOf(f); ok {
			out[target] = true
		}
	})
	return out
}

// printConfig writes the effective configuration as goodput's --config
// YAML: every flag set (by the command line, the file or a v0.7 option),
// v0.7 options as the flags they became, the API key and credential
// headers left out.
func printConfig(w io.Writer, fs *pflag.FlagSet, o *benchOptions) error {
	out := map[string]any{}
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Changed {
			return
		}
		name := f.Name
		if name == "data-sampler" { // its own value, for data-shuffle
			name, f = "data-shuffle", fs.Lookup("data-shuffle")
		}
		if target, ok := aliasOf(f); ok {
			name = target
			f = fs.Lookup(target)
		}
		switch name {
		case "config", "print-config", "api-key":
			return
		case "output":
			var l []any
			for _, raw := range o.v07.byOpt["output"] {
				v, _ := parseRegistry(raw) // applyV07 has checked it
				l = append(l, map[string]any(v))
			}
			out[name] = l
			return
		case "data":
			if v, err := parseRegistry(o.data); err == nil && v.kind() != "" {
				out[name] = map[string]any(v)
				return
			}
		}
		if name == "data-column-mapper" && o.columnMapper == "" {
			return
		}
		if _, v07 := f.Value.(*v07Value); v07 && name != "data-column-mapper" {
			return // applied to the flags it sets
		}
		out[name] = flagYAML(f)
	})
	if hs, ok := out["header"].([]string); ok { // credentials stay out of a ConfigMap
		var keep []string
		for _, h := range hs {
			name, _, _ := strings.Cut(h, ":")
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "authorization", "x-api-key", "api-key", "proxy-authorization":
				continue
			}
			keep = append(keep, h)
		}
		out["header"] = keep
		if len(keep) == 0 {
			delete(out, "header")
		}
	}
	if ba, ok := out["backend-args"].(string); ok {
		if m, err := parseRegistry(ba); err == nil && m["api_key"] != nil {
			delete(m, "api_key")
			out["backend-args"] = canonicalJSON(map[string]any(m))
		}
	}
	b, err := yaml.Marshal(out)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "# goodput benchmark --config FILE (written by --print-config; the API key and credential headers are not included)\n%s", b)
	return err
}

// flagYAML is a flag's value with its type: numbers, bools, lists, strings.
func flagYAML(f *pflag.Flag) any {
	s := f.Value.String()
	switch f.Value.Type() {
	case "bool":
		b, _ := strconv.ParseBool(s)
		return b
	case "int", "int64", "float64":
		if n, err := strconv.ParseFloat(s, 64); err == nil {
			return n
		}
	case "stringArray":
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			return sv.GetSlice()
		}
	}
	return s
}
