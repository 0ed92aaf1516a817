//go:build !linux

package loadgen

import "time"

// nap sleeps for d (the runtime's timer precision on this platform).
func nap(d time.Duration) { time.Sleep(d) }
