package loadgen

import (
	"math"
	"runtime"
	"time"
)

// Adapting GOMAXPROCS to the client's load.
//
// With more Ps than work, the Go scheduler spins: every batch of sockets
// the poller finds ready wakes a second thread that steals half of it,
// finds nothing more to do and goes back to sleep. A lightly loaded
// client (tokens 10 ms apart on a few hundred streams uses well under
// half a core) spends a tenth of its CPU on that. The governor measures
// the process's CPU each interval and lowers GOMAXPROCS to what keeps
// each P at most about half busy, after a full second of low use; when
// use rises past 60 % of the Ps it has, it goes straight back to the
// ceiling at the next interval. Every benchmark starts at the ceiling, so
// a sudden load never meets a throttled client for longer than one
// interval, and the client's own load figures (Result.Client) say how low it
// went. Only closed-loop benchmarks are governed: an open-loop schedule's
// dispatcher must wake at the intended instants, and on fewer Ps it waits
// behind the goroutines reading responses (Engine.procsFor).

// Governor tuning.
const (
	govInterval  = 250 * time.Millisecond
	govPerProc   = 0.5 // cores of use a P may carry when lowering
	govUpShare   = 0.6 // use above this share of the current Ps restores the ceiling
	govLowStreak = 4   // intervals of low use before lowering (1 s)
)

// procGovernor decides GOMAXPROCS from measured CPU use. It holds no
// process state itself: the monitor applies what step returns.
type procGovernor struct {
	ceiling int // the GOMAXPROCS the process started with
	procs   int // the current setting
	low     int // consecutive intervals that wanted fewer Ps
	want    int // the most Ps wanted during that streak
	least   int // the lowest setting reached
	changes int // settings applied
}

func newProcGovernor(ceiling int) *procGovernor {
	return &procGovernor{ceiling: ceiling, procs: ceiling, least: ceiling}
}

// step takes the cores used over the last interval and returns the
// setting for the next one.
func (g *procGovernor) step(used float64) int {
	need := max(1, min(g.ceiling, int(math.Ceil(used/govPerProc))))
	switch {
	case g.procs < g.ceiling && used > govUpShare*float64(g.procs):
		g.set(g.ceiling)
	case need < g.procs:
		g.low++
		g.want = max(g.want, need)
		if g.low >= govLowStreak {
			g.set(g.want)
		}
	default:
		g.low, g.want = 0, 0
	}
	return g.procs
}

func (g *procGovernor) set(n int) {
	g.low, g.want = 0, 0
	if n != g.procs {
		g.procs = n
		g.changes++
		g.least = min(g.least, n)
	}
}

// applyProcs sets GOMAXPROCS when it differs from n.
func applyProcs(n int) {
	if runtime.GOMAXPROCS(0) != n {
		runtime.GOMAXPROCS(n)
	}
}
