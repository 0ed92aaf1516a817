package compare

import (
	"strconv"

	"github.com/goodput-dev/goodput/report"
)

// metadataDiffs lists the run metadata fields that differ, in a fixed
// order; empty when either run has no metadata (GuideLLM reports).
func metadataDiffs(base, cur *report.Report) []FieldDiff {
	out := []FieldDiff{}
	bm, cm := metaOf(base), metaOf(cur)
	if bm == nil || cm == nil {
		return out
	}
	num := func(v report.Float) string {
		if v == 0 {
			return ""
		}
		return strconv.FormatFloat(float64(v), 'f', -1, 64)
	}
	prec := func(m *report.RunMetadata) string {
		if m.PrecisionInferred && m.Precision != "" {
			return m.Precision + " (inferred)"
		}
		return m.Precision
	}
	fields := []struct {
		name string
		get  func(*report.RunMetadata) string
	}{
		{name: "engine", get: func(m *report.RunMetadata) string { return m.Engine }},
		{name: "engine_version", get: func(m *report.RunMetadata) string { return m.EngineVersion }},
		{name: "model", get: func(m *report.RunMetadata) string { return m.Model }},
		{name: "model_revision", get: func(m *report.RunMetadata) string { return m.ModelRevision }},
		{name: "precision", get: prec},
		{name: "tokenizer", get: func(m *report.RunMetadata) string { return m.Tokenizer }},
		{name: "tokenizer_hash", get: func(m *report.RunMetadata) string { return m.TokenizerHash }},
		{name: "isl_tokens", get: func(m *report.RunMetadata) string { return num(m.ISLTokens) }},
		{name: "osl_tokens", get: func(m *report.RunMetadata) string { return num(m.OSLTokens) }},
		{name: "data", get: func(m *report.RunMetadata) string { return m.Data }},
		{name: "hardware", get: func(m *report.RunMetadata) string { return m.Hardware }},
		{name: "max_concurrency", get: func(m *report.RunMetadata) string { return num(report.Float(m.MaxConcurrency)) }},
		{name: "goodput_version", get: func(m *report.RunMetadata) string { return m.GoodputVersion }},
		{name: "goodput_commit", get: func(m *report.RunMetadata) string { return m.GoodputCommit }},
		{name: "slo", get: func(m *report.RunMetadata) string { return m.SLO }},
		{name: "warmup", get: func(m *report.RunMetadata) string { return m.Warmup }},
	}
	for _, f := range fields {
		b, c := f.get(bm), f.get(cm)
		if b != c {
			out = append(out, FieldDiff{Field: f.name, Baseline: b, Current: c})
		}
	}
	return out
}

func metaOf(r *report.Report) *report.RunMetadata {
	if r.Run == nil {
		return nil
	}
	return r.Run.Metadata
}
