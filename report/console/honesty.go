package console

import (
	"fmt"
	"sort"
	"strings"

	"github.com/goodput-dev/goodput/report"
)

// shortfallNotes are one line per benchmark whose outputs fell short of
// their max_tokens (Extras.OutputShortfall).
func shortfallNotes(r *report.Report) []string {
	var notes []string
	for i, bm := range r.Benchmarks {
		g := bm.Extras
		if g == nil || g.OutputShortfall == nil || g.OutputShortfall.Short == 0 {
			continue
		}
		sh := g.OutputShortfall
		reasons := make([]string, 0, len(sh.ByFinishReason))
		for k := range sh.ByFinishReason {
			reasons = append(reasons, k)
		}
		sort.Strings(reasons)
		by := make([]string, len(reasons))
		for j, k := range reasons {
			by[j] = fmt.Sprintf("%s %d", k, sh.ByFinishReason[k].Short)
		}
		notes = append(notes, fmt.Sprintf("Short outputs: benchmark %d (%s): %d of %d (%.1f %%) ended before their max_tokens, %.1f tokens short on average (finish_reason: %s)",
			i, bm.Label(), sh.Short, sh.Requests, 100*float64(sh.ShortFraction), float64(sh.MeanShortfall), strings.Join(by, ", ")))
	}
	return notes
}
