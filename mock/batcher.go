package mock

import (
	"sync/atomic"
	"time"
)

// seqState is where a request is in the engine.
type seqState uint8

const (
	seqNew      seqState = iota // submitted, not yet seen by the engine
	seqWaiting                  // in the waiting queue
	seqRunning                  // in the batch (prefilling or decoding)
	seqFinished                 // last step emitted, slot freed
	seqAborted                  // released early, removed
)

// seq is one request in the capacity engine.
type seq struct {
	// Set before submission, read-only afterwards.
	prompt int   // tokens to prefill (>= 1)
	steps  int   // output steps
	tokens int   // output tokens (for the KV-cache gauge)
	tpc    int   // tokens per step
	cached int   // prompt tokens found in the prefix cache (not prefilled, held in the KV cache)
	at     int64 // submission time, ns on the engine clock (set under the inbox lock)

	// Owned by the engine goroutine.
	state     seqState
	prefilled int  // prompt tokens prefilled so far
	emitted   int  // steps emitted so far
	chunk     int  // prefill tokens scheduled in the current step
	emits     bool // emits a step at the end of the current step
	kv        int  // tokens it holds in the KV cache

	// Shared with the request's stream.
	admitted atomic.Int64  // start of the step that admitted it from the waiting queue (engine clock ns); -1 before
	first    atomic.Int64  // engine step at whose end step 0 is emitted; -1 until that step is composed
	done     atomic.Bool   // the engine has scheduled its last step (it frees the slot at that step's end)
	kick     chan struct{} // capacity 1; signalled once first is set
}

func newSeq(prompt, steps, tokens, tpc int) *seq {
	q := &seq{prompt: max(prompt, 1), steps: steps, tokens: tokens, tpc: tpc, kick: make(chan struct{}, 1)}
	q.first.Store(-1)
	q.admitted.Store(-1)
	return q
}

// stepPlan is one composed engine step.
type stepPlan struct {
	decodes int           // sequences emitting a non-first step at its end
	prefill int           // prompt tokens prefilled in it
	running int           // sequences in the batch
	dur     time.Duration // StepBase + StepPerSeq·decodes + PrefillPerToken·prefill
}

// batcher is the engine's scheduling state, with no clock and no locks: the
// engine goroutine owns it (tests drive it in virtual time). Per step:
// compose chooses the batch and its duration, and already records, for the
// sequences that emit their step 0 or their last step at its end, first and
// done; complete applies the step's end.
//
// Scheduling follows vLLM's V1 scheduler with chunked prefill: running
// sequences first (each decoding one takes one token of the
// MaxNumBatchedTokens budget, then partially prefilled ones take chunks of
// what is left, in admission order), then the waiting queue in FIFO order
// while a slot (MaxNumSeqs) and budget remain, each admitted prompt getting
// a chunk of the remaining budget.
type batcher struct {
	m        *CapacityModel
	waiting  []*seq // FIFO from head; aborted entries are skipped
	head     int
	nWaiting int // live entries in waiting
	running  []*seq
	kv       int64  // tokens held by running sequences
	firsts   []*seq // sequences whose step 0 the last composed step emits
	// stepStart is the start of the step being composed (engine clock
	// ns; the engine sets it, tests in virtual time may leave it 0).
	stepStart int64
}

func newBatcher(m *CapacityModel) *batcher {
	return &batcher{m: m, running: make([]*seq, 0, m.MaxNumSeqs)}
}

// idle reports whether there is nothing to run.
func (b *batcher) idle() bool { return len(b.running) == 0 && b.nWaiting == 0 }

// enqueue appends q to the waiting queue.
func (b *batcher) enqueue(q *seq) {
	q.state = seqWaiting
	b.waiting = append(b.waiting, q)
	b.nWaiting++
}

// popWaiting removes and returns the queue head, or nil.
func (b *batcher) popWaiting() *seq {
	for b.head < len(b.waiting) {
		q := b.waiting[b.head]
		b.waiting[b.head] = nil
		b.head++
		if q.state == seqWaiting {
			b.nWaiting--
			b.compactWaiting()
			return q
		}
	}
	b.compactWaiting()
	return nil
}

