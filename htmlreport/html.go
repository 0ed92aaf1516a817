package htmlreport

import (
	"html"
	"strings"
	"unicode/utf8"
)

// esc escapes s for HTML text and double- or single-quoted attribute
// values, and replaces invalid UTF-8 and control characters, which have
// no place in an HTML document.
func esc(s string) string {
	if !utf8.ValidString(s) || strings.ContainsFunc(s, isControl) {
		s = strings.Map(func(r rune) rune {
			if r == utf8.RuneError || isControl(r) {
				return '\uFFFD'
			}
			return r
		}, strings.ToValidUTF8(s, "\uFFFD"))
	}
	return html.EscapeString(s)
}

// isControl reports the characters HTML forbids in text: C0 controls other
// than tab, newline and carriage return, DEL and C1 controls, and
// non-characters.
func isControl(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return false
	case r < 0x20 || (r >= 0x7f && r <= 0x9f):
		return true
	case r >= 0xFDD0 && r <= 0xFDEF, r&0xFFFE == 0xFFFE:
		return true
	}
	return false
}

// clip shortens s to at most n runes (with an ellipsis), for strings a
// report controls (error messages, labels) that could be huge.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// page accumulates the HTML document. Its methods escape every string
// argument except those named raw.
type page struct {
	strings.Builder
}

// raw appends trusted markup (built by this package).
func (p *page) raw(parts ...string) {
	for _, s := range parts {
		p.WriteString(s)
	}
}

// text appends escaped text.
func (p *page) text(s string) { p.WriteString(esc(s)) }

// el appends <tag attrs>text</tag> with the text escaped; attrs is
// trusted markup.
func (p *page) el(tag, attrs, text string) {
	p.WriteString("<" + tag)
	if attrs != "" {
		p.WriteString(" " + attrs)
	}
	p.WriteString(">" + esc(text) + "</" + tag + ">")
}

// note appends a paragraph that says what a section is missing.
func (p *page) note(text string) { p.el("p", `class="note"`, text) }

// table is a simple HTML table of escaped cells.
type table struct {
	caption string
	head    []string
	rows    [][]cell
	class   string
}

// cell is one table cell: escaped text, with an optional class.
type cell struct {
	text  string
	class string // e.g. "num", "pass", "fail"
	title string // tooltip
}

func numCell(s string) cell { return cell{text: s, class: "num"} }

// dropEmptyColumns removes the columns from index from on whose every
// row shows no figure (only dashes: "–", "– / –"), and returns how many
// of those columns are left.
func (t *table) dropEmptyColumns(from int) int {
	keep := make([]bool, len(t.head))
	left := 0
	for c := range t.head {
		keep[c] = c < from
		for _, r := range t.rows {
			if c < len(r) && strings.Trim(r[c].text, "–/ ") != "" {
				keep[c] = true
			}
		}
		if c >= from && keep[c] {
			left++
		}
	}
	prune := func(n int) []int {
		var idx []int
		for c := range n {
			if c >= len(keep) || keep[c] {
				idx = append(idx, c)
			}
		}
		return idx
	}
	head := t.head[:0:0]
	for _, c := range prune(len(t.head)) {
		head = append(head, t.head[c])
	}
	t.head = head
	for i, r := range t.rows {
		row := r[:0:0]
		for _, c := range prune(len(r)) {
			row = append(row, r[c])
		}
		t.rows[i] = row
	}
	return left
}

func (p *page) table(t *table) {
	cls := "t"
	if t.class != "" {
		cls += " " + t.class
	}
	p.raw(`<div class="tw"><table class="`, cls, `">`)
	if t.caption != "" {
		p.el("caption", "", t.caption)
	}
	if len(t.head) > 0 {
		p.raw("<thead><tr>")
		for _, h := range t.head {
			p.el("th", `scope="col"`, h)
		}
		p.raw("</tr></thead>")
	}
	p.raw("<tbody>\n")
	for _, r := range t.rows {
		p.raw("<tr>")
		for _, c := range r {
			attrs := ""
			if c.class != "" {
				attrs = `class="` + esc(c.class) + `"`
			}
			if c.title != "" {
				if attrs != "" {
					attrs += " "
				}
				attrs += `title="` + esc(c.title) + `"`
			}
			p.el("td", attrs, c.text)
		}
		p.raw("</tr>\n")
	}
	p.raw("</tbody></table></div>\n")
}

// figure appends a chart inside a <figure> with a caption (escaped).
func (p *page) figure(c *chart, caption string) {
	p.raw(`<figure>`)
	var b strings.Builder
	c.svg(&b)
	p.raw(b.String())
	if caption != "" {
		p.el("figcaption", "", caption)
	}
	p.raw("</figure>\n")
}
