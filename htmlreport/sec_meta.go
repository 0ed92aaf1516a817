package htmlreport

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/report"
)

// metadataFields are RunMetadata's fields in report order: JSON key and
// heading.
var metadataFields = [...][2]string{
	{"engine", "Serving engine"}, {"engine_version", "Engine version"}, {"model", "Model"}, {"model_revision", "Model revision"},
	{"precision", "Precision"}, {"tokenizer", "Tokenizer"}, {"tokenizer_hash", "Tokenizer hash"},
	{"isl_tokens", "Input length (ISL, tokens)"}, {"osl_tokens", "Output length (OSL, tokens)"}, {"data", "Data"},
	{"hardware", "Hardware"}, {"max_concurrency", "Maximum concurrency"}, {"goodput_version", "goodput version"},
	{"goodput_commit", "goodput commit"}, {"slo", "Declared SLO"}, {"warmup", "Warmup"}, {"run_id", "Run id"},
}

func metadataValue(md *report.RunMetadata, key string) string {
	num := func(f report.Float) string {
		if f == 0 {
			return ""
		}
		return fmtNum(float64(f))
	}
	switch key {
	case "engine":
		return md.Engine
	case "engine_version":
		return md.EngineVersion
	case "model":
		return md.Model
	case "model_revision":
		return md.ModelRevision
	case "precision":
		if md.Precision != "" && md.PrecisionInferred {
			return md.Precision + " (inferred)"
		}
		return md.Precision
	case "tokenizer":
		return md.Tokenizer
	case "tokenizer_hash":
		return md.TokenizerHash
	case "isl_tokens":
		return num(md.ISLTokens)
	case "osl_tokens":
		return num(md.OSLTokens)
	case "data":
		return md.Data
	case "hardware":
		return md.Hardware
	case "max_concurrency":
		if md.MaxConcurrency == 0 {
			return ""
		}
		return strconv.FormatInt(int64(md.MaxConcurrency), 10)
	case "goodput_version":
		return md.GoodputVersion
	case "goodput_commit":
		return md.GoodputCommit
	case "slo":
		return md.SLO
	case "warmup":
		return md.Warmup
	case "run_id":
		return md.RunID
	}
	return ""
}

// kvTable writes a two- or three-column table of headings and values.
func kvTable(p *page, caption string, rows [][]string, head []string) {
	t := &table{caption: caption, head: head, class: "kv"}
	for _, r := range rows {
		row := make([]cell, len(r))
		for i, s := range r {
			row[i] = cell{text: clip(s, 400)}
		}
		t.rows = append(t.rows, row)
	}
	p.table(t)
}

