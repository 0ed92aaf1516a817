package aiperf

import (
	"io"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/internal/texttable"
)

// TraceTitle is the title of the HTTP trace timing table, AIPerf's.
const TraceTitle = "NVIDIA AIPerf | HTTP Trace Timing"

// traceStats are the statistics of AIPerf's console tables, in its order,
// with their index in Metric.P (-1: not a percentile).
var traceStats = []struct {
	name string
	p    int
}{{"avg", -1}, {"min", -1}, {"max", -1}, {"p99", 8}, {"p90", 6}, {"p50", 4}, {"std", -1}}

// WriteTraceTiming writes AIPerf's --show-trace-timing table: one row per
// benchmark (labels[i] names exports[i]) and HTTP trace metric,
// cut to cols columns (0: whole). A benchmark without trace metrics (no
// records, or no successful request) gets no rows; with none at all the
// table says so in one line.
func WriteTraceTiming(w io.Writer, exports []*Export, labels []string, cols int) error {
	t := &texttable.Table{Title: TraceTitle, Groups: []texttable.Group{{Span: 2}, {Span: len(traceStats)}}}
	t.Heads = []string{"Benchmark", "Metric"}
	for _, s := range traceStats {
		t.Heads = append(t.Heads, s.name)
	}
	for i, x := range exports {
		for m := apFirstHTTP; m < apNumRecord; m++ {
			mt := x.Metric(aiperfRecordDefs[m].tag)
			if mt == nil {
				continue
			}
			row := []string{labels[i], mt.Header + " (" + mt.Unit + ")"}
			for _, s := range traceStats {
				v := mt.Avg
				switch {
				case s.p >= 0:
					v = mt.P[s.p]
				case s.name == "min":
					v = mt.Min
				case s.name == "max":
					v = mt.Max
				case s.name == "std":
					v = mt.Std
				}
				row = append(row, traceCell(v))
			}
			t.Rows = append(t.Rows, row)
		}
	}
	var b strings.Builder
	if len(t.Rows) == 0 {
		b.WriteString(TraceTitle + ": no successful request with HTTP phase times\n")
	} else {
		t.RenderWidth(&b, cols)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// traceCell formats a value as AIPerf's console does: two decimals with
// thousands separators; "N/A" when absent.
func traceCell(v *float64) string {
	if v == nil {
		return "N/A"
	}
	s := strconv.FormatFloat(*v, 'f', 2, 64)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	out := b.String() + "." + frac
	if neg {
		out = "-" + out
	}
	return out
}
