package dataset

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

func TestParseSpec(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Spec
	}{
		{"prompt_tokens=256,output_tokens=128", Spec{Prompt: Dist{Mean: 256}, Output: Dist{Mean: 128}}},
		{" prompt_tokens = 256 , output-tokens=128 ", Spec{Prompt: Dist{Mean: 256}, Output: Dist{Mean: 128}}},
		{"kind=synthetic_text,prompt_tokens=10,prompt_tokens_stdev=2,prompt_tokens_min=5,prompt_tokens_max=20,samples=7",
			Spec{Prompt: Dist{Mean: 10, Stdev: 2, Min: 5, Max: 20}, Samples: 7}},
		{"prompt_tokens=64,output_tokens=32,output_tokens_stdev=4,output_tokens_min=30,output_tokens_max=40",
			Spec{Prompt: Dist{Mean: 64}, Output: Dist{Mean: 32, Stdev: 4, Min: 30, Max: 40}}},
		{"prompt_tokens=100,prefix_tokens=512,prefix_count=4", Spec{Prompt: Dist{Mean: 100}, PrefixTokens: 512, PrefixCount: 4}},
		{"prompt_tokens=100,prefix_tokens=0", Spec{Prompt: Dist{Mean: 100}}},
		{`{"kind":"synthetic_text","prompt_tokens":256,"output_tokens":"128"}`, Spec{Prompt: Dist{Mean: 256}, Output: Dist{Mean: 128}}},
		{`{"prompt_tokens":100,"prefix_buckets":[{"bucket_weight":50,"prefix_count":2,"prefix_tokens":64},{"prefix_tokens":0}]}`,
			Spec{Prompt: Dist{Mean: 100}, PrefixBuckets: []PrefixBucket{{50, 2, 64}, {100, 1, 0}}}},
	} {
		got, err := ParseSpec(c.in)
		if err != nil {
			t.Errorf("ParseSpec(%q): %v", c.in, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseSpec(%q) = %+v, want %+v", c.in, got, c.want)
		}
		back, err := ParseSpec(got.String())
		if err != nil || !reflect.DeepEqual(back, got) {
			t.Errorf("ParseSpec(%q.String() = %q) = %+v, %v; want the same spec", c.in, got.String(), back, err)
		}
	}
}

func TestParseSpecErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "empty value: want key=value pairs"},
		{"promt_tokens=256", `unknown key "promt_tokens" (keys: kind, prompt_tokens, prompt_tokens_stdev`},
		{"prompt_tokens", `"prompt_tokens" is not key=value`},
		{"prompt_tokens=abc", "prompt_tokens=abc: want a positive integer"},
		{"prompt_tokens=0", "prompt_tokens=0: want a positive integer"},
		{"prompt_tokens=-5", "prompt_tokens=-5: want a positive integer"},
		{"prompt_tokens=1.5", "prompt_tokens=1.5: want a positive integer"},
		{"prompt_tokens=99999999999", "prompt_tokens=99999999999: want a positive integer"},
		{"prompt_tokens=5000000", "prompt_tokens: maximum 5000000 is above the supported 4194304"},
		{"prompt_tokens=1,prompt_tokens=2", `key "prompt_tokens" given twice`},
		{"prompt_tokens=1,prompt-tokens=2", `key "prompt_tokens" given twice`},
		{"output_tokens=128", "prompt_tokens is required"},
		{"prompt_tokens=100,prompt_tokens_min=200", "prompt_tokens: minimum 200 is above maximum 100"},
		{"prompt_tokens=100,prompt_tokens_max=50", "prompt_tokens: minimum 100 is above maximum 50"},
		{"prompt_tokens=10,output_tokens_max=5", "output_tokens_stdev/min/max need output_tokens"},
		{"prompt_tokens=10,prefix_count=3", "prefix_count=3 needs prefix_tokens"},
		{"prompt_tokens=10,samples=0", "samples=0: want a positive integer"},
		{"kind=json_file,path=x", "kind=json_file is not a synthetic data spec"},
		{`{"prompt_tokens": "x"}`, "prompt_tokens=x: want a positive integer"},
		{`{"prompt_tokens": 1.5}`, "prompt_tokens=1.5: want a positive integer"},
		{`{"prompt_tokens": 100`, "not a JSON object"},
		{`{"prompt_tokens": 100} x`, "text after the closing brace"},
		{`{"prompt_tokens":10,"prefix_tokens":5,"prefix_buckets":[{"prefix_tokens":5}]}`, "prefix_buckets excludes prefix_tokens"},
		{`{"prompt_tokens":10,"prefix_buckets":[{"prefix_count":0}]}`, "prefix_buckets[0]: bucket_weight and prefix_count must be positive"},
		{`{"prompt_tokens":10,"prefix_buckets":[{"weight":1}]}`, `prefix_buckets: json: unknown field "weight"`},
		{`{"prompt_tokens":10,"prefix_buckets":[]}`, "prefix_buckets is empty"},
		{"prompt_tokens=10,prefix_buckets=x", "prefix_buckets=x: want a JSON list"},
	} {
		_, err := ParseSpec(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseSpec(%q) error = %v, want one line containing %q", c.in, err, c.want)
		}
	}
}

