package console

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/goodput-dev/goodput/report"
)

// maxMessageCols is the width the errors table gives a message when the
// console has no width (--wide).
const maxMessageCols = 100

// minMessageCols is the least width a message gets in a narrow console.
const minMessageCols = 20

// errorsSection names the failures of each benchmark: per error class the
// count in the window and the most common message, cut to one line (to
// fit cols columns, 0: maxMessageCols). "" when no request failed.
func errorsSection(r *report.Report, cols int) string {
	type line struct{ idx, strat, class, count, msg string }
	var lines []line
	type msg struct {
		text string
		n    int
	}
	var msgs []msg
	for i, bm := range r.Benchmarks {
		for _, e := range bm.ErrorRows() {
			lines = append(lines, line{fmt.Sprint(i), bm.Label(), e.Class, fmt.Sprint(e.Count), ""})
			msgs = append(msgs, msg{e.Message, int(e.MessageCount)})
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
	for i, m := range msgs {
		lines[i].msg = "-"
		if m.text == "" {
			continue
		}
		count := fmt.Sprintf(" (%d×)", m.n)
		room := maxMessageCols
		if cols > 0 {
			room = max(cols-(w[0]+w[1]+w[2]+w[3]+8)-utf8.RuneCountInString(count), minMessageCols)
		}
		lines[i].msg = cutCols(m.text, room) + count
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
