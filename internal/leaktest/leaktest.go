// Package leaktest checks that a test leaves no goroutine behind: a
// snapshot of the live goroutines before the code under test runs, and a
// check afterwards that polls until every goroutine started since has
// exited (and any other settled condition holds, such as a server seeing
// all its connections closed).
package leaktest

import (
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

// Snapshot returns the stacks of the live goroutines by id.
func Snapshot() map[string]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := map[string]string{}
	for _, g := range strings.Split(string(buf), "\n\n") {
		head, _, _ := strings.Cut(g, "\n")
		if f := strings.Fields(head); len(f) >= 2 && f[0] == "goroutine" {
			out[f[1]] = g
		}
	}
	return out
}

// permanent reports goroutines the runtime starts once and keeps (the
// signal loop of the first signal.Notify), which are not leaks.
func permanent(stack string) bool { return strings.Contains(stack, "os/signal.") }

// Check polls (every 10 ms, up to 10 s) until every goroutine started
// since base has exited and settled (when not nil) returns nil; it fails
// t with the leaked stacks and settled's last error otherwise.
func Check(t testing.TB, base map[string]string, settled func() error) {
	t.Helper()
	CheckWithin(t, base, settled, 10*time.Second)
}

// CheckWithin is Check with another time limit.
func CheckWithin(t testing.TB, base map[string]string, settled func() error, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		var leaked []string
		for id, st := range Snapshot() {
			if _, ok := base[id]; !ok && !permanent(st) {
				leaked = append(leaked, st)
			}
		}
		var err error
		if settled != nil {
			err = settled()
		}
		if len(leaked) == 0 && err == nil {
			return
		}
		if time.Now().After(deadline) {
			sort.Strings(leaked)
			t.Fatalf("after the run: %v; %d goroutine(s) leaked:\n%s", err, len(leaked), strings.Join(leaked, "\n\n"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}
