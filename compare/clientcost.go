package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// ClientCostLayout is the layout tag of a client-cost report, the file
// `make bench` and `make bench-gate` write (bench/suite -json).
const ClientCostLayout = "goodput-client-cost/v1"

// DefaultClientCostLimit is the default threshold of the client-cost gate:
// how much goodput's CPU per token ÷ the minimal client's may rise, in
// percent, before the gate fails.
const DefaultClientCostLimit = 10

// ClientCost is a client-cost report: goodput's CPU per token measured side
// by side with a minimal client (bench/minclient) under the same loads, in
// alternating pairs, so that the ratio of the two, not the machine's
// absolute speed, is compared between runs.
type ClientCost struct {
	Layout  string `json:"layout"` // ClientCostLayout
	Machine string `json:"machine"`
	Created string `json:"created,omitempty"`
	Commit  string `json:"commit,omitempty"`
	// Rows are the gated loads.
	Rows []CostRow `json:"rows"`
}

// CostRow is one load: per pair, goodput's and the minimal client's CPU
// per received token (µs), run one after the other against the same kind
// of mock.
type CostRow struct {
	Name      string    `json:"name"` // e.g. "zero-delay, 16 streams"
	GoodputUS []float64 `json:"goodput_us_per_token"`
	MinUS     []float64 `json:"minclient_us_per_token"`
}

// Ratios are the row's per-pair ratios goodput ÷ minimal client.
func (r CostRow) Ratios() []float64 {
	out := make([]float64, 0, len(r.GoodputUS))
	for i := range min(len(r.GoodputUS), len(r.MinUS)) {
		out = append(out, r.GoodputUS[i]/r.MinUS[i])
	}
	return out
}

// IsClientCost reports whether data (a JSON document) is a client-cost
// report.
func IsClientCost(data []byte) bool {
	var probe struct {
		Layout string `json:"layout"`
	}
	return json.Unmarshal(data, &probe) == nil && probe.Layout == ClientCostLayout
}

// DecodeClientCost reads a client-cost report; name is used in errors.
func DecodeClientCost(r io.Reader, name string) (*ClientCost, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var c ClientCost
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%s: client-cost report: %w", name, err)
	}
	if c.Layout != ClientCostLayout {
		return nil, fmt.Errorf("%s: layout %q: want %q", name, c.Layout, ClientCostLayout)
	}
	for _, row := range c.Rows {
		if len(row.GoodputUS) != len(row.MinUS) || len(row.GoodputUS) == 0 {
			return nil, fmt.Errorf("%s: row %q: want as many goodput_us_per_token as minclient_us_per_token values, at least one", name, row.Name)
		}
		for _, v := range slices.Concat(row.GoodputUS, row.MinUS) {
			if !(v > 0) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%s: row %q: CPU per token %v: want a positive number", name, row.Name, v)
			}
		}
	}
	return &c, nil
}

// CostVerdict is one row's judgement.
type CostVerdict struct {
	Name string `json:"name"`
	// BaseMedian and CurMedian are the median ratios; Low and High the
	// current median's order-statistic interval (Confidence its coverage).
	BaseMedian float64 `json:"baseline_median_ratio"`
	CurMedian  float64 `json:"current_median_ratio"`
	Low        float64 `json:"current_low"`
	High       float64 `json:"current_high"`
	Confidence float64 `json:"confidence"`
	Change     float64 `json:"change_pct"` // CurMedian vs BaseMedian
	// P is the one-sided p-value of the rank test that the current pairs'
	// ratios run higher (for a rise) or lower (for a fall) than the
	// baseline's pairs.
	P      float64 `json:"p"`
	Status Status  `json:"status"`
}

// costAlpha is the rank test's level: a shift of the ratios is taken as
// real below it.
const costAlpha = 0.05

// CostResult is a client-cost comparison.
type CostResult struct {
	Baseline, Current string
	LimitPct          float64
	Pass              bool
	Rows              []CostVerdict
	Unmatched         []string
}

// CompareClientCost judges each load of cur against the same-named load of
// base. A row regresses when both hold: the current median ratio exceeds
// the baseline's median ratio by more than limitPct percent, and a
// Mann–Whitney rank test of the current pairs' ratios against the
// baseline's pairs finds them higher at the 5 % level (one-sided): the
// rise is in the pairs as a whole, beyond their spread, not one bad pair.
// It improves on the mirror conditions. The current median's
// order-statistic interval is reported beside it. Rows present in only
// one report are listed, not gated; no common row is ErrNoMatch.
func CompareClientCost(base, cur *ClientCost, baseName, curName string, limitPct float64) (*CostResult, error) {
	res := &CostResult{Baseline: baseName, Current: curName, LimitPct: limitPct, Pass: true}
	byName := map[string]CostRow{}
	for _, r := range base.Rows {
		byName[r.Name] = r
	}
	seen := map[string]bool{}
	for _, c := range cur.Rows {
		b, ok := byName[c.Name]
		if !ok {
			res.Unmatched = append(res.Unmatched, "current: "+c.Name)
			continue
		}
		seen[c.Name] = true
		v := CostVerdict{Name: c.Name, BaseMedian: median(b.Ratios())}
		ratios := c.Ratios()
		v.CurMedian = median(ratios)
		v.Low, v.High, v.Confidence = medianInterval(ratios)
		v.Change = (v.CurMedian/v.BaseMedian - 1) * 100
		up := v.BaseMedian * (1 + limitPct/100)
		down := v.BaseMedian * (1 - limitPct/100)
		higher := rankShiftP(ratios, b.Ratios())
		v.P = higher
		if v.CurMedian < v.BaseMedian {
			v.P = rankShiftP(b.Ratios(), ratios)
		}
		switch {
		case v.CurMedian > up && higher < costAlpha:
			v.Status = StatusRegression
			res.Pass = false
		case v.CurMedian > up:
			v.Status = StatusWithinNoise
		case v.CurMedian < down && v.P < costAlpha:
			v.Status = StatusImproved
		default:
			v.Status = StatusOK
		}
		res.Rows = append(res.Rows, v)
	}
	for _, b := range base.Rows {
		if !seen[b.Name] {
			res.Unmatched = append(res.Unmatched, "baseline: "+b.Name)
		}
	}
	if len(res.Rows) == 0 {
		return nil, fmt.Errorf("%w: no load of %s is in %s", ErrNoMatch, curName, baseName)
	}
	return res, nil
}

