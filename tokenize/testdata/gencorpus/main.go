// Command gencorpus writes the tokenizer test corpus, tokenize/testdata/corpus.jsonl:
// one JSON object {"kind": ..., "text": ...} per line.
//
// It is deterministic (fixed PCG seed). Prose comes from the licence texts of
// Debian's /usr/share/common-licenses and Go's own documentation, code from the Go
// distribution and Python's standard library; everything else (multilingual text,
// emoji, whitespace, numbers, contractions, special-token text) is written below.
// Run from the repository root:
//
//	go run ./tokenize/testdata/gencorpus > tokenize/testdata/corpus.jsonl
//
// The committed corpus is the reference; rerunning on another Go version or
// Debian release can produce different prose and code samples.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

type record struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// gen draws from one fixed-seed random stream, so the corpus is reproducible.
type gen struct {
	rng *rand.Rand
}

func main() {
	g := &gen{rng: rand.New(rand.NewPCG(20261202, 424242))}
	var out []record
	add := func(kind string, texts ...string) {
		for _, t := range texts {
			if !utf8.ValidString(t) {
				panic("invalid UTF-8 in " + kind)
			}
			out = append(out, record{kind, t})
		}
	}
	prose := proseSources()
	code := codeSources()

	for i := 0; i < 340; i++ {
		s := g.window(prose[g.rng.IntN(len(prose))], 80, 1500)
		switch g.rng.IntN(10) {
		case 0:
			s = strings.ToUpper(s)
		case 1:
			s = "  " + s + " \n"
		case 2:
			s = strings.ReplaceAll(s, "\n", "\r\n")
		}
		add("prose", s)
	}
	for i := 0; i < 340; i++ {
		add("code", g.window(code[g.rng.IntN(len(code))], 60, 1500))
	}
	add("multilingual", g.multilingual()...)
	add("emoji", g.emoji()...)
	add("whitespace", g.whitespace()...)
	add("numbers", g.numbers()...)
	add("soup", g.soup()...)
	add("contractions", g.contractions()...)
	add("special", g.specialText()...)
	add("long", g.long(prose, code)...)
	add("edge", edge()...)

	w := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, r := range out {
		if err := enc.Encode(r); err != nil {
			panic(err)
		}
	}
	if err := w.Flush(); err != nil {
		panic(err)
	}
	fmt.Fprintf(os.Stderr, "%d strings\n", len(out))
}

func read(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return string(b)
}

var tagRE = regexp.MustCompile(`<[^>]*>`)

