package scorecard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/report"
)

// Version is the scorecard layout version, written as
// metadata.scorecard_version.
const Version = 1

// DefaultCurrency is the currency assumed for prices (the article's €)
// when a row names none.
const DefaultCurrency = "EUR"

// File is a scorecard file, scorecard-<run-id>.json: the run's row at the
// top level — exactly the article's layout (run_id, metadata, performance,
// cost, energy, carbon), so `jq .cost.cpm_eur_1m` works on it — and one row
// per round under "rounds".
type File struct {
	Row
	Rounds []Row `json:"rounds,omitempty"`
}

// Row is one scorecard row: a run (at its knee, or its best round) or one
// round. A block is null when its axis could not be measured;
// Metadata.MissingAxes says why.
type Row struct {
	RunID       string       `json:"run_id"`
	Metadata    Metadata     `json:"metadata"`
	Performance *Performance `json:"performance"`
	Cost        *Cost        `json:"cost"`
	Energy      *Energy      `json:"energy"`
	Carbon      *Carbon      `json:"carbon"`
}

// Metadata describes the run (the article's twelve fields as far as known)
// and what the row stands for. Keys a reader does not know (a hand-written
// file's bench_tool_aiperf, dcgm_exporter, …) are kept in Extra and written
// back after the known ones.
type Metadata struct {
	ScorecardVersion Num    `json:"scorecard_version"`
	Model            string `json:"model"`
	ModelRevision    string `json:"model_revision"`
	Engine           string `json:"engine"`
	EngineVersion    string `json:"engine_version"`
	Precision        string `json:"precision"`
	// PrecisionInferred says Precision was read from the model's name.
	PrecisionInferred bool   `json:"precision_inferred"`
	Hardware          string `json:"hardware"`
	GPUs              Num    `json:"gpus"`
	GPUModel          string `json:"gpu_model"`
	ISLTokens         Num    `json:"isl_tokens"`
	OSLTokens         Num    `json:"osl_tokens"`
	Tokenizer         string `json:"tokenizer"`
	TokenizerHash     string `json:"tokenizer_hash"`
	MaxConcurrency    Num    `json:"max_concurrency"`
	Warmup            string `json:"warmup"`
	// SLO is the declared objective's text form; the thresholds the
	// scorecard can judge are broken out.
	SLO          string `json:"slo"`
	SLOTTFTP99Ms Num    `json:"slo_ttft_p99_ms"`
	SLOITLP95Ms  Num    `json:"slo_itl_p95_ms"`
	SLOErrorRate Num    `json:"slo_error_rate"`
	// GoodputVersion and GoodputCommit identify the harness.
	GoodputVersion string `json:"goodput_version"`
	GoodputCommit  string `json:"goodput_commit"`
	// Row says what the row stands for: "knee", "best passing round",
	// "best round (none passes the SLO)", "highest-throughput round (no SLO
	// judged)" for a run row, "round" for a round row; RowReason explains.
	Row       string `json:"row"`
	RowReason string `json:"row_reason"`
	// RoundIndex and Strategy identify the round the row's figures come
	// from; Rounds counts the run's rounds.
	RoundIndex Num    `json:"round_index"`
	Strategy   string `json:"strategy"`
	Rounds     Num    `json:"rounds"`
	// Window is the time span of the figures (Unix seconds), and its basis
	// (measurement window or whole round).
	WindowStart Num    `json:"window_start"`
	WindowEnd   Num    `json:"window_end"`
	WindowS     Num    `json:"window_s"`
	WindowBasis string `json:"window_basis"`
	// MissingAxes maps each null block to the reason.
	MissingAxes map[string]string `json:"missing_axes"`
	// Labels are the run's free labels (--label).
	Labels map[string]string `json:"labels"`

	Extra map[string]json.RawMessage `json:"-"`
}

