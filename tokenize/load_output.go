package tokenize

import (
	"encoding/json"
	"fmt"
)

func parsePostProcessor(raw rawJSON, path string) ([]templateItem, error) {
	o, err := parseObject(raw, path)
	if err != nil {
		return nil, err
	}
	typ, err := o.typeName()
	if err != nil {
		return nil, err
	}
	identity := []templateItem{{sequence: true}}
	var tpl []templateItem
	switch typ {
	case "ByteLevel":
		// Adjusts offsets only; ids are unchanged.
		for _, k := range []string{"add_prefix_space", "trim_offsets", "use_regex"} {
			if _, err := o.boolean(k, true); err != nil {
				return nil, err
			}
		}
		tpl = identity
	case "TemplateProcessing":
		tpl, err = parseTemplate(o)
		if err != nil {
			return nil, err
		}
	case "BertProcessing", "RobertaProcessing":
		cls, err := parseTokenPair(o, "cls")
		if err != nil {
			return nil, err
		}
		sep, err := parseTokenPair(o, "sep")
		if err != nil {
			return nil, err
		}
		if typ == "RobertaProcessing" {
			for _, k := range []string{"trim_offsets", "add_prefix_space"} {
				if _, err := o.boolean(k, true); err != nil {
					return nil, err
				}
			}
		}
		tpl = []templateItem{{ids: []int32{cls}}, {sequence: true}, {ids: []int32{sep}}}
	case "Sequence":
		items, ok, err := o.array("processors")
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, loadError(o.at("processors"), "missing")
		}
		tpl = identity
		for i, it := range items {
			next, err := parsePostProcessor(it, fmt.Sprintf("%s.processors[%d]", path, i))
			if err != nil {
				return nil, err
			}
			tpl = composeTemplates(next, tpl)
		}
	default:
		return nil, loadError(o.at("type"), "unsupported post-processor %q (supported: TemplateProcessing, ByteLevel, BertProcessing, RobertaProcessing, Sequence)", typ)
	}
	if err := o.check("the " + typ + " post-processor"); err != nil {
		return nil, err
	}
	return tpl, nil
}

// parseTokenPair reads a ["token", id] pair of BertProcessing/RobertaProcessing.
func parseTokenPair(o *jsonObject, key string) (int32, error) {
	v, ok := o.get(key)
	if !ok {
		return 0, loadError(o.at(key), "missing")
	}
	var pair []json.RawMessage
	if err := json.Unmarshal(v, &pair); err != nil || len(pair) != 2 {
		return 0, loadError(o.at(key), "expected [\"token\", id]")
	}
	var id int32
	if err := json.Unmarshal(pair[1], &id); err != nil || id < 0 {
		return 0, loadError(o.at(key), "expected [\"token\", id] with a non-negative id")
	}
	return id, nil
}

