//go:build !race

package tokenize

// raceEnabled reports whether the race detector is on.
const raceEnabled = false
