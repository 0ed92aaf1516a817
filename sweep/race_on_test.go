//go:build race

package sweep

// raceEnabled reports whether the race detector is on: it slows the mock's
// engine and the client several times, which a timing-accuracy test cannot
// absorb.
const raceEnabled = true
