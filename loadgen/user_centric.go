package loadgen

import (
	"time"
)

// User-centric rate (AIPerf's --user-centric-rate R with --num-users N):
// N users, each sending its turns one after another, a turn gap of N/R
// seconds apart (start to start), so that together they send R requests
// per second. User u's first turn is due u/R seconds after the start, so
// the users' turns interleave evenly, 1/R apart. A user runs its
// sessions turn after turn, and starts the next session (a new user in
// its seat) at its next slot; the data's think times give way to the
// gap. A source without sessions gives each user one request per slot.
//
// Each turn records its slot as its intended send time. A turn whose
// slot passed while its previous turn was still in flight goes out the
// moment that turn ends, and its lateness (and so its latency from the
// intended time) shows the wait; the user's later slots then count from
// that send (AIPerf's rule: no burst to catch up), so a slow server
// lowers the offered rate below R, as it would for real users.
//
// Strategy.MaxConcurrency, when set, caps the users mid-session (AIPerf's
// --concurrency with --user-centric-rate: a session slot taken at a
// session's first turn and given back when its last turn ends). A user
// whose session's first turn comes while the cap is full waits for a
// slot: the turn keeps its slot as its intended send time, so the wait
// is lateness, and the user's later slots count from when it went out.
// Each user has at most one request in flight, so the cap also bounds
// the requests in flight; at or above the number of users it never
// binds.
//
// AIPerf also starts users at "virtual ages" (part-way through their
// sessions); goodput starts every user at its session's first turn.

// userPacer gives one user's intended send times.
type userPacer struct {
	gap   int64 // N/R, ns
	base  int64 // when the user's last turn went out (or its slot, if later)
	ready int64 // when the user's last turn ended: the next cannot go before
}

// newUserPacer returns the pacer of user u of a user-centric strategy
// whose schedule starts at start (Unix ns).
func newUserPacer(s Strategy, u int, start int64) *userPacer {
	gap := int64(float64(s.Streams) / s.Rate * 1e9)
	first := start + int64(float64(u)/s.Rate*1e9)
	return &userPacer{gap: gap, base: first - gap}
}

// next returns the intended send time of the user's next turn: one gap
// after its previous turn went out. The turn goes out at that time, or
// when the previous one ended if that is later.
func (p *userPacer) next() int64 {
	due := p.base + p.gap
	p.base = max(due, p.ready)
	return due
}

// done tells the pacer when the user's last turn ended.
func (p *userPacer) done(end int64) { p.ready = end }

// sent tells the pacer that the user's turn went out at at, later than
// next said (it waited for a session slot): the next slot counts from it.
func (p *userPacer) sent(at int64) { p.base = max(p.base, at) }

// users runs a user-centric benchmark: one goroutine per user.
func (r *run) users(start int64) {
	n := r.b.Strategy.Streams
	var slots limiter // the session slots of Strategy.MaxConcurrency
	if c := r.b.Strategy.MaxConcurrency; c > 0 && (c < n || r.b.Strategy.CapRampup > 0) {
		slots = newLimiter(c, r.b.Strategy.CapRampup, r.e.clock, start, r.done)
	}
	for u := range n {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			p := newUserPacer(r.b.Strategy, u, start)
			cn := r.e.conns.Get().(*conn)
			defer r.e.conns.Put(cn)
			timer := time.NewTimer(time.Hour)
			timer.Stop()
			if r.sessSrc != nil {
				r.userSessions(p, cn, timer, slots)
				return
			}
			r.userRequests(p, cn, timer, slots)
		}()
	}
}

// userSessions runs one user's sessions, one after another, until the
// benchmark stops or the data runs out.
func (r *run) userSessions(p *userPacer, cn *conn, timer *time.Timer, slots limiter) {
	for !r.stopped() {
		i := uint64(r.sessions.Add(1) - 1)
		s, ok := r.sessSrc.Session(i)
		if !ok {
			return
		}
		if checkSession(r.e.client.cfg.Endpoint, s) != nil {
			continue // the first session was checked; a later bad one is skipped
		}
		due := p.next()
		if !r.waitTurn(due, timer) || !r.takeSlot(slots, p) {
			return
		}
		r.converse(s, r.sessionID(s, i), due, cn, timer, p)
		slots.give()
	}
}

// userRequests sends one user's requests of a source without sessions,
// one per slot. A request is claimed and built at its slot (as a turn
// is), so the users' requests are numbered in the order they go out.
func (r *run) userRequests(p *userPacer, cn *conn, timer *time.Timer, slots limiter) {
	for !r.stopped() {
		due := p.next()
		if !r.waitTurn(due, timer) || !r.takeSlot(slots, p) {
			return
		}
		if !r.takePrefill(cn) {
			slots.give()
			return
		}
		req, ok := r.claim()
		if !ok {
			cn.givePrefill()
			slots.give()
			return
		}
		rec := r.e.newRecord(r.b.Index)
		rec.Intended = due
		r.send(req, rec, cn)
		slots.give()
		p.done(max(rec.End, rec.Dispatched))
		r.settle(rec)
	}
}

// takeSlot takes a session slot for a user whose turn is due (nil slots:
// no cap), waiting while the cap is full; a wait moves the user's later
// slots (userPacer.sent). False when the benchmark stopped.
func (r *run) takeSlot(slots limiter, p *userPacer) bool {
	if slots == nil {
		return true
	}
	waited := false
	select {
	case slots <- struct{}{}:
	default:
		waited = true
		select {
		case slots <- struct{}{}:
		case <-r.stopCh:
			return false
		}
	}
	if r.stopped() {
		slots.give()
		return false
	}
	if waited {
		p.sent(r.e.clock.Now())
	}
	return true
}

// waitTurn waits for a user's slot at waitUntil's precision (the users'
// slots are 1/R apart, so few wait on the last stretch at once); false
// when the benchmark stopped.
func (r *run) waitTurn(due int64, timer *time.Timer) bool {
	if r.e.clock.Until(due) > 0 && !waitUntil(r.e.clock, due, r.stopCh, timer) {
		return false
	}
	return !r.stopped()
}
