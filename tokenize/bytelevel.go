package tokenize

import "unicode/utf8"

// byteLevelTables is GPT-2's reversible byte↔character mapping (bytes_to_unicode):
// printable Latin-1 bytes map to themselves and the other 68 bytes to U+0100..U+0143,
// so that every byte sequence becomes a string of visible characters.
type byteLevelTables struct {
	byteToRune [256]rune
	byteToStr  [256]string
	runeToByte [0x144]int16 // -1 where the rune is not the image of a byte
}

// byteLevel is an immutable lookup table built once at package initialisation.
var byteLevel = newByteLevelTables()

func newByteLevelTables() *byteLevelTables {
	t := &byteLevelTables{}
	for i := range t.runeToByte {
		t.runeToByte[i] = -1
	}
	printable := func(b int) bool {
		return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)
	}
	n := 0
	for b := 0; b < 256; b++ {
		r := rune(b)
		if !printable(b) {
			r = rune(256 + n)
			n++
		}
		t.byteToRune[b] = r
		t.byteToStr[b] = string(r)
		t.runeToByte[r] = int16(b)
	}
	return t
}

// appendMapped appends the byte-level image of s (one character per byte of s).
func (t *byteLevelTables) appendMapped(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		dst = append(dst, t.byteToStr[s[i]]...)
	}
	return dst
}

// unmapToken appends the bytes a byte-level token stands for. As in Hugging Face's
// ByteLevel decoder, a token holding any character outside the mapping is copied as
// its own UTF-8 bytes instead.
func (t *byteLevelTables) unmapToken(dst []byte, tok string) []byte {
	start := len(dst)
	for _, r := range tok {
		if r < 0 || int(r) >= len(t.runeToByte) || t.runeToByte[r] < 0 {
			return append(dst[:start], tok...)
		}
		dst = append(dst, byte(t.runeToByte[r]))
	}
	return dst
}

// appendLossyUTF8 appends b to dst, replacing each maximal invalid subsequence with
// U+FFFD exactly as Rust's String::from_utf8_lossy does (the Unicode "substitution of
// maximal subparts" practice).
func appendLossyUTF8(dst []byte, b []byte) []byte {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			dst = append(dst, c)
			i++
			continue
		}
		r, w := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError || w > 1 {
			dst = append(dst, b[i:i+w]...)
			i += w
			continue
		}
		dst = append(dst, "\uFFFD"...)
		i += invalidPrefixLen(b[i:])
	}
	return dst
}

// invalidPrefixLen returns how many bytes of b (which starts with an invalid or
// truncated UTF-8 sequence) form the maximal prefix of a well-formed sequence; at least 1.
func invalidPrefixLen(b []byte) int {
	c := b[0]
	var need int
	lo, hi := byte(0x80), byte(0xBF)
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
		need = 2
	case c == 0xED:
		need, hi = 2, 0x9F
	case c == 0xF0:
		need, lo = 3, 0x90
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	case c == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1
	}
	n := 1
	for k := 0; k < need && n < len(b); k++ {
		x := b[n]
		if k > 0 {
			lo, hi = 0x80, 0xBF
		}
		if x < lo || x > hi {
			break
		}
		n++
	}
	return n
}
