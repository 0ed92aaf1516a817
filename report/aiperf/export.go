package aiperf

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/report"
)

// AIPerf's summary export (profile_export_aiperf.json and
// profile_export_aiperf.csv, schema 1.x): one export per benchmark, the
// way AIPerf writes one per profile run. README.md documents every metric,
// its definition and where goodput's numbers can differ from AIPerf's.

// SchemaVersion is the profile_export_aiperf.json schema version
// goodput writes: everything up to 1.3 (count and sum per record metric,
// run_info with benchmark_id, sweep_id and cli_command). 1.4's optional
// warmup_metrics and 1.5's GPU telemetry names are not written.
const SchemaVersion = "1.3"

// Export is one profile_export_aiperf.json: AIPerf's provenance
// keys, one Metric per metric tag, the error summary, the run's
// configuration in AIPerf's shape, and goodput's own provenance under
// "goodput_export" (AIPerf's readers ignore unknown keys; "goodput" is
// AIPerf's own metric tag).
type Export struct {
	SchemaVersion string
	// AIPerfVersion is written as "aiperf_version". goodput writes its own
	// version there (this file was not written by AIPerf); Goodput.Note
	// says so in the file.
	AIPerfVersion string
	BenchmarkID   string
	StartTime     string // ISO-8601, UTC without offset, as AIPerf writes it
	EndTime       string
	WasCancelled  bool
	// Metrics in the order they are written.
	Metrics      []Metric
	ErrorSummary []ErrorCount
	InputConfig  json.RawMessage // nil: not written
	RunInfo      *RunInfo
	Goodput      *Provenance // nil in files not written by goodput
	// Other holds the top-level keys a reader found and does not model
	// (telemetry_data, warmup_metrics, …), verbatim, in file order. They
	// are written back after the modelled keys.
	Other []RawField
}

// RawField is a top-level key kept verbatim.
type RawField struct {
	Key   string
	Value json.RawMessage
}

// Metric is one metric block: unit and avg always; the
// distribution keys (min, max, p1 … p99, std, count, sum) for record
// metrics only. A nil field is not written.
type Metric struct {
	Tag    string
	Header string // AIPerf's display name (CSV rows): "Request Latency"
	Unit   string // display unit: ms, sec, tokens, tokens/sec, tokens/sec/user, requests, requests/sec, %
	Avg    *float64
	Min    *float64
	Max    *float64
	P      [9]*float64 // p1, p5, p10, p25, p50, p75, p90, p95, p99 (AIPerfPercentiles)
	Std    *float64
	Count  *int64
	Sum    *float64
}

// HasDistribution says whether any percentile is set (AIPerf's CSV puts
// such metrics in its first table).
func (m *Metric) HasDistribution() bool {
	for _, p := range m.P {
		if p != nil {
			return true
		}
	}
	return false
}

// ErrorCount is one entry of error_summary.
type ErrorCount struct {
	Details ErrorDetails `json:"error_details"`
	Count   int64        `json:"count"`
}

// ErrorDetails is AIPerf's ErrorDetails.
type ErrorDetails struct {
	Code       *int     `json:"code,omitempty"`
	Type       string   `json:"type,omitempty"`
	Message    string   `json:"message"`
	Cause      string   `json:"cause,omitempty"`
	CauseChain []string `json:"cause_chain,omitempty"`
}

// RunInfo is AIPerf's run_info (schema 1.2+).
type RunInfo struct {
	BenchmarkID     string          `json:"benchmark_id"`
	SweepID         *string         `json:"sweep_id"`
	RandomSeed      *int64          `json:"random_seed"`
	Trial           int             `json:"trial"`
	RunLabel        string          `json:"run_label"`
	VariationLabel  string          `json:"variation_label"`
	VariationIndex  int             `json:"variation_index"`
	VariationValues json.RawMessage `json:"variation_values"`
	CLICommand      *string         `json:"cli_command"`
}

