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
