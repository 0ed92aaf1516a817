package aiperf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/report"
)

// maxAIPerfBytes bounds what Read reads (a summary export is a few
// kilobytes; telemetry can make it larger).
const maxBytes = 256 << 20

// Read reads a profile_export_aiperf.json written by AIPerf (any
// schema 1.x, and the older layout that nested metrics under "records")
// or by goodput. Metric blocks are the top-level objects with a "unit";
// the keys Export does not model are kept verbatim in Other. Null
// statistics (older writers) are absent values; Python's NaN and Infinity
// read as absent too. Errors are one line naming the input and the key.
func Read(r io.Reader, name string) (*Export, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: reading: %s", name, report.OneLine(err.Error()))
	}
	if len(data) > maxBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes", name, maxBytes)
	}
	clean, _ := report.SanitizeNonFinite(data)
	trimmed := bytes.TrimSpace(clean)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%s: empty file, not an AIPerf profile export", name)
	}
	if !json.Valid(trimmed) {
		var v any
		err := json.Unmarshal(trimmed, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) && !strings.Contains(se.Error(), "unexpected end of JSON input") {
			return nil, fmt.Errorf("%s: invalid JSON at byte %d: %s", name, max(se.Offset-1, 0), report.OneLine(se.Error()))
		}
		return nil, fmt.Errorf("%s: truncated JSON at byte %d", name, len(trimmed))
	}
	if trimmed[0] != '{' {
		return nil, fmt.Errorf("%s: not an AIPerf profile export: the top-level JSON value is %s, want an object", name, report.JSONKind(trimmed))
	}
	fields, err := objectFields(trimmed)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", name, report.OneLine(err.Error()))
	}
	x := &Export{}
	known := false
	bad := func(key, want string) error {
		return fmt.Errorf("%s: key %q: want %s", name, key, want)
	}
	for _, f := range fields {
		v := f.Value
		switch f.Key {
		case "schema_version", "aiperf_version", "benchmark_id", "start_time", "end_time":
			var s *string
			if json.Unmarshal(v, &s) != nil {
				return nil, bad(f.Key, "a string")
			}
			if s == nil {
				continue
			}
			switch f.Key {
			case "schema_version":
				x.SchemaVersion, known = *s, true
			case "aiperf_version":
				x.AIPerfVersion, known = *s, true
			case "benchmark_id":
				x.BenchmarkID = *s
			case "start_time":
				x.StartTime = *s
			case "end_time":
				x.EndTime = *s
			}
		case "was_cancelled":
			var b *bool
			if json.Unmarshal(v, &b) != nil {
				return nil, bad(f.Key, "true or false")
			}
			if b != nil {
				x.WasCancelled = *b
			}
		case "error_summary":
			var es []ErrorCount
			if err := json.Unmarshal(v, &es); err != nil {
				return nil, bad(f.Key, "an array of {error_details, count}")
			}
			x.ErrorSummary = es
		case "input_config":
			x.InputConfig = append(json.RawMessage(nil), v...)
		case "run_info":
			if string(v) == "null" {
				continue
			}
			var ri RunInfo
			if err := json.Unmarshal(v, &ri); err != nil {
				return nil, bad(f.Key, "an object of run_info fields")
			}
			x.RunInfo = &ri
		case ProvenanceKey:
			var g Provenance
			if err := json.Unmarshal(v, &g); err != nil {
				return nil, bad(f.Key, "goodput's provenance object")
			}
			x.Goodput = &g
		case "records":
			// Before AIPerf PR #343: {"records": {tag: {tag, header, unit, …}}}.
			inner, err := objectFields(v)
			if err != nil {
				return nil, bad(f.Key, "an object of metric blocks")
			}
			for _, g := range inner {
				m, ok, err := parseAIPerfMetric(g.Key, g.Value)
				if err != nil {
					return nil, fmt.Errorf("%s: key \"records.%s\": %s", name, g.Key, err)
				}
				if ok {
					x.Metrics = append(x.Metrics, m)
					known = true
				}
			}
		default:
			m, ok, err := parseAIPerfMetric(f.Key, v)
			if err != nil {
				return nil, fmt.Errorf("%s: key %q: %s", name, f.Key, err)
			}
			if ok {
				x.Metrics = append(x.Metrics, m)
				known = true
				continue
			}
			x.Other = append(x.Other, RawField{Key: f.Key, Value: append(json.RawMessage(nil), v...)})
		}
	}
	if !known {
		return nil, fmt.Errorf("%s: not an AIPerf profile export: no schema_version, aiperf_version or metric block (an object with a \"unit\")", name)
	}
	return x, nil
}