func TestSpecGuideLLM(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"prompt_tokens=256,output_tokens=128", `{"kind":"synthetic_text","prompt_tokens":256,"output_tokens":128}`},
		{"prompt_tokens=256,prompt_tokens_stdev=8,samples=10,prefix_tokens=64,prefix_count=2",
			`{"kind":"synthetic_text","prompt_tokens":256,"prompt_tokens_stdev":8,"samples":10,"prefix_buckets":[{"bucket_weight":100,"prefix_count":2,"prefix_tokens":64}]}`},
	} {
		sp, err := ParseSpec(c.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(sp.guideLLM()); got != c.want {
			t.Errorf("%s: guideLLM() = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestDistBounds(t *testing.T) {
	for _, c := range []struct {
		d      Dist
		lo, hi int
	}{
		{Dist{Mean: 100}, 100, 100},
		{Dist{Mean: 100, Stdev: 10}, 50, 150},
		{Dist{Mean: 10, Stdev: 10}, 1, 60},
		{Dist{Mean: 100, Stdev: 10, Min: 95}, 95, 150},
		{Dist{Mean: 100, Stdev: 10, Max: 101}, 50, 101},
		{Dist{Mean: 100, Min: 80}, 80, 100},
		{Dist{Mean: 100, Max: 120}, 100, 120},
		{Dist{Mean: 100, Min: 50, Max: 150}, 50, 150},
	} {
		if lo, hi := c.d.Bounds(); lo != c.lo || hi != c.hi {
			t.Errorf("%+v.Bounds() = %d, %d; want %d, %d", c.d, lo, hi, c.lo, c.hi)
		}
	}
}

// TestDistSample checks GuideLLM's three rules on 40,000 draws each, with
// tolerances of five standard errors.
func TestDistSample(t *testing.T) {
	const n = 40000
	rng := rand.New(rand.NewPCG(1, 2))
	draws := func(d Dist) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = d.Sample(rng)
		}
		return out
	}
	meanSD := func(xs []int) (float64, float64) {
		var s, ss float64
		for _, x := range xs {
			s += float64(x)
		}
		m := s / float64(len(xs))
		for _, x := range xs {
			ss += (float64(x) - m) * (float64(x) - m)
		}
		return m, math.Sqrt(ss / float64(len(xs)-1))
	}
	count := func(xs []int, v int) int {
		c := 0
		for _, x := range xs {
			if x == v {
				c++
			}
		}
		return c
	}
	inRange := func(name string, xs []int, lo, hi int) {
		t.Helper()
		for _, x := range xs {
			if x < lo || x > hi {
				t.Fatalf("%s: draw %d outside [%d, %d]", name, x, lo, hi)
			}
		}
	}

	// Constant.
	for _, x := range draws(Dist{Mean: 77}) {
		if x != 77 {
			t.Fatalf("constant: got %d, want 77", x)
		}
	}

	// Uniform integer in [50, 150]: every value appears about n/101 times.
	u := draws(Dist{Mean: 100, Min: 50, Max: 150})
	inRange("uniform", u, 50, 150)
	p := 1.0 / 101
	tol := 5 * math.Sqrt(n*p*(1-p))
	for v := 50; v <= 150; v++ {
		if c := float64(count(u, v)); math.Abs(c-n*p) > tol {
			t.Errorf("uniform: value %d drawn %v times, want %.0f ± %.0f", v, c, n*p, tol)
		}
	}
	// Only a minimum: uniform in [min, mean].
	inRange("uniform min", draws(Dist{Mean: 100, Min: 90}), 90, 100)
	// Only a maximum: uniform in [mean, max].
	inRange("uniform max", draws(Dist{Mean: 100, Max: 110}), 100, 110)

	// Normal, default bounds: mean and stdev within 5 standard errors.
	g := draws(Dist{Mean: 1000, Stdev: 100})
	inRange("normal", g, 500, 1500)
	m, sd := meanSD(g)
	if se := 100 / math.Sqrt(n); math.Abs(m-1000) > 5*se {
		t.Errorf("normal: mean %.2f, want 1000 ± %.2f", m, 5*se)
	}
	if se := 100 / math.Sqrt(2*n); math.Abs(sd-100) > 5*se {
		t.Errorf("normal: stdev %.2f, want 100 ± %.2f", sd, 5*se)
	}
	// Normal clamped to [90, 110] with stdev 50: P(x rounds to ≤ 90) =
	// Φ((90.5−100)/50) = Φ(−0.19) = 0.42465.
	c := draws(Dist{Mean: 100, Stdev: 50, Min: 90, Max: 110})
	inRange("clamped", c, 90, 110)
	p = 0.42465
	if got, tol := float64(count(c, 90)), 5*math.Sqrt(n*p*(1-p)); math.Abs(got-n*p) > tol {
		t.Errorf("clamped: %v draws at the minimum, want %.0f ± %.0f", got, n*p, tol)
	}
	// The default minimum is at least 1.
	inRange("min 1", draws(Dist{Mean: 3, Stdev: 10}), 1, 53)
}

func TestDistSampleReproducible(t *testing.T) {
	d := Dist{Mean: 500, Stdev: 100}
	a := rand.New(rand.NewPCG(7, 8))
	b := rand.New(rand.NewPCG(7, 8))
	for i := range 1000 {
		if x, y := d.Sample(a), d.Sample(b); x != y {
			t.Fatalf("draw %d: %d != %d with the same seed", i, x, y)
		}
	}
}