// Performance is the performance axis. Goodput counts the output tokens of
// the requests that met the SLO; without an SLO result it is the
// throughput, and GoodputBasis says so. TTFTP99Ms and ITLP95Ms are the
// SLO's own measurements when it judged them, else goodput's distributions
// of the successful requests (ITL is GuideLLM's per-request inter-token
// latency, as the SLO's). ThroughputPeakTokS is the highest throughput of
// the run's rounds in a run row and the round's own in a round row;
// ElbowConcurrency is the knee's concurrency in a run row at a knee, else
// null.
type Performance struct {
	GoodputTokS        Num `json:"goodput_tok_s"`
	TTFTP99Ms          Num `json:"ttft_p99_ms"`
	ITLP95Ms           Num `json:"itl_p95_ms"`
	ThroughputPeakTokS Num `json:"throughput_peak_tok_s"`
	ElbowConcurrency   Num `json:"elbow_concurrency"`
	// GoodputBasis is "slo" (the benchmark's SLO result) or "throughput"
	// (no SLO judged: every successful output token).
	GoodputBasis   string `json:"goodput_basis"`
	ThroughputTokS Num    `json:"throughput_tok_s"`
	ErrorRate      Num    `json:"error_rate"`
	// LatencyBasis names the distributions the percentiles come from.
	LatencyBasis string `json:"latency_basis"`
	// SLOPass is the row judged against its SLO; null when none was
	// judged. SLOFailures lists the broken objectives.
	SLOPass     *bool    `json:"slo_pass"`
	SLOFailures []string `json:"slo_failures"`
	// Pooling is a pooling round's throughput (embeddings, rerank, score:
	// no output tokens, so the token rates above are 0); absent for any
	// other round.
	Pooling *PoolingThroughput `json:"pooling,omitempty"`
}

// PoolingThroughput is what a pooling round processed per second of its
// window: input tokens and inputs (or documents).
type PoolingThroughput struct {
	Kind      string `json:"kind"` // "inputs" (embeddings) or "documents" (rerank, score)
	InputTokS Num    `json:"input_tok_s"`
	ItemsPerS Num    `json:"items_per_s"`
}

// Cost is the cost axis. The key names keep the article's "eur"; Currency
// says what the amounts are in.
type Cost struct {
	// CPMEUR1M = GPUCostEURH × 10^6 / (performance.goodput_tok_s × 3600).
	CPMEUR1M      Num `json:"cpm_eur_1m"`
	GPUCostEURH   Num `json:"gpu_cost_eur_h"`
	CostWindowEUR Num `json:"cost_window_eur"`
	// CostRunEUR is the cost of the whole run in a run row: the price
	// per hour × the run's span, from the first benchmark's start to the
	// last one's end (every round and its warm-up); null in a round row.
	CostRunEUR Num    `json:"cost_run_eur"`
	Currency   string `json:"currency"`
	// CostPerRequest is the window's cost per successful request.
	CostPerRequest Num `json:"cost_per_request"`
	// CPMBasis is "goodput" or "throughput", as GoodputBasis.
	CPMBasis string `json:"cpm_basis"`
	Source   string `json:"source"`
}

// Energy is the energy axis, per output token.
type Energy struct {
	WhPerToken            Num `json:"wh_per_token"`
	JPerToken             Num `json:"j_per_token"`
	PowerMeanW            Num `json:"power_mean_w"`
	EnergyTotalKWh        Num `json:"energy_total_kwh"`
	PUE                   Num `json:"pue"`
	WhPerTokenPUEAdjusted Num `json:"wh_per_token_pue_adjusted"`
	// TokenBasis is "output" (generated tokens); JPerTokenAll divides by
	// prompt + output tokens.
	TokenBasis   string `json:"token_basis"`
	JPerTokenAll Num    `json:"j_per_token_all"`
	PUEDefault   *bool  `json:"pue_default"`
	Method       string `json:"method"`
	Source       string `json:"source"`
	GPUs         Num    `json:"gpus"`
	// Warnings repeat the plausibility and data-quality warnings.
	Warnings []string `json:"warnings"`
}

