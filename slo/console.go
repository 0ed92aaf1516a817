package slo

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/internal/texttable"
	"github.com/goodput-dev/goodput/report"
)

// Table builds the console's SLO table: per benchmark, the verdict,
// every objective's measured value (a "*" marks a broken or missing one),
// the attainment and the goodput. nil when no benchmark was judged.
func Table(r *report.Report) *texttable.Table {
	var first *report.SLOResult
	var keys []string
	units := map[string]string{}
	for _, bm := range r.Benchmarks {
		if bm.Extras == nil || bm.Extras.SLO == nil {
			continue
		}
		s := bm.Extras.SLO
		if first == nil {
			first = s
		}
		for _, o := range s.Objectives {
			if o.Key == "attainment" {
				continue // shown in the goodput group
			}
			if _, ok := units[o.Key]; !ok {
				keys = append(keys, o.Key)
				units[o.Key] = o.Unit
			}
		}
	}
	if first == nil {
		return nil
	}
	title := "SLO " + first.Spec
	if first.Default {
		title += " (the default)"
	}
	for _, o := range first.Objectives {
		if o.Key == "attainment" {
			title += fmt.Sprintf(", attainment ≥ %s%%", strconv.FormatFloat(float64(o.Threshold)*100, 'g', 6, 64))
		}
	}
	title += "; * marks a broken objective"
	decided := false
	for _, bm := range r.Benchmarks {
		if bm.Extras != nil && bm.Extras.SLO != nil && bm.Extras.SLO.Decision != "" {
			decided = true
		}
	}
	if decided {
		title += "\n  Decision: the verdict at the run's confidence and how sure it is (holds, breaks, or undecided: the data cannot tell);" +
			"\n  ≥: a censoring-aware percentile the requests cut off at the end keep unknown, only bounded below"
	}
	t := &texttable.Table{Title: title}
	t.Groups = []texttable.Group{{Name: "", Span: 2}, {Name: "", Span: 1}}
	t.Heads = []string{"#", "Strategy", "Pass"}
	if decided {
		t.Groups[1].Span = 2
		t.Heads = append(t.Heads, "Decision")
	}
	if len(keys) > 0 {
		t.Groups = append(t.Groups, texttable.Group{Name: "Objectives", Span: len(keys)})
		for _, k := range keys {
			switch units[k] {
			case "ms":
				t.Heads = append(t.Heads, k+" ms")
			case "count": // deadline misses
				t.Heads = append(t.Heads, k)
			default:
				t.Heads = append(t.Heads, k+" %")
			}
		}
	}
	t.Groups = append(t.Groups, texttable.Group{Name: "Goodput (good requests over the window)", Span: 4})
	t.Heads = append(t.Heads, "Attain %", "Good req/s", "Good tok/s", "Tput tok/s")
	for i, bm := range r.Benchmarks {
		row := []string{fmt.Sprint(i), bm.Label()}
		var s *report.SLOResult
		if bm.Extras != nil {
			s = bm.Extras.SLO
		}
		if s == nil {
			for len(row) < len(t.Heads) {
				row = append(row, "-")
			}
			t.Rows = append(t.Rows, row)
			continue
		}
		row = append(row, map[bool]string{true: "yes", false: "NO"}[s.Pass])
		if decided {
			row = append(row, DecisionText(s.Decision, float64(s.Confidence)))
		}
		byKey := map[string]report.ObjectiveResult{}
		for _, o := range s.Objectives {
			byKey[o.Key] = o
		}
		for _, k := range keys {
			o, ok := byKey[k]
			if !ok {
				row = append(row, "-")
				continue
			}
			row = append(row, objectiveCell(o))
		}
		att := fmt.Sprintf("%.1f", float64(s.Attainment)*100)
		if o, ok := byKey["attainment"]; ok {
			att = objectiveCell(o)
		}
		row = append(row, att, fmt.Sprintf("%.2f", float64(s.GoodputRPS)),
			fmt.Sprintf("%.1f", float64(s.GoodputOutputTokS)), fmt.Sprintf("%.1f", float64(s.ThroughputOutputTokS)))
		t.Rows = append(t.Rows, row)
	}
	return t
}

