package tokenize

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
)

// span is one piece of a string found by a pattern: either a match or the text
// between two matches (Hugging Face's (Offsets, is_match) pairs).
type span struct {
	start, end int
	match      bool
}

// matcher finds the spans of s, covering all of s in order, as Hugging Face's
// Pattern::find_matches does. Empty matches are dropped: they produce no piece.
type matcher interface {
	findMatches(s string, sc *scratch, dst []span) []span
}

// regexMatcher matches with a regexp2 program (backtracking, with look-around),
// which is how tokenizer.json's Oniguruma patterns are run here.
type regexMatcher struct {
	re *regexp2.Regexp
}

// compileHFRegex compiles a tokenizer.json regex. Oniguruma (the engine behind
// Hugging Face tokenizers) uses Ruby syntax, where ^ and $ match at line
// boundaries, so the pattern is compiled in multiline mode. Escapes whose meaning
// differs between Oniguruma and regexp2 are rejected rather than guessed.
//
// regexp2.Compile is used, never MustCompile: MustCompile picks up code-generated
// engines that other packages (tiktoken-go) register for identical patterns.
func compileHFRegex(pattern string) (*regexp2.Regexp, error) {
	for i := 0; i < len(pattern); i++ {
		if pattern[i] != '\\' || i+1 >= len(pattern) {
			continue
		}
		switch c := pattern[i+1]; c {
		case 'w', 'W', 'b', 'B', 'h', 'H', 'R', 'X', 'K', 'y', 'Y', 'O', 'N', 'g', 'k':
			return nil, fmt.Errorf("regex escape \\%c is not supported (its meaning differs between Oniguruma and the Go engine)", c)
		}
		i++ // skip the escaped character
	}
	re, err := regexp2.Compile(pattern, regexp2.Multiline, regexp2.OptionMaxBacktrackingStackSize(-1))
	if err != nil {
		return nil, fmt.Errorf("compiling regex %q: %w", pattern, err)
	}
	return re, nil
}

func (m *regexMatcher) findMatches(s string, sc *scratch, dst []span) []span {
	if s == "" {
		return dst
	}
	runes := sc.runes[:0]
	offs := sc.runeOffs[:0]
	for i, r := range s {
		runes = append(runes, r)
		offs = append(offs, int32(i))
	}
	offs = append(offs, int32(len(s)))
	sc.runes, sc.runeOffs = runes, offs
	prev := 0
	err := m.re.FindRunesMatches(runes, 0, func(v regexp2.MatchView) bool {
		idx, n, ok := v.GroupRange(0)
		if !ok || n == 0 {
			return true
		}
		start, end := int(offs[idx]), int(offs[idx+n])
		if start > prev {
			dst = append(dst, span{prev, start, false})
		}
		dst = append(dst, span{start, end, true})
		prev = end
		return true
	})
	if err != nil {
		// Unreachable with an unlimited backtracking stack and no timeout; a
		// silent wrong count would be worse than a crash.
		panic(fmt.Sprintf("tokenize: regex %q failed: %v", m.re.String(), err))
	}
	if prev < len(s) {
		dst = append(dst, span{prev, len(s), false})
	}
	return dst
}

// literalMatcher matches a literal string, leftmost first, without overlaps.
type literalMatcher struct {
	lit string
}

func (m *literalMatcher) findMatches(s string, _ *scratch, dst []span) []span {
	prev := 0
	if m.lit != "" {
		for i := 0; i < len(s); {
			j := strings.Index(s[i:], m.lit)
			if j < 0 {
				break
			}
			start := i + j
			end := start + len(m.lit)
			if start > prev {
				dst = append(dst, span{prev, start, false})
			}
			dst = append(dst, span{start, end, true})
			prev, i = end, end
		}
	}
	if prev < len(s) {
		dst = append(dst, span{prev, len(s), false})
	}
	return dst
}

