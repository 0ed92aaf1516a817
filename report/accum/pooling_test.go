package accum

import (
	"testing"

	"github.com/goodput-dev/goodput/record"
)

// A pooling benchmark's throughput is its input tokens and inputs per
// second of the window (it has no output tokens): 4 successful requests
// of 3 inputs and 100 prompt tokens each over a 2 s window are 200 input
// tok/s and 6 inputs/s; the failed request counts in neither.
func TestPoolingThroughput(t *testing.T) {
	const base, ms = int64(1_700_000_000e9), int64(1e6)
	a, err := New(Config{Start: base, Seed: 1, InputKind: "inputs"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		r := record.New()
		r.ID, r.Status = uint64(i+1), record.StatusSuccessful
		r.Intended, r.Dispatched = base+int64(i)*100*ms, base+int64(i)*100*ms
		r.End = r.Dispatched + 50*ms
		r.Inputs, r.PromptTokens, r.ServerPromptTokens = 3, 100, 100
		if i == 4 {
			r.Status, r.ErrorClass, r.HTTPStatus = record.StatusErrored, record.ErrHTTPStatus, 500
		}
		a.Add(r)
	}
	b := a.Finish(BenchmarkInfo{RunID: "p", Start: base, RequestsStart: base, StopTime: base + 2000*ms})
	in := b.PoolingInputs()
	if in == nil {
		t.Fatal("no pooling figures")
	}
	if in.Total != 12 || in.Tokens != 400 || in.TokensPerSecond != 200 || in.PerSecond != 6 || in.PerRequest != 3 {
		t.Errorf("pooling figures %+v, want 12 inputs, 400 tokens, 200 tok/s, 6 inputs/s, 3 per request", *in)
	}
}
