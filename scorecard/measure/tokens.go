package measure

import (
	"math"

	"github.com/goodput-dev/goodput/record"
)

// Token binning: the energy of a window must be divided by the tokens
// generated inside that same window, and a benchmark's measurement window
// is known only when it ends. So every record's tokens are put into time
// bins at the instants they arrived, and any window is summed afterwards,
// splitting its edge bins in proportion to their overlap. Memory is bounded
// by maxBins, whatever the request count or duration: when a round outgrows
// it, neighbouring bins are merged and the width doubles.
const (
	initialBinWidth = int64(50e6) // 50 ms
	maxBins         = 1 << 15
)

// binCols are the per-bin quantities.
const (
	colOut = iota
	colPrompt
	colReqs
	colOK
	numCols
)

// tokenBins accumulates one round's token arrivals. It is used by one
// goroutine at a time (the runner calls observers sequentially).
type tokenBins struct {
	origin int64 // Unix ns of bin 0's start
	width  int64 // ns per bin
	bins   [][numCols]float64
}

// reset starts a new round at origin, keeping the allocated memory.
func (b *tokenBins) reset(origin int64) {
	b.origin, b.width = origin, initialBinWidth
	clear(b.bins)
	b.bins = b.bins[:0]
}

// slot returns the bin of time t, growing (and coarsening) as needed; -1
// for a time before the origin.
func (b *tokenBins) slot(t int64) int {
	if t < b.origin {
		return -1
	}
	i := (t - b.origin) / b.width
	for i >= maxBins {
		b.coarsen()
		i = (t - b.origin) / b.width
	}
	for int64(len(b.bins)) <= i {
		b.bins = append(b.bins, [numCols]float64{})
	}
	return int(i)
}

// coarsen merges bins pairwise, doubling the width.
func (b *tokenBins) coarsen() {
	n := (len(b.bins) + 1) / 2
	for i := 0; i < n; i++ {
		v := b.bins[2*i]
		if 2*i+1 < len(b.bins) {
			for c := range v {
				v[c] += b.bins[2*i+1][c]
			}
		}
		b.bins[i] = v
	}
	clear(b.bins[n:])
	b.bins = b.bins[:n]
	b.width *= 2
}

func (b *tokenBins) addAt(t int64, col int, v float64) {
	if v == 0 {
		return
	}
	if i := b.slot(t); i >= 0 {
		b.bins[i][col] += v
	}
}

// addSpread spreads v evenly over [t0, t1].
func (b *tokenBins) addSpread(t0, t1 int64, col int, v float64) {
	if t1 <= t0 {
		b.addAt(t1, col, v)
		return
	}
	i1 := b.slot(t1)
	i0 := b.slot(t0) // after slot(t1): a coarsening cannot move t0's bin again
	if i1 < 0 {
		return
	}
	dur := float64(t1 - t0)
	for i := max(i0, 0); i <= i1; i++ {
		lo := max(t0, b.origin+int64(i)*b.width)
		hi := min(t1, b.origin+int64(i+1)*b.width)
		if hi > lo {
			b.bins[i][col] += v * float64(hi-lo) / dur
		}
	}
}

// add records one request: its output tokens at its chunks' arrival times
// (the server's per-chunk counts when present, else the output tokens
// spread evenly over the chunks; a response without chunks spreads them
// between dispatch and end), its prompt tokens at the first token (else
// the end) and the request at its end.
func (b *tokenBins) add(r *record.Record) {
	if r.Dispatched == 0 {
		return // never sent: no work done by the server
	}
	out := float64(max(r.OutputTokens, 0))
	switch n := len(r.ChunkTimes); {
	case n > 0 && len(r.ChunkTokens) == n:
		for i, t := range r.ChunkTimes {
			b.addAt(t, colOut, float64(r.ChunkTokens[i]))
		}
	case n > 0:
		per := out / float64(n)
		for _, t := range r.ChunkTimes {
			b.addAt(t, colOut, per)
		}
	case out > 0 && r.End != 0:
		b.addSpread(r.Dispatched, r.End, colOut, out)
	}
	pt := r.FirstToken
	if pt == 0 {
		pt = r.End
	}
	b.addAt(pt, colPrompt, float64(max(r.PromptTokens, 0)))
	if r.End != 0 {
		b.addAt(r.End, colReqs, 1)
		if r.Status == record.StatusSuccessful {
			b.addAt(r.End, colOK, 1)
		}
	}
}

// sum returns the quantities inside [a, z] (Unix ns), the edge bins counted
// in proportion to their overlap with the window.
func (b *tokenBins) sum(a, z int64) [numCols]float64 {
	var s [numCols]float64
	if z <= a {
		return s
	}
	for i := range b.bins {
		lo := b.origin + int64(i)*b.width
		hi := lo + b.width
		ol := min(hi, z) - max(lo, a)
		if ol <= 0 {
			continue
		}
		f := float64(ol) / float64(b.width)
		for c := range s {
			s[c] += f * b.bins[i][c]
		}
	}
	return s
}

// windowTokens turns a sum into the report's token counts over a window of
// d seconds; request counts are rounded to whole requests.
func windowTokens(s [numCols]float64, d float64) (out, prompt float64, reqs, ok int64, rate float64) {
	out, prompt = s[colOut], s[colPrompt]
	reqs, ok = int64(math.Round(s[colReqs])), int64(math.Round(s[colOK]))
	rate = math.NaN()
	if d > 0 {
		rate = out / d
	}
	return out, prompt, reqs, ok, rate
}
