package compare

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
)

func costRow(name string, ratios ...float64) CostRow {
	r := CostRow{Name: name}
	for _, v := range ratios {
		r.GoodputUS = append(r.GoodputUS, 2*v) // the minimal client at 2 µs
		r.MinUS = append(r.MinUS, 2)
	}
	return r
}

func costDoc(rows ...CostRow) *ClientCost {
	return &ClientCost{Layout: ClientCostLayout, Machine: "2cpu-amd64", Rows: rows}
}

func TestCompareClientCost(t *testing.T) {
	// Baseline median ratio 1.0; the limit 10 %: a regression needs a
	// median above 1.1 and every one of 5 pairs (the median's 93.75 %
	// interval is [min, max]) above 1.0.
	base := costDoc(costRow("zero", 1.0, 1.02, 0.98, 1.01, 0.99))
	tests := []struct {
		name   string
		ratios []float64
		status Status
		pass   bool
	}{
		{"20 % slower in every pair", []float64{1.2, 1.25, 1.15, 1.22, 1.18}, StatusRegression, false},
		{"median up, one pair at the baseline", []float64{1.2, 1.25, 0.95, 1.22, 1.18}, StatusWithinNoise, true},
		{"within the limit", []float64{1.05, 1.08, 1.03, 1.09, 1.06}, StatusOK, true},
		{"20 % cheaper", []float64{0.8, 0.85, 0.75, 0.82, 0.78}, StatusImproved, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := CompareClientCost(base, costDoc(costRow("zero", tt.ratios...)), "b", "c", 10)
			if err != nil {
				t.Fatal(err)
			}
			v := res.Rows[0]
			if v.Status != tt.status || res.Pass != tt.pass {
				t.Fatalf("status %s pass %v, want %s %v (%+v)", v.Status, res.Pass, tt.status, tt.pass, v)
			}
			if v.BaseMedian != 1.0 || v.Confidence != 0.9375 {
				t.Errorf("baseline median %v, coverage %v; want 1 and 0.9375", v.BaseMedian, v.Confidence)
			}
		})
	}
}

func TestCompareClientCostRows(t *testing.T) {
	base := costDoc(costRow("a", 1, 1, 1), costRow("b", 1, 1, 1))
	cur := costDoc(costRow("a", 1.5, 1.5, 1.5), costRow("c", 1, 1, 1))
	res, err := CompareClientCost(base, cur, "b", "c", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 1 || res.Rows[0].Name != "a" || res.Pass {
		t.Fatalf("rows %+v pass %v: want row a, failed", res.Rows, res.Pass)
	}
	if got := strings.Join(res.Unmatched, ";"); got != "current: c;baseline: b" {
		t.Errorf("unmatched %q", got)
	}
	var out bytes.Buffer
	if err := res.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"regression", "+50.0%", "FAIL", "not compared (only in baseline: b)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, out.String())
		}
	}
	if _, err := CompareClientCost(base, costDoc(costRow("z", 1)), "b", "c", 10); !errors.Is(err, ErrNoMatch) {
		t.Errorf("no common row: %v, want ErrNoMatch", err)
	}
}

func TestMedianInterval(t *testing.T) {
	// 10 values: P(Bin(10, ½) ≤ 1) = 11/1024, so [2nd, 9th] covers
	// 1 − 22/1024; [3rd, 8th] would cover 1 − 112/1024 < 90 %.
	v := []float64{10, 1, 9, 2, 8, 3, 7, 4, 6, 5}
	lo, hi, c := medianInterval(v)
	if lo != 2 || hi != 9 || math.Abs(c-(1-22.0/1024)) > 1e-12 {
		t.Errorf("got [%v, %v] at %v", lo, hi, c)
	}
	if m := median(v); m != 5.5 {
		t.Errorf("median %v, want 5.5", m)
	}
}

