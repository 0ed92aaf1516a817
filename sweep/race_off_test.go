//go:build !race

package sweep

// raceEnabled reports whether the race detector is on.
const raceEnabled = false
