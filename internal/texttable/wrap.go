package texttable

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Wrap wraps every line of s longer than cols columns (0: no limit) at
// its spaces; a continuation is indented two columns past the line's own
// indent. The spaces between words are kept as they are (a line's
// alignment), except where the line breaks. A word that does not fit is
// broken after a comma where one fits (a data spec); one with no comma to
// break at (a path, a URL) goes whole to the next line.
func Wrap(s string, cols int) string { return wrap(s, cols, -1, false) }

// Hang is Wrap with every continuation indented hang columns (a value's
// column, say).
func Hang(s string, cols, hang int) string { return wrap(s, cols, hang, false) }

// Fit is Hang (hang < 0: Wrap's indent), and then a word still longer
// than its line is cut in the middle with "…" (Cut), so that no line is
// wider than cols. Use it where the whole text is kept elsewhere (the
// report file).
func Fit(s string, cols, hang int) string { return wrap(s, cols, hang, true) }

// Cut shortens s to n runes by replacing its middle with "…", keeping
// both ends (a path's root and its file name); s as it is when it fits.
func Cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n <= 1 {
		return "…"
	}
	tail := (n - 1) / 2
	return string(r[:n-1-tail]) + "…" + string(r[len(r)-tail:])
}

func wrap(s string, cols, hang int, cut bool) string {
	if cols <= 0 {
		return s
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		body := strings.TrimSuffix(line, "\n")
		if utf8.RuneCountInString(body) <= cols {
			b.WriteString(line)
			continue
		}
		wrapLine(&b, body, cols, hang, cut)
		if strings.HasSuffix(line, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// token is a word and the spaces before it ("" for the rest of a word
// broken after a comma).
type token struct{ sep, word string }

// wrapLine writes body, longer than cols, as lines of at most cols
// columns (a word too long excepted unless cut).
func wrapLine(b *strings.Builder, body string, cols, hang int, cut bool) {
	indent := len(body) - len(strings.TrimLeft(body, " "))
	cont := hang
	if cont < 0 {
		cont = indent + 2
	}
	cont = min(cont, cols/2)
	var toks []token
	rest := body[indent:]
	for rest != "" {
		end := strings.IndexFunc(rest, func(r rune) bool { return !unicode.IsSpace(r) })
		if end < 0 {
			break
		}
		sep := rest[:end]
		rest = rest[end:]
		end = strings.IndexFunc(rest, unicode.IsSpace)
		if end < 0 {
			end = len(rest)
		}
		toks = append(toks, token{sep, rest[:end]})
		rest = rest[end:]
	}
	n := indent
	b.WriteString(body[:indent])
	start := true // at the start of a line: no separator
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if start {
			t.sep = ""
		}
		wn := utf8.RuneCountInString(t.word)
		sn := utf8.RuneCountInString(t.sep)
		if n+sn+wn > cols {
			// Too long here: the part of a data spec up to a comma that
			// fits; or, cut, a word too long for any line where it is (at
			// most the hang column in); else the next line.
			if head, tail, ok := commaHead(t.word, cols-n-sn); ok {
				t.word, wn = head, utf8.RuneCountInString(head)
				toks = append(toks[:i+1], append([]token{{"", tail}}, toks[i+1:]...)...)
			} else if !start && !(cut && wn > cols-cont && n+sn <= cont) {
				b.WriteString("\n" + strings.Repeat(" ", cont))
				n, start = cont, true
				i--
				continue
			}
		}
		b.WriteString(t.sep)
		n += sn
		if cut && n+wn > cols {
			t.word = Cut(t.word, max(cols-n, 1))
			wn = utf8.RuneCountInString(t.word)
		}
		b.WriteString(t.word)
		n += wn
		start = false
	}
}

// commaHead splits word after its last comma within the first room runes
// (a data spec's keys); ok is false when no comma is that early.
func commaHead(word string, room int) (head, tail string, ok bool) {
	if room <= 0 {
		return "", "", false
	}
	r := []rune(word)
	for i := min(room, len(r)-1) - 1; i >= 0; i-- {
		if r[i] == ',' {
			return string(r[:i+1]), string(r[i+1:]), true
		}
	}
	return "", "", false
}