func proseSources() []string {
	var src []string
	for _, n := range []string{"Apache-2.0", "Artistic", "GFDL-1.3", "GPL-2", "GPL-3", "LGPL-2.1", "MPL-2.0", "CC0-1.0"} {
		src = append(src, read(filepath.Join("/usr/share/common-licenses", n)))
	}
	goroot := runtime.GOROOT()
	for _, n := range []string{"doc/go_spec.html", "doc/go_mem.html"} {
		s := tagRE.ReplaceAllString(read(filepath.Join(goroot, n)), "")
		s = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&", "&quot;", `"`, "&nbsp;", "\u00a0").Replace(s)
		src = append(src, s)
	}
	return src
}

func codeSources() []string {
	goroot := runtime.GOROOT()
	files := []string{
		"src/net/http/server.go", "src/strings/strings.go", "src/sort/sort.go", "src/bufio/bufio.go",
		"src/encoding/json/decode.go", "src/runtime/cgo/gcc_linux_amd64.c", "src/runtime/cgo/gcc_libinit.c",
		"src/runtime/asm_amd64.s", "src/crypto/sha256/sha256.go", "src/regexp/syntax/parse.go",
		"src/cmd/go/testdata/script/mod_tidy.txt", "src/html/template/escape.go", "lib/wasm/wasm_exec.js",
		"src/go.mod", "src/make.bash",
	}
	var src []string
	for _, f := range files {
		src = append(src, read(filepath.Join(goroot, f)))
	}
	for _, f := range []string{"json/decoder.py", "textwrap.py", "csv.py", "heapq.py"} {
		src = append(src, read(filepath.Join("/usr/lib/python3.11", f)))
	}
	return src
}

// window returns a random run of whole lines of s, between min and max bytes
// where the lines allow.
func (g *gen) window(s string, minLen, maxLen int) string {
	lines := strings.SplitAfter(s, "\n")
	for tries := 0; ; tries++ {
		i := g.rng.IntN(len(lines))
		var b strings.Builder
		for j := i; j < len(lines) && b.Len() < minLen+g.rng.IntN(maxLen-minLen); j++ {
			b.WriteString(lines[j])
		}
		if b.Len() >= minLen || tries > 20 {
			return b.String()
		}
	}
}

var sentences = []string{
	"The quick brown fox jumps over the lazy dog.",
	"Zwölf Boxkämpfer jagen Viktor quer über den großen Sylter Deich.",
	"Portez ce vieux whisky au juge blond qui fume ; il coûte 12,50 €.",
	"El pingüino Wenceslao hizo kilómetros bajo exhaustiva lluvia y frío, añoraba a su querido cachorro.",
	"Todos os seres humanos nascem livres e iguais em dignidade e em direitos.",
	"Pchnąć w tę łódź jeża lub ośm skrzyń fig.",
	"Příliš žluťoučký kůň úpěl ďábelské ódy.",
	"Árvíztűrő tükörfúrógép.",
	"Pijamalı hasta yağız şoföre çabucak güvendi.",
	"Tiếng Việt có dấu: Người ta thường nói rằng học, học nữa, học mãi.",
	"Съешь же ещё этих мягких французских булок, да выпей чаю.",
	"Жебракують філософи при ґанку церкви в Гадячі, ще й шатро їхнє п'яне знаємо.",
	"Ξεσκεπάζω την ψυχοφθόρα βδελυγμία.",
	"我能吞下玻璃而不伤身体。今天天气很好，我们去公园散步吧！",
	"人工智能正在改变世界，大型语言模型的推理速度至关重要。",
	"私はガラスを食べられます。それは私を傷つけません。",
	"東京は日本の首都で、カタカナとひらがなと漢字が混在しています。",
	"나는 유리를 먹을 수 있어요. 그래도 아프지 않아요.",
	"أنا قادر على أكل الزجاج و هذا لا يؤلمني.",
	"مرحباً بالعالم! كيف حالك اليوم؟ ١٢٣٤٥",
	"אני יכול לאכול זכוכית וזה לא מזיק לי.",
	"שָׁלוֹם עֲלֵיכֶם, מַה שְּׁלוֹמְךָ?",
	"मैं काँच खा सकता हूँ और मुझे उससे कोई चोट नहीं पहुंचती.",
	"नमस्ते दुनिया, आज का दिन बहुत अच्छा है। १२३४",
	"ฉันกินกระจกได้ แต่มันไม่ทำให้ฉันเจ็บ",
	"நான் கண்ணாடி சாப்பிடுவேன், அதனால் எனக்கு ஒரு கேடும் வராது.",
	"ኣሳ ኣይበልዕን ኣይበልዕን። ሰላም ለዓለም።",
	"მინას ვჭამ და არა მტკივა.",
	"Կրնամ ապակի ուտել և ինծի անհանգիստ չըներ։",
	"আমি কাঁচ খেতে পারি, তাতে আমার কোনো ক্ষতি হয় না।",
	"ನನಗೆ ಹಾನಿ ಆಗದೆ, ನಾನು ಗಜನ್ನು ತಿನಬಹುದು",
	"මට වීදුරු කෑමට හැකියි. එයින් මට කිසි හානියක් සිදු නොවේ.",
	"ខ្ញុំអាចញុំកញ្ចក់បាន ដោយគ្មានបញ្ហារ",
	"ຂອ້ຍກິນແກ້ວໄດ້ໂດຍທີ່ມັນບໍ່ໄດ້ເຮັດໃຫ້ຂອ້ຍເຈັບ.",
	"Mogę jeść szkło i mi nie szkodzi. Μπορώ να φάω σπασμένα γυαλιά.",
	"Ἐν ἀρχῇ ἦν ὁ λόγος, καὶ ὁ λόγος ἦν πρὸς τὸν θεόν.",
	"ᚠᛇᚻ᛫ᛒᛦᚦ᛫ᚠᚱᚩᚠᚢᚱ᛫ᚠᛁᚱᚪ᛫ᚷᛖᚻᚹᛦᛚᚳᚢᛗ",
	"Ich kann Glas essen, ohne mir zu schaden. Ｆｕｌｌ－ｗｉｄｔｈ　ｔｅｘｔ！",
	"ﬁnance ﬂow ﬀ ﬃ ﬄ ﬅ ﬆ — ligatures, and ℌ𝔢𝔩𝔩𝔬 𝕎𝕠𝕣𝕝𝕕 𝐛𝐨𝐥𝐝.",
	"Ⅻ ⅻ ① ② ③ ㈱ ㎞ ㍻ ℃ ℉ Å Ω µ ſ ß ẞ ǅ ǈ",
	"Ñandú, Ærøskøbing, Þórður, Đorđe, Łódź, İstanbul, ΣΊΣΥΦΟΣ, ΌΣΟΣ.",
	"ꦲꦏ꧀ꦱꦫꦗꦮ ᮃᮊ᮪ᮞᮛ ꤊꤢ ߒߞߏ ⵜⴰⵎⴰⵣⵉⵖⵜ ᏣᎳᎩ ᐃᓄᒃᑎᑐᑦ",
	"Հայերեն, ქართული, עברית, العربية, فارسی, اردو, ܣܘܪܝܝܐ, ދިވެހި",
}

func (g *gen) multilingual() []string {
	var out []string
	for _, s := range sentences {
		out = append(out, s)
	}
	for len(out) < 280 {
		a := sentences[g.rng.IntN(len(sentences))]
		b := sentences[g.rng.IntN(len(sentences))]
		s := a + " " + b
		switch g.rng.IntN(8) {
		case 0:
			s = strings.ToUpper(s)
		case 1:
			s = norm.NFD.String(s)
		case 2:
			s = norm.NFKC.String(s)
		case 3:
			s = g.zalgo(s)
		case 4:
			s = strings.ToLower(s)
		case 5:
			s = a + "\n\n" + b + "\t" + strings.Repeat(a, 2)
		}
		out = append(out, s)
	}
	return out
}

func (g *gen) zalgo(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r)
		if unicode.IsLetter(r) && g.rng.IntN(3) == 0 {
			for k := g.rng.IntN(4); k >= 0; k-- {
				b.WriteRune(rune(0x300 + g.rng.IntN(0x70)))
			}
		}
	}
	return b.String()
}

var emojiAtoms = []string{
	"😀", "😂", "🥲", "🤖", "👍", "👍🏻", "👍🏿", "👋🏽", "🧑‍💻", "👩‍👩‍👧‍👦", "👨‍❤️‍👨", "🏳️‍🌈", "🏴‍☠️",
	"🇫🇷", "🇯🇵", "🇺🇸", "🇺🇳", "🏴󠁧󠁢󠁥󠁮󠁧󠁿", "1️⃣", "#️⃣", "*️⃣", "❤️", "♥", "☺️", "✔︎", "🫠", "🫶🏼", "🧑🏾‍🚀",
	"🐈‍⬛", "👁️‍🗨️", "🤷‍♀️", "🙅🏻‍♂️", "🦀", "🐍", "🚀", "🔥", "💯", "🎉", "⚡", "🌍", "🀄", "🂡", "🈯",
}

func (g *gen) emoji() []string {
	var out []string
	for _, e := range emojiAtoms {
		out = append(out, e)
	}
	words := []string{"hello", "ok", "great job", "ship it", "LGTM", "wow", "再见", "مرحبا", "привет", " ", "\n", "!!!"}
	for len(out) < 200 {
		var b strings.Builder
		for k := g.rng.IntN(8) + 1; k > 0; k-- {
			if g.rng.IntN(2) == 0 {
				b.WriteString(words[g.rng.IntN(len(words))])
			}
			if g.rng.IntN(3) == 0 {
				b.WriteByte(' ')
			}
			for n := g.rng.IntN(3) + 1; n > 0; n-- {
				b.WriteString(emojiAtoms[g.rng.IntN(len(emojiAtoms))])
			}
		}
		out = append(out, b.String())
	}
	return out
}

var spaceAtoms = []string{
	" ", "  ", "    ", "\t", "\t\t", "\n", "\n\n", "\r\n", "\r", "\u00a0", "\u3000", "\u2028", "\u2029",
	"\u200b", "\f", "\v", "\u2003", "\u202f", "\u1680", "\u0085", "\u2009", "\ufeff", " \n", "\n ", " \t\n",
}

func (g *gen) whitespace() []string {
	out := []string{" ", "  ", "\n", "\n\n\n", "\t", "\r\n", "\r\n\r\n", " \n  \n    \r\n", "\u00a0", "\u3000",
		"a\u00a0\u00a0b", "x \n  \n    \r\n", "end   ", "   start", "\t\tindented\n\t\t\tmore\n", strings.Repeat(" ", 100),
		strings.Repeat("\n", 50), strings.Repeat(" \t", 40), "a" + strings.Repeat(" ", 17) + "b"}
	words := []string{"word", "x", "Hello", "123", "über", "日本", "=", "foo()", "'s", "—"}
	for len(out) < 200 {
		var b strings.Builder
		for k := g.rng.IntN(10) + 1; k > 0; k-- {
			for n := g.rng.IntN(3) + 1; n > 0; n-- {
				b.WriteString(spaceAtoms[g.rng.IntN(len(spaceAtoms))])
			}
			if g.rng.IntN(4) != 0 {
				b.WriteString(words[g.rng.IntN(len(words))])
			}
		}
		out = append(out, b.String())
	}
	return out
}

func (g *gen) digits(n int) string {
	var b strings.Builder
	for ; n > 0; n-- {
		b.WriteByte(byte('0' + g.rng.IntN(10)))
	}
	return b.String()
}

func (g *gen) numbers() []string {
	out := []string{"0", "1", "12", "123", "1234", "12345", "123456789012345678901234567890",
		"3.14159265358979323846", "1,234,567.89", "1.234.567,89", "-42", "+7 (495) 123-45-67", "2026-12-02T10:03:00Z",
		"0xDEADBEEF", "1e-9", "6.022e23", "١٢٣٤٥٦٧٨٩٠", "۱۲۳۴", "१२३४५", "１２３４５", "¹²³", "½ ¼ ¾", "Ⅳ Ⅸ", "v1.2.3-rc.4",
		"$1,000,000", "99.99%", "3/4", "10^9", "x₁ + x₂", "৩৪৫", "๑๒๓", "〇一二三"}
	for len(out) < 200 {
		var s string
		switch g.rng.IntN(6) {
		case 0:
			s = g.digits(g.rng.IntN(60) + 1)
		case 1:
			s = g.digits(g.rng.IntN(6)+1) + "." + g.digits(g.rng.IntN(12)+1)
		case 2:
			s = "The total was " + g.digits(g.rng.IntN(9)+1) + " tokens in " + g.digits(3) + "." + g.digits(2) + " ms."
		case 3:
			s = g.digits(3) + " " + g.digits(4) + "-" + g.digits(2) + " " + g.digits(7)
		case 4:
			s = "[" + g.digits(2) + ", " + g.digits(5) + ", " + g.digits(1) + "]"
		default:
			s = g.digits(g.rng.IntN(4)+1) + "x" + g.digits(g.rng.IntN(4)+1) + "=" + g.digits(g.rng.IntN(8)+1)
		}
		out = append(out, s)
	}
	return out
}

// soup draws random assigned characters from long-established blocks, so that
// Unicode-version differences between regex and normalization tables hardly matter.
func (g *gen) soup() []string {
	blocks := [][2]rune{
		{0x20, 0x7e}, {0xa0, 0x24f}, {0x300, 0x36f}, {0x370, 0x3ff}, {0x400, 0x4ff}, {0x590, 0x5f4}, {0x600, 0x6ff},
		{0x900, 0x97f}, {0xe00, 0xe5b}, {0x1100, 0x11ff}, {0x1e00, 0x1eff}, {0x2000, 0x206f}, {0x20a0, 0x20bf},
		{0x2100, 0x214f}, {0x2190, 0x23ff}, {0x2500, 0x27bf}, {0x3000, 0x303f}, {0x3040, 0x30ff}, {0x4e00, 0x9fa5},
		{0xac00, 0xd7a3}, {0xff00, 0xffef}, {0x1f300, 0x1f5ff}, {0x1f600, 0x1f64f}, {0x1f900, 0x1f9ff},
	}
	var out []string
	for len(out) < 200 {
		var b strings.Builder
		for k := g.rng.IntN(40) + 1; k > 0; k-- {
			bl := blocks[g.rng.IntN(len(blocks))]
			r := bl[0] + rune(g.rng.IntN(int(bl[1]-bl[0]+1)))
			if !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Zs) {
				continue
			}
			b.WriteRune(r)
		}
		if b.Len() > 0 {
			out = append(out, b.String())
		}
	}
	return out
}

func (g *gen) contractions() []string {
	subj := []string{"it", "IT", "It", "he", "she", "They", "WE", "you", "I", "y'all", "o'clock"}
	suff := []string{"'s", "'S", "'t", "'T", "'re", "'RE", "'Re", "'ve", "'VE", "'m", "'M", "'ll", "'LL", "'Ll", "'d", "'D",
		"’s", "’LL", "'ſ", "''s", "'x", "'sss", "'tis", "'d've"}
	out := []string{"don't", "DON'T", "Don’t", "I'LL", "we'RE", "rock'n'roll", "'s", "'", "''", "it's'", "l'homme", "aujourd'hui",
		"y'all'd've", "O'Neil's", "'S'S'S", "can't won't shan't", "'ll'll", "x'ſ", "‘quoted’ “double”"}
	for len(out) < 120 {
		s := subj[g.rng.IntN(len(subj))] + suff[g.rng.IntN(len(suff))]
		if g.rng.IntN(2) == 0 {
			s += " " + subj[g.rng.IntN(len(subj))] + suff[g.rng.IntN(len(suff))] + " here."
		}
		out = append(out, s)
	}
	return out
}

var specialAtoms = []string{
	"<|begin_of_text|>", "<|end_of_text|>", "<|eot_id|>", "<|start_header_id|>", "<|end_header_id|>",
	"<|reserved_special_token_5|>", "<|im_start|>", "<|im_end|>", "<|endoftext|>", "<|endofprompt|>", "<|fim_prefix|>",
	"<|fim_middle|>", "<|fim_suffix|>", "<s>", "</s>", "<unk>", "<think>", "</think>", "<tool_call>", "<|vision_start|>",
	"<|begin_of_text", "<|eot_id", "< s>", "<<s>>", "<s >", "<|im_start|", "<|endoftext|>>", "[INST]", "[/INST]",
}

func (g *gen) specialText() []string {
	out := []string{
		"<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nYou are helpful.<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nHi!<|eot_id|>",
		"<|im_start|>system\nYou are Qwen.<|im_end|>\n<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n",
		"<s>[INST] What is 2+2? [/INST] 4</s>", "<s><s></s></s>", "</s>hello<s>", " <s> ", "<unk>", "text<|endoftext|>more",
		"<|endoftext|><|endoftext|>", "<|fim_prefix|>def f():<|fim_suffix|>\n<|fim_middle|>",
	}
	for len(out) < 100 {
		var b strings.Builder
		for k := g.rng.IntN(5) + 1; k > 0; k-- {
			switch g.rng.IntN(4) {
			case 0:
				b.WriteString(" ")
			case 1:
				b.WriteString(sentences[g.rng.IntN(8)])
			case 2:
				b.WriteString("\n")
			}
			b.WriteString(specialAtoms[g.rng.IntN(len(specialAtoms))])
		}
		out = append(out, b.String())
	}
	return out
}

func (g *gen) long(prose, code []string) []string {
	var out []string
	sizes := []int{20500, 22000, 25000, 30000, 21000, 6000, 8000, 10000, 12000, 15000, 5000, 7000}
	for i, size := range sizes {
		var b strings.Builder
		for b.Len() < size {
			switch (i + b.Len()/3000) % 3 {
			case 0:
				b.WriteString(g.window(prose[g.rng.IntN(len(prose))], 1000, 3000))
			case 1:
				b.WriteString(g.window(code[g.rng.IntN(len(code))], 1000, 3000))
			default:
				b.WriteString(sentences[g.rng.IntN(len(sentences))])
				b.WriteString("\n")
			}
		}
		out = append(out, b.String())
	}
	return out
}

func edge() []string {
	out := []string{
		"", " ", "a", "A", ".", "\u0000", "\u0001\u0002\u007f", "\ufffd", "\u00ad", "\u200d", "\ufe0f", "é", "e\u0301",
		"ﬁ", "İ", "ß", "\U0010fffd", "\ue000", strings.Repeat("a", 3000), strings.Repeat("ab", 1500), strings.Repeat("=", 2000),
		strings.Repeat("日本", 500), strings.Repeat(" a", 1000), strings.Repeat("\n", 3000), strings.Repeat("-", 777) + "x",
		strings.Repeat("1", 1001), "a\u0301\u0302\u0303\u0304\u0305", "▁", "▁▁hello", "<0x0A>", "Ġ", "Ċ",
	}
	return out
}
