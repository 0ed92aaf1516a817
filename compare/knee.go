package compare

import (
	"fmt"

	"github.com/goodput-dev/goodput/report"
)

// KneeComparison compares the knees of two runs (both goodput reports of
// a sweep or knee search).
type KneeComparison struct {
	Baseline string `json:"baseline"` // the knee in words
	Current  string `json:"current"`
	Rows     []Row  `json:"rows"`
}

// Row keys of the knee section besides MetricKnee.
const (
	kneeGoodput = "knee_goodput"
	kneeTTFTP99 = "knee_ttft_p99"
	kneeITLP95  = "knee_itl_p95"
)

func kneeOf(r *report.Report) *report.Knee {
	if r.Run == nil {
		return nil
	}
	return r.Run.Knee
}

func sloOf(r *report.Report) string {
	if r.Run == nil || r.Run.SLO == nil {
		return ""
	}
	return r.Run.SLO.Spec
}

func kneeWords(k *report.Knee) string {
	if !k.Found {
		return "no knee: " + k.Reason
	}
	s := fmt.Sprintf("%s: %s/s", k.Mode, fmtLoad(float64(k.Rate)))
	if k.Streams > 0 {
		s = fmt.Sprintf("%s: %d streams", k.Mode, k.Streams)
	}
	return fmt.Sprintf("%s, goodput %.1f out tok/s", s, float64(k.GoodputOutputTokS))
}

// knee compares the runs' knees; nil when either run has none.
func (c *comparer) knee(base, cur *report.Report) *KneeComparison {
	bk, ck := kneeOf(base), kneeOf(cur)
	if bk == nil || ck == nil {
		return nil
	}
	kc := &KneeComparison{Baseline: kneeWords(bk), Current: kneeWords(ck)}
	row := func(key, title string, limit Limit, higher bool, bv, cv *float64, note string) Row {
		r := Row{Metric: key, Title: title, Baseline: bv, Current: cv, Note: note, limit: limit, higher: higher}
		if bv != nil && cv != nil {
			r.NoiseNote = "a knee has no noise estimate: gated on the threshold alone"
		}
		c.judge(&r)
		return r
	}
	loadTitle, bl, cl := "Knee load (req/s)", float64(bk.Rate), float64(ck.Rate)
	if bk.Streams > 0 && ck.Streams > 0 {
		loadTitle, bl, cl = "Knee load (streams)", float64(bk.Streams), float64(ck.Streams)
	}
	kneeLimit, goodputLimit := c.limits[MetricKnee], c.limits[MetricGoodput]
	if bs, cs := sloOf(base), sloOf(cur); bs != cs {
		note := fmt.Sprintf("the SLOs differ (%q vs %q): knees are not comparable", bs, cs)
		kc.Rows = append(kc.Rows, row(MetricKnee, loadTitle, kneeLimit, true, nil, nil, note))
		return kc
	}
	switch {
	case bk.Found && ck.Found:
		kc.Rows = append(kc.Rows,
			row(MetricKnee, loadTitle, kneeLimit, true, ptr(bl), ptr(cl), ""),
			row(kneeGoodput, "Goodput at the knee (out tok/s)", goodputLimit, true,
				ptr(float64(bk.GoodputOutputTokS)), ptr(float64(ck.GoodputOutputTokS)), ""))
		note := ""
		if bl != cl {
			note = "at different loads: not gated"
		}
		kc.Rows = append(kc.Rows,
			row(kneeTTFTP99, "TTFT p99 at the knee (ms)", Limit{}, false, ptr(float64(bk.TTFTP99Ms)), ptr(float64(ck.TTFTP99Ms)), note),
			row(kneeITLP95, "ITL p95 at the knee (ms)", Limit{}, false, ptr(float64(bk.ITLP95Ms)), ptr(float64(ck.ITLP95Ms)), note))
	case bk.Found && !ck.Found && noRoundPassed(cur):
		// Every round of the current run broke the SLO where the
		// baseline had a knee: the capacity under the SLO fell below
		// the lowest load tested.
		r := row(MetricKnee, loadTitle, kneeLimit, true, ptr(bl), nil, "current: no round met the SLO ("+ck.Reason+")")
		if kneeLimit.Kind != LimitOff {
			r.Crossed, r.Status = true, StatusRegression
		}
		kc.Rows = append(kc.Rows, r)
	default:
		var bv, cv *float64
		if bk.Found {
			bv = ptr(bl)
		}
		if ck.Found {
			cv = ptr(cl)
		}
		note := "baseline has no knee (" + bk.Reason + ")"
		if bk.Found {
			note = "current has no knee (" + ck.Reason + ")"
		}
		kc.Rows = append(kc.Rows, row(MetricKnee, loadTitle, kneeLimit, true, bv, cv, note))
	}
	return kc
}

// noRoundPassed says every benchmark of r has an SLO result and none
// passed.
func noRoundPassed(r *report.Report) bool {
	if len(r.Benchmarks) == 0 {
		return false
	}
	for _, b := range r.Benchmarks {
		if b.Extras == nil || b.Extras.SLO == nil || b.Extras.SLO.Pass {
			return false
		}
	}
	return true
}