// median of v (the mean of the middle two for an even count).
func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// rankShiftP is the one-sided p-value of the Mann–Whitney U test that x
// runs higher than y: the normal approximation with continuity and tie
// corrections (ties count one half).
func rankShiftP(x, y []float64) float64 {
	n1, n2 := float64(len(x)), float64(len(y))
	if n1 == 0 || n2 == 0 {
		return 1
	}
	u := 0.0
	for _, a := range x {
		for _, b := range y {
			switch {
			case a > b:
				u++
			case a == b:
				u += 0.5
			}
		}
	}
	all := slices.Concat(x, y)
	slices.Sort(all)
	ties := 0.0
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j] == all[i] {
			j++
		}
		t := float64(j - i)
		ties += t*t*t - t
		i = j
	}
	n := n1 + n2
	variance := n1 * n2 / 12 * ((n + 1) - ties/(n*(n-1)))
	if variance <= 0 {
		return 1
	}
	z := (u - n1*n2/2 - 0.5) / math.Sqrt(variance)
	return 0.5 * math.Erfc(z/math.Sqrt2)
}

// medianInterval is the distribution-free confidence interval of the
// median of v: the k-th smallest and k-th largest values for the largest k
// whose coverage 1 − 2·P(Binomial(n, ½) < k) is at least 90 %, or the
// extremes (k = 1) when no k reaches it. It returns the ends and the
// coverage; with 5 values the interval is [min, max] at 93.75 %.
func medianInterval(v []float64) (lo, hi, coverage float64) {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	k := 1
	coverage = 1 - 2*binomCDF(n, 0)
	for j := 2; j <= n/2; j++ {
		c := 1 - 2*binomCDF(n, j-1)
		if c < 0.9 {
			break
		}
		k, coverage = j, c
	}
	return s[k-1], s[n-k], coverage
}

// binomCDF is P(Binomial(n, ½) ≤ x).
func binomCDF(n, x int) float64 {
	sum, c := 0.0, 1.0 // c = C(n, i)
	for i := 0; i <= x; i++ {
		sum += c
		c = c * float64(n-i) / float64(i+1)
	}
	return sum / math.Pow(2, float64(n))
}

// WriteText writes the comparison as a table and its verdict.
func (r *CostResult) WriteText(w io.Writer) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "client cost: goodput CPU per token ÷ minimal client's (bench/minclient), side by side\nbaseline: %s\ncurrent:  %s\n", r.Baseline, r.Current)
	fmt.Fprintf(&b, "rule: regression when the median ratio rises by more than %g%% and a rank test finds the pairs'\nratios higher than the baseline's (one-sided p < %g)\n\n", r.LimitPct, costAlpha)
	fmt.Fprintf(&b, "%-26s %8s %8s %7s %19s %6s  %s\n", "load", "baseline", "current", "change", "current interval", "p", "verdict")
	for _, v := range r.Rows {
		iv := fmt.Sprintf("%.3f–%.3f (%.0f%%)", v.Low, v.High, v.Confidence*100)
		fmt.Fprintf(&b, "%-26s %7.3f× %7.3f× %+6.1f%% %19s %6.3f  %s\n", v.Name, v.BaseMedian, v.CurMedian, v.Change, iv, v.P, strings.ReplaceAll(string(v.Status), "_", " "))
	}
	for _, u := range r.Unmatched {
		fmt.Fprintf(&b, "not compared (only in %s)\n", u)
	}
	if r.Pass {
		b.WriteString("\nPASS\n")
	} else {
		b.WriteString("\nFAIL: goodput's CPU per token regressed against the minimal client\n")
	}
	_, err := w.Write(b.Bytes())
	return err
}

// ReadClientCostFile reads path as a client-cost report; ok is false (and
// err nil) when the file is another kind of JSON (a benchmark report).
func ReadClientCostFile(data []byte, name string) (c *ClientCost, ok bool, err error) {
	if !IsClientCost(data) {
		return nil, false, nil
	}
	c, err = DecodeClientCost(bytes.NewReader(data), name)
	if err != nil {
		return nil, true, err
	}
	return c, true, nil
}
