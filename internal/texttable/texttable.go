// Package texttable renders the plain-text tables of goodput's console
// output: a title, a row of group names over runs of columns, a row of
// heads, a rule and the rows, columns right-aligned except the first two.
// Fill a Table and call Render, or RenderWidth to fit a terminal; Wrap and
// Fit fit lines of text to one. Widths are counted in runes, as fmt pads.
package texttable

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Columns is the console's default width: tables are cut and text is
// wrapped to it unless the user asks for everything whole (--wide).
const Columns = 100

// Group names a run of Span columns.
type Group struct {
	Name string
	Span int
}

// Table is a titled table of right-aligned columns (the first two
// left-aligned) under a row of group names, a row of heads and a rule.
type Table struct {
	Title  string
	Groups []Group
	Heads  []string
	Rows   [][]string
}

// Render writes the table to b.
func (t *Table) Render(b *strings.Builder) {
	t.render(b, t.widths(), true)
}

// RenderWidth writes the table to b in lines of at most cols columns
// (0: no limit): a table too wide is cut into parts under the one title,
// each part repeating the first group (the row's key, "# Strategy") and
// taking as many of the next groups as fit; a group wider than cols on
// its own is cut between its columns.
func (t *Table) RenderWidth(b *strings.Builder, cols int) {
	width := t.widths()
	if cols <= 0 || len(t.Groups) < 2 || lineWidth(t.Groups, width) <= cols {
		t.render(b, width, true)
		return
	}
	key := t.Groups[0]
	// pieces: the groups after the key, each with its first column; a
	// group too wide for a part of its own is cut into single columns.
	type piece struct {
		g     Group
		first int
	}
	var pieces []piece
	col := key.Span
	for _, g := range t.Groups[1:] {
		if lineWidth([]Group{key, g}, append(width[:key.Span:key.Span], width[col:col+g.Span]...)) <= cols {
			pieces = append(pieces, piece{g, col})
		} else {
			for i := range g.Span {
				pieces = append(pieces, piece{Group{Name: g.Name, Span: 1}, col + i})
			}
		}
		col += g.Span
	}
	b.WriteString(t.Title + "\n")
	for i := 0; i < len(pieces); {
		if i > 0 {
			b.WriteString("\n")
		}
		part := &Table{Groups: []Group{key}, Heads: t.Heads[:key.Span:key.Span]}
		pw := width[:key.Span:key.Span]
		var cols0 []int // the columns of t in the part
		for j := range key.Span {
			cols0 = append(cols0, j)
		}
		for ; i < len(pieces); i++ {
			p := pieces[i]
			g := append(part.Groups[:len(part.Groups):len(part.Groups)], p.g)
			w := append(pw[:len(pw):len(pw)], width[p.first:p.first+p.g.Span]...)
			if len(part.Groups) > 1 && lineWidth(g, w) > cols {
				break
			}
			part.Groups, pw = g, w
			for j := range p.g.Span {
				cols0 = append(cols0, p.first+j)
				part.Heads = append(part.Heads, t.Heads[p.first+j])
			}
		}
		for _, r := range t.Rows {
			row := make([]string, len(cols0))
			for j, c := range cols0 {
				if c < len(r) {
					row[j] = r[c]
				}
			}
			part.Rows = append(part.Rows, row)
		}
		part.render(b, part.widths(), false)
	}
}

// lineWidth is the width of a row of the groups with these column widths.
func lineWidth(groups []Group, width []int) int {
	n, col := 0, 0
	for gi, g := range groups {
		if gi > 0 {
			n += 2 // " |"
		}
		n++ // the group's leading space
		for i := col; i < col+g.Span; i++ {
			n += width[i]
		}
		n += 2 * (g.Span - 1)
		n = max(n, n-groupWidth(width[col:col+g.Span])+utf8.RuneCountInString(g.Name))
		col += g.Span
	}
	return n
}

// groupWidth is the width of a group's columns and the gaps between them.
func groupWidth(width []int) int {
	w := 2 * (len(width) - 1)
	for _, c := range width {
		w += c
	}
	return w
}

// widths is each column's width: its widest cell, and the last column of
// a group whose name is wider than its columns widened to it.
func (t *Table) widths() []int {
	n := len(t.Heads)
	width := make([]int, n)
	for i, h := range t.Heads {
		width[i] = utf8.RuneCountInString(h)
	}
	for _, r := range t.Rows {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	col := 0
	for _, g := range t.Groups {
		w := 0
		for i := col; i < col+g.Span; i++ {
			w += width[i]
		}
		w += 2 * (g.Span - 1)
		if n := utf8.RuneCountInString(g.Name); n > w {
			width[col+g.Span-1] += n - w
		}
		col += g.Span
	}
	return width
}

// render writes the table with these column widths, its title first when
// title.
func (t *Table) render(b *strings.Builder, width []int, title bool) {
	n := len(t.Heads)
	if title {
		b.WriteString(t.Title + "\n")
	}
	var line strings.Builder
	col := 0
	for gi, g := range t.Groups {
		w := 0
		for i := col; i < col+g.Span; i++ {
			w += width[i]
		}
		w += 2 * (g.Span - 1)
		if gi > 0 {
			line.WriteString(" |")
		}
		line.WriteString(fmt.Sprintf(" %-*s", w, g.Name))
		col += g.Span
	}
	b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	writeRow := func(cells []string) {
		line.Reset()
		col := 0
		for gi, g := range t.Groups {
			if gi > 0 {
				line.WriteString(" |")
			}
			for i := col; i < col+g.Span; i++ {
				if i > col {
					line.WriteString("  ")
				} else {
					line.WriteString(" ")
				}
				if i < 2 {
					line.WriteString(fmt.Sprintf("%-*s", width[i], cells[i]))
				} else {
					line.WriteString(fmt.Sprintf("%*s", width[i], cells[i]))
				}
			}
			col += g.Span
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	writeRow(t.Heads)
	sep := make([]string, n)
	for i := range sep {
		sep[i] = strings.Repeat("-", width[i])
	}
	writeRow(sep)
	for _, r := range t.Rows {
		writeRow(r)
	}
}