// Carbon is the carbon axis: PUE-adjusted grams of CO2 per million output
// tokens at the given grid intensity.
type Carbon struct {
	GridIntensityGCO2KWh Num `json:"grid_intensity_gco2_kwh"`
	CO2Per1MTokensG      Num `json:"co2_per_1m_tokens_g"`
}

// Num is an optional number, JSON null when not Valid. Reading accepts
// numbers, numeric strings ("0.97", "3 120", "3,120"), and null, "", "n/a",
// "-" as not valid.
type Num struct {
	V     float64
	Valid bool
}

// N returns a valid Num, or an invalid one for NaN and infinities.
func N(v float64) Num {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return Num{}
	}
	return Num{V: v, Valid: true}
}

// Or returns the value, or def when not valid.
func (n Num) Or(def float64) float64 {
	if !n.Valid {
		return def
	}
	return n.V
}

// F returns the value, NaN when not valid.
func (n Num) F() float64 { return n.Or(math.NaN()) }

// MarshalJSON implements json.Marshaler.
func (n Num) MarshalJSON() ([]byte, error) {
	if !n.Valid || math.IsNaN(n.V) || math.IsInf(n.V, 0) {
		return []byte("null"), nil
	}
	return []byte(formatNum(n.V)), nil
}

// String formats the value as it is written, "" when not valid.
func (n Num) String() string {
	if !n.Valid {
		return ""
	}
	return formatNum(n.V)
}

func formatNum(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	if a := math.Abs(v); a >= 1e-6 && a < 1e15 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// UnmarshalJSON implements json.Unmarshaler.
func (n *Num) UnmarshalJSON(b []byte) error {
	v, ok, err := parseNum(b)
	if err != nil {
		return err
	}
	*n = Num{V: v, Valid: ok}
	return nil
}

// parseNum reads a JSON number, numeric string or null-like value.
func parseNum(b []byte) (float64, bool, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || string(b) == "null" {
		return 0, false, nil
	}
	if b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return 0, false, err
		}
		return parseNumString(s)
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false, fmt.Errorf("want a number, got %s", clip(string(b)))
	}
	return v, true, nil
}

func parseNumString(s string) (float64, bool, error) {
	t := strings.TrimSpace(s)
	switch strings.ToLower(t) {
	case "", "null", "n/a", "na", "-", "none", "nan":
		return 0, false, nil
	}
	t = strings.NewReplacer(" ", "", "\u2009", "", "\u202f", "", "\u00a0", "", "_", "").Replace(t)
	if strings.Contains(t, ",") && !strings.Contains(t, ".") && thousands(t) {
		t = strings.ReplaceAll(t, ",", "")
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false, fmt.Errorf("want a number, got %q", clip(s))
	}
	return v, true, nil
}