// charMatcher matches every single character for which pred holds; each such
// character is its own match (Hugging Face's Pattern for Fn(char) -> bool).
type charMatcher struct {
	pred func(rune) bool
}

func (m *charMatcher) findMatches(s string, _ *scratch, dst []span) []span {
	last := 0
	for i, r := range s {
		if !m.pred(r) {
			continue
		}
		w := utf8.RuneLen(r)
		if r == utf8.RuneError {
			_, w = utf8.DecodeRuneInString(s[i:])
		}
		if last < i {
			dst = append(dst, span{last, i, false})
		}
		dst = append(dst, span{i, i + w, true})
		last = i + w
	}
	if last < len(s) {
		dst = append(dst, span{last, len(s), false})
	}
	return dst
}

// splitBehavior is Hugging Face's SplitDelimiterBehavior.
type splitBehavior uint8

const (
	behaviorRemoved splitBehavior = iota
	behaviorIsolated
	behaviorMergedWithPrevious
	behaviorMergedWithNext
	behaviorContiguous
)

var splitBehaviorNames = map[string]splitBehavior{
	"Removed":            behaviorRemoved,
	"Isolated":           behaviorIsolated,
	"MergedWithPrevious": behaviorMergedWithPrevious,
	"MergedWithNext":     behaviorMergedWithNext,
	"Contiguous":         behaviorContiguous,
}

// applyBehavior turns the spans of a pattern into the pieces to keep, in place.
// invert swaps matches and non-matches first (Hugging Face's Invert pattern).
// A span with match == true in the result is to be removed.
func applyBehavior(sp []span, b splitBehavior, invert bool) []span {
	if invert {
		for i := range sp {
			sp[i].match = !sp[i].match
		}
	}
	switch b {
	case behaviorRemoved:
		return sp
	case behaviorIsolated:
		for i := range sp {
			sp[i].match = false
		}
		return sp
	case behaviorContiguous:
		out := sp[:0]
		prevMatch := false
		for _, s := range sp {
			isMatch := s.match
			if isMatch == prevMatch && len(out) > 0 {
				out[len(out)-1].end = s.end
			} else {
				out = append(out, span{s.start, s.end, false})
			}
			prevMatch = isMatch
		}
		return out
	case behaviorMergedWithPrevious:
		out := sp[:0]
		prevMatch := false
		for _, s := range sp {
			isMatch := s.match
			if isMatch && !prevMatch && len(out) > 0 {
				out[len(out)-1].end = s.end
			} else {
				out = append(out, span{s.start, s.end, false})
			}
			prevMatch = isMatch
		}
		return out
	case behaviorMergedWithNext:
		// Walk backwards, merging a match into the piece that follows it, then
		// compact forwards.
		w := len(sp)
		prevMatch := false
		for i := len(sp) - 1; i >= 0; i-- {
			s := sp[i]
			isMatch := s.match
			if isMatch && !prevMatch && w < len(sp) {
				sp[w].start = s.start
			} else {
				w--
				sp[w] = span{s.start, s.end, false}
			}
			prevMatch = isMatch
		}
		n := copy(sp, sp[w:])
		return sp[:n]
	}
	return sp
}

// isWhiteSpace is Unicode's White_Space property (Rust's char::is_whitespace and
// the \s class of the regex crate).
func isWhiteSpace(r rune) bool { return unicode.IsSpace(r) }

// isRustWordChar is the Unicode \w class of Rust's regex crate: Alphabetic, marks,
// decimal digits, connector punctuation and Join_Control.
func isRustWordChar(r rune) bool {
	if r < utf8.RuneSelf {
		return r == '_' || ('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z')
	}
	return unicode.IsLetter(r) || unicode.IsMark(r) || unicode.Is(unicode.Nd, r) ||
		unicode.Is(unicode.Pc, r) || unicode.Is(unicode.Nl, r) ||
		unicode.Is(unicode.Other_Alphabetic, r) || r == 0x200C || r == 0x200D
}
