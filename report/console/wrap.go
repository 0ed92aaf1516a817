package console

import (
	"strings"
	"unicode/utf8"
)

// Wrap wraps every line of s longer than cols columns (0: no limit) at
// its spaces, as Write does; a continuation is indented two columns past
// the line's own indent. A word longer than a line (a URL) stays whole.
func Wrap(s string, cols int) string {
	if cols <= 0 {
		return s
	}
	return wrapLines(s, cols)
}

func wrapLines(s string, cols int) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		body := strings.TrimSuffix(line, "\n")
		if utf8.RuneCountInString(body) <= cols {
			b.WriteString(line)
			continue
		}
		indent := len(body) - len(strings.TrimLeft(body, " "))
		cont := strings.Repeat(" ", min(indent+2, cols/2))
		n, first := 0, true
		for _, word := range strings.Fields(body) {
			wn := utf8.RuneCountInString(word)
			switch {
			case first:
				b.WriteString(body[:indent] + word)
				n, first = indent+wn, false
			case n+1+wn <= cols:
				b.WriteString(" " + word)
				n += 1 + wn
			default:
				b.WriteString("\n" + cont + word)
				n = len(cont) + wn
			}
		}
		if strings.HasSuffix(line, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}
