package texttable

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Wrap wraps every line of s longer than cols columns (0: no limit) at
// its spaces; a continuation is indented two columns past the line's own
// indent. The spaces between words are kept as they are (a line's
// alignment), except where the line breaks. A word longer than a line of
// its own is broken after its commas (a data spec); one with no comma to
// break at (a path, a URL) stays whole.
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

// token is a word and the spaces before it ("" for a piece of a word
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
	room := cols - cont // a continuation line's width
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
		word := rest[:end]
		rest = rest[end:]
		for i, piece := range commaPieces(word, room) {
			if i > 0 {
				sep = ""
			}
			toks = append(toks, token{sep, piece})
		}
	}
	if len(toks) > 0 {
		toks[0].sep = ""
	}
	n := indent
	b.WriteString(body[:indent])
	start := true // at the start of a line
	for _, t := range toks {
		wn := utf8.RuneCountInString(t.word)
		sn := utf8.RuneCountInString(t.sep)
		if !start && n+sn+wn > cols {
			b.WriteString("\n" + strings.Repeat(" ", cont))
			n, start = cont, true
		}
		if !start {
			b.WriteString(t.sep)
			n += sn
		}
		w := t.word
		if cut && n+wn > cols {
			w = Cut(w, max(cols-n, 1))
			wn = utf8.RuneCountInString(w)
		}
		b.WriteString(w)
		n += wn
		start = false
	}
}

// commaPieces breaks a word longer than room after its commas into pieces
// of at most room runes where it can (each piece but the last ends with
// its comma); a word that fits, or has no comma, is one piece.
func commaPieces(word string, room int) []string {
	if utf8.RuneCountInString(word) <= room || !strings.Contains(word, ",") {
		return []string{word}
	}
	var pieces []string
	cur := ""
	for _, part := range strings.SplitAfter(word, ",") {
		if cur != "" && utf8.RuneCountInString(cur)+utf8.RuneCountInString(part) > room {
			pieces = append(pieces, cur)
			cur = ""
		}
		cur += part
	}
	return append(pieces, cur)
}
