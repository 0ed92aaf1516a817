//go:build race

package loadgen

// raceEnabled: the race detector's shadow memory makes memory figures
// meaningless.
const raceEnabled = true