func TestDecodeClientCost(t *testing.T) {
	good := `{"layout":"goodput-client-cost/v1","machine":"m","rows":[{"name":"a","goodput_us_per_token":[2.2],"minclient_us_per_token":[4.4]}]}`
	if !IsClientCost([]byte(good)) || IsClientCost([]byte(`{"benchmarks":[]}`)) {
		t.Fatal("IsClientCost misjudges the layouts")
	}
	c, err := DecodeClientCost(strings.NewReader(good), "f")
	if err != nil || c.Rows[0].Ratios()[0] != 0.5 {
		t.Fatalf("%+v %v", c, err)
	}
	for bad, msg := range map[string]string{
		`{"layout":"goodput-client-cost/v1","rows":[{"name":"a","goodput_us_per_token":[1],"minclient_us_per_token":[]}]}`:  `row "a": want as many`,
		`{"layout":"goodput-client-cost/v1","rows":[{"name":"a","goodput_us_per_token":[0],"minclient_us_per_token":[1]}]}`: "want a positive number",
		`{"layout":"goodput-client-cost/v1","extra":1}`:                                                                     `unknown field "extra"`,
	} {
		if _, err := DecodeClientCost(strings.NewReader(bad), "f"); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: error %v, want %q", bad, err, msg)
		}
	}
}

// The rank test's one-sided p-values, by hand: five pairs all above five
// baseline pairs give U = 25 of 25, z = (25 − 12.5 − 0.5) / √(25·11/12)
// = 2.5067, p = 0.00609; one of them at the baseline gives U = 20, z =
// 1.4623, p = 0.0718. Ties count one half and shrink the variance.
func TestRankShiftP(t *testing.T) {
	base := []float64{1.0, 1.02, 0.98, 1.01, 0.99}
	for _, c := range []struct {
		x    []float64
		want float64
	}{
		{[]float64{1.2, 1.25, 1.15, 1.22, 1.18}, 0.00609},
		{[]float64{1.2, 1.25, 0.95, 1.22, 1.18}, 0.0718},
		// The same pairs: U = 10 + 5·½ = 12.5, five ties of 2 (Σ t³−t = 30),
		// variance 25/12·(11 − 30/90) = 22.22, z = −0.5/4.714, p = 0.5422.
		{base, 0.5422},
	} {
		if got := rankShiftP(c.x, base); math.Abs(got-c.want) > 5e-5 {
			t.Errorf("%v: p %.5f, want %.5f", c.x, got, c.want)
		}
	}
	// Three pairs at 1.5 against three at 1: U = 9, ties 2·(3³−3) = 48,
	// variance 9/12·(7 − 48/30) = 4.05, z = 4/2.0125 = 1.9876, p = 0.0234.
	if got := rankShiftP([]float64{1.5, 1.5, 1.5}, []float64{1, 1, 1}); math.Abs(got-0.0234) > 5e-4 {
		t.Errorf("tied samples: p %.4f, want 0.0234", got)
	}
}

// The committed baseline's 27 pairs against a run whose token path was
// made slower in every pair but one (the median ratio 2.44 → 3.43): a
// regression, though the one pair keeps the median's interval over the
// baseline's median (the interval rule passed it).
func TestClientCostSlowerTokenPath(t *testing.T) {
	base := costDoc(costRow("zero", 1.8, 3.29, 2.44, 2.53, 2.83, 3.02, 2.57, 2.81, 2.84, 2.05, 1.72, 2.37, 3.47, 3.32, 2.26, 1.92, 2.73, 3.4, 2.46, 2.25, 2.22, 2.42, 1.98, 2.2, 3.3, 2.07, 2.02))
	res, err := CompareClientCost(base, costDoc(costRow("zero", 3.43, 2.26, 4.14, 3.6, 3.3)), "b", "c", 10)
	if err != nil {
		t.Fatal(err)
	}
	if v := res.Rows[0]; v.Status != StatusRegression || res.Pass || v.Low > v.BaseMedian || v.P >= costAlpha {
		t.Errorf("%+v pass %v; want a regression by the rank test", v, res.Pass)
	}
}
