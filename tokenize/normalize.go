package tokenize

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// normalizer rewrites a segment of input text before pre-tokenization.
//
// normalizeAligned does the same and also maps every output byte to the original
// offset of the character it came from (align has one entry per byte of s). It is
// only used when a component needs original offsets (Metaspace with
// prepend_scheme "first"), so it favours clarity over speed.
type normalizer interface {
	normalize(s string, sc *scratch) string
	normalizeAligned(s string, align []int32, sc *scratch) (string, []int32)
}

// unicodeForm is the NFC, NFD, NFKC and NFKD normalizers.
type unicodeForm struct {
	form norm.Form
}

func (n unicodeForm) normalize(s string, _ *scratch) string { return n.form.String(s) }

func (n unicodeForm) normalizeAligned(s string, align []int32, _ *scratch) (string, []int32) {
	var it norm.Iter
	it.InitString(n.form, s)
	var b strings.Builder
	out := make([]int32, 0, len(s))
	for !it.Done() {
		pos := it.Pos()
		seg := it.Next()
		b.Write(seg)
		o := int32(0)
		if pos < len(align) {
			o = align[pos]
		}
		for range seg {
			out = append(out, o)
		}
	}
	return b.String(), out
}

// lowercase maps each character to its full lowercase mapping, as Rust's
// char::to_lowercase does (no context-dependent rules such as final sigma).
type lowercase struct{}

func (lowercase) normalize(s string, sc *scratch) string {
	out, _ := lowercase{}.apply(s, nil)
	return out
}

func (lowercase) normalizeAligned(s string, align []int32, _ *scratch) (string, []int32) {
	return lowercase{}.apply(s, align)
}

func (lowercase) apply(s string, align []int32) (string, []int32) {
	var b strings.Builder
	b.Grow(len(s))
	var out []int32
	if align != nil {
		out = make([]int32, 0, len(s))
	}
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		n0 := b.Len()
		switch {
		case r == utf8.RuneError && w == 1:
			b.WriteByte(s[i])
		case r == 0x130: // İ lowercases to i + combining dot above
			b.WriteString("i\u0307")
		default:
			b.WriteRune(unicode.ToLower(r))
		}
		if align != nil {
			for k := n0; k < b.Len(); k++ {
				out = append(out, align[i])
			}
		}
		i += w
	}
	return b.String(), out
}

// strip removes leading and/or trailing white space.
type strip struct {
	left, right bool
}

func (n strip) bounds(s string) (int, int) {
	start, end := 0, len(s)
	if n.left {
		start = len(s) - len(strings.TrimLeftFunc(s, isWhiteSpace))
	}
	if n.right {
		end = len(strings.TrimRightFunc(s, isWhiteSpace))
		if end < start {
			end = start
		}
	}
	return start, end
}

func (n strip) normalize(s string, _ *scratch) string {
	a, b := n.bounds(s)
	return s[a:b]
}

func (n strip) normalizeAligned(s string, align []int32, _ *scratch) (string, []int32) {
	a, b := n.bounds(s)
	return s[a:b], align[a:b]
}

// prepend adds a fixed string in front of non-empty text.
type prepend struct {
	text string
}

func (n prepend) normalize(s string, _ *scratch) string {
	if s == "" {
		return s
	}
	return n.text + s
}

func (n prepend) normalizeAligned(s string, align []int32, _ *scratch) (string, []int32) {
	if s == "" {
		return s, align
	}
	out := make([]int32, 0, len(n.text)+len(align))
	for range len(n.text) {
		out = append(out, align[0])
	}
	return n.text + s, append(out, align...)
}

// replace substitutes every match of a literal or regex pattern with fixed content.
type replace struct {
	m       matcher
	content string
}

func (n replace) normalize(s string, sc *scratch) string {
	out, _ := n.apply(s, nil, sc)
	return out
}

func (n replace) normalizeAligned(s string, align []int32, sc *scratch) (string, []int32) {
	return n.apply(s, align, sc)
}

func (n replace) apply(s string, align []int32, sc *scratch) (string, []int32) {
	if lm, ok := n.m.(*literalMatcher); ok && align == nil {
		if lm.lit == "" || !strings.Contains(s, lm.lit) {
			return s, nil
		}
		return strings.ReplaceAll(s, lm.lit, n.content), nil
	}
	spans := n.m.findMatches(s, sc, nil)
	var b strings.Builder
	b.Grow(len(s))
	var out []int32
	if align != nil {
		out = make([]int32, 0, len(s))
	}
	for _, sp := range spans {
		if sp.match {
			b.WriteString(n.content)
			if align != nil {
				for range len(n.content) {
					out = append(out, align[sp.start])
				}
			}
			continue
		}
		b.WriteString(s[sp.start:sp.end])
		if align != nil {
			out = append(out, align[sp.start:sp.end]...)
		}
	}
	return b.String(), out
}

// normalizerSequence applies normalizers in order.
type normalizerSequence []normalizer

func (ns normalizerSequence) normalize(s string, sc *scratch) string {
	for _, n := range ns {
		s = n.normalize(s, sc)
	}
	return s
}

func (ns normalizerSequence) normalizeAligned(s string, align []int32, sc *scratch) (string, []int32) {
	for _, n := range ns {
		s, align = n.normalizeAligned(s, align, sc)
	}
	return s, align
}
