package tokenize

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// piece is a part of the input on its way to the model.
type piece struct {
	s  string
	id int32 // an added token already resolved (>= 0), or -1 for text

	// Original offsets, tracked only when a component needs them (Metaspace with
	// prepend_scheme "first"): orig is the original byte offset of s[0]; align, when
	// not nil, holds the original offset of every byte of s (nil means s is an
	// unmodified slice of the input, so byte i comes from orig+i).
	orig  int32
	align []int32
}

// sub returns the piece s[a:b] with its original offsets.
func (p *piece) sub(a, b int) piece {
	q := piece{s: p.s[a:b], id: -1}
	if p.align != nil {
		q.align = p.align[a:b]
		if a < len(p.align) {
			q.orig = p.align[a]
		}
	} else {
		q.orig = p.orig + int32(a)
	}
	return q
}

// alignment returns the per-byte original offsets of p, materialising identity.
func (p *piece) alignment() []int32 {
	if p.align != nil {
		return p.align
	}
	a := make([]int32, len(p.s))
	for i := range a {
		a[i] = p.orig + int32(i)
	}
	return a
}

// preStep is one pre-tokenization step: it appends to dst the non-empty pieces
// that p splits into. offsets says whether original offsets must be tracked.
type preStep interface {
	apply(p piece, sc *scratch, offsets bool, dst []piece) []piece
}

// splitStep is the Split pre-tokenizer (and Digits, and the regex part of ByteLevel).
type splitStep struct {
	m        matcher
	behavior splitBehavior
	invert   bool
}

func (st *splitStep) apply(p piece, sc *scratch, _ bool, dst []piece) []piece {
	spans := st.m.findMatches(p.s, sc, sc.spans[:0])
	spans = applyBehavior(spans, st.behavior, st.invert)
	for _, sp := range spans {
		if sp.match || sp.start == sp.end {
			continue
		}
		dst = append(dst, p.sub(sp.start, sp.end))
	}
	sc.spans = spans
	return dst
}

// prefixSpaceStep is ByteLevel's add_prefix_space: a space is put in front of
// every piece that does not already start with one.
type prefixSpaceStep struct{}

func (prefixSpaceStep) apply(p piece, _ *scratch, offsets bool, dst []piece) []piece {
	if strings.HasPrefix(p.s, " ") {
		return append(dst, p)
	}
	q := piece{s: " " + p.s, id: -1, orig: p.orig}
	if offsets {
		a := p.alignment()
		q.align = append([]int32{a[0]}, a...)
	}
	return append(dst, q)
}

// byteMapStep rewrites a piece with the GPT-2 byte-level mapping. It is only used
// when a ByteLevel pre-tokenizer is followed by other steps; a final ByteLevel step
// is deferred into the model instead (see bpe.inputMode).
type byteMapStep struct{}

func (byteMapStep) apply(p piece, _ *scratch, offsets bool, dst []piece) []piece {
	b := byteLevel.appendMapped(make([]byte, 0, 2*len(p.s)), p.s)
	q := piece{s: string(b), id: -1, orig: p.orig}
	if offsets {
		a := p.alignment()
		q.align = make([]int32, 0, len(b))
		for i := 0; i < len(p.s); i++ {
			for range len(byteLevel.byteToStr[p.s[i]]) {
				q.align = append(q.align, a[i])
			}
		}
	}
	return append(dst, q)
}

// prependScheme is Metaspace's prepend_scheme.
type prependScheme uint8

const (
	prependAlways prependScheme = iota
	prependNever
	prependFirst
)

// metaspaceStep is the Metaspace pre-tokenizer: spaces become the replacement
// character, which is prepended according to the scheme, and the piece is then
// split before each replacement character when split is set.
type metaspaceStep struct {
	repl     rune
	replStr  string
	scheme   prependScheme
	split    bool
	splitter splitStep
}

func (st *metaspaceStep) apply(p piece, sc *scratch, offsets bool, dst []piece) []piece {
	q := piece{s: p.s, id: -1, orig: p.orig, align: p.align}
	if strings.IndexByte(p.s, ' ') >= 0 {
		q.s = strings.ReplaceAll(p.s, " ", st.replStr)
		q.align = nil
		if offsets {
			a := p.alignment()
			q.align = make([]int32, 0, len(q.s))
			for i := 0; i < len(p.s); i++ {
				if p.s[i] == ' ' {
					for range len(st.replStr) {
						q.align = append(q.align, a[i])
					}
				} else {
					q.align = append(q.align, a[i])
				}
			}
		}
	}
	if !strings.HasPrefix(q.s, st.replStr) {
		add := false
		switch st.scheme {
		case prependAlways:
			add = true
		case prependFirst:
			add = q.orig == 0
		}
		if add && q.s != "" {
			if offsets {
				a := q.alignment()
				na := make([]int32, 0, len(st.replStr)+len(a))
				for range len(st.replStr) {
					na = append(na, a[0])
				}
				q.align = append(na, a...)
			}
			q.s = st.replStr + q.s
		}
	}
	if !st.split {
		if q.s == "" {
			return dst
		}
		return append(dst, q)
	}
	return st.splitter.apply(q, sc, offsets, dst)
}

// isReplacement reports whether r is the Metaspace replacement character.
func (st *metaspaceStep) isReplacement(r rune) bool { return r == st.repl }

func newMetaspaceStep(repl rune, scheme prependScheme, split bool) *metaspaceStep {
	st := &metaspaceStep{repl: repl, replStr: string(repl), scheme: scheme, split: split}
	st.splitter = splitStep{m: &charMatcher{pred: st.isReplacement}, behavior: behaviorMergedWithNext}
	return st
}

// isNumeric is Rust's char::is_numeric (general categories Nd, Nl, No).
func isNumeric(r rune) bool {
	if r < utf8.RuneSelf {
		return '0' <= r && r <= '9'
	}
	return unicode.IsNumber(r)
}
