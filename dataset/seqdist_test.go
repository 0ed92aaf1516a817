package dataset

import (
	"strings"
	"testing"
)

// AIPerf's three forms of one mix parse to the same pairs.
func TestParseSequenceDistribution(t *testing.T) {
	want := []LengthPair{
		{Prompt: Dist{Mean: 64, Stdev: 10}, Output: Dist{Mean: 32, Stdev: 8}, Weight: 70},
		{Prompt: Dist{Mean: 256, Stdev: 40}, Output: Dist{Mean: 128, Stdev: 20}, Weight: 20},
		{Prompt: Dist{Mean: 1024}, Output: Dist{Mean: 512}, Weight: 10},
	}
	for _, in := range []string{
		"64|10,32|8:70;256|40,128|20:20;1024,512:10",
		" 64|10, 32|8 : 70 ; 256|40,128|20:20;1024,512:10; ",
		"[(64|10,32|8):70,(256|40,128|20):20,(1024,512):10]",
		`{"pairs":[{"isl":64,"isl_stddev":10,"osl":32,"osl_stddev":8,"prob":70},{"isl":256,"isl_stddev":40,"osl":128,"osl_stddev":20,"prob":20},{"isl":1024,"osl":512,"prob":10}]}`,
		"64|10,32|8:0.7;256|40,128|20:0.2;1024,512:0.1",
	} {
		got, err := ParseSequenceDistribution(in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if len(got) != 3 {
			t.Errorf("%s: %+v", in, got)
			continue
		}
		for i := range want {
			w := want[i]
			if got[i].Weight < 1 { // the fraction form
				w.Weight /= 100
			}
			if got[i].Prompt != w.Prompt || got[i].Output != w.Output || got[i].Weight-w.Weight > 1e-9 || w.Weight-got[i].Weight > 1e-9 {
				t.Errorf("%s: pair %d %+v, want %+v", in, i, got[i], w)
			}
		}
	}
	for in, msg := range map[string]string{
		"64,32:70;256,128:20":    "sum to 90",
		"64:70":                  "not ISL,OSL:PROB",
		"0,32:100":               "token count ≥ 1",
		"64|x,32:100":            "standard deviation",
		"64,32:-5;128,64:105":    "probability",
		`{"pairs":[{"isl":64}]}`: "isl and osl ≥ 1",
		`{"pairs":[],"extra":1}`: "unknown field",
		"[(64,32):100":           "no closing ]",
	} {
		if _, err := ParseSequenceDistribution(in); err == nil || !strings.Contains(err.Error(), msg) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line containing %q", in, err, msg)
		}
	}
}

// Requests draw their pair in proportion to its weight, and take both of
// its lengths; the report's JSON form reads back to the same spec.
func TestSyntheticMix(t *testing.T) {
	mix, err := ParseSequenceDistribution("64,32:70;256,128:30")
	if err != nil {
		t.Fatal(err)
	}
	sp := Spec{Mix: mix}
	if err := sp.validate(); err != nil {
		t.Fatal(err)
	}
	tok := builtin(t, "cl100k_base")
	s, err := NewExactSynthetic(sp, tok, 7)
	if err != nil {
		t.Fatal(err)
	}
	const n = 4000
	short := 0
	for i := range uint64(n) {
		r, _ := s.Request(i)
		switch {
		case r.PromptTokens == 64 && r.MaxTokens == 32:
			short++
		case r.PromptTokens == 256 && r.MaxTokens == 128:
		default:
			t.Fatalf("request %d: %d prompt tokens, %d output: not a pair of the mix", i, r.PromptTokens, r.MaxTokens)
		}
	}
	// Binomial(4000, 0.7): sd 29 requests; 5 sd either side.
	if short < 2800-145 || short > 2800+145 {
		t.Errorf("%d of %d requests drew the 70 %% pair", short, n)
	}
	back, err := ParseSpec(sp.String())
	if err != nil || len(back.Mix) != 2 || back.Mix[1] != mix[1] {
		t.Errorf("%s read back as %+v, %v", sp.String(), back.Mix, err)
	}
	for _, bad := range []Spec{{Mix: mix, Prompt: Dist{Mean: 10}}, {Mix: mix, Session: SessionSpec{Turns: 2}}} {
		if err := bad.validate(); err == nil {
			t.Errorf("%+v validated", bad)
		}
	}
}

// FuzzParseSequenceDistribution: any input either fails on one line or
// gives pairs with lengths ≥ 1, positive weights summing to 100 or 1, and
// a spec that validates.
func FuzzParseSequenceDistribution(f *testing.F) {
	for _, s := range []string{"64|10,32|8:70;256|40,128|20:20;1024,512:10", "[(256,128):60,(512,256):40]",
		`{"pairs":[{"isl":256,"osl":128,"prob":100}]}`, "1,1:1", "64,32:0.5;64,32:0.5", ";", "[", "{", "1|0,1|0:100"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pairs, err := ParseSequenceDistribution(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") && !strings.Contains(s, "\n") {
				t.Fatalf("%q: a multi-line error: %v", s, err)
			}
			return
		}
		total := 0.0
		for _, p := range pairs {
			if p.Prompt.Mean < 1 || p.Output.Mean < 1 || !(p.Weight > 0) {
				t.Fatalf("%q: pair %+v", s, p)
			}
			total += p.Weight
		}
		if !(total > 99.98 && total < 100.02) && !(total > 0.9998 && total < 1.0002) {
			t.Fatalf("%q: weights sum to %v", s, total)
		}
		if err := (&Spec{Mix: pairs}).validate(); err != nil && !strings.Contains(err.Error(), "maximum") {
			t.Fatalf("%q: parsed but does not validate: %v", s, err)
		}
	})
}