// Provenance is goodput's own block ("goodput_export") in an AIPerf
// export.
type Provenance struct {
	// Version is the goodput version that wrote the file (also written as
	// aiperf_version).
	Version string `json:"version"`
	Note    string `json:"note"`
	// Source is "records" (computed from every per-request record, AIPerf's
	// way) or "report" (approximated from a report's distributions when no
	// records were available).
	Source string `json:"source"`
	// Exact is false when any figure is approximate; InexactReasons says
	// which and why.
	Exact          bool     `json:"exact"`
	InexactReasons []string `json:"inexact_reasons"`
	// BenchmarkIndex and Strategy identify the benchmark in goodput's
	// report; Label is the name of its export directory.
	BenchmarkIndex int    `json:"benchmark_index"`
	Strategy       string `json:"strategy"`
	Label          string `json:"label"`
	// InWindow counts the requests in the measurement window (and so in
	// the metrics), OutsideWindow those left out (warmup, cooldown).
	InWindow      int64 `json:"in_window"`
	OutsideWindow int64 `json:"outside_window"`
	// NotDispatched counts requests cancelled before they were sent (no
	// latency to measure; left out, as GuideLLM and the report do).
	NotDispatched int64 `json:"not_dispatched"`
	// ByModel and ByTarget are the report's breakdowns of the benchmark
	// by model and by target (goodput's extras), when the run had several:
	// AIPerf's export has no place for them.
	ByModel  []report.GroupFigures `json:"by_model,omitempty"`
	ByTarget []report.GroupFigures `json:"by_target,omitempty"`
	// Sessions are the report's figures of the benchmark's conversations
	// (goodput's extras): session goodput, the prefix-cache hit rate and
	// every latency by turn, which AIPerf's export has no place for; nil
	// without sessions.
	Sessions *report.SessionExtras `json:"sessions,omitempty"`
	// PerChunkUsageFallback counts, with --per-chunk-usage, the requests
	// whose inter_token_latency fell back to AIPerf's osl-1 because the
	// server's first content chunk reported no usable token count.
	PerChunkUsageFallback int64 `json:"per_chunk_usage_fallback,omitempty"`
}

// ProvenanceKey is the top-level key of goodput's block.
const ProvenanceKey = "goodput_export"

// Note is written as goodput_export.note.
const Note = "written by goodput in AIPerf's profile_export_aiperf layout; aiperf_version holds goodput's version, not an AIPerf release"

// Metric returns the metric with the tag, or nil.
func (x *Export) Metric(tag string) *Metric {
	for i := range x.Metrics {
		if x.Metrics[i].Tag == tag {
			return &x.Metrics[i]
		}
	}
	return nil
}

// MarshalJSONBytes returns what WriteJSON writes.
func (x *Export) MarshalJSONBytes() ([]byte, error) {
	o := report.NewOrderedObject()
	o.Field("schema_version", x.SchemaVersion)
	o.Field("aiperf_version", x.AIPerfVersion)
	o.Field("benchmark_id", x.BenchmarkID)
	if x.StartTime != "" {
		o.Field("start_time", x.StartTime)
	}
	if x.EndTime != "" {
		o.Field("end_time", x.EndTime)
	}
	o.Field("was_cancelled", x.WasCancelled)
	for i := range x.Metrics {
		m := &x.Metrics[i]
		b, err := m.marshal()
		if err != nil {
			return nil, fmt.Errorf("metric %s: %w", m.Tag, err)
		}
		o.Field(m.Tag, json.RawMessage(b))
	}
	es := x.ErrorSummary
	if es == nil {
		es = []ErrorCount{}
	}
	o.Field("error_summary", es)
	if x.InputConfig != nil {
		o.Field("input_config", x.InputConfig)
	}
	if x.RunInfo != nil {
		ri := *x.RunInfo
		if ri.VariationValues == nil {
			ri.VariationValues = json.RawMessage("{}")
		}
		o.Field("run_info", ri)
	}
	for _, f := range x.Other {
		o.Field(f.Key, f.Value)
	}
	if x.Goodput != nil {
		g := *x.Goodput
		if g.InexactReasons == nil {
			g.InexactReasons = []string{}
		}
		o.Field(ProvenanceKey, g)
	}
	compact, err := o.Done()
	if err != nil {
		return nil, fmt.Errorf("encoding AIPerf export: %w", err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, compact, "", "  "); err != nil {
		return nil, fmt.Errorf("encoding AIPerf export: %w", err)
	}
	return out.Bytes(), nil
}

// WriteJSON writes the export as AIPerf does: indented by two spaces,
// floats as Python writes them, no trailing newline.
func (x *Export) WriteJSON(w io.Writer) error {
	b, err := x.MarshalJSONBytes()
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("writing AIPerf export: %w", err)
	}
	return nil
}

