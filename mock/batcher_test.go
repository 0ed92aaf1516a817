package mock

import (
	"testing"
	"time"
)

func TestStepTimeEquation(t *testing.T) {
	m := CapacityModel{StepBase: 2 * time.Millisecond, StepPerSeq: 150 * time.Microsecond, PrefillPerToken: 10 * time.Microsecond}
	tests := []struct {
		decodes, prefill int
		want             time.Duration
	}{
		{0, 0, 2 * time.Millisecond},
		{1, 0, 2150 * time.Microsecond},
		{0, 100, 3 * time.Millisecond}, // 2 + 100×0.01
		{16, 1024, 2*time.Millisecond + 2400*time.Microsecond + 10240*time.Microsecond}, // 2 + 16×0.15 + 1024×0.01 = 14.64 ms
		{256, 0, 2*time.Millisecond + 38400*time.Microsecond},                           // 2 + 256×0.15 = 40.4 ms
	}
	for _, tc := range tests {
		if got := m.stepTime(tc.decodes, tc.prefill); got != tc.want {
			t.Errorf("stepTime(%d, %d) = %v, want %v", tc.decodes, tc.prefill, got, tc.want)
		}
	}
}

// batcherStep is the expected result of one compose+complete.
type batcherStep struct {
	enqueue          []int // indexes of the scenario's seqs enqueued before the step
	decodes, prefill int
	running, waiting int
	dur              time.Duration
	firsts           []int // seqs whose step 0 this step emitted
	done             []int // seqs finished by this step
	kv               int64 // KV tokens held after the step
}