// thousands reports whether s is digits grouped by commas in threes.
func thousands(s string) bool {
	s = strings.TrimPrefix(s, "-")
	parts := strings.Split(s, ",")
	for i, p := range parts {
		if p == "" || len(p) > 3 || (i > 0 && len(p) != 3) {
			return false
		}
		for _, c := range p {
			if c < '0' || c > '9' {
				return false
			}
		}
	}
	return true
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// MarshalJSON writes the known keys in field order, then Extra's keys in
// sorted order.
func (m Metadata) MarshalJSON() ([]byte, error) {
	type plain Metadata
	b, err := json.Marshal(plain(m))
	if err != nil {
		return nil, err
	}
	if len(m.Extra) == 0 {
		return b, nil
	}
	var buf bytes.Buffer
	buf.Write(b[:len(b)-1])
	for _, k := range slices.Sorted(maps.Keys(m.Extra)) {
		if _, known := jsonFields(reflect.TypeFor[Metadata]())[k]; known {
			continue
		}
		kb, _ := json.Marshal(k)
		v := m.Extra[k]
		if !json.Valid(v) {
			return nil, fmt.Errorf("metadata.%s: invalid JSON value", k)
		}
		buf.WriteByte(',')
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalJSON reads metadata leniently: a known key whose value has
// another type than expected (a number where a string is wanted, and so on)
// is converted when that is unambiguous and kept in Extra otherwise.
func (m *Metadata) UnmarshalJSON(b []byte) error {
	*m = Metadata{}
	extra, _, err := decodeLenient(b, reflect.ValueOf(m).Elem())
	if err != nil {
		return err
	}
	if len(extra) > 0 {
		m.Extra = extra
	}
	return nil
}

// jsonFields maps the JSON names of a struct's fields to their indexes.
func jsonFields(t reflect.Type) map[string]int {
	out := map[string]int{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		out[name] = i
	}
	return out
}

// decodeLenient decodes a JSON object into the struct dst field by field.
// Keys it does not know are returned in extra; values that do not fit
// their field are returned in extra too, with a problem each. Only a value
// that is not an object is an error.
func decodeLenient(b []byte, dst reflect.Value) (extra map[string]json.RawMessage, problems []string, err error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, nil, fmt.Errorf("want an object: %w", err)
	}
	if raw == nil { // null
		return nil, nil, nil
	}
	fields := jsonFields(dst.Type())
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		v := raw[k]
		i, ok := fields[k]
		if !ok {
			if extra == nil {
				extra = map[string]json.RawMessage{}
			}
			extra[k] = v
			continue
		}
		if perr := setLenient(dst.Field(i), v); perr != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", k, perr))
			if extra == nil {
				extra = map[string]json.RawMessage{}
			}
			extra[k] = v
		}
	}
	return extra, problems, nil
}

// setLenient stores a JSON value into a field of one of the types the
// scorecard uses.
func setLenient(f reflect.Value, v json.RawMessage) error {
	v = bytes.TrimSpace(v)
	switch p := f.Addr().Interface().(type) {
	case *Num:
		n, ok, err := parseNum(v)
		if err != nil {
			return err
		}
		*p = Num{V: n, Valid: ok}
	case *string:
		switch {
		case string(v) == "null":
			*p = ""
		case len(v) > 0 && v[0] == '"':
			return json.Unmarshal(v, p)
		case len(v) > 0 && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9') || string(v) == "true" || string(v) == "false"):
			*p = string(v) // a number or boolean where text is expected: keep its text
		default:
			return fmt.Errorf("want a string, got %s", report.JSONKind(v))
		}
	case *map[string]string:
		if string(v) == "null" {
			*p = nil
			return nil
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(v, &m); err != nil {
			return fmt.Errorf("want an object, got %s", report.JSONKind(v))
		}
		out := make(map[string]string, len(m))
		for k, x := range m {
			var s string
			if err := setLenient(reflect.ValueOf(&s).Elem(), x); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
			out[k] = s
		}
		*p = out
	case **bool:
		switch string(v) {
		case "null":
			*p = nil
		case "true", "false":
			x := string(v) == "true"
			*p = &x
		default:
			return fmt.Errorf("want true or false, got %s", report.JSONKind(v))
		}
	case *[]string:
		if string(v) == "null" {
			*p = nil
			return nil
		}
		var list []json.RawMessage
		if err := json.Unmarshal(v, &list); err != nil {
			var one string // a single string where a list is expected
			if json.Unmarshal(v, &one) == nil {
				*p = []string{one}
				return nil
			}
			return fmt.Errorf("want a list of strings, got %s", report.JSONKind(v))
		}
		out := make([]string, 0, len(list))
		for _, x := range list {
			var s string
			if err := setLenient(reflect.ValueOf(&s).Elem(), x); err != nil {
				return err
			}
			out = append(out, s)
		}
		*p = out
	default:
		return json.Unmarshal(v, f.Addr().Interface())
	}
	return nil
}
