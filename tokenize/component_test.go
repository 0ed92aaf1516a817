package tokenize

import (
	"slices"
	"strings"
	"testing"
)

func TestNormalizers(t *testing.T) {
	cases := []struct {
		name, json, in, want string
	}{
		{"NFC", `{"type":"NFC"}`, "e\u0301 A\u030a", "é Å"},
		{"NFD", `{"type":"NFD"}`, "é", "e\u0301"},
		{"NFKC", `{"type":"NFKC"}`, "ﬁ① Ｈ", "fi1 H"},
		{"NFKD", `{"type":"NFKD"}`, "ﬁé", "fie\u0301"},
		{"Lowercase", `{"type":"Lowercase"}`, "HeLLo ÀΣ", "hello àσ"},
		{"Lowercase full mapping of İ", `{"type":"Lowercase"}`, "İ", "i\u0307"},
		{"Strip both", `{"type":"Strip","strip_left":true,"strip_right":true}`, " \t a b \u3000\n", "a b"},
		{"Strip left", `{"type":"Strip","strip_left":true,"strip_right":false}`, "  a ", "a "},
		{"Strip right", `{"type":"Strip","strip_left":false,"strip_right":true}`, "  a ", "  a"},
		{"Strip all white space", `{"type":"Strip","strip_left":true,"strip_right":true}`, " \n ", ""},
		{"Prepend", `{"type":"Prepend","prepend":"▁"}`, "x y", "▁x y"},
		{"Prepend leaves empty text", `{"type":"Prepend","prepend":"▁"}`, "", ""},
		{"Replace string", `{"type":"Replace","pattern":{"String":" "},"content":"▁"}`, "a b  c", "a▁b▁▁c"},
		{"Replace string, no overlaps", `{"type":"Replace","pattern":{"String":"aa"},"content":"b"}`, "aaa", "ba"},
		{"Replace regex", `{"type":"Replace","pattern":{"Regex":"\\s+"},"content":" "}`, "a \t\nb  c", "a b c"},
		{"Sequence", `{"type":"Sequence","normalizers":[{"type":"Prepend","prepend":"▁"},{"type":"Replace","pattern":{"String":" "},"content":"▁"}]}`, "Hi you", "▁Hi▁you"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n, err := parseNormalizer(rawJSON(c.json), "normalizer")
			if err != nil {
				t.Fatal(err)
			}
			var sc scratch
			if got := n.normalize(c.in, &sc); got != c.want {
				t.Errorf("normalize(%q) = %q, want %q", c.in, got, c.want)
			}
			align := make([]int32, len(c.in))
			for i := range align {
				align[i] = int32(i)
			}
			got, a := n.normalizeAligned(c.in, align, &sc)
			if got != c.want || len(a) != len(got) {
				t.Errorf("normalizeAligned(%q) = %q with %d offsets, want %q", c.in, got, len(a), c.want)
			}
		})
	}
}

// TestNormalizerAlignment checks the original offsets the normalizers report,
// which Metaspace's prepend_scheme "first" relies on.
func TestNormalizerAlignment(t *testing.T) {
	cases := []struct {
		name, json, in string
		want           []int32
	}{
		{"Prepend maps to the first character", `{"type":"Prepend","prepend":"▁"}`, "ab", []int32{0, 0, 0, 0, 1}},
		{"Replace maps to the match", `{"type":"Replace","pattern":{"String":" "},"content":"▁"}`, "a b", []int32{0, 1, 1, 1, 2}},
		{"Strip drops leading offsets", `{"type":"Strip","strip_left":true,"strip_right":true}`, "  ab ", []int32{2, 3}},
		{"NFC maps a composed character to its start", `{"type":"NFC"}`, "e\u0301x", []int32{0, 0, 3}},
		{"Lowercase keeps offsets", `{"type":"Lowercase"}`, "AÉ", []int32{0, 1, 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n, err := parseNormalizer(rawJSON(c.json), "normalizer")
			if err != nil {
				t.Fatal(err)
			}
			align := make([]int32, len(c.in))
			for i := range align {
				align[i] = int32(i)
			}
			var sc scratch
			_, got := n.normalizeAligned(c.in, align, &sc)
			if !slices.Equal(got, c.want) {
				t.Errorf("offsets = %v, want %v", got, c.want)
			}
		})
	}
}