// compactWaiting reclaims the consumed front of the queue.
func (b *batcher) compactWaiting() {
	switch {
	case b.head == len(b.waiting):
		b.waiting, b.head = b.waiting[:0], 0
	case b.head >= 1024 && b.head*2 >= len(b.waiting):
		n := copy(b.waiting, b.waiting[b.head:])
		clear(b.waiting[n:])
		b.waiting, b.head = b.waiting[:n], 0
	}
}

// abort removes q wherever it is. Called between steps only.
func (b *batcher) abort(q *seq) {
	switch q.state {
	case seqNew:
		q.state = seqAborted // dropped when the engine takes its arrival
	case seqWaiting:
		q.state = seqAborted // skipped when it reaches the head
		b.nWaiting--
	case seqRunning:
		for i, r := range b.running {
			if r == q {
				copy(b.running[i:], b.running[i+1:])
				b.running[len(b.running)-1] = nil
				b.running = b.running[:len(b.running)-1]
				break
			}
		}
		b.kv -= int64(q.kv)
		q.state = seqAborted
	}
}

// compose schedules engine step number step.
func (b *batcher) compose(step int64) stepPlan {
	b.firsts = b.firsts[:0]
	budget := b.m.MaxNumBatchedTokens
	var dec, pre int
	for _, q := range b.running {
		q.chunk, q.emits = 0, false
		if q.prefilled == q.prompt { // decoding: its step 0 is already out
			q.emits = true
			dec++
			budget--
			if q.emitted+1 == q.steps {
				q.done.Store(true)
			}
		}
	}
	for _, q := range b.running {
		if budget == 0 {
			break
		}
		if q.prefilled < q.prompt {
			c := min(q.prompt-q.prefilled, budget)
			q.chunk = c
			budget -= c
			pre += c
			if q.prefilled+c == q.prompt {
				b.emitsFirst(q, step)
			}
		}
	}
	for len(b.running) < b.m.MaxNumSeqs && budget > 0 {
		q := b.popWaiting()
		if q == nil {
			break
		}
		q.admitted.Store(b.stepStart)
		c := min(q.prompt, budget)
		q.state, q.chunk, q.emits = seqRunning, c, false
		q.kv += q.cached
		b.kv += int64(q.cached)
		budget -= c
		pre += c
		if c == q.prompt {
			b.emitsFirst(q, step)
		}
		b.running = append(b.running, q)
	}
	return stepPlan{decodes: dec, prefill: pre, running: len(b.running), dur: b.m.stepTime(dec, pre)}
}

// emitsFirst records that q's prefill completes in step, which emits its
// step 0 (and its last, for a one-step request).
func (b *batcher) emitsFirst(q *seq, step int64) {
	q.emits = true
	q.first.Store(step)
	b.firsts = append(b.firsts, q)
	if q.steps == 1 {
		q.done.Store(true)
	}
}

// complete applies the end of the step composed last: prefill chunks are
// done, emitting sequences advance one step, and finished ones leave the
// batch, freeing their slots for the next compose.
func (b *batcher) complete() {
	n := 0 // sequences kept; the slice is rewritten only after a removal
	for i, q := range b.running {
		if q.chunk > 0 {
			q.prefilled += q.chunk
			q.kv += q.chunk
			b.kv += int64(q.chunk)
			q.chunk = 0
		}
		if q.emits {
			q.emits = false
			t := min(q.tpc, q.tokens-q.emitted*q.tpc)
			q.kv += t
			b.kv += int64(t)
			q.emitted++
			if q.emitted == q.steps {
				b.kv -= int64(q.kv)
				q.state = seqFinished
				continue
			}
		}
		if n != i {
			b.running[n] = q
		}
		n++
	}
	clear(b.running[n:])
	b.running = b.running[:n]
}
