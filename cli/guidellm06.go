package cli

// GuideLLM v0.4–v0.6's flat flags whose form goodput's own flags do not
// share (src/guidellm/__main__.py of those versions): the `benchmark run`
// subcommand, space-separated --outputs, --detect-saturation, a JSON
// --over-saturation, --output-extras, --request-formatter-kwargs and
// --data-args. Each becomes goodput's equivalent; anything else in them is
// one line naming the flag and what is accepted.

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// v06Options are the flat flags read here.
type v06Options struct {
	detectSaturation bool
	outputExtras     string
	formatterKwargs  string
}

func addV06Flags(fs *pflag.FlagSet, o *v06Options) {
	fs.BoolVar(&o.detectSaturation, "detect-saturation", false, "GuideLLM v0.6: --over-saturation with GuideLLM's defaults (alias --default-over-saturation)")
	fs.BoolVar(&o.detectSaturation, "default-over-saturation", false, "alias of --detect-saturation")
	fs.StringVar(&o.outputExtras, "output-extras", "", `GuideLLM v0.6: a JSON object of extra data saved with the report: each key becomes a --label (values other than strings as JSON)`)
	fs.StringVar(&o.formatterKwargs, "request-formatter-kwargs", "", `GuideLLM v0.6's request formatter arguments: {"extras":{"body":{…},"headers":{…}},"stream":false} (--extra-body, --header, --no-stream)`)
}

// outputKinds are the words of --outputs.
var outputKinds = map[string]bool{"json": true, "yaml": true, "csv": true, "jsonl": true, "console": true, "scorecard": true, "html": true, "aiperf": true}

// v06Args rewrites GuideLLM's spellings that are not flags' values: a
// leading `run` (`guidellm benchmark run`, the default subcommand) is
// dropped, output kinds following --outputs as separate words
// (`--outputs json csv`) join its value, and a file named in --outputs
// (`--outputs results/benchmarks.json results/summary.csv`: GuideLLM
// writes that kind, by its extension, to that file) becomes GuideLLM
// v0.7's --output kind=K,path=FILE.
func v06Args(args []string) []string {
	if len(args) > 0 && args[0] == "run" {
		args = args[1:]
	}
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		var items []string
		switch {
		case a == "--outputs" && i+1 < len(args):
			i++
			items = []string{args[i]}
		case strings.HasPrefix(a, "--outputs="):
			items = []string{strings.TrimPrefix(a, "--outputs=")}
		default:
			out = append(out, a)
			continue
		}
		for i+1 < len(args) && isOutputList(args[i+1]) {
			i++
			items = append(items, args[i])
		}
		var kinds []string
		for _, item := range strings.Split(strings.Join(items, ","), ",") {
			if k := outputFileKind(item); k != "" {
				out = append(out, "--output", "kind="+k+",path="+item)
			} else {
				kinds = append(kinds, item)
			}
		}
		if len(kinds) > 0 || len(out) == 0 || !strings.HasPrefix(out[len(out)-1], "kind=") {
			out = append(out, "--outputs="+strings.Join(kinds, ","))
		}
	}
	return out
}

// isOutputList reports whether s is an output kind, a file GuideLLM
// writes by its extension, or a comma list of them.
func isOutputList(s string) bool {
	for _, k := range strings.Split(s, ",") {
		if !outputKinds[strings.TrimSpace(k)] && outputFileKind(k) == "" {
			return false
		}
	}
	return s != ""
}

// outputFileKind is the output kind of a file named in --outputs, by its
// extension ("" when s is no such file name).
func outputFileKind(s string) string {
	if !strings.ContainsAny(s, "./") {
		return ""
	}
	switch strings.ToLower(filepath.Ext(s)) {
	case ".json":
		return "json"
	case ".yaml", ".yml":
		return "yaml"
	case ".csv":
		return "csv"
	case ".html", ".htm":
		return "html"
	}
	return ""
}