func (m *Metric) marshal() ([]byte, error) {
	o := report.NewOrderedObject()
	o.Field("unit", m.Unit)
	opt := func(k string, v *float64) {
		if v != nil {
			o.Field(k, report.Float(*v))
		}
	}
	opt("avg", m.Avg)
	for i, p := range Percentiles {
		opt("p"+strconv.Itoa(p), m.P[i])
	}
	opt("min", m.Min)
	opt("max", m.Max)
	opt("std", m.Std)
	if m.Count != nil {
		o.Field("count", *m.Count)
	}
	opt("sum", m.Sum)
	return o.Done()
}

// aiperfCSVStats are the columns of the CSV's first table, after
// "Metric" (AIPerf's STAT_KEYS).
var aiperfCSVStats = []string{"avg", "sum", "min", "max", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "std"}

// WriteCSV writes profile_export_aiperf.csv as AIPerf does: a first table
// "Metric,avg,sum,min,max,p1,…,p99,std" with one row per metric that has
// percentiles, a blank line, then "Metric,Value" with the others; rows
// sorted by tag, named "Header (unit)" (no unit for count and requests),
// floats with two decimals, CRLF line ends (Python's csv module).
func (x *Export) WriteCSV(w io.Writer) error {
	var dist, scalar []*Metric
	for i := range x.Metrics {
		m := &x.Metrics[i]
		if m.HasDistribution() {
			dist = append(dist, m)
		} else {
			scalar = append(scalar, m)
		}
	}
	byTag := func(a, b *Metric) int { return strings.Compare(a.Tag, b.Tag) }
	slices.SortStableFunc(dist, byTag)
	slices.SortStableFunc(scalar, byTag)
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	if len(dist) > 0 {
		if err := cw.Write(append([]string{"Metric"}, aiperfCSVStats...)); err != nil {
			return fmt.Errorf("writing AIPerf CSV: %w", err)
		}
		for _, m := range dist {
			row := []string{m.csvName()}
			for _, k := range aiperfCSVStats {
				row = append(row, csvNum(m.stat(k)))
			}
			if err := cw.Write(row); err != nil {
				return fmt.Errorf("writing AIPerf CSV: %w", err)
			}
		}
		if len(scalar) > 0 {
			// An empty row: a bare line end, as Python's csv writes it.
			if err := cw.Write(nil); err != nil {
				return fmt.Errorf("writing AIPerf CSV: %w", err)
			}
		}
	}
	if len(scalar) > 0 {
		if err := cw.Write([]string{"Metric", "Value"}); err != nil {
			return fmt.Errorf("writing AIPerf CSV: %w", err)
		}
		for _, m := range scalar {
			if err := cw.Write([]string{m.csvName(), csvNum(m.Avg)}); err != nil {
				return fmt.Errorf("writing AIPerf CSV: %w", err)
			}
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("writing AIPerf CSV: %w", err)
	}
	return nil
}

func (m *Metric) csvName() string {
	name := m.Header
	if name == "" {
		name = m.Tag
	}
	if u := strings.ToLower(m.Unit); u != "" && u != "count" && u != "requests" {
		name += " (" + m.Unit + ")"
	}
	return name
}

func (m *Metric) stat(k string) *float64 {
	switch k {
	case "avg":
		return m.Avg
	case "sum":
		return m.Sum
	case "min":
		return m.Min
	case "max":
		return m.Max
	case "std":
		return m.Std
	}
	for i, p := range Percentiles {
		if k == "p"+strconv.Itoa(p) {
			return m.P[i]
		}
	}
	return nil
}

// csvNum formats a float as Python's f"{v:.2f}" (empty when absent).
func csvNum(v *float64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'f', 2, 64)
}
