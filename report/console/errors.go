package console

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/goodput-dev/goodput/report"
)

// maxMessageCols is the width the errors table gives a message.
const maxMessageCols = 100

// errorsSection names the failures of each benchmark: per error class the
// count in the window and the most common message, cut to one line. ""
// when no request failed.
func errorsSection(r *report.Report) string {
	type line struct{ idx, strat, class, count, msg string }
	var lines []line
	for i, bm := range r.Benchmarks {
		for _, e := range bm.ErrorRows() {
			msg := "-"
			if e.Message != "" {
				msg = fmt.Sprintf("%s (%d×)", cutCols(e.Message, maxMessageCols), e.MessageCount)
			}
			lines = append(lines, line{fmt.Sprint(i), bm.Label(), e.Class, fmt.Sprint(e.Count), msg})
		}
	}
	if len(lines) == 0 {
		return ""
	}
	head := line{"#", "Strategy", "Class", "Count", "Most common message"}
	w := [4]int{}
	for _, l := range append([]line{head}, lines...) {
		for k, c := range []string{l.idx, l.strat, l.class, l.count} {
			w[k] = max(w[k], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	b.WriteString("Failed requests in the measurement window, by error class (requests the run cancelled at a benchmark's end left out)\n")
	row := func(l line) {
		fmt.Fprintf(&b, "%-*s  %-*s  %-*s  %*s  %s\n", w[0], l.idx, w[1], l.strat, w[2], l.class, w[3], l.count, l.msg)
	}
	row(head)
	b.WriteString(strings.Repeat("-", w[0]+w[1]+w[2]+w[3]+8+len(head.msg)) + "\n")
	for _, l := range lines {
		row(l)
	}
	return b.String()
}

// cutCols cuts s to at most n runes, ending it with "…" when cut.
func cutCols(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
