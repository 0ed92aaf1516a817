//go:build race

package dataset

// raceEnabled: the race detector slows tokenization about tenfold, so the
// exactness tests re-encode fewer requests (the same code paths, fewer
// samples) or, on one goroutine, leave the check to make test.
const raceEnabled = true
