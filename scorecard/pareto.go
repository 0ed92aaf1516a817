package scorecard

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/goodput-dev/goodput/slo"
)

// Entry is one run in an aggregate: its row and where it came from.
type Entry struct {
	// Name identifies the run in verdicts: its run id, made unique.
	Name string
	Row  Row
	// Path is the scorecard (or report) file.
	Path string
	// JSON is the row as read (the file's bytes for a scorecard, the
	// built row's encoding for a report), flattened for the CSV.
	JSON []byte
}

// Pareto statuses.
const (
	StatusFrontier  = "frontier"   // no eligible run dominates it
	StatusDominated = "dominated"  // another eligible run dominates it
	StatusBreaksSLO = "breaks_slo" // outside the SLO: not a candidate
	StatusUnranked  = "unranked"   // meets the SLO but lacks an axis
)

// Verdict is a run's place relative to the Pareto frontier over (cost per
// million tokens, energy per token, TTFT P99), all minimised.
type Verdict struct {
	Status string
	// Reason explains the status: which frontier runs dominate it and
	// how, which SLO objectives it breaks, which axis it lacks.
	Reason string
	// DominatedBy lists the frontier runs that dominate it.
	DominatedBy []string
	// SLO says how the SLO was judged: "pass", "fail", or "none" (no SLO
	// declared and no --slo).
	SLO string
}

// Judge is how rows are held to an SLO in an aggregate.
type Judge struct {
	// Spec, when set (--slo), re-judges every row against it from the
	// row's performance block; otherwise each row keeps its own verdict
	// (performance.slo_pass) or is judged against the thresholds in its
	// metadata (slo_ttft_p99_ms, slo_itl_p95_ms, slo_error_rate).
	Spec *slo.Spec
}

// ParseJudgeSpec parses an --slo spec for judging scorecard rows: only the
// objectives a row carries can be judged, ttft_p99, itl_p95 and
// error_rate.
func ParseJudgeSpec(s string) (*slo.Spec, error) {
	spec, err := slo.Parse(s)
	if err != nil {
		return nil, err
	}
	for _, o := range spec.Objectives {
		if _, ok := rowMetric(o); !ok {
			return nil, fmt.Errorf("--slo %q: objective %s cannot be judged from a scorecard row, which carries ttft_p99, itl_p95 and error_rate", s, o.Key())
		}
	}
	if len(spec.Objectives) == 0 {
		return nil, fmt.Errorf("--slo %q: no objective; want e.g. ttft_p99=500ms,itl_p95=50ms", s)
	}
	return &spec, nil
}

// rowObjective is an objective a scorecard row carries (its metric,
// statistic and percentile): its threshold in the row's metadata, its
// value in the row's performance.
type rowObjective struct {
	slo.Objective
	limit func(*Metadata) *Num
	value func(*Performance) Num
}

// rowObjectives are the objectives a row can be judged on.
var rowObjectives = []rowObjective{
	{slo.Objective{Metric: slo.TTFT, Stat: slo.Percentile, Percentile: 99},
		func(m *Metadata) *Num { return &m.SLOTTFTP99Ms }, func(p *Performance) Num { return p.TTFTP99Ms }},
	{slo.Objective{Metric: slo.ITL, Stat: slo.Percentile, Percentile: 95},
		func(m *Metadata) *Num { return &m.SLOITLP95Ms }, func(p *Performance) Num { return p.ITLP95Ms }},
	{slo.Objective{Metric: slo.ErrorRate},
		func(m *Metadata) *Num { return &m.SLOErrorRate }, func(p *Performance) Num { return p.ErrorRate }},
}

// rowMetric returns the row's value for an objective.
func rowMetric(o slo.Objective) (func(*Performance) Num, bool) {
	for _, ro := range rowObjectives {
		if ro.Key() == o.Key() {
			return ro.value, true
		}
	}
	return nil, false
}

// threshold is one objective judged on a row: value ≤ limit passes.
type threshold struct {
	key   string
	limit float64
	value func(*Performance) Num
	ms    bool
}

// judge returns "pass", "fail" with the broken objectives, or "none".
func (j Judge) judge(r *Row) (string, []string) {
	var ts []threshold
	switch {
	case j.Spec != nil:
		for _, o := range j.Spec.Objectives {
			f, _ := rowMetric(o)
			ts = append(ts, threshold{key: o.Key(), limit: o.Threshold, value: f, ms: o.Metric != slo.ErrorRate})
		}
	case r.Performance != nil && r.Performance.SLOPass != nil:
		if *r.Performance.SLOPass {
			return "pass", nil
		}
		fails := r.Performance.SLOFailures
		if len(fails) == 0 {
			fails = []string{"the run's own SLO verdict is fail"}
		}
		return "fail", fails
	default:
		md := r.Metadata
		for _, ro := range rowObjectives {
			if l := ro.limit(&md); l.Valid {
				ts = append(ts, threshold{key: ro.Key(), limit: l.V, value: ro.value, ms: ro.Metric != slo.ErrorRate})
			}
		}
		if len(ts) == 0 {
			return "none", nil
		}
	}
	var fails []string
	for _, t := range ts {
		name := objectiveName(t.key)
		var v Num
		if r.Performance != nil {
			v = t.value(r.Performance)
		}
		switch {
		case !v.Valid:
			fails = append(fails, name+" has no value to judge")
		case v.V > t.limit && t.ms:
			fails = append(fails, fmt.Sprintf("%s %s > %s ms", name, formatNum(v.V), formatNum(t.limit)))
		case v.V > t.limit:
			fails = append(fails, fmt.Sprintf("%s %s > %s", name, pct(v.V), pct(t.limit)))
		}
	}
	if len(fails) > 0 {
		return "fail", fails
	}
	return "pass", nil
}