// objectiveCell formats a measured value: ms with one decimal, counts
// with two, fractions as percentages with two (attainment one); "*" marks
// a failure.
func objectiveCell(o report.ObjectiveResult) string {
	var v string
	switch {
	case o.Missing:
		v = "-"
	case o.Unit == "ms" && o.AtLeast:
		v = fmt.Sprintf("≥ %.1f", float64(o.Measured))
	case o.Unit == "ms":
		v = fmt.Sprintf("%.1f", float64(o.Measured))
	case o.Unit == "count":
		v = fmt.Sprintf("%.2f", float64(o.Measured))
	case o.Key == "attainment":
		v = fmt.Sprintf("%.1f", float64(o.Measured)*100)
	default:
		v = fmt.Sprintf("%.2f", float64(o.Measured)*100)
	}
	if !o.Pass {
		v += "*"
	}
	return v
}

// DecisionText writes a decision with its confidence: "holds 99.2%",
// "breaks 100%", "undecided 61%"; "-" when there is none.
func DecisionText(d string, conf float64) string {
	word := map[string]string{report.DecisionHolds: "holds", report.DecisionBreaks: "breaks", report.DecisionIndeterminate: "undecided"}[d]
	if word == "" {
		return "-"
	}
	return word + " " + strconv.FormatFloat(math.Floor(conf*1000)/10, 'f', -1, 64) + "%"
}

// KneeSummary describes a knee in a few lines of text: the knee round and
// its figures, the round above it, the replicas for the target load, and
// the reason; or why there is no knee. bench, when not nil, names a
// benchmark by index (the console passes the report's strategy labels).
func KneeSummary(k *report.Knee, bench func(i int) string) string {
	if k == nil {
		return ""
	}
	name := func(i report.Int) string {
		s := fmt.Sprintf("benchmark %d", i)
		if bench != nil {
			if l := bench(int(i)); l != "" {
				s += " (" + l + ")"
			}
		}
		return s
	}
	var b strings.Builder
	mode := k.Mode
	if mode == "" {
		mode = "knee"
	}
	figures := func() string {
		rate := fmt.Sprintf("%.2f req/s", float64(k.Rate))
		if k.AchievedRate > 0 { // an open-loop round: offered, and what the server completed
			rate = fmt.Sprintf("%.2f req/s offered (%.2f achieved)", float64(k.Rate), float64(k.AchievedRate))
		}
		return fmt.Sprintf("goodput %.1f tok/s of %.1f tok/s throughput, %s, concurrency %.2f, TTFT P99 %.1f ms, ITL P95 %.1f ms",
			float64(k.GoodputOutputTokS), float64(k.ThroughputOutputTokS), rate, float64(k.Concurrency),
			float64(k.TTFTP99Ms), float64(k.ITLP95Ms))
	}
	if k.Found {
		fmt.Fprintf(&b, "Knee (%s): %s: %s.\n", mode, name(k.Index), figures())
		if k.Above >= 0 {
			fmt.Fprintf(&b, "  The SLO breaks above it at %s.\n", name(k.Above))
		}
	} else {
		fmt.Fprintf(&b, "No knee (%s).\n", mode)
		if k.Index >= 0 {
			fmt.Fprintf(&b, "  Highest load that held the SLO (a lower bound of the capacity): %s: %s.\n", name(k.Index), figures())
		}
	}
	if k.Reason != "" {
		fmt.Fprintf(&b, "  %s\n", k.Reason)
	}
	if k.TargetLoadTokS > 0 {
		switch {
		case k.Replicas > 0 && k.Found:
			fmt.Fprintf(&b, "  Replicas for %.1f tok/s: %d (target ÷ goodput at the knee, rounded up).\n", float64(k.TargetLoadTokS), k.Replicas)
		case k.Replicas > 0:
			fmt.Fprintf(&b, "  Replicas for %.1f tok/s: at most %d (from the lower bound above).\n", float64(k.TargetLoadTokS), k.Replicas)
		default:
			fmt.Fprintf(&b, "  Replicas for %.1f tok/s: unknown (no load held the SLO with a goodput above 0).\n", float64(k.TargetLoadTokS))
		}
	}
	return b.String()
}
