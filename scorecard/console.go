package scorecard

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteFrontier prints the aggregate's table: one line per run, frontier
// runs first, then dominated, unranked and SLO-breaking runs, each with
// its reason. sloNote says which SLO judged the runs.
func WriteFrontier(w io.Writer, entries []Entry, verdicts []Verdict, sloNote string) error {
	cur := ""
	for i, e := range entries {
		if verdicts[i].Status == StatusFrontier || verdicts[i].Status == StatusDominated {
			cur = rowCurrency(&e.Row)
			break
		}
	}
	if cur == "" {
		cur = DefaultCurrency
	}
	fmt.Fprintf(w, "Pareto frontier over %s/1M tok, Wh/tok and TTFT P99 (all minimised), among the runs that meet the SLO (%s)\n", cur, sloNote)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "run\t%s/1M tok\tgoodput tok/s\tWh/tok\tTTFT P99 ms\tITL P95 ms\tverdict\n", cur)
	n := 0
	for _, status := range []string{StatusFrontier, StatusDominated, StatusUnranked, StatusBreaksSLO} {
		for i, e := range entries {
			v := verdicts[i]
			if v.Status != status {
				continue
			}
			n++
			r := &e.Row
			var cpm, gp, wh, ttft, itl Num
			if r.Cost != nil {
				cpm = r.Cost.CPMEUR1M
			}
			if r.Energy != nil {
				wh = r.Energy.WhPerToken
			}
			if p := r.Performance; p != nil {
				gp, ttft, itl = p.GoodputTokS, p.TTFTP99Ms, p.ITLP95Ms
			}
			verdict := v.Status
			switch v.Status {
			case StatusDominated:
				verdict = "dominated by " + strings.Join(v.DominatedBy, ", ")
			case StatusBreaksSLO, StatusUnranked:
				verdict = v.Reason
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Name, sig(cpm, 3), sig(gp, 0), sig(wh, 3), sig(ttft, 0), sig(itl, 0), verdict)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var front []string
	for i, v := range verdicts {
		if v.Status == StatusFrontier {
			front = append(front, entries[i].Name)
		}
	}
	if len(front) == 0 {
		_, err := fmt.Fprintf(w, "frontier: empty (no run meets the SLO with all three axes measured)\n")
		return err
	}
	_, err := fmt.Fprintf(w, "frontier: {%s}\n", strings.Join(front, ", "))
	return err
}

// sig formats a value for a table: decimals fixed (digits ≥ 1) or, for
// digits 3, three significant digits below 1; "-" when not valid.
func sig(n Num, digits int) string {
	if !n.Valid {
		return "-"
	}
	v := n.V
	switch {
	case digits == 0:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v != 0 && v < 1 && v > -1:
		return strconv.FormatFloat(v, 'g', digits, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// WriteSummary prints the scorecard's run row in a few lines, for the
// console after a run.
func WriteSummary(w io.Writer, f *File, path string) error {
	r := &f.Row
	var b strings.Builder
	fmt.Fprintf(&b, "scorecard %s: %s", r.RunID, r.Metadata.Row)
	if r.Metadata.Strategy != "" {
		fmt.Fprintf(&b, " (round %s, %s)", r.Metadata.RoundIndex, r.Metadata.Strategy)
	}
	b.WriteString("\n")
	if p := r.Performance; p != nil {
		basis := "goodput"
		if p.GoodputBasis != "slo" {
			basis = "throughput (no SLO judged)"
		}
		if pl := p.Pooling; pl != nil {
			// No output tokens: what the round processed instead.
			fmt.Fprintf(&b, "  performance: pooling %s input tok/s, %s %s/s, request latency only (no tokens to time)",
				sig(pl.InputTokS, 0), sig(pl.ItemsPerS, 3), pl.Kind)
		} else {
			fmt.Fprintf(&b, "  performance: %s %s tok/s, TTFT P99 %s ms, ITL P95 %s ms", basis, sig(p.GoodputTokS, 0), sig(p.TTFTP99Ms, 0), sig(p.ITLP95Ms, 1))
		}
		if p.SLOPass != nil {
			if *p.SLOPass {
				b.WriteString(", SLO met")
			} else {
				b.WriteString(", SLO broken: " + strings.Join(p.SLOFailures, ", "))
			}
		}
		b.WriteString("\n")
	}
	missing := r.Metadata.MissingAxes
	if c := r.Cost; c != nil {
		run := ""
		if c.CostRunEUR.Valid {
			run = fmt.Sprintf(", %s %s for the whole run", sig(c.CostRunEUR, 3), c.Currency)
		}
		fmt.Fprintf(&b, "  cost: %s %s per 1M output tokens (%s), %s %s/h, %s %s for the window%s\n",
			sig(c.CPMEUR1M, 3), c.Currency, c.CPMBasis, sig(c.GPUCostEURH, 2), c.Currency, sig(c.CostWindowEUR, 3), c.Currency, run)
	} else {
		fmt.Fprintf(&b, "  cost: n/a (%s)\n", missing["cost"])
	}
	if e := r.Energy; e != nil {
		fmt.Fprintf(&b, "  energy: %s Wh/output token (%s J), PUE %s: %s Wh/token, mean power %s W, %s kWh in the window (%s, %s)\n",
			sig(e.WhPerToken, 3), sig(e.JPerToken, 3), e.PUE, sig(e.WhPerTokenPUEAdjusted, 3), sig(e.PowerMeanW, 1), sig(e.EnergyTotalKWh, 3), e.Method, e.Source)
		for _, wmsg := range e.Warnings {
			fmt.Fprintf(&b, "  WARNING (energy): %s\n", wmsg)
		}
	} else {
		fmt.Fprintf(&b, "  energy: n/a (%s)\n", missing["energy"])
	}
	if c := r.Carbon; c != nil {
		fmt.Fprintf(&b, "  carbon: %s gCO2 per 1M output tokens at %s gCO2/kWh\n", sig(c.CO2Per1MTokensG, 3), c.GridIntensityGCO2KWh)
	} else {
		fmt.Fprintf(&b, "  carbon: n/a (%s)\n", missing["carbon"])
	}
	if path != "" {
		fmt.Fprintf(&b, "  wrote %s\n", path)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