func TestBatcherScenarios(t *testing.T) {
	ms := time.Millisecond
	us := time.Microsecond
	type seqSpec struct{ prompt, steps int }
	tests := []struct {
		name  string
		m     CapacityModel
		seqs  []seqSpec
		steps []batcherStep
	}{
		{
			// A 250-token prompt under a 100-token budget is prefilled over
			// three steps and emits its first token at the end of the third;
			// a prompt admitted next to a decoding sequence gets the budget
			// minus that sequence's decode token.
			name: "chunked prefill",
			m:    CapacityModel{MaxNumSeqs: 4, MaxNumBatchedTokens: 100, StepBase: ms, StepPerSeq: 100 * us, PrefillPerToken: 10 * us},
			seqs: []seqSpec{{250, 3}, {150, 1}},
			steps: []batcherStep{
				{enqueue: []int{0}, prefill: 100, running: 1, dur: 2 * ms, kv: 100},
				{prefill: 100, running: 1, dur: 2 * ms, kv: 200},
				{prefill: 50, running: 1, dur: 1500 * us, firsts: []int{0}, kv: 251},
				// q0 decodes (1 token of budget), q1 gets 99: 1 + 0.1 + 0.99 ms.
				{enqueue: []int{1}, decodes: 1, prefill: 99, running: 2, dur: 2090 * us, kv: 251 + 1 + 99},
				// q0's last step; q1's last 51 tokens and its only step.
				{decodes: 1, prefill: 51, running: 2, dur: 1610 * us, firsts: []int{1}, done: []int{0, 1}, kv: 0},
			},
		},
		{
			// Two slots: the third request waits in the queue until a slot
			// is free, and is admitted the step after the slot's last chunk.
			name: "slots and FIFO queue",
			m:    CapacityModel{MaxNumSeqs: 2, MaxNumBatchedTokens: 1000, StepBase: ms, StepPerSeq: 100 * us, PrefillPerToken: 10 * us},
			seqs: []seqSpec{{10, 2}, {10, 2}, {10, 2}, {20, 1}},
			steps: []batcherStep{
				{enqueue: []int{0, 1, 2}, prefill: 20, running: 2, waiting: 1, dur: 1200 * us, firsts: []int{0, 1}, kv: 22},
				{enqueue: []int{3}, decodes: 2, running: 2, waiting: 2, dur: 1200 * us, done: []int{0, 1}, kv: 0},
				{prefill: 30, running: 2, dur: 1300 * us, firsts: []int{2, 3}, done: []int{3}, kv: 11},
				{decodes: 1, running: 1, dur: 1100 * us, done: []int{2}, kv: 0},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBatcher(&tc.m)
			seqs := make([]*seq, len(tc.seqs))
			for i, sp := range tc.seqs {
				seqs[i] = newSeq(sp.prompt, sp.steps, sp.steps, 1)
			}
			for n, want := range tc.steps {
				for _, i := range want.enqueue {
					b.enqueue(seqs[i])
				}
				wasDone := make([]bool, len(seqs))
				for i, q := range seqs {
					wasDone[i] = q.done.Load()
				}
				plan := b.compose(int64(n))
				if plan.decodes != want.decodes || plan.prefill != want.prefill || plan.running != want.running || plan.dur != want.dur || b.nWaiting != want.waiting {
					t.Fatalf("step %d: plan %+v waiting %d, want decodes %d prefill %d running %d dur %v waiting %d",
						n, plan, b.nWaiting, want.decodes, want.prefill, want.running, want.dur, want.waiting)
				}
				b.complete()
				var firsts, done []int
				for i, q := range seqs {
					for _, f := range b.firsts {
						if f == q {
							firsts = append(firsts, i)
							if q.first.Load() != int64(n) {
								t.Errorf("step %d: seq %d first = %d", n, i, q.first.Load())
							}
						}
					}
					if q.done.Load() && !wasDone[i] {
						done = append(done, i)
					}
				}
				if !equalInts(firsts, want.firsts) || !equalInts(done, want.done) || b.kv != want.kv {
					t.Errorf("step %d: firsts %v done %v kv %d, want %v %v %d", n, firsts, done, b.kv, want.firsts, want.done, want.kv)
				}
			}
			if !b.idle() {
				t.Errorf("batcher not idle at the end: %d running, %d waiting", len(b.running), b.nWaiting)
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestBatcherAbort: an aborted waiting request is skipped at admission and
// no longer counted; an aborted running one frees its slot and its KV.
func TestBatcherAbort(t *testing.T) {
	m := CapacityModel{MaxNumSeqs: 1, MaxNumBatchedTokens: 100, StepBase: time.Millisecond}
	b := newBatcher(&m)
	q1, q2, q3 := newSeq(10, 5, 5, 1), newSeq(10, 5, 5, 1), newSeq(10, 5, 5, 1)
	b.enqueue(q1)
	b.enqueue(q2)
	b.enqueue(q3)
	b.compose(0)
	b.complete()
	if b.nWaiting != 2 || len(b.running) != 1 || b.kv != 11 {
		t.Fatalf("after step 0: waiting %d running %d kv %d, want 2, 1, 11", b.nWaiting, len(b.running), b.kv)
	}
	b.abort(q2)
	if b.nWaiting != 1 || q2.state != seqAborted {
		t.Fatalf("aborting a waiting request: waiting %d state %d", b.nWaiting, q2.state)
	}
	b.abort(q1)
	if len(b.running) != 0 || b.kv != 0 {
		t.Fatalf("aborting the running request: running %d kv %d", len(b.running), b.kv)
	}
	plan := b.compose(1) // q3 takes the slot; q2 is skipped
	if plan.running != 1 || b.running[0] != q3 || b.nWaiting != 0 {
		t.Fatalf("after the aborts: running %v (want q3), waiting %d", b.running, b.nWaiting)
	}
	// A request aborted before the engine saw it is never queued.
	q4 := newSeq(1, 1, 1, 1)
	b.abort(q4)
	if q4.state != seqAborted || b.nWaiting != 0 {
		t.Errorf("abort of a new request: state %d waiting %d", q4.state, b.nWaiting)
	}
}

// TestBatcherQueueCompaction: a long queue consumed from the front keeps its
// memory bounded and its order.
func TestBatcherQueueCompaction(t *testing.T) {
	m := CapacityModel{MaxNumSeqs: 1, MaxNumBatchedTokens: 10, StepBase: time.Millisecond}
	b := newBatcher(&m)
	const n = 5000
	seqs := make([]*seq, n)
	for i := range seqs {
		seqs[i] = newSeq(1, 1, 1, 1)
		b.enqueue(seqs[i])
	}
	for i := range n {
		b.compose(int64(i))
		if b.running[0] != seqs[i] {
			t.Fatalf("step %d admitted the wrong request", i)
		}
		b.complete()
		if len(b.waiting)-b.head != n-1-i {
			t.Fatalf("step %d: %d queued, want %d", i, len(b.waiting)-b.head, n-1-i)
		}
	}
	if len(b.waiting) != 0 || b.head != 0 {
		t.Errorf("queue not reset when empty: len %d head %d", len(b.waiting), b.head)
	}
}
