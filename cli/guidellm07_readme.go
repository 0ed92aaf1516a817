// The README's GuideLLM v0.7 table is generated from v07Table (readme_test.go
// checks it; -update-readme rewrites it).

package cli

import (
	"fmt"
	"strings"

	"github.com/goodput-dev/goodput/reqtype"
)

// v07MarkdownTable is v07Table as the README's GuideLLM
// table: one row per option, kind and key.
func v07MarkdownTable() string {
	var b strings.Builder
	b.WriteString("| GuideLLM v0.7 | kind | key | in goodput |\n|---|---|---|---|\n")
	rows := v07Table()
	for _, opt := range v07Opts {
		for _, r := range rows {
			if r.Opt != opt {
				continue
			}
			kind, key := r.Kind, r.Key
			if kind == "" {
				kind = "any"
			}
			if r.Required {
				key += " (required)"
			}
			maps := r.Maps
			if r.Refuse != "" && !strings.HasPrefix(maps, "refused") {
				maps = "refused: " + maps
			}
			fmt.Fprintf(&b, "| `--%s` | %s | %s | %s |\n", r.Opt, tick(kind), tick(key), strings.ReplaceAll(maps, "|", "\\|"))
		}
	}
	for _, r := range v07OtherOptions {
		fmt.Fprintf(&b, "| `%s` | | | %s |\n", r[0], r[1])
	}
	return b.String()
}

func tick(s string) string {
	if s == "" || s == "any" {
		return s
	}
	name, rest, _ := strings.Cut(s, " ")
	if rest != "" {
		rest = " " + rest
	}
	return "`" + name + "`" + rest
}

// v07OtherOptions are guidellm run's options that are not registry
// options, and what they are here.
var v07OtherOptions = [][2]string{
	{"--data kind=…", "`--data` (synthetic_text, json_file, csv_file, text_file, parquet_file, arrow_file, huggingface with a local `source`, trace_synthetic, mooncake, weka; a Hub id is refused: goodput never downloads)"},
	{"--config / --scenario / -c", "`--config`: a GuideLLM scenario file, a GuideLLM report's `config`, the built-in `chat` or `rag`, or goodput's own YAML (command-line flags win)"},
	{"--label / -l k=v", "`--label` (also `metadata.labels` of a scenario)"},
	{"--override KEY VALUES", "refused: give the list in the option (`--profile '{\"kind\":\"concurrent\",\"streams\":[1,2,4]}'`)"},
	{"--disable-console / --disable-console-outputs", "`--disable-console-outputs`"},
	{"--disable-console-interactive / --disable-progress", "`--disable-progress`"},
}

// requestFormatMaps is what request_format maps to: GuideLLM's own
// formats, then goodput's (reqtype.All).
func requestFormatMaps() string {
	path := func(t *reqtype.Type) string {
		p := "`" + t.Path + "`"
		if t.Path == reqtype.PathChat {
			p += " (default)"
		}
		if t.Vendor != "" && t.GuideLLM != reqtype.PathChat {
			p += " (" + strings.TrimSuffix(t.Vendor, "'s") + ")"
		}
		return p
	}
	return "`--request-type`: " + reqtype.Names(func(t *reqtype.Type) bool { return t.GuideLLM == "" }, path, "") +
		"; goodput adds " + reqtype.Names(func(t *reqtype.Type) bool { return t.GuideLLM != "" }, path, "and")
}
