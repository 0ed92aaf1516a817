//go:build unix

package run

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
)

// A run raises its own open-files limit to what its plan needs: up to the
// hard limit always, beyond it where the process may (CAP_SYS_RESOURCE),
// and it says which.
func TestFitOpenFiles(t *testing.T) {
	var orig syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &orig); err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { _ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &orig) })
	if orig.Max < 4096 {
		t.Skipf("hard open-files limit %d", orig.Max)
	}
	// Below the hard limit: raised.
	low := syscall.Rlimit{Cur: orig.Max / 2, Max: orig.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Skip(err)
	}
	streams := int(orig.Max/2) + 100
	msg := fitOpenFiles(streams)
	want := fmt.Sprintf("raised the open-files limit from %d to %d", orig.Max/2, uint64(streams)+filesReserve)
	if !strings.Contains(msg, want) || openFilesLimit() != uint64(streams)+filesReserve {
		t.Fatalf("%q, limit %d: want %q", msg, openFilesLimit(), want)
	}
	// Enough already: nothing to say.
	if msg := fitOpenFiles(100); msg != "" {
		t.Fatalf("%q for 100 streams", msg)
	}
	// Beyond the hard limit: raised where allowed, else raised to the
	// hard limit with a warning that says why not further.
	_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low)
	streams = int(orig.Max) + 1000
	msg = fitOpenFiles(streams)
	switch {
	case openFilesLimit() >= uint64(streams):
		if !strings.Contains(msg, "raised the open-files limit") {
			t.Fatalf("raised beyond the hard limit, but said %q", msg)
		}
	case !strings.Contains(msg, fmt.Sprintf("WARNING: the open-files limit is %d,", orig.Max)) || !strings.Contains(msg, "could not raise it"):
		t.Fatalf("%q: want a warning that says why the limit stays", msg)
	}
	t.Log(msg)
}
