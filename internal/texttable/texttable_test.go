package texttable

import (
	"strings"
	"testing"
)

// TestRender: the first two columns are left-aligned, the rest right-aligned
// under their group, and a group name wider than its columns widens the last.
func TestRender(t *testing.T) {
	tb := &Table{
		Title:  "T",
		Groups: []Group{{Span: 2}, {Name: "Wide group name", Span: 1}},
		Heads:  []string{"#", "Name", "V"},
		Rows:   [][]string{{"0", "a", "1.5"}, {"1", "bb", "10"}},
	}
	var b strings.Builder
	tb.Render(&b)
	want := "T\n" +
		"         | Wide group name\n" +
		" #  Name |               V\n" +
		" -  ---- | ---------------\n" +
		" 0  a    |             1.5\n" +
		" 1  bb   |              10\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestRenderWidth: a table wider than the width is cut between its
// groups into parts that repeat the key group, under one title; a table
// that fits (or width 0) renders as Render does.
func TestRenderWidth(t *testing.T) {
	tb := &Table{
		Title:  "T",
		Groups: []Group{{Span: 2}, {Name: "A", Span: 2}, {Name: "B", Span: 1}},
		Heads:  []string{"#", "Name", "a1", "a2", "b"},
		Rows:   [][]string{{"0", "x", "1", "2", "333333"}},
	}
	var whole, b strings.Builder
	tb.Render(&whole)
	tb.RenderWidth(&b, 0)
	if b.String() != whole.String() {
		t.Errorf("width 0:\n%s\nwant\n%s", b.String(), whole.String())
	}
	b.Reset()
	tb.RenderWidth(&b, 20)
	want := "T\n" +
		"         | A\n" +
		" #  Name | a1  a2\n" +
		" -  ---- | --  --\n" +
		" 0  x    |  1   2\n" +
		"\n" +
		"         | B\n" +
		" #  Name |      b\n" +
		" -  ---- | ------\n" +
		" 0  x    | 333333\n"
	if b.String() != want {
		t.Errorf("width 20:\n%s\nwant\n%s", b.String(), want)
	}
}

// TestRuneWidths: a cell's width is its runes, as fmt pads, not its bytes
// ("≥" is three bytes and one column).
func TestRuneWidths(t *testing.T) {
	tb := &Table{
		Groups: []Group{{Span: 2}, {Name: "TTFT", Span: 1}},
		Heads:  []string{"#", "S", "P99"},
		Rows:   [][]string{{"0", "a", "≥ 10.0"}},
	}
	var b strings.Builder
	tb.RenderWidth(&b, 16)
	want := "\n" +
		"      | TTFT\n" +
		" #  S |    P99\n" +
		" -  - | ------\n" +
		" 0  a | ≥ 10.0\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
