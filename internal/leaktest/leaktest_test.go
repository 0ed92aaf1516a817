package leaktest

import (
	"errors"
	"testing"
	"time"
)

// recorder is a testing.TB that records a failure instead of stopping.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(string, ...any) {
	r.failed = true
	panic(r) // Fatalf must not return
}

func check(base map[string]string, settled func() error) (failed bool) {
	r := &recorder{}
	defer func() {
		if p := recover(); p != nil && p != r {
			panic(p)
		}
		failed = r.failed
	}()
	CheckWithin(r, base, settled, 300*time.Millisecond)
	return false
}

func TestCheck(t *testing.T) {
	base := Snapshot()
	stop, done := make(chan struct{}), make(chan struct{})
	go func() { <-stop; close(done) }()
	if len(Snapshot()) != len(base)+1 {
		t.Fatalf("snapshot missed the new goroutine")
	}
	close(stop)
	<-done
	if check(base, nil) {
		t.Fatal("an exited goroutine counted as a leak")
	}
	leak := make(chan struct{})
	defer close(leak)
	go func() { <-leak }()
	if !check(base, nil) {
		t.Fatal("a goroutine still blocked was not reported")
	}
	if !check(Snapshot(), func() error { return errors.New("1 connection open") }) {
		t.Fatal("an unsettled condition was not reported")
	}
}
