package texttable

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		cols     int
		want     string
	}{
		{"fits", "a b c\n", 5, "a b c\n"},
		{"no limit", "a b c d e f", 0, "a b c d e f"},
		{"continuation two past the indent", "  alpha beta gamma delta\n", 12,
			"  alpha beta\n    gamma\n    delta\n"},
		{"alignment kept on the first line", "  key    value one two", 16,
			"  key    value\n    one two"},
		{"long word broken after commas", "data a=1,bb=2,ccc=3,dddd=4", 12,
			"data a=1,\n  bb=2,\n  ccc=3,\n  dddd=4"},
		{"a path stays whole", "wrote /a/very/long/path/file.json", 12,
			"wrote\n  /a/very/long/path/file.json"},
	} {
		if got := Wrap(tc.in, tc.cols); got != tc.want {
			t.Errorf("%s: Wrap(%q, %d) =\n%q\nwant\n%q", tc.name, tc.in, tc.cols, got, tc.want)
		}
	}
}

func TestHangAndFit(t *testing.T) {
	in := "  data   file /tmp/some/deeply/nested/dir/requests.jsonl (1200 rows) mean 256.0"
	got := Fit(in, 40, 9)
	want := "  data   file\n" +
		"         /tmp/some/deepl…/requests.jsonl\n" + // 31 columns after the hang: cut
		"         (1200 rows) mean 256.0"
	if got != want {
		t.Errorf("Fit =\n%s\nwant\n%s", got, want)
	}
	if got := Fit("x /tmp/aaaaaaaaaa/bbbbbbbbbb.json", 16, -1); got != "x /tmp/aa…b.json" {
		t.Errorf("Fit cuts in the middle: %q", got)
	}
	if got := Hang(in, 40, 9); !strings.Contains(got, "\n         /tmp/some/deeply/nested/dir/requests.jsonl\n") {
		t.Errorf("Hang keeps the long word whole: %q", got)
	}
	for _, cols := range []int{20, 40, 80} {
		for _, line := range strings.Split(Fit(in, cols, 9), "\n") {
			if n := utf8.RuneCountInString(line); n > cols {
				t.Errorf("Fit at %d: %q is %d wide", cols, line, n)
			}
		}
	}
}

func TestCut(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"abcdefghij", 10, "abcdefghij"},
		{"abcdefghij", 5, "ab…ij"},
		{"abcdefghij", 6, "abc…ij"},
		{"αβγδεζ", 4, "αβ…ζ"},
		{"abc", 1, "…"},
	} {
		if got := Cut(tc.in, tc.n); got != tc.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

// Wrap keeps every word (its non-space characters, in order) and Fit
// keeps every line within the width, whatever the text.
func TestWrapProperties(t *testing.T) {
	words := []string{"a", "bb", "ccc,dd,e", "/a/long/path/with/no/comma/at/all.json", "≥", "x=1,y=2,z=3,w=4,v=5,u=6", "  ", "—"}
	rng := uint64(1)
	next := func(n int) int { rng = rng*6364136223846793005 + 1442695040888963407; return int(rng>>33) % n }
	squash := func(s string) string { return strings.Join(strings.Fields(s), "") }
	for i := range 500 {
		var b strings.Builder
		b.WriteString(strings.Repeat(" ", next(6)))
		for range 1 + next(30) {
			b.WriteString(words[next(len(words))] + strings.Repeat(" ", 1+next(2)))
		}
		in := strings.TrimRight(b.String(), " ")
		cols := 8 + next(60)
		if got := Wrap(in, cols); squash(got) != squash(in) {
			t.Fatalf("case %d: Wrap(%q, %d) lost or moved text: %q", i, in, cols, got)
		}
		for _, line := range strings.Split(Fit(in, cols, next(8)-1), "\n") {
			if n := utf8.RuneCountInString(line); n > cols {
				t.Fatalf("case %d: Fit(%q, %d) has a line of %d: %q", i, in, cols, n, line)
			}
		}
	}
}