// axes are the three minimised objectives of the frontier.
type axes struct{ cpm, wh, ttft float64 }

func rowAxes(r *Row) (axes, []string) {
	var missing []string
	a := axes{}
	if r.Cost != nil && r.Cost.CPMEUR1M.Valid {
		a.cpm = r.Cost.CPMEUR1M.V
	} else {
		missing = append(missing, "cost.cpm_eur_1m")
	}
	if r.Energy != nil && r.Energy.WhPerToken.Valid {
		a.wh = r.Energy.WhPerToken.V
	} else {
		missing = append(missing, "energy.wh_per_token")
	}
	if r.Performance != nil && r.Performance.TTFTP99Ms.Valid {
		a.ttft = r.Performance.TTFTP99Ms.V
	} else {
		missing = append(missing, "performance.ttft_p99_ms")
	}
	return a, missing
}

// dominates reports whether a dominates b: no worse on every axis and
// better on at least one.
func dominates(a, b axes) bool {
	return a.cpm <= b.cpm && a.wh <= b.wh && a.ttft <= b.ttft && (a.cpm < b.cpm || a.wh < b.wh || a.ttft < b.ttft)
}

// rowCurrency is the currency of a row's cost, EUR when unsaid (the
// article's keys are in euros).
func rowCurrency(r *Row) string {
	if r.Cost == nil || r.Cost.Currency == "" {
		return DefaultCurrency
	}
	return r.Cost.Currency
}

// Frontier judges every entry against the SLO and places the runs that
// meet it on the Pareto frontier over (cost per million tokens, Wh per
// token, TTFT P99), all minimised: i dominates j when it is no worse on all
// three and better on at least one. Runs whose cost is in another currency
// than most eligible runs are unranked (their costs cannot be compared).
// The result is parallel to entries.
func Frontier(entries []Entry, j Judge) []Verdict {
	out := make([]Verdict, len(entries))
	ax := make([]axes, len(entries))
	eligible := make([]bool, len(entries))
	currencies := map[string]int{}
	for i := range entries {
		r := &entries[i].Row
		verdict, fails := j.judge(r)
		out[i].SLO = verdict
		if verdict == "fail" {
			out[i].Status, out[i].Reason = StatusBreaksSLO, "breaks the SLO: "+strings.Join(fails, ", ")
			continue
		}
		a, missing := rowAxes(r)
		if len(missing) > 0 {
			out[i].Status, out[i].Reason = StatusUnranked, "not ranked: no "+strings.Join(missing, ", ")
			continue
		}
		ax[i], eligible[i] = a, true
		currencies[rowCurrency(r)]++
	}
	ref := ""
	for _, c := range slices.Sorted(maps.Keys(currencies)) {
		if ref == "" || currencies[c] > currencies[ref] {
			ref = c
		}
	}
	for i := range entries {
		if eligible[i] && rowCurrency(&entries[i].Row) != ref {
			eligible[i] = false
			out[i].Status = StatusUnranked
			out[i].Reason = fmt.Sprintf("not ranked: its cost is in %s, the other runs' in %s (goodput converts no currency)", rowCurrency(&entries[i].Row), ref)
		}
	}
	for i := range entries {
		if !eligible[i] {
			continue
		}
		dominated := false
		for k := range entries {
			if k != i && eligible[k] && dominates(ax[k], ax[i]) {
				dominated = true
				break
			}
		}
		if !dominated {
			out[i].Status = StatusFrontier
			out[i].Reason = "on the frontier"
		}
	}
	for i := range entries {
		if !eligible[i] || out[i].Status == StatusFrontier {
			continue
		}
		var by, how []string
		for k := range entries {
			if eligible[k] && out[k].Status == StatusFrontier && dominates(ax[k], ax[i]) {
				by = append(by, entries[k].Name)
				how = append(how, fmt.Sprintf("%s: %s/1M %s ≤ %s, Wh/tok %s ≤ %s, TTFT P99 %s ≤ %s ms", entries[k].Name, ref,
					formatNum(ax[k].cpm), formatNum(ax[i].cpm), formatNum(ax[k].wh), formatNum(ax[i].wh), formatNum(ax[k].ttft), formatNum(ax[i].ttft)))
			}
		}
		out[i].Status, out[i].DominatedBy = StatusDominated, by
		out[i].Reason = "dominated by " + strings.Join(by, ", ") + " (" + strings.Join(how, "; ") + ")"
	}
	return out
}