// apply sets what the v0.6 flags map to: --detect-saturation the
// over-saturation constraint, --output-extras labels and
// --request-formatter-kwargs the request's body, headers and streaming.
func (v *v06Options) apply(o *benchOptions) error {
	if v.detectSaturation && o.quality.overSat == "" {
		o.quality.overSat = "true"
	}
	if v.outputExtras != "" {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(v.outputExtras), &m); err != nil || m == nil {
			return Usagef(`--output-extras: want a JSON object, e.g. '{"team":"inference","gpu":"H100"}'`)
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			var s string
			if json.Unmarshal(m[k], &s) != nil {
				s = string(m[k])
			}
			if k == "" {
				return Usagef("--output-extras: an empty key")
			}
			o.labels = append(o.labels, k+"="+s)
		}
	}
	if v.formatterKwargs == "" {
		return nil
	}
	var kw struct {
		Extras *struct {
			Body    json.RawMessage   `json:"body"`
			Headers map[string]string `json:"headers"`
		} `json:"extras"`
		Stream *bool `json:"stream"`
	}
	dec := json.NewDecoder(strings.NewReader(v.formatterKwargs))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&kw); err != nil {
		return Usagef(`--request-formatter-kwargs: %s: want {"extras":{"body":{…},"headers":{"Name":"value"}},"stream":true|false} (goodput's --extra-body, --header, --no-stream)`, oneLineErr(err))
	}
	if kw.Stream != nil && !*kw.Stream {
		o.noStream = true
	}
	if kw.Extras == nil {
		return nil
	}
	if len(kw.Extras.Body) > 0 {
		if o.extraBody != "" {
			return Usagef("--request-formatter-kwargs extras.body and --extra-body: give one of them")
		}
		o.extraBody = string(kw.Extras.Body)
	}
	names := make([]string, 0, len(kw.Extras.Headers))
	for k := range kw.Extras.Headers {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		o.headers = append(o.headers, k+": "+kw.Extras.Headers[k])
	}
	return nil
}

// dataWithArgs applies GuideLLM's --data-args (the datasets library's
// load arguments) to a --data file, dataset directory or hub id in the
// local cache: split and name become kind=huggingface's keys, which read
// a local copy as the datasets library would; a data file's only split is
// train.
func dataWithArgs(data, args string) (string, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(args), &m); err != nil || m == nil {
		return "", Usagef(`--data-args: want a JSON object, e.g. '{"split":"test"}'`)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if st, err := os.Stat(data); err == nil && !st.IsDir() {
		// A data file is one split, train, as the datasets library loads it.
		if s, ok := m["split"]; ok && string(s) != `"train"` {
			return "", Usagef("--data-args: split %s: a data file has one split, train", s)
		}
		if _, ok := m["name"]; ok {
			return "", Usagef("--data-args: name: a data file has no configurations (name applies to a dataset directory)")
		}
		for _, k := range keys {
			if k != "split" && k != "name" {
				return "", Usagef("--data-args: key %q not supported (split, name: goodput reads local copies, which hold their files already)", k)
			}
		}
		return data, nil
	}
	v := "kind=huggingface,source=" + data
	for _, k := range keys {
		if k != "split" && k != "name" {
			return "", Usagef("--data-args: key %q not supported (split, name: goodput reads local copies, which hold their files already)", k)
		}
		var s string
		if json.Unmarshal(m[k], &s) != nil || s == "" || strings.ContainsAny(s, ",=") {
			return "", Usagef("--data-args: %s: want a split or configuration name", k)
		}
		v += "," + k + "=" + s
	}
	if strings.HasPrefix(strings.TrimSpace(data), "{") || (strings.Contains(data, "=") && !fileExists(data)) {
		return "", Usagef("--data-args applies to a data file, a dataset directory or a hub id; --data %s is a spec (give split= and name= in a kind=huggingface value)", data)
	}
	return v, nil
}

// overSaturationJSON turns GuideLLM v0.6's JSON --over-saturation
// ({"enabled": true, "min_seconds": 30}) into goodput's key=value form;
// off reports {"enabled": false}.
func overSaturationJSON(s string) (value string, off bool, err error) {
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return "", false, fmt.Errorf(`want a JSON object such as {"enabled": true, "min_seconds": 30}`)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var items []string
	for _, k := range keys {
		switch x := m[k].(type) {
		case bool:
			if k == "enabled" {
				if !x {
					return "", true, nil
				}
				continue
			}
			items = append(items, k+"="+strconv.FormatBool(x))
		case float64:
			items = append(items, k+"="+strconv.FormatFloat(x, 'g', -1, 64))
		case string:
			items = append(items, k+"="+x)
		default:
			return "", false, fmt.Errorf("%s: want a number, a string or a bool", k)
		}
	}
	if len(items) == 0 {
		return "true", false, nil
	}
	return strings.Join(items, ","), false, nil
}
