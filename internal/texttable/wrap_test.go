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
