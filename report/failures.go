package report

import "sort"

// ErrorRow is one error class of one benchmark: its count in the window
// and its most common message ("" when the report has none).
type ErrorRow struct {
	Class   string
	Count   int64
	Message string
	// MessageCount is how many of Count had Message.
	MessageCount int64
}

// ErrorRows are the benchmark's error classes, most frequent first (then by
// name), leaving out requests the run itself cancelled at a benchmark's
// end, which are no failure of the server's; nil when none failed.
func (bm *Benchmark) ErrorRows() []ErrorRow {
	g := bm.Extras
	if g == nil {
		return nil
	}
	var rows []ErrorRow
	for class, n := range g.Errors.ByClass {
		if n <= 0 || class == "cancelled" {
			continue
		}
		row := ErrorRow{Class: class, Count: int64(n)}
		if m, ok := g.Errors.Messages[class]; ok {
			row.Message, row.MessageCount = m.Message, int64(m.Count)
		}
		rows = append(rows, row)
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].Count != rows[j].Count {
			return rows[i].Count > rows[j].Count
		}
		return rows[i].Class < rows[j].Class
	})
	return rows
}

// PoolingInputs is a pooling benchmark's input figures (embeddings'
// inputs, rerank's and score's documents; not a transcription's audio):
// its throughput, as it has no output tokens. nil for any other benchmark.
func (bm *Benchmark) PoolingInputs() *InputFigures {
	if g := bm.Extras; g != nil && g.Inputs != nil && g.Inputs.Kind != "audio_seconds" {
		return g.Inputs
	}
	return nil
}
