package sse

import (
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// appendUnquoted appends the decoded form of s, the body of a JSON string
// literal (without its quotes) that is known to be well formed, to dst. It
// decodes exactly as encoding/json does: \uXXXX surrogate pairs are joined, an
// unpaired surrogate becomes U+FFFD, and so does each byte of an invalid
// UTF-8 sequence.
func appendUnquoted(dst, s []byte) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 >= len(s) {
				return dst // not well formed; cannot happen after validation
			}
			switch e := s[i+1]; e {
			case '"', '\\', '/', '\'':
				dst = append(dst, e)
				i += 2
			case 'b':
				dst = append(dst, '\b')
				i += 2
			case 'f':
				dst = append(dst, '\f')
				i += 2
			case 'n':
				dst = append(dst, '\n')
				i += 2
			case 'r':
				dst = append(dst, '\r')
				i += 2
			case 't':
				dst = append(dst, '\t')
				i += 2
			case 'u':
				r := getu4(s[i:])
				if r < 0 {
					return dst // not well formed
				}
				i += 6
				if utf16.IsSurrogate(r) {
					if dec := utf16.DecodeRune(r, getu4(s[i:])); dec != unicode.ReplacementChar {
						dst = utf8.AppendRune(dst, dec)
						i += 6
						continue
					}
					r = unicode.ReplacementChar
				}
				dst = utf8.AppendRune(dst, r)
			default:
				return dst // not well formed
			}
		case c < utf8.RuneSelf:
			j := i + 1
			for j < len(s) && s[j] < utf8.RuneSelf && s[j] != '\\' {
				j++
			}
			dst = append(dst, s[i:j]...)
			i = j
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, s[i:i+size]...)
			}
			i += size
		}
	}
	return dst
}

// getu4 decodes \uXXXX at the start of s, or returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
