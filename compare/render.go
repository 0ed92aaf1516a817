package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/goodput-dev/goodput/internal/texttable"
)

// fmtValue renders a metric value in its unit.
func fmtValue(metric string, v float64) string {
	switch metric {
	case MetricErrorRate:
		return fmt.Sprintf("%.2f%%", v*100)
	case MetricKnee:
		if v == math.Trunc(v) {
			return fmt.Sprintf("%.0f", v)
		}
		return fmtLoad(v)
	case MetricGoodput, MetricThroughput, kneeGoodput:
		return fmt.Sprintf("%.1f", v)
	}
	a := math.Abs(v)
	switch {
	case a >= 100:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3f", v)
}

func sign(v float64) string {
	if v >= 0 {
		return "+"
	}
	return ""
}

// changeText renders a row's change in the terms of its limit.
func changeText(r Row) string {
	if r.Delta == nil {
		return "-"
	}
	d := *r.Delta
	switch {
	case r.Metric == MetricErrorRate:
		return fmt.Sprintf("%s%.2fpp", sign(d), d*100)
	case r.limit.Kind == LimitDuration:
		return sign(d) + fmtValue(r.Metric, d) + "ms"
	case r.Relative == nil:
		if d == 0 {
			return "0.0%"
		}
		return "n/a (baseline 0)"
	}
	return fmt.Sprintf("%s%.1f%%", sign(*r.Relative), *r.Relative*100)
}

// limitText renders a limit with the direction that fails: "-5%",
// "+10%", "+0.5pp", "off".
func limitText(r Row) string {
	if r.limit.Kind == LimitOff {
		return "off"
	}
	if r.higher {
		return "-" + r.limit.String()
	}
	return "+" + r.limit.String()
}

// noiseText renders the two intervals and whether they overlap.
func noiseText(r Row) string {
	n := r.Noise
	if n == nil {
		return "-"
	}
	verdict := "overlap"
	if n.Significant {
		verdict = "differ"
	}
	return fmt.Sprintf("%s | %s (%s)", intervalText(r.Metric, n.Baseline), intervalText(r.Metric, n.Current), verdict)
}

// intervalText renders an interval, an open end as "…" (e.g. "25.41–…").
func intervalText(metric string, i Interval) string {
	lo, hi := fmtValue(metric, i.Low), fmtValue(metric, i.High)
	if i.LowOpen {
		lo = "…"
	}
	if i.HighOpen {
		hi = "…"
	}
	return lo + "–" + hi
}

func statusText(r Row) string {
	switch r.Status {
	case StatusRegression:
		return "REGRESSION"
	case StatusWithinNoise:
		return "within noise"
	case StatusUndecided:
		return "UNDECIDED"
	case StatusNotGated:
		return "not gated"
	case StatusNA:
		return "n/a, not gated: " + r.Note
	}
	return string(r.Status)
}

func valueText(r Row, v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmtValue(r.Metric, *v)
}

// cells are the table cells of a row.
func cells(r Row) []string {
	verdict := statusText(r)
	if r.Note != "" && r.Status != StatusNA {
		verdict += " (" + r.Note + ")"
	}
	return []string{r.Title, valueText(r, r.Baseline), valueText(r, r.Current), changeText(r), limitText(r), noiseText(r), verdict}
}

// tableHeads are the column titles of a comparison table.
func (res *Result) tableHeads() []string {
	return []string{"Metric", "Baseline", "Current", "Change", "Limit",
		fmt.Sprintf("Noise: %.0f%% CI baseline | current", res.Noise.Confidence*100), "Verdict"}
}

func (res *Result) headline() string {
	v := "PASS"
	switch {
	case res.Regressions > 0:
		v = "FAIL"
	case !res.Pass:
		v = "UNDECIDED"
	}
	s := fmt.Sprintf("%s: %d regression%s, %d threshold crossing%s within noise", v,
		res.Regressions, plural(res.Regressions), res.WithinNoise, plural(res.WithinNoise))
	if res.WithinNoise > 0 && !res.Strict {
		s += " (not failing; --strict would fail " + map[bool]string{true: "it", false: "them"}[res.WithinNoise == 1] + ")"
	}
	if res.Undecided > 0 {
		s += fmt.Sprintf(", %d crossing%s undecidable at this sample size (%d requests per run would decide; ",
			res.Undecided, plural(res.Undecided), res.DecidingRequests)
		if res.AllowUndecided {
			s += "passed with --allow-undecided)"
		} else {
			s += "--allow-undecided passes " + map[bool]string{true: "it", false: "them"}[res.Undecided == 1] + ")"
		}
	}
	return s + fmt.Sprintf(", %d improvement%s", res.Improved, plural(res.Improved))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func sideText(ri RunInfo) string {
	s := ri.Name + " (" + ri.Layout
	if ri.RunID != "" {
		s += ", run " + ri.RunID
	}
	return s + ")"
}

func (res *Result) limitsText() string {
	var on, off []string
	for _, s := range specs {
		l, ok := res.Limits[s.Key]
		if !ok {
			continue // a session row's limit, without sessions on both sides
		}
		if l == "off" {
			off = append(off, s.Key)
			continue
		}
		dir := "+"
		if s.HigherIsBetter {
			dir = "-"
		}
		on = append(on, s.Key+" "+dir+l)
	}
	t := strings.Join(on, ", ")
	if len(off) > 0 {
		t += "; off: " + strings.Join(off, ", ")
	}
	return t
}

func (res *Result) noiseLegend() string {
	return fmt.Sprintf("%.0f%% percentile-bootstrap intervals per run (%d resamples, seed %d); a difference is significant when the intervals do not overlap",
		res.Noise.Confidence*100, res.Noise.Resamples, res.Noise.Seed)
}

// WriteText writes the comparison as aligned text tables for the
// console, fitted to texttable.Columns.
func (res *Result) WriteText(w io.Writer) error { return res.WriteTextWidth(w, texttable.Columns) }

// WriteTextWidth is WriteText in lines of at most cols columns (0: as
// wide as they are): long header values wrap, a verdict's explanation
// becomes a numbered note under its table, and a table still too wide
// puts its noise intervals in a table of their own below it.
func (res *Result) WriteTextWidth(w io.Writer, cols int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "goodput compare\n  baseline  %s\n  current   %s\n", sideText(res.Baseline), sideText(res.Current))
	for _, l := range [][2]string{{"limits", res.limitsText()}, {"noise", res.noiseLegend()}} {
		b.WriteString(texttable.Hang(fmt.Sprintf("  %-8s  %s", l[0], l[1]), cols, 12) + "\n")
	}
	if len(res.MetadataDiffs) > 0 {
		b.WriteString("\nRun metadata that differs\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, d := range res.MetadataDiffs {
			fmt.Fprintf(tw, "  %s\t%s\t→ %s\n", d.Field, orDash(d.Baseline), orDash(d.Current))
		}
		_ = tw.Flush()
	}
	noiseHead := fmt.Sprintf("Noise: %.0f%% CI baseline | current", res.Noise.Confidence*100)
	table := func(title string, rows []Row) {
		fmt.Fprintf(&b, "\n%s\n", title)
		var notes []string
		body := make([][]string, len(rows))
		for i, r := range rows {
			verdict := statusText(r)
			if r.Status == StatusNA {
				verdict = "n/a, not gated"
			}
			if r.Note != "" {
				notes = append(notes, fmt.Sprintf("[%d] %s: %s", len(notes)+1, r.Title, r.Note))
				verdict += fmt.Sprintf(" [%d]", len(notes))
			}
			body[i] = []string{r.Title, valueText(r, r.Baseline), valueText(r, r.Current), changeText(r), limitText(r), verdict, noiseText(r)}
		}
		heads := []string{"Metric", "Baseline", "Current", "Change", "Limit", "Verdict", noiseHead}
		whole := tabbed(heads, body)
		if cols <= 0 || maxWidth(whole) <= cols {
			b.WriteString(whole)
		} else {
			main, noise := make([][]string, len(body)), make([][]string, 0, len(body))
			for i, c := range body {
				main[i] = c[:6]
				if c[6] != "-" {
					noise = append(noise, []string{c[0], c[6]})
				}
			}
			b.WriteString(tabbed(heads[:6], main))
			if len(noise) > 0 {
				b.WriteString("\n" + tabbed([]string{"Metric", noiseHead}, noise))
			}
		}
		for _, n := range notes {
			b.WriteString(texttable.Hang("  "+n, cols, 6) + "\n")
		}
	}
	for _, p := range res.Pairs {
		table(fmt.Sprintf("%s  (baseline #%d, current #%d)", p.Label, p.BaselineIndex, p.CurrentIndex), p.Rows)
	}
	if k := res.Knee; k != nil {
		table(texttable.Hang(fmt.Sprintf("Knee  (baseline %s; current %s)", k.Baseline, k.Current), cols, 2), k.Rows)
	}
	if len(res.UnmatchedBaseline)+len(res.UnmatchedCurrent) > 0 {
		b.WriteString("\nNot compared (no partner)\n")
		for _, u := range res.UnmatchedBaseline {
			b.WriteString(texttable.Hang("  baseline "+u, cols, 11) + "\n")
		}
		for _, u := range res.UnmatchedCurrent {
			b.WriteString(texttable.Hang("  current  "+u, cols, 11) + "\n")
		}
	}
	b.WriteString(texttable.Hang("\nVerdict: "+res.headline(), cols, 9) + "\n")
	_, err := io.WriteString(w, b.String())
	if err != nil {
		return fmt.Errorf("writing comparison: %w", err)
	}
	return nil
}

// tabbed aligns heads over rows, each line indented two columns.
func tabbed(heads []string, rows [][]string) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  %s\n", strings.Join(heads, "\t"))
	for _, r := range rows {
		fmt.Fprintf(tw, "  %s\n", strings.Join(r, "\t"))
	}
	_ = tw.Flush()
	return b.String()
}

