package tokenize

import (
	"strings"
	"unicode/utf8"
)

// decoderStep is one decoder of Hugging Face's decode_chain: it maps the list of
// token strings to a new list; the final list is concatenated.
type decoderStep interface {
	decode(toks []string) []string
}

// byteLevelDecoder turns byte-level token strings back into bytes, then into text
// with invalid UTF-8 replaced by U+FFFD.
type byteLevelDecoder struct{}

func (byteLevelDecoder) decode(toks []string) []string {
	n := 0
	for _, t := range toks {
		n += len(t)
	}
	b := make([]byte, 0, n)
	for _, t := range toks {
		b = byteLevel.unmapToken(b, t)
	}
	return []string{lossyString(b)}
}

// rawBytesDecoder concatenates tokens that are raw bytes (tiktoken rank files).
type rawBytesDecoder struct{}

func (rawBytesDecoder) decode(toks []string) []string {
	return []string{lossyString([]byte(strings.Join(toks, "")))}
}

func lossyString(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return string(appendLossyUTF8(make([]byte, 0, len(b)+8), b))
}

// metaspaceDecoder turns the replacement character back into spaces; in the first
// token it is dropped unless the prepend scheme is "never".
type metaspaceDecoder struct {
	repl   rune
	scheme prependScheme
}

func (d metaspaceDecoder) decode(toks []string) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		if !strings.ContainsRune(t, d.repl) {
			out[i] = t
			continue
		}
		var b strings.Builder
		for _, r := range t {
			if r == d.repl {
				if i == 0 && d.scheme != prependNever {
					continue
				}
				r = ' '
			}
			b.WriteRune(r)
		}
		out[i] = b.String()
	}
	return out
}

// byteFallbackDecoder turns runs of <0xXX> tokens into the text they encode; a run
// that is not valid UTF-8 becomes one U+FFFD per byte.
type byteFallbackDecoder struct{}

func parseByteToken(t string) (byte, bool) {
	if len(t) != 6 || !strings.HasPrefix(t, "<0x") || t[5] != '>' {
		return 0, false
	}
	h := t[3:5]
	if h[0] == '+' { // Rust's from_str_radix accepts a leading plus sign
		h = h[1:]
	}
	v := 0
	for i := 0; i < len(h); i++ {
		c := h[i]
		var d int
		switch {
		case c >= '0' && c <= '9':
			d = int(c - '0')
		case c >= 'a' && c <= 'f':
			d = int(c-'a') + 10
		case c >= 'A' && c <= 'F':
			d = int(c-'A') + 10
		default:
			return 0, false
		}
		v = v*16 + d
	}
	return byte(v), true
}

func (byteFallbackDecoder) decode(toks []string) []string {
	out := make([]string, 0, len(toks))
	var pending []byte
	flush := func() {
		if len(pending) == 0 {
			return
		}
		if utf8.Valid(pending) {
			out = append(out, string(pending))
		} else {
			for range pending {
				out = append(out, "\uFFFD")
			}
		}
		pending = pending[:0]
	}
	for _, t := range toks {
		if b, ok := parseByteToken(t); ok {
			pending = append(pending, b)
			continue
		}
		flush()
		out = append(out, t)
	}
	flush()
	return out
}

// fuseDecoder joins all tokens into one.
type fuseDecoder struct{}

func (fuseDecoder) decode(toks []string) []string {
	return []string{strings.Join(toks, "")}
}

// stripDecoder removes up to start occurrences of content at the beginning of
// each token and up to stop at its end.
type stripDecoder struct {
	content     rune
	start, stop int
}

func (d stripDecoder) decode(toks []string) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		chars := []rune(t)
		startCut := 0
		for k := 0; k < d.start && k < len(chars); k++ {
			if chars[k] != d.content {
				break
			}
			startCut = k + 1
		}
		stopCut := len(chars)
		for k := 0; k < d.stop && k < len(chars); k++ {
			idx := len(chars) - k - 1
			if chars[idx] != d.content {
				break
			}
			stopCut = idx
		}
		if stopCut < startCut {
			stopCut = startCut
		}
		out[i] = string(chars[startCut:stopCut])
	}
	return out
}

// replaceDecoder replaces a literal or regex pattern in every token.
type replaceDecoder struct {
	r replace
}

func (d replaceDecoder) decode(toks []string) []string {
	out := make([]string, len(toks))
	var sc scratch
	for i, t := range toks {
		out[i] = d.r.normalize(t, &sc)
	}
	return out
}

// bpeSuffixDecoder is Hugging Face's BPEDecoder: the end-of-word suffix becomes a
// space, except in the last token where it is removed.
type bpeSuffixDecoder struct {
	suffix string
}

func (d bpeSuffixDecoder) decode(toks []string) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		repl := " "
		if i == len(toks)-1 {
			repl = ""
		}
		if d.suffix == "" {
			out[i] = t
			continue
		}
		out[i] = strings.ReplaceAll(t, d.suffix, repl)
	}
	return out
}
