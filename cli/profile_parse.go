package cli

import (
	"encoding/json"
	"errors"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// listValue is one of AIPerf's list options (--url A --url B, --model
// a,b): every value adds its comma-separated items.
type listValue struct{ p *[]string }

func (v listValue) Set(s string) error {
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x == "" {
			return errors.New("want a value, or a comma list of values")
		}
		*v.p = append(*v.p, x)
	}
	return nil
}

func (v listValue) String() string {
	if v.p == nil {
		return ""
	}
	return strings.Join(*v.p, ",")
}

func (v listValue) Type() string { return "list" }

func parseProfileConcurrency(s string) ([]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []float64
	for _, part := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < 1 {
			return nil, Usagef("--concurrency %q: want whole numbers ≥ 1, e.g. 4,8,16,32", s)
		}
		if slices.Contains(out, float64(n)) {
			return nil, Usagef("--concurrency %q: %d is listed twice", s, n)
		}
		out = append(out, float64(n))
	}
	return out, nil
}

func parseProfileRates(s string) ([]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []float64
	for _, part := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
			return nil, Usagef("--request-rate %q: want requests per second > 0, e.g. 2,4.5", s)
		}
		if slices.Contains(out, v) {
			return nil, Usagef("--request-rate %q: %v is listed twice", s, v)
		}
		out = append(out, v)
	}
	return out, nil
}

// formatList writes numbers as a comma list, for names (the artifact
// directory, the run's experiment key).
func formatList(vs []float64) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strings.Join(parts, ",")
}

// parseAIPerfHeader reads AIPerf's -H forms: "Name:value" or a JSON
// object of headers; it returns name and value pairs.
func parseAIPerfHeader(h string) ([][2]string, error) {
	t := strings.TrimSpace(h)
	if strings.HasPrefix(t, "{") {
		var m map[string]string
		if err := json.Unmarshal([]byte(t), &m); err != nil {
			return nil, Usagef(`--header: want "Name:value" or a JSON object of strings`)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		out := make([][2]string, 0, len(keys))
		for _, k := range keys {
			if strings.TrimSpace(k) == "" {
				return nil, Usagef(`--header: want "Name:value" or a JSON object of strings`)
			}
			out = append(out, [2]string{strings.TrimSpace(k), strings.TrimSpace(m[k])})
		}
		return out, nil
	}
	k, v, ok := strings.Cut(t, ":")
	if !ok || strings.TrimSpace(k) == "" {
		return nil, Usagef(`--header %q: want "Name:value"`, profileClip(h))
	}
	return [][2]string{{strings.TrimSpace(k), strings.TrimSpace(v)}}, nil
}

// parseExtraInputs merges AIPerf's --extra-inputs ("key:value" pairs,
// the value read as JSON when it is valid JSON, else as a string; or
// JSON objects) into one object.
func parseExtraInputs(items []string) (map[string]any, error) {
	m := map[string]any{}
	for _, it := range items {
		t := strings.TrimSpace(it)
		if strings.HasPrefix(t, "{") {
			var obj map[string]any
			if err := json.Unmarshal([]byte(t), &obj); err != nil {
				return nil, Usagef(`--extra-inputs: want "key:value" or a JSON object`)
			}
			for k, v := range obj {
				m[k] = v
			}
			continue
		}
		k, v, ok := strings.Cut(t, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, Usagef(`--extra-inputs %q: want "key:value", e.g. ignore_eos:true`, profileClip(it))
		}
		var val any
		if err := json.Unmarshal([]byte(v), &val); err != nil {
			val = v
		}
		m[strings.TrimSpace(k)] = val
	}
	return m, nil
}

func profileClip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// profileCommand renders the command line for run_info.cli_command with
// secrets removed: the --api-key value and header values.
func profileCommand(prog string, args []string) string {
	out := []string{prog}
	redactNext := ""
	for _, a := range args {
		switch {
		case redactNext == "key":
			a, redactNext = "***", ""
		case redactNext == "header":
			a, redactNext = profileRedactHeader(a), ""
		case a == "--api-key":
			redactNext = "key"
		case strings.HasPrefix(a, "--api-key="):
			a = "--api-key=***"
		case a == "-H" || a == "--header":
			redactNext = "header"
		case strings.HasPrefix(a, "--header="):
			a = "--header=" + profileRedactHeader(strings.TrimPrefix(a, "--header="))
		case strings.HasPrefix(a, "-H") && len(a) > 2:
			a = "-H" + profileRedactHeader(strings.TrimPrefix(a, "-H"))
		}
		out = append(out, profileShellQuote(a))
	}
	return strings.Join(out, " ")
}

func profileRedactHeader(h string) string {
	if strings.HasPrefix(strings.TrimSpace(h), "{") {
		return "{***}"
	}
	k, _, ok := strings.Cut(h, ":")
	if !ok {
		return "***"
	}
	return k + ":***"
}

// profileShellQuote quotes an argument for a POSIX shell when it needs it.
func profileShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,:/=@+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

var islFlags = []string{"isl", "input-tokens", "input-tokens-mean", "synthetic-input-tokens-mean", "prompt-input-tokens-mean"}

var islStddevFlags = []string{"isl-stddev", "input-tokens-stddev", "synthetic-input-tokens-stddev", "prompt-input-tokens-stddev"}

var oslFlags = []string{"osl", "output-tokens", "output-tokens-mean", "prompt-output-tokens-mean", "synthetic-output-tokens-mean"}

var oslStddevFlags = []string{"osl-stddev", "output-tokens-stddev", "prompt-output-tokens-stddev", "synthetic-output-tokens-stddev"}

// changedAlias returns the name among aliases that was given on the
// command line, "" when none was.
func changedAlias(fs *pflag.FlagSet, aliases []string) string {
	for _, n := range aliases {
		if fs.Changed(n) {
			return n
		}
	}
	return ""
}

// usedAlias is the name to quote in a message about aliases: the one
// given, else the main one.
func usedAlias(fs *pflag.FlagSet, aliases []string) string {
	if fs != nil {
		if n := changedAlias(fs, aliases); n != "" {
			return n
		}
	}
	return aliases[0]
}

// endpointFromURLs takes the request path from a full --url (AIPerf's
// YAML tutorial: url: http://host:8000/v1/chat/completions): a URL whose
// path ends with the request's path is the server's base, so the path is
// not appended twice.
func endpointFromURLs(p *draft) {
	path := p.Client.Path
	if path == "" {
		path = string(p.Client.Endpoint)
	}
	base := func(t string) string {
		u, err := url.Parse(t)
		if err != nil || u.RawQuery != "" || !strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), path) {
			return t
		}
		u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), path)
		return u.String()
	}
	for i, t := range p.Client.Targets {
		p.Client.Targets[i] = base(t)
	}
	p.Client.Target = base(p.Client.Target)
}

// graceInf is --benchmark-grace-period inf: longer than any request.
const graceInf = 10 * 365 * 24 * time.Hour

// gracePeriod reads --benchmark-grace-period: seconds ≥ 0, or inf.
func gracePeriod(s string) (time.Duration, error) {
	if s == "inf" {
		return graceInf, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, Usagef("--benchmark-grace-period %q: want seconds ≥ 0 or inf", s)
	}
	return time.Duration(f * float64(time.Second)), nil
}