func parseTemplate(o *jsonObject) ([]templateItem, error) {
	specials := map[string][]int32{}
	if sraw, ok := o.get("special_tokens"); ok {
		var m map[string]rawJSON
		if err := json.Unmarshal(sraw, &m); err != nil {
			return nil, loadError(o.at("special_tokens"), "expected an object")
		}
		for name, v := range m {
			so, err := parseObject(v, fmt.Sprintf("%s.%q", o.at("special_tokens"), name))
			if err != nil {
				return nil, err
			}
			if _, err := so.str("id", ""); err != nil {
				return nil, err
			}
			idsRaw, ok := so.get("ids")
			if !ok {
				return nil, loadError(so.at("ids"), "missing")
			}
			var ids []int32
			if err := json.Unmarshal(idsRaw, &ids); err != nil {
				return nil, loadError(so.at("ids"), "expected an array of token ids")
			}
			so.get("tokens")
			if err := so.check("a template special token"); err != nil {
				return nil, err
			}
			specials[name] = ids
		}
	}
	readPieces := func(key string, allowed string) ([]templateItem, error) {
		items, ok, err := o.array(key)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, loadError(o.at(key), "missing")
		}
		var out []templateItem
		for i, it := range items {
			p := fmt.Sprintf("%s[%d]", o.at(key), i)
			io, err := parseObject(it, p)
			if err != nil {
				return nil, err
			}
			if v, ok := io.get("SpecialToken"); ok {
				so, err := parseObject(v, p+".SpecialToken")
				if err != nil {
					return nil, err
				}
				id, err := so.str("id", "")
				if err != nil {
					return nil, err
				}
				if _, err := so.integer("type_id", 0); err != nil {
					return nil, err
				}
				if err := so.check("a template special token"); err != nil {
					return nil, err
				}
				ids, ok := specials[id]
				if !ok {
					return nil, loadError(so.at("id"), "special token %q is not defined in special_tokens", id)
				}
				out = append(out, templateItem{ids: ids})
			} else if v, ok := io.get("Sequence"); ok {
				so, err := parseObject(v, p+".Sequence")
				if err != nil {
					return nil, err
				}
				id, err := so.str("id", "")
				if err != nil {
					return nil, err
				}
				if _, err := so.integer("type_id", 0); err != nil {
					return nil, err
				}
				if err := so.check("a template sequence"); err != nil {
					return nil, err
				}
				if id != "A" && id != allowed {
					return nil, loadError(so.at("id"), "unexpected sequence %q in the %s template", id, key)
				}
				out = append(out, templateItem{sequence: true})
			} else {
				return nil, loadError(p, "expected {\"SpecialToken\": ...} or {\"Sequence\": ...}")
			}
			if err := io.check("a template piece"); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	single, err := readPieces("single", "A")
	if err != nil {
		return nil, err
	}
	seqs := 0
	for _, it := range single {
		if it.sequence {
			seqs++
		}
	}
	if seqs != 1 {
		return nil, loadError(o.at("single"), "the single template must contain the sequence exactly once")
	}
	// The pair template is validated but unused: only single sequences are encoded.
	if _, err := readPieces("pair", "B"); err != nil {
		return nil, err
	}
	return single, nil
}

// composeTemplates applies outer to the output of inner.
func composeTemplates(outer, inner []templateItem) []templateItem {
	var out []templateItem
	for _, it := range outer {
		if it.sequence {
			out = append(out, inner...)
		} else {
			out = append(out, it)
		}
	}
	return out
}

func isIdentityTemplate(tpl []templateItem) bool {
	for _, it := range tpl {
		if !it.sequence && len(it.ids) > 0 {
			return false
		}
	}
	return true
}

func parseDecoder(raw rawJSON, path string, dst []decoderStep) ([]decoderStep, error) {
	o, err := parseObject(raw, path)
	if err != nil {
		return nil, err
	}
	typ, err := o.typeName()
	if err != nil {
		return nil, err
	}
	switch typ {
	case "ByteLevel":
		for _, k := range []string{"add_prefix_space", "trim_offsets", "use_regex"} {
			if _, err := o.boolean(k, true); err != nil { // no effect on decoding
				return nil, err
			}
		}
		dst = append(dst, byteLevelDecoder{})
	case "Metaspace":
		repl, scheme, _, err := parseMetaspaceOptions(o)
		if err != nil {
			return nil, err
		}
		dst = append(dst, metaspaceDecoder{repl: repl, scheme: scheme})
	case "ByteFallback":
		dst = append(dst, byteFallbackDecoder{})
	case "Fuse":
		dst = append(dst, fuseDecoder{})
	case "Strip":
		c, err := parseChar(o, "content", ' ')
		if err != nil {
			return nil, err
		}
		start, err := o.integer("start", 0)
		if err != nil {
			return nil, err
		}
		stop, err := o.integer("stop", 0)
		if err != nil {
			return nil, err
		}
		if start < 0 || stop < 0 {
			return nil, loadError(path, "start and stop must not be negative")
		}
		dst = append(dst, stripDecoder{content: c, start: start, stop: stop})
	case "Replace":
		r, err := parseReplace(o)
		if err != nil {
			return nil, err
		}
		dst = append(dst, replaceDecoder{r: r})
	case "BPEDecoder":
		suffix, err := o.str("suffix", "</w>")
		if err != nil {
			return nil, err
		}
		if suffix == "" {
			return nil, loadError(o.at("suffix"), "empty suffix is not supported")
		}
		dst = append(dst, bpeSuffixDecoder{suffix: suffix})
	case "Sequence":
		items, ok, err := o.array("decoders")
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, loadError(o.at("decoders"), "missing")
		}
		for i, it := range items {
			if dst, err = parseDecoder(it, fmt.Sprintf("%s.decoders[%d]", path, i), dst); err != nil {
				return nil, err
			}
		}
	default:
		return nil, loadError(o.at("type"), "unsupported decoder %q (supported: ByteLevel, Metaspace, ByteFallback, Fuse, Strip, Replace, BPEDecoder, Sequence)", typ)
	}
	if err := o.check("the " + typ + " decoder"); err != nil {
		return nil, err
	}
	return dst, nil
}