// objectFields splits a JSON object into its keys and raw values, in
// order.
func objectFields(b []byte) ([]RawField, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return nil, errors.New("want an object")
	}
	var out []RawField
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("key %q: %w", k, err)
		}
		out = append(out, RawField{Key: k, Value: raw})
	}
	return out, nil
}

// parseAIPerfMetric reads a metric block; ok is false when v is not one
// (not an object with a string "unit").
func parseAIPerfMetric(key string, v json.RawMessage) (Metric, bool, error) {
	if len(v) == 0 || v[0] != '{' {
		return Metric{}, false, nil
	}
	var probe struct {
		Unit *string `json:"unit"`
	}
	if json.Unmarshal(v, &probe) != nil || probe.Unit == nil {
		return Metric{}, false, nil
	}
	var raw struct {
		Tag, Header                    *string
		Avg, Min, Max, Std, Sum, Count json.RawMessage
		P1, P5, P10, P25, P50          json.RawMessage
		P75, P90, P95, P99             json.RawMessage
	}
	if err := json.Unmarshal(v, &raw); err != nil {
		return Metric{}, false, errors.New("want a metric block {unit, avg, …}")
	}
	m := Metric{Tag: key, Unit: *probe.Unit}
	if raw.Tag != nil && *raw.Tag != "" {
		m.Tag = *raw.Tag
	}
	if d, ok := aiperfDefFor(m.Tag); ok {
		m.Header = d.header
	} else if raw.Header != nil {
		m.Header = *raw.Header
	}
	num := func(k string, b json.RawMessage) (*float64, error) {
		if len(b) == 0 || string(b) == "null" {
			return nil, nil
		}
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, fmt.Errorf("statistic %q: want a number, got %s", k, clip(string(b), 40))
		}
		return &f, nil
	}
	var err error
	set := func(dst **float64, k string, b json.RawMessage) {
		if err == nil {
			*dst, err = num(k, b)
		}
	}
	set(&m.Avg, "avg", raw.Avg)
	set(&m.Min, "min", raw.Min)
	set(&m.Max, "max", raw.Max)
	set(&m.Std, "std", raw.Std)
	set(&m.Sum, "sum", raw.Sum)
	for i, b := range []json.RawMessage{raw.P1, raw.P5, raw.P10, raw.P25, raw.P50, raw.P75, raw.P90, raw.P95, raw.P99} {
		set(&m.P[i], "p"+strconv.Itoa(Percentiles[i]), b)
	}
	var c *float64
	set(&c, "count", raw.Count)
	if err != nil {
		return Metric{}, false, err
	}
	if c != nil {
		if *c != math.Trunc(*c) || math.Abs(*c) > 1<<53 {
			return Metric{}, false, fmt.Errorf("statistic \"count\": want an integer, got %v", *c)
		}
		n := int64(*c)
		m.Count = &n
	}
	return m, true, nil
}

// aiperfDefFor finds the definition of a tag goodput knows.
func aiperfDefFor(tag string) (aiperfDef, bool) {
	for i := range aiperfRecordDefs {
		if aiperfRecordDefs[i].tag == tag {
			return aiperfRecordDefs[i], true
		}
	}
	d, ok := aiperfScalarDefs[tag]
	return d, ok
}

// clip shortens s for an error message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
