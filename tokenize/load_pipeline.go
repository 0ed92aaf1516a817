package tokenize

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// parsePattern reads a {"String": ...} or {"Regex": ...} pattern.
func parsePattern(raw rawJSON, path string) (matcher, error) {
	o, err := parseObject(raw, path)
	if err != nil {
		return nil, err
	}
	s, isStr, err := o.optStr("String")
	if err != nil {
		return nil, err
	}
	r, isRe, err := o.optStr("Regex")
	if err != nil {
		return nil, err
	}
	if err := o.check("a pattern"); err != nil {
		return nil, err
	}
	switch {
	case isStr == isRe:
		return nil, loadError(path, "expected exactly one of \"String\" or \"Regex\"")
	case isStr:
		if s == "" {
			return nil, loadError(o.at("String"), "empty pattern is not supported")
		}
		return &literalMatcher{lit: s}, nil
	default:
		re, err := compileHFRegex(r)
		if err != nil {
			return nil, loadError(o.at("Regex"), "%v", err)
		}
		if ok, _ := re.MatchString(""); ok {
			return nil, loadError(o.at("Regex"), "pattern %q matches the empty string, which is not supported", r)
		}
		return &regexMatcher{re: re}, nil
	}
}

func parseChar(o *jsonObject, key string, def rune) (rune, error) {
	s, err := o.str(key, string(def))
	if err != nil {
		return 0, err
	}
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || n != len(s) {
		return 0, loadError(o.at(key), "expected a single character, got %q", s)
	}
	return r, nil
}

func parseNormalizer(raw rawJSON, path string) (normalizer, error) {
	o, err := parseObject(raw, path)
	if err != nil {
		return nil, err
	}
	typ, err := o.typeName()
	if err != nil {
		return nil, err
	}
	var n normalizer
	switch typ {
	case "NFC":
		n = unicodeForm{norm.NFC}
	case "NFD":
		n = unicodeForm{norm.NFD}
	case "NFKC":
		n = unicodeForm{norm.NFKC}
	case "NFKD":
		n = unicodeForm{norm.NFKD}
	case "Lowercase":
		n = lowercase{}
	case "Strip":
		var s strip
		if s.left, err = o.boolean("strip_left", true); err != nil {
			return nil, err
		}
		if s.right, err = o.boolean("strip_right", true); err != nil {
			return nil, err
		}
		n = s
	case "Prepend":
		p, ok, err := o.optStr("prepend")
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, loadError(o.at("prepend"), "missing")
		}
		n = prepend{text: p}
	case "Replace":
		r, err := parseReplace(o)
		if err != nil {
			return nil, err
		}
		n = r
	case "Sequence":
		items, ok, err := o.array("normalizers")
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, loadError(o.at("normalizers"), "missing")
		}
		seq := normalizerSequence{}
		for i, it := range items {
			sub, err := parseNormalizer(it, fmt.Sprintf("%s.normalizers[%d]", path, i))
			if err != nil {
				return nil, err
			}
			seq = append(seq, sub)
		}
		n = seq
	default:
		return nil, loadError(o.at("type"), "unsupported normalizer %q (supported: NFC, NFD, NFKC, NFKD, Lowercase, Strip, Prepend, Replace, Sequence)", typ)
	}
	if err := o.check("the " + typ + " normalizer"); err != nil {
		return nil, err
	}
	return n, nil
}

func parseReplace(o *jsonObject) (replace, error) {
	praw, ok := o.get("pattern")
	if !ok {
		return replace{}, loadError(o.at("pattern"), "missing")
	}
	m, err := parsePattern(praw, o.at("pattern"))
	if err != nil {
		return replace{}, err
	}
	content, ok, err := o.optStr("content")
	if err != nil {
		return replace{}, err
	}
	if !ok {
		return replace{}, loadError(o.at("content"), "missing")
	}
	return replace{m: m, content: content}, nil
}