// renderMetadata writes the run's metadata and SLO.
func renderMetadata(p *page, v *runView) {
	h3(p, v, "meta", "Run metadata and SLO")
	rows := [][]string{{"Written by", toolName(v.rep)}}
	if md := v.rep.Metadata; md != nil && md.Platform != "" {
		rows = append(rows, []string{"Platform", md.Platform})
	}
	if m := v.model(); m != "" {
		rows = append(rows, []string{"Model", m})
	}
	if t := v.target(); t != "" {
		rows = append(rows, []string{"Target", t})
	}
	if d := dataSummary(v.rep); d != "" {
		rows = append(rows, []string{"Data", d})
	}
	rows = append(rows, []string{"Started", fmtUnix(v.startTime())})
	if e := v.extras; e != nil && e.Shard != nil {
		rows = append(rows, []string{"Shard", fmtInt(int64(e.Shard.Index)) + " of " + fmtInt(int64(e.Shard.Count)) + " of run " + e.Shard.RunID +
			" (one pod's share of the load: the run's figures are in the merged report)"})
	}
	if e := v.extras; e != nil && e.Merge != nil {
		m := e.Merge
		how := "merged from " + fmtInt(int64(m.Shards)) + " shards, from their " + m.Path
		if m.Exact {
			how += " (exact)"
		} else if m.Reason != "" {
			how += " (approximate: " + m.Reason + ")"
		}
		rows = append(rows, []string{"Shards", how})
	}
	if c := v.rep.Config; c != nil {
		for _, k := range slices.Sorted(maps.Keys(c.Metadata.Labels)) {
			rows = append(rows, []string{"Label " + k, c.Metadata.Labels[k]})
		}
	}
	kvTable(p, "Report", rows, []string{"Field", "Value"})

	if v.extras == nil || v.extras.Metadata == nil {
		if v.isGoodput() {
			p.note("This report has no run metadata (goodput's audit fields: engine and version, model revision, precision, tokenizer, ISL/OSL, hardware, …).")
		}
	} else {
		md := v.extras.Metadata
		var mrows [][]string
		for _, f := range metadataFields {
			val := metadataValue(md, f[0])
			if val == "" {
				val = "–"
			}
			mrows = append(mrows, []string{f[1], val, md.Sources[f[0]]})
		}
		for _, k := range slices.Sorted(maps.Keys(md.Labels)) {
			mrows = append(mrows, []string{"Label " + k, md.Labels[k], ""})
		}
		kvTable(p, "Audit metadata", mrows, []string{"Field", "Value", "Source"})
		if len(md.Missing) > 0 {
			p.el("p", `class="warn"`, "Missing audit fields: "+clip(strings.Join(md.Missing, ", "), 600)+
				". A figure without them is hard to reproduce or compare.")
		}
	}

	switch {
	case v.slo.spec != "":
		s := "SLO: " + v.slo.spec
		if v.slo.def {
			s += " (the default interactive-chat SLO: no --slo was given)"
		}
		p.el("p", "", s)
		if len(v.slo.objectives) > 0 {
			var orows [][]string
			for _, o := range v.slo.objectives {
				orows = append(orows, []string{o.Key, objectiveThreshold(o)})
			}
			kvTable(p, "Objectives", orows, []string{"Objective", "Threshold"})
		}
	case v.isGoodput():
		p.note("No SLO in this report: goodput, SLO verdicts and the knee need one (--slo, or the default applied by newer goodput versions).")
	}
}

// objectiveThreshold formats an objective's threshold with its unit.
func objectiveThreshold(o report.ObjectiveResult) string {
	op := "≤ "
	if o.Metric == "attainment" || o.Metric == "fluidity" { // floors
		op = "≥ "
	}
	if o.Unit == "fraction" {
		return op + fmtPct(float64(o.Threshold))
	}
	return op + fmtNum(float64(o.Threshold)) + unitSuffix(o.Unit)
}

// unitSuffix is " ms" for a latency; a count (deadline misses) has none.
func unitSuffix(unit string) string {
	if unit == "count" || unit == "" {
		return ""
	}
	return " " + unit
}

// objectiveMeasured formats an objective's measured value.
func objectiveMeasured(o report.ObjectiveResult) string {
	if o.Missing {
		return "no value"
	}
	if o.Unit == "fraction" {
		return fmtPct(float64(o.Measured))
	}
	return fmtNum(float64(o.Measured)) + unitSuffix(o.Unit)
}

// dataSummary describes the scenario's data (synthetic token counts).
func dataSummary(rep *report.Report) string {
	if rep.Config == nil {
		return ""
	}
	var parts []string
	for _, d := range rep.Config.Spec.Data {
		kind := jsonString(d, "kind")
		pt, ot := jsonNumber(d, "prompt_tokens"), jsonNumber(d, "output_tokens")
		s := kind
		if !math.IsNaN(pt) || !math.IsNaN(ot) {
			s += " prompt " + fmtNum(pt) + " tokens, output " + fmtNum(ot) + " tokens"
		}
		if path := jsonString(d, "path"); path != "" {
			s += " " + path
		}
		if s != "" {
			parts = append(parts, strings.TrimSpace(s))
		}
	}
	return strings.Join(parts, "; ")
}
