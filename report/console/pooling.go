package console

import (
	"fmt"

	"github.com/goodput-dev/goodput/internal/texttable"
	"github.com/goodput-dev/goodput/report"
)

// poolingTable gives the throughput of pooling benchmarks (embeddings,
// rerank, score), which have no output tokens: input tokens and inputs
// (or documents) per second of the window. nil when no benchmark pooled.
func poolingTable(r *report.Report) *texttable.Table {
	var t *texttable.Table
	for i, bm := range r.Benchmarks {
		in := bm.PoolingInputs()
		if in == nil {
			continue
		}
		if t == nil {
			t = &texttable.Table{
				Title:  "Pooling throughput (successful requests in the measurement window; a pooling request has no output tokens)",
				Groups: []texttable.Group{{Name: "", Span: 2}, {Name: "", Span: 1}, {Name: "Throughput", Span: 2}, {Name: "", Span: 2}},
				Heads:  []string{"#", "Strategy", "Kind", "In tok/s", "Items/s", "Items", "Items/req"},
			}
		}
		tokS := "-" // the server told no token count (TEI's rerank), and no tokenizer counted them
		if in.Tokens > 0 {
			tokS = fmt.Sprintf("%.1f", float64(in.TokensPerSecond))
		}
		t.Rows = append(t.Rows, []string{fmt.Sprint(i), bm.Label(), in.Kind, tokS,
			fmt.Sprintf("%.2f", float64(in.PerSecond)), fmt.Sprint(int64(in.Total)), fmt.Sprintf("%.1f", float64(in.PerRequest))})
	}
	return t
}
