package tokenize

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

type corpusRecord struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
}

func readCorpus(t testing.TB) []corpusRecord {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "corpus.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var r corpusRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("corpus line %d: %v", len(out)+1, err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// goldenRecord is one line of a golden file written by testdata/golden/gen.js
// from the Hugging Face tokenizers library.
type goldenRecord struct {
	IDs     []int   `json:"ids"`
	Decoded *string `json:"decoded"`
	Special []int   `json:"special"`
}

func readGolden(t testing.TB, name string) []goldenRecord {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "golden", name+".jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []goldenRecord
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var r goldenRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("golden %s line %d: %v", name, len(out)+1, err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// compareGolden checks Encode, Count, Decode and EncodeWithSpecial against the
// reference on every corpus string the golden file covers.
func compareGolden(t *testing.T, tok *Tokenizer, golden string) {
	corpus := readCorpus(t)
	want := readGolden(t, golden)
	if len(want) > len(corpus) {
		t.Fatalf("golden %s has %d lines for %d corpus strings", golden, len(want), len(corpus))
	}
	var encBad, decBad, spBad int
	report := func(kind string, i int, msg string) {
		if encBad+decBad+spBad <= 10 {
			t.Errorf("%s: corpus line %d (%s) %q: %s", kind, i+1, corpus[i].Kind, abbreviateText(corpus[i].Text), msg)
		}
	}
	for i, w := range want {
		text := corpus[i].Text
		got := tok.Encode(text)
		if !slices.Equal(got, w.IDs) {
			encBad++
			report("encode", i, fmt.Sprintf("got %d ids %v, want %d ids %v", len(got), abbreviateIDs(got), len(w.IDs), abbreviateIDs(w.IDs)))
			continue
		}
		if n := tok.Count(text); n != len(w.IDs) {
			encBad++
			report("count", i, fmt.Sprintf("Count = %d, want %d", n, len(w.IDs)))
		}
		wantDec := text
		if w.Decoded != nil {
			wantDec = *w.Decoded
		}
		if d := tok.Decode(w.IDs); d != wantDec {
			decBad++
			report("decode", i, fmt.Sprintf("got %q, want %q", abbreviateText(d), abbreviateText(wantDec)))
		}
		if i < 200 {
			wantSp := w.IDs
			if w.Special != nil {
				wantSp = w.Special
			}
			if sp := tok.EncodeWithSpecial(text); !slices.Equal(sp, wantSp) {
				spBad++
				report("with special", i, fmt.Sprintf("got %v, want %v", abbreviateIDs(sp), abbreviateIDs(wantSp)))
			}
		}
	}
	if encBad+decBad+spBad > 0 {
		t.Errorf("%s: %d/%d encode mismatches, %d decode mismatches, %d with-special mismatches", golden, encBad, len(want), decBad, spBad)
	}
}

func abbreviateText(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

func abbreviateIDs(ids []int) string {
	if len(ids) > 40 {
		return strings.TrimSuffix(fmt.Sprint(ids[:40]), "]") + " …]"
	}
	return fmt.Sprint(ids)
}

// TestGoldenHF compares the tokenizer.json loader with Hugging Face tokenizers
// (Rust) on the whole corpus, for every reference tokenizer.
func TestGoldenHF(t *testing.T) {
	skipUnderRace(t)
	for _, ref := range refTokenizers {
		t.Run(ref.golden, func(t *testing.T) {
			compareGolden(t, loadRef(t, ref.golden), ref.golden)
		})
	}
}

// TestGoldenBuiltin compares the built-in encodings, which need no file, with
// Hugging Face tokenizers running the converted o200k/cl100k tokenizer.json.
func TestGoldenBuiltin(t *testing.T) {
	skipUnderRace(t)
	for _, c := range []struct{ name, golden string }{{"o200k_base", "o200k"}, {"cl100k_base", "cl100k"}} {
		t.Run(c.name, func(t *testing.T) {
			tok, err := Builtin(c.name)
			if err != nil {
				t.Fatal(err)
			}
			compareGolden(t, tok, c.golden)
		})
	}
}

// TestSplitAtMetaExact checks that cutting SentencePiece-style words before "▁"
// (bpe.splitAtMeta) gives the same ids as running BPE on whole segments, for
// Mistral (no merge joins across such a cut) and Gemma 3 (one merge does).
func TestSplitAtMetaExact(t *testing.T) {
	skipUnderRace(t)
	corpus := readCorpus(t)
	for _, name := range []string{"mistral", "gemma3"} {
		t.Run(name, func(t *testing.T) {
			fast := loadRef(t, name)
			if !fast.model.splitAtMeta {
				t.Fatal("splitAtMeta is off; the check at load time rejected it")
			}
			slow := loadRef(t, name)
			slow.model.splitAtMeta = false
			for i, r := range corpus {
				if a, b := fast.Encode(r.Text), slow.Encode(r.Text); !slices.Equal(a, b) {
					t.Fatalf("corpus line %d: split %v, whole %v", i+1, abbreviateIDs(a), abbreviateIDs(b))
				}
			}
		})
	}
}

// skipUnderRace skips a golden check that runs on one goroutine: the race
// detector finds nothing there and slows it about tenfold, and `make test`
// runs it without the detector. TestConcurrentEncode is the race check.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("one goroutine, checked by make test without the race detector")
	}
}
