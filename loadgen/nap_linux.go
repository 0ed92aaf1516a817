package loadgen

import (
	"syscall"
	"time"
)

// nap sleeps for d with nanosleep(2), bypassing the runtime's timers.
func nap(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	_ = syscall.Nanosleep(&ts, nil)
}