// gpt2Pattern is the regex of the ByteLevel pre-tokenizer with use_regex.
const gpt2Pattern = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`

func parsePreTokenizer(raw rawJSON, path string, dst []preStep) ([]preStep, error) {
	o, err := parseObject(raw, path)
	if err != nil {
		return nil, err
	}
	typ, err := o.typeName()
	if err != nil {
		return nil, err
	}
	switch typ {
	case "Split":
		praw, ok := o.get("pattern")
		if !ok {
			return nil, loadError(o.at("pattern"), "missing")
		}
		m, err := parsePattern(praw, o.at("pattern"))
		if err != nil {
			return nil, err
		}
		bname, hasB, err := o.optStr("behavior")
		if err != nil {
			return nil, err
		}
		if !hasB {
			return nil, loadError(o.at("behavior"), "missing")
		}
		b, ok := splitBehaviorNames[bname]
		if !ok {
			return nil, loadError(o.at("behavior"), "unsupported split behavior %q (supported: Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous)", bname)
		}
		inv, err := o.boolean("invert", false)
		if err != nil {
			return nil, err
		}
		dst = append(dst, &splitStep{m: m, behavior: b, invert: inv})
	case "ByteLevel":
		addPrefix, err := o.boolean("add_prefix_space", true)
		if err != nil {
			return nil, err
		}
		useRegex, err := o.boolean("use_regex", true)
		if err != nil {
			return nil, err
		}
		if _, err := o.boolean("trim_offsets", true); err != nil { // offsets only
			return nil, err
		}
		if addPrefix {
			dst = append(dst, prefixSpaceStep{})
		}
		if useRegex {
			re, err := compileHFRegex(gpt2Pattern)
			if err != nil {
				return nil, loadError(path, "%v", err)
			}
			dst = append(dst, &splitStep{m: &regexMatcher{re: re}, behavior: behaviorIsolated})
		}
		dst = append(dst, byteMapStep{})
	case "Digits":
		individual, err := o.boolean("individual_digits", false)
		if err != nil {
			return nil, err
		}
		b := behaviorContiguous
		if individual {
			b = behaviorIsolated
		}
		dst = append(dst, &splitStep{m: &charMatcher{pred: isNumeric}, behavior: b})
	case "Metaspace":
		st, err := parseMetaspace(o)
		if err != nil {
			return nil, err
		}
		dst = append(dst, st)
	case "Sequence":
		items, ok, err := o.array("pretokenizers")
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, loadError(o.at("pretokenizers"), "missing")
		}
		for i, it := range items {
			if dst, err = parsePreTokenizer(it, fmt.Sprintf("%s.pretokenizers[%d]", path, i), dst); err != nil {
				return nil, err
			}
		}
	default:
		return nil, loadError(o.at("type"), "unsupported pre-tokenizer %q (supported: Split, ByteLevel, Digits, Metaspace, Sequence)", typ)
	}
	if err := o.check("the " + typ + " pre-tokenizer"); err != nil {
		return nil, err
	}
	return dst, nil
}

// parseMetaspaceOptions reads the options shared by the Metaspace pre-tokenizer
// and decoder, including the legacy add_prefix_space.
func parseMetaspaceOptions(o *jsonObject) (rune, prependScheme, bool, error) {
	repl, err := parseChar(o, "replacement", '▁')
	if err != nil {
		return 0, 0, false, err
	}
	if _, err := o.str("str_rep", ""); err != nil { // derived from replacement
		return 0, 0, false, err
	}
	split, err := o.boolean("split", true)
	if err != nil {
		return 0, 0, false, err
	}
	schemeName, hasScheme, err := o.optStr("prepend_scheme")
	if err != nil {
		return 0, 0, false, err
	}
	scheme := prependAlways
	if hasScheme {
		switch schemeName {
		case "always":
			scheme = prependAlways
		case "never":
			scheme = prependNever
		case "first":
			scheme = prependFirst
		default:
			return 0, 0, false, loadError(o.at("prepend_scheme"), "unsupported prepend_scheme %q (supported: always, never, first)", schemeName)
		}
	}
	if v, ok := o.get("add_prefix_space"); ok {
		var b bool
		if err := json.Unmarshal(v, &b); err != nil {
			return 0, 0, false, loadError(o.at("add_prefix_space"), "expected true or false")
		}
		if !b {
			if hasScheme && scheme != prependNever {
				return 0, 0, false, loadError(o.at("add_prefix_space"), "false contradicts prepend_scheme %q", schemeName)
			}
			scheme = prependNever
		}
	}
	return repl, scheme, split, nil
}

func parseMetaspace(o *jsonObject) (*metaspaceStep, error) {
	repl, scheme, split, err := parseMetaspaceOptions(o)
	if err != nil {
		return nil, err
	}
	return newMetaspaceStep(repl, scheme, split), nil
}
