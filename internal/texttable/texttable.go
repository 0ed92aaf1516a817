// Package texttable renders the plain-text tables of goodput's console
// output: a title, a row of group names over runs of columns, a row of
// heads, a rule and the rows, columns right-aligned except the first two.
// Fill a Table and call Render.
package texttable

import (
	"fmt"
	"strings"
)

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
	n := len(t.Heads)
	width := make([]int, n)
	for i, h := range t.Heads {
		width[i] = len(h)
	}
	for _, r := range t.Rows {
		for i, c := range r {
			width[i] = max(width[i], len(c))
		}
	}
	// Widen the last column of a group whose name is wider than its columns.
	col := 0
	for _, g := range t.Groups {
		w := 0
		for i := col; i < col+g.Span; i++ {
			w += width[i]
		}
		w += 2 * (g.Span - 1)
		if len(g.Name) > w {
			width[col+g.Span-1] += len(g.Name) - w
		}
		col += g.Span
	}
	b.WriteString(t.Title + "\n")
	var line strings.Builder
	col = 0
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