// runPreTokenizer splits text with the pre-tokenizer described by js and returns
// the pieces (byte-level mapped where the steps say so).
func runPreTokenizer(t *testing.T, js, text string) []string {
	t.Helper()
	steps, err := parsePreTokenizer(rawJSON(js), "pre_tokenizer", nil)
	if err != nil {
		t.Fatal(err)
	}
	offsets := false
	for _, st := range steps {
		if ms, ok := st.(*metaspaceStep); ok && ms.scheme == prependFirst {
			offsets = true
		}
	}
	var sc scratch
	cur := []piece{{s: text, id: -1}}
	for _, st := range steps {
		var next []piece
		for _, p := range cur {
			next = st.apply(p, &sc, offsets, next)
		}
		cur = next
	}
	out := []string{}
	for _, p := range cur {
		out = append(out, p.s)
	}
	return out
}

func TestPreTokenizers(t *testing.T) {
	space := `{"String":" "}`
	split := func(behavior string, invert bool) string {
		inv := "false"
		if invert {
			inv = "true"
		}
		return `{"type":"Split","pattern":` + space + `,"behavior":"` + behavior + `","invert":` + inv + `}`
	}
	cl100k := `{"type":"Split","pattern":{"Regex":"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},"behavior":"Isolated","invert":false}`
	cases := []struct {
		name, json, in string
		want           []string
	}{
		{"Split Removed", split("Removed", false), "a b  c", []string{"a", "b", "c"}},
		{"Split Isolated", split("Isolated", false), "a b  c", []string{"a", " ", "b", " ", " ", "c"}},
		{"Split MergedWithPrevious", split("MergedWithPrevious", false), "a b  c", []string{"a ", "b ", " ", "c"}},
		{"Split MergedWithNext", split("MergedWithNext", false), "a b  c", []string{"a", " b", " ", " c"}},
		{"Split Contiguous", split("Contiguous", false), "a b  c", []string{"a", " ", "b", "  ", "c"}},
		{"Split Removed inverted keeps matches", split("Removed", true), "a b  c", []string{" ", " ", " "}},
		{"Split regex", cl100k, "It's 12345 items,  ok?\n\n", []string{"It", "'s", " ", "123", "45", " items", ",", " ", " ok", "?\n\n"}},
		{"Split regex: case-insensitive contractions", cl100k, "I'LL DON'T", []string{"I", "'LL", " DON", "'T"}},
		{"Split regex: look-ahead keeps the last space", cl100k, "a   b", []string{"a", "  ", " b"}},
		// Oniguruma (Ruby syntax) anchors ^ and $ at line boundaries; . stops at \n only.
		{"Split regex ^ at line starts", `{"type":"Split","pattern":{"Regex":"^a"},"behavior":"Removed"}`, "a\na b\r\na", []string{"\n", " b\r\n"}},
		{"Split regex $ at line ends", `{"type":"Split","pattern":{"Regex":"a$"},"behavior":"Removed"}`, "a\na b\r\na", []string{"\na b\r\n"}},
		{"Split regex dot", `{"type":"Split","pattern":{"Regex":"x."},"behavior":"Removed"}`, "x\nxyx\r", []string{"x\n"}},
		{"Digits grouped", `{"type":"Digits","individual_digits":false}`, "ab123c45", []string{"ab", "123", "c", "45"}},
		{"Digits individual", `{"type":"Digits","individual_digits":true}`, "ab123c٤5", []string{"ab", "1", "2", "3", "c", "٤", "5"}},
		{"ByteLevel", `{"type":"ByteLevel","add_prefix_space":true,"trim_offsets":true,"use_regex":true}`, "Hi there\n", []string{"ĠHi", "Ġthere", "Ċ"}},
		{"ByteLevel without regex", `{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":false}`, "Hi é", []string{"HiĠÃ©"}},
		{"Metaspace always", `{"type":"Metaspace","replacement":"▁","prepend_scheme":"always","split":true}`, "Hello  world", []string{"▁Hello", "▁", "▁world"}},
		{"Metaspace no split", `{"type":"Metaspace","replacement":"▁","prepend_scheme":"always","split":false}`, "Hello world", []string{"▁Hello▁world"}},
		{"Metaspace never", `{"type":"Metaspace","replacement":"▁","prepend_scheme":"never","split":true}`, "Hello world", []string{"Hello", "▁world"}},
		{"Metaspace first at the start", `{"type":"Metaspace","replacement":"▁","prepend_scheme":"first","split":true}`, "Hello world", []string{"▁Hello", "▁world"}},
		{"Metaspace legacy add_prefix_space", `{"type":"Metaspace","replacement":"▁","add_prefix_space":false}`, "a b", []string{"a", "▁b"}},
		{"Sequence", `{"type":"Sequence","pretokenizers":[` + split("Removed", false) + `,{"type":"Digits","individual_digits":true}]}`, "a1 22", []string{"a", "1", "2", "2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := runPreTokenizer(t, c.json, c.in); !slices.Equal(got, c.want) {
				t.Errorf("pieces of %q = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestDecoders(t *testing.T) {
	cases := []struct {
		name, json string
		in         []string
		want       string
	}{
		{"ByteLevel", `{"type":"ByteLevel","add_prefix_space":true,"trim_offsets":true,"use_regex":true}`, []string{"Hello", "Ġw", "Ã©", "Ċ"}, "Hello wé\n"},
		{"ByteLevel invalid UTF-8 becomes U+FFFD", `{"type":"ByteLevel"}`, []string{"a", "Ã", "b", "ð", "Ł", "ł"}, "a\uFFFDb\uFFFD"},
		{"ByteLevel foreign characters pass through", `{"type":"ByteLevel"}`, []string{"<|x|>", "\n", "ok"}, "<|x|>\nok"},
		{"Metaspace", `{"type":"Metaspace","replacement":"▁","prepend_scheme":"always","split":true}`, []string{"▁Hello", "▁world", "▁"}, "Hello world "},
		{"Metaspace drops every replacement in the first token", `{"type":"Metaspace","replacement":"▁","prepend_scheme":"always"}`, []string{"▁▁a▁b", "▁c"}, "ab c"},
		{"Metaspace never", `{"type":"Metaspace","replacement":"▁","prepend_scheme":"never"}`, []string{"▁Hello", "▁world"}, " Hello world"},
		{"ByteFallback", `{"type":"Sequence","decoders":[{"type":"ByteFallback"},{"type":"Fuse"}]}`, []string{"<0x41>", "b", "<0xC3>", "<0xA9>", "c"}, "Abéc"},
		// A run of byte tokens that is not valid UTF-8 as a whole becomes one
		// U+FFFD per byte, even where part of it would be valid.
		{"ByteFallback invalid run", `{"type":"Sequence","decoders":[{"type":"ByteFallback"},{"type":"Fuse"}]}`, []string{"<0x41>", "<0xC3>", "<0xA9>", "<0xFF>", "c"}, "\uFFFD\uFFFD\uFFFD\uFFFDc"},
		{"Strip", `{"type":"Strip","content":" ","start":1,"stop":1}`, []string{"  a  ", " "}, " a "},
		{"Replace", `{"type":"Replace","pattern":{"String":"▁"},"content":" "}`, []string{"▁a", "b▁"}, " ab "},
		{"BPEDecoder", `{"type":"BPEDecoder","suffix":"</w>"}`, []string{"hel", "lo</w>", "wor", "ld</w>"}, "hello world"},
		{"Mistral chain", `{"type":"Sequence","decoders":[{"type":"Replace","pattern":{"String":"▁"},"content":" "},{"type":"ByteFallback"},{"type":"Fuse"},{"type":"Strip","content":" ","start":1,"stop":0}]}`,
			[]string{"▁Hello", "<0x0A>", "▁", "▁world"}, "Hello\n  world"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			steps, err := parseDecoder(rawJSON(c.json), "decoder", nil)
			if err != nil {
				t.Fatal(err)
			}
			toks := slices.Clone(c.in)
			for _, d := range steps {
				toks = d.decode(toks)
			}
			if got := strings.Join(toks, ""); got != c.want {
				t.Errorf("decode(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestLossyUTF8(t *testing.T) {
	// Rust's from_utf8_lossy: one U+FFFD per maximal invalid subpart.
	cases := []struct{ in, want string }{
		{"abc", "abc"},
		{"\xff", "\uFFFD"},
		{"\xe2\x82", "\uFFFD"},                 // truncated 3-byte sequence
		{"\xe2\x82A", "\uFFFDA"},               // truncated, then ASCII
		{"\xf0\x9f\x98", "\uFFFD"},             // truncated 4-byte sequence
		{"\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"}, // surrogate: ED is fine, A0 is not
		{"\xc0\xaf", "\uFFFD\uFFFD"},           // overlong
		{"\x80\x80", "\uFFFD\uFFFD"},           // lone continuation bytes
		{"é\xffé", "é\uFFFDé"},
	}
	for _, c := range cases {
		if got := string(appendLossyUTF8(nil, []byte(c.in))); got != c.want {
			t.Errorf("lossy(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestPostProcessors(t *testing.T) {
	bosEos := `{"type":"TemplateProcessing",
		"single":[{"SpecialToken":{"id":"<|bos|>","type_id":0}},{"Sequence":{"id":"A","type_id":0}},{"SpecialToken":{"id":"<|eot|>","type_id":0}}],
		"pair":[{"Sequence":{"id":"A","type_id":0}},{"Sequence":{"id":"B","type_id":1}}],
		"special_tokens":{"<|bos|>":{"id":"<|bos|>","ids":[269],"tokens":["<|bos|>"]},"<|eot|>":{"id":"<|eot|>","ids":[270],"tokens":["<|eot|>"]}}}`
	cases := []struct {
		name, json string
		want       []int
	}{
		{"none", `null`, []int{265}},
		{"ByteLevel adds nothing", `{"type":"ByteLevel","add_prefix_space":true,"trim_offsets":false,"use_regex":true}`, []int{265}},
		{"TemplateProcessing BOS and EOS", bosEos, []int{269, 265, 270}},
		{"Sequence of ByteLevel and TemplateProcessing", `{"type":"Sequence","processors":[{"type":"ByteLevel","add_prefix_space":true,"trim_offsets":false,"use_regex":true},` + bosEos + `]}`, []int{269, 265, 270}},
		{"BertProcessing", `{"type":"BertProcessing","sep":["<|eot|>",270],"cls":["<|bos|>",269]}`, []int{269, 265, 270}},
		{"RobertaProcessing", `{"type":"RobertaProcessing","sep":["</s>",2],"cls":["<s>",0],"trim_offsets":true,"add_prefix_space":false}`, []int{0, 265, 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tok := loadFixture(t, "bytelevel.json", map[string]any{"post_processor": jsonValue(t, c.json)})
			if got := tok.EncodeWithSpecial("hello"); !slices.Equal(got, c.want) {
				t.Errorf("EncodeWithSpecial = %v, want %v", got, c.want)
			}
			if got := tok.Encode("hello"); !slices.Equal(got, []int{265}) {
				t.Errorf("Encode = %v, want [265]", got)
			}
		})
	}
}

// TestRejections checks that unsupported components and options are refused at
// load time with an error naming their JSON path.
func TestRejections(t *testing.T) {
	cases := []struct {
		name    string
		fixture string
		patch   map[string]string
		want    string
	}{
		{"model type", "bytelevel.json", map[string]string{"model.type": `"WordPiece"`}, `model.type: unsupported model type "WordPiece"`},
		{"dropout", "bytelevel.json", map[string]string{"model.dropout": `0.1`}, `model.dropout: BPE dropout 0.1 is not supported`},
		{"unknown model field", "bytelevel.json", map[string]string{"model.frobnicate": `true`}, `model.frobnicate: unsupported field "frobnicate" in the BPE model`},
		{"merge not in vocab", "bytelevel.json", map[string]string{"model.merges": `["h e","q zz"]`}, `model.merges: merge 1: token "zz" is not in the vocabulary`},
		{"merged token not in vocab", "bytelevel.json", map[string]string{"model.merges": `["x y"]`}, `model.merges: merge 0: merged token "xy" is not in the vocabulary`},
		{"merge without a space", "bytelevel.json", map[string]string{"model.merges": `["he"]`}, `model.merges: merge 0: "he" is not two tokens`},
		{"mixed merge formats", "bytelevel.json", map[string]string{"model.merges": `["h e",["l","l"]]`}, `model.merges: merge 1: expected every merge`},
		{"unk not in vocab", "bytelevel.json", map[string]string{"model.unk_token": `"<nope>"`}, `model.unk_token: unknown token "<nope>" is not in the vocabulary`},
		{"negative id", "bytelevel.json", map[string]string{"model.vocab": `{"a":-1}`}, `model.vocab: malformed JSON: expected a non-negative integer`},
		{"version", "bytelevel.json", map[string]string{"version": `"2.0"`}, `version: unsupported tokenizer.json version "2.0"`},
		{"unknown top-level field", "bytelevel.json", map[string]string{"extras": `{}`}, `extras: unsupported field "extras" in the tokenizer`},
		{"normalizer type", "bytelevel.json", map[string]string{"normalizer": `{"type":"BertNormalizer"}`}, `normalizer.type: unsupported normalizer "BertNormalizer"`},
		{"nested normalizer type", "bytelevel.json", map[string]string{"normalizer": `{"type":"Sequence","normalizers":[{"type":"NFC"},{"type":"Precompiled","precompiled_charsmap":""}]}`}, `normalizer.normalizers[1].type: unsupported normalizer "Precompiled"`},
		{"empty replace pattern", "bytelevel.json", map[string]string{"normalizer": `{"type":"Replace","pattern":{"String":""},"content":"x"}`}, `normalizer.pattern.String: empty pattern`},
		{"pattern with both kinds", "bytelevel.json", map[string]string{"normalizer": `{"type":"Replace","pattern":{"String":"a","Regex":"b"},"content":"x"}`}, `normalizer.pattern: expected exactly one of "String" or "Regex"`},
		{"pre-tokenizer type", "bytelevel.json", map[string]string{"pre_tokenizer": `{"type":"Sequence","pretokenizers":[{"type":"Whitespace"}]}`}, `pre_tokenizer.pretokenizers[0].type: unsupported pre-tokenizer "Whitespace"`},
		{"unknown pre-tokenizer field", "bytelevel.json", map[string]string{"pre_tokenizer": `{"type":"Split","pattern":{"String":" "},"behavior":"Removed","invert":false,"limit":3}`}, `pre_tokenizer.limit: unsupported field "limit" in the Split pre-tokenizer`},
		{"split behavior", "bytelevel.json", map[string]string{"pre_tokenizer": `{"type":"Split","pattern":{"String":" "},"behavior":"Sideways"}`}, `pre_tokenizer.behavior: unsupported split behavior "Sideways"`},
		{"split without behavior", "bytelevel.json", map[string]string{"pre_tokenizer": `{"type":"Split","pattern":{"String":" "}}`}, `pre_tokenizer.behavior: missing`},
		{"regex with \\w", "bytelevel.json", map[string]string{"pre_tokenizer": `{"type":"Split","pattern":{"Regex":"\\w+"},"behavior":"Isolated"}`}, `pre_tokenizer.pattern.Regex: regex escape \w is not supported`},
		{"invalid regex", "bytelevel.json", map[string]string{"pre_tokenizer": `{"type":"Split","pattern":{"Regex":"(a"},"behavior":"Isolated"}`}, `pre_tokenizer.pattern.Regex: compiling regex "(a"`},
		{"regex matching empty", "bytelevel.json", map[string]string{"pre_tokenizer": `{"type":"Split","pattern":{"Regex":"a*"},"behavior":"Isolated"}`}, `pre_tokenizer.pattern.Regex: pattern "a*" matches the empty string`},
		{"metaspace prepend scheme", "metaspace.json", map[string]string{"pre_tokenizer.prepend_scheme": `"sometimes"`}, `pre_tokenizer.prepend_scheme: unsupported prepend_scheme "sometimes"`},
		{"metaspace replacement", "metaspace.json", map[string]string{"pre_tokenizer.replacement": `"__"`}, `pre_tokenizer.replacement: expected a single character`},
		{"metaspace contradiction", "metaspace.json", map[string]string{"pre_tokenizer.add_prefix_space": `false`}, `pre_tokenizer.add_prefix_space: false contradicts prepend_scheme "first"`},
		{"bool option type", "bytelevel.json", map[string]string{"model.byte_fallback": `"yes"`}, `model.byte_fallback: expected true or false`},
		{"post-processor type", "bytelevel.json", map[string]string{"post_processor": `{"type":"Magic"}`}, `post_processor.type: unsupported post-processor "Magic"`},
		{"template unknown special", "bytelevel.json", map[string]string{"post_processor.single": `[{"SpecialToken":{"id":"<x>","type_id":0}},{"Sequence":{"id":"A","type_id":0}}]`}, `post_processor.single[0].SpecialToken.id: special token "<x>" is not defined`},
		{"template without sequence", "bytelevel.json", map[string]string{"post_processor.single": `[{"SpecialToken":{"id":"<|bos|>","type_id":0}}]`}, `post_processor.single: the single template must contain the sequence exactly once`},
		{"decoder type", "bytelevel.json", map[string]string{"decoder": `{"type":"WordPiece","prefix":"##","cleanup":true}`}, `decoder.type: unsupported decoder "WordPiece"`},
		{"nested decoder type", "spm.json", map[string]string{"decoder.decoders": `[{"type":"Fuse"},{"type":"CTC"}]`}, `decoder.decoders[1].type: unsupported decoder "CTC"`},
		{"added token field", "bytelevel.json", map[string]string{"added_tokens": `[{"id":1,"content":"x","weight":2}]`}, `added_tokens[0].weight: unsupported field "weight" in an added token`},
		{"missing model", "bytelevel.json", map[string]string{"model": `null`}, `model: missing`},
		{"component without type", "bytelevel.json", map[string]string{"normalizer": `{"prepend":"x"}`}, `normalizer: missing "type"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			patches := map[string]any{}
			for k, v := range c.patch {
				patches[k] = jsonValue(t, v)
			}
			_, err := Parse(fixture(t, c.fixture, patches), c.fixture)
			if err == nil {
				t.Fatalf("loaded; want an error containing %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "loading tokenizer "+c.fixture+": ") {
				t.Errorf("error %q\nwant it to start with the name and contain %q", err, c.want)
			}
		})
	}
	if _, err := Parse([]byte("not json"), "x.json"); err == nil || !strings.Contains(err.Error(), "loading tokenizer x.json: not a tokenizer.json document: expected a JSON object") {
		t.Errorf("non-JSON input: %v", err)
	}
}