// maxWidth is the widest line of s in runes.
func maxWidth(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		n = max(n, utf8.RuneCountInString(l))
	}
	return n
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// mdEscape makes a string safe in a Markdown table cell.
func mdEscape(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

// WriteMarkdown writes the comparison as GitHub-flavoured Markdown, for a
// pull-request comment.
func (res *Result) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## goodput compare: %s\n\n", res.headline())
	fmt.Fprintf(&b, "- Baseline: `%s`\n- Current: `%s`\n\n", mdEscape(sideText(res.Baseline)), mdEscape(sideText(res.Current)))
	table := func(title string, rows []Row) {
		fmt.Fprintf(&b, "### %s\n\n", mdEscape(title))
		heads := res.tableHeads()
		for i := range heads {
			heads[i] = mdEscape(heads[i])
		}
		b.WriteString("| " + strings.Join(heads, " | ") + " |\n")
		b.WriteString("|---|---:|---:|---:|---:|---|---|\n")
		for _, r := range rows {
			cs := cells(r)
			for i := range cs {
				cs[i] = mdEscape(cs[i])
			}
			if r.Status == StatusRegression || r.Status == StatusUndecided {
				cs[len(cs)-1] = "**" + cs[len(cs)-1] + "**"
			}
			b.WriteString("| " + strings.Join(cs, " | ") + " |\n")
		}
		b.WriteString("\n")
	}
	for _, p := range res.Pairs {
		table(fmt.Sprintf("%s (baseline #%d, current #%d)", p.Label, p.BaselineIndex, p.CurrentIndex), p.Rows)
	}
	if k := res.Knee; k != nil {
		table(fmt.Sprintf("Knee (baseline %s; current %s)", k.Baseline, k.Current), k.Rows)
	}
	if len(res.MetadataDiffs) > 0 {
		b.WriteString("### Run metadata that differs\n\n| Field | Baseline | Current |\n|---|---|---|\n")
		for _, d := range res.MetadataDiffs {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", d.Field, mdEscape(orDash(d.Baseline)), mdEscape(orDash(d.Current)))
		}
		b.WriteString("\n")
	}
	if len(res.UnmatchedBaseline)+len(res.UnmatchedCurrent) > 0 {
		b.WriteString("Not compared (no partner):")
		for _, u := range res.UnmatchedBaseline {
			fmt.Fprintf(&b, " baseline %s;", mdEscape(u))
		}
		for _, u := range res.UnmatchedCurrent {
			fmt.Fprintf(&b, " current %s;", mdEscape(u))
		}
		b.WriteString("\n\n")
	}
	fmt.Fprintf(&b, "<sub>Limits: %s. Noise: %s; \"-\" means no estimate (the row is gated on its threshold alone). A crossing within noise fails only with --strict; one the samples are too small to judge (UNDECIDED) fails unless --allow-undecided.</sub>\n",
		mdEscape(res.limitsText()), res.noiseLegend())
	_, err := io.WriteString(w, b.String())
	if err != nil {
		return fmt.Errorf("writing Markdown comparison: %w", err)
	}
	return nil
}

// WriteJSON writes the comparison as indented JSON (the machine-readable
// verdict: "pass", the counts and every row).
func (res *Result) WriteJSON(w io.Writer) error {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding comparison: %w", err)
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("writing comparison: %w", err)
	}
	return nil
}
