package loadgen

import (
	"context"
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/clitest"
	"github.com/goodput-dev/goodput/record"
)

// TestUserPacerSlots checks each user's intended send times: user u's
// first turn u/R after the start, the next ones N/R apart while the
// server keeps up; a turn that could not go at its slot (its previous
// turn still in flight) keeps the slot as its intended time, and the
// user's later slots count from when it went out.
func TestUserPacerSlots(t *testing.T) {
	const s = int64(time.Second)
	st := Strategy{Kind: UserCentric, Rate: 2, Streams: 4} // gap 2 s, users 0.5 s apart
	if err := st.Validate(); err != nil {
		t.Fatal(err)
	}
	start := int64(1000 * s)
	for u := range 4 {
		p := newUserPacer(st, u, start)
		for k := range 5 {
			want := start + int64(u)*s/2 + int64(k)*2*s
			due := p.next()
			if due != want {
				t.Errorf("user %d turn %d due at %+d ns, want %+d ns", u, k, due-start, want-start)
			}
			p.done(due + s) // each turn takes 1 s: on time
		}
	}
	// Every user's turns together: one every 1/R = 0.5 s.
	var all []int64
	for u := range 4 {
		p := newUserPacer(st, u, start)
		for range 3 {
			all = append(all, p.next())
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	for i, d := range all {
		if d != start+int64(i)*s/2 {
			t.Fatalf("the users' slots together: slot %d at %+d ns, want every 0.5 s", i, d-start)
		}
	}
	// A slow turn: turn 1 ends 3 s after its slot (1 s past turn 2's).
	p := newUserPacer(st, 0, start)
	p.next()          // turn 0 at 0 s
	p.done(start + s) // ends at 1 s
	t1 := p.next()    // turn 1 at 2 s
	p.done(t1 + 3*s)  // ends at 5 s
	if t2 := p.next(); t2 != start+4*s {
		t.Errorf("late turn 2: intended %+d ns, want its slot at 4 s (the lateness stays visible)", t2-start)
	}
	p.done(start + 6*s)
	if t3 := p.next(); t3 != start+7*s {
		t.Errorf("turn 3 after a late turn 2 sent at 5 s: intended %+d ns, want 7 s (one gap after it went out, no catching up)", t3-start)
	}
	// A turn that waited for a session slot (--concurrency): due at 9 s,
	// sent at 9.5 s; the next slot is one gap after it went out.
	p.done(start + 8*s)
	if t4 := p.next(); t4 != start+9*s {
		t.Fatalf("turn 4 due at %+d ns, want 9 s", t4-start)
	}
	p.sent(start + 9*s + s/2)
	if t5 := p.next(); t5 != start+11*s+s/2 {
		t.Errorf("turn 5 after turn 4 waited for a slot until 9.5 s: intended %+d ns, want 11.5 s", t5-start)
	}
}

func TestUserCentricValidate(t *testing.T) {
	for _, s := range []Strategy{
		{Kind: UserCentric, Rate: 1},
		{Kind: UserCentric, Streams: 2},
		{Kind: UserCentric, Rate: 1, Streams: 2, MaxConcurrency: -1},
		{Kind: UserCentric, Rate: 1, Streams: 2, Rampup: time.Second},
	} {
		if s.Validate() == nil {
			t.Errorf("%+v: valid, want an error", s)
		}
	}
	s := Strategy{Kind: UserCentric, Rate: 1.5, Streams: 3}
	if s.String() != "user_centric@1.50x3" || s.Workers() != 3 || s.OpenLoop() {
		t.Errorf("%q, workers %d, open loop %v", s.String(), s.Workers(), s.OpenLoop())
	}
	// A cap on the users mid-session: at most that many at work.
	for c, want := range map[int]int{2: 2, 3: 3, 16: 3} {
		s.MaxConcurrency = c
		if err := s.Validate(); err != nil || s.Workers() != want {
			t.Errorf("cap %d: %v, workers %d, want %d", c, err, s.Workers(), want)
		}
	}
}

// TestUserCentricSessions runs 3 users at 30 req/s against the recording
// server (a 100 ms gap per user): every turn records its slot as its
// intended send time and is not sent before it; a session's turns are a
// gap apart; the turns of all users together are 1/R apart.
func TestUserCentricSessions(t *testing.T) {
	rc := &recorder{}
	e := sessionEngine(t, rc, nil)
	var sessions sessionList
	for range 6 {
		sessions = append(sessions, &Session{Turns: []Turn{
			{Prompt: "a", MaxTokens: 2}, {Prompt: "b", MaxTokens: 2, Delay: time.Hour}, {Prompt: "c", MaxTokens: 2}}})
	}
	const rate, users = 30.0, 3
	res, recs := collect(t, e, context.Background(), Benchmark{Strategy: Strategy{Kind: UserCentric, Rate: rate, Streams: users}, Source: sessions})
	if len(recs) != 18 || res.StopReason != StopDataExhausted {
		t.Fatalf("%d records, stop %s; want every turn of 6 sessions and requests_exhausted", len(recs), res.StopReason)
	}
	gap := int64(float64(users) / rate * 1e9)
	step := 1e9 / rate // ns, not whole
	bySession := map[string][]*record.Record{}
	var intended []int64
	for _, r := range recs {
		if r.Status != record.StatusSuccessful {
			t.Fatalf("turn %d of %s: %s %s", r.Session.Turn, r.Session.ID, r.Status, r.Error)
		}
		if r.Dispatched < r.Intended {
			t.Errorf("turn %d of %s sent %d ns before its slot", r.Session.Turn, r.Session.ID, r.Intended-r.Dispatched)
		}
		bySession[r.Session.ID] = append(bySession[r.Session.ID], r)
		intended = append(intended, r.Intended-res.Start)
	}
	for id, rs := range bySession {
		sort.Slice(rs, func(i, j int) bool { return rs[i].Session.Turn < rs[j].Session.Turn })
		for k := 1; k < len(rs); k++ {
			if d := rs[k].Intended - rs[k-1].Intended; d != gap {
				t.Errorf("%s: turn %d due %v after turn %d, want the gap %v (the data's think time gives way)", id, k, time.Duration(d), k-1, time.Duration(gap))
			}
		}
	}
	sort.Slice(intended, func(i, j int) bool { return intended[i] < intended[j] })
	for i, d := range intended {
		if want := float64(i) * step; float64(d) < want-2 || float64(d) > want+2 { // rounding of u/R and k·N/R to ns
			t.Fatalf("slot %d at %v, want %v: the users' turns together are 1/R apart", i, time.Duration(d), time.Duration(want))
		}
	}
}

// TestUserCentricPlainRequests gives each user one request per slot from
// a source without sessions, and stops at the request limit.
func TestUserCentricPlainRequests(t *testing.T) {
	rc := &recorder{}
	e := sessionEngine(t, http.Handler(rc), nil)
	res, recs := collect(t, e, context.Background(), Benchmark{Strategy: Strategy{Kind: UserCentric, Rate: 50, Streams: 2},
		Source:      sessionList{{Turns: []Turn{{Prompt: "a", MaxTokens: 2}}}, {Turns: []Turn{{Prompt: "b", MaxTokens: 2}}}}.plain(),
		Constraints: Constraints{MaxRequests: 6}})
	if len(recs) != 6 || res.StopReason != StopMaxRequests {
		t.Fatalf("%d records, stop %s; want 6, max_requests", len(recs), res.StopReason)
	}
	var intended []int64
	for _, r := range recs {
		intended = append(intended, r.Intended-res.Start)
		if r.Session.ID != "" {
			t.Errorf("a plain request carries session %q", r.Session.ID)
		}
	}
	sort.Slice(intended, func(i, j int) bool { return intended[i] < intended[j] })
	for i, d := range intended {
		if want := int64(i) * 20e6; d < want-2 || d > want+2 {
			t.Errorf("request %d due at %v, want %v", i, time.Duration(d), time.Duration(want))
		}
	}
}

// plainSource hands out the first turns of a session list, round and
// round, as plain requests (no SessionSource).
type plainSource struct{ l sessionList }

func (l sessionList) plain() plainSource { return plainSource{l} }

func (p plainSource) Request(i uint64) (*Request, bool) {
	return p.l.Request(i % uint64(len(p.l)))
}

// slowChat answers every chat request after a fixed delay.
type slowChat struct {
	rc    *recorder
	delay time.Duration
}

func (s slowChat) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	time.Sleep(s.delay)
	s.rc.ServeHTTP(w, r)
}

// TestUserCentricLateTurn: one user with a 50 ms gap against a server
// that takes 120 ms. Turn 1's slot passes while turn 0 runs: it goes out
// when turn 0 ends, keeps its slot as the intended time (its lateness is
// the wait: no coordinated omission), and turn 2's slot is one gap after
// turn 1 went out, not the grid's (no burst to catch up).
func TestUserCentricLateTurn(t *testing.T) {
	e := sessionEngine(t, slowChat{&recorder{}, 120 * time.Millisecond}, nil)
	s := &Session{Turns: []Turn{{Prompt: "a", MaxTokens: 2}, {Prompt: "b", MaxTokens: 2}, {Prompt: "c", MaxTokens: 2}}}
	res, recs := collect(t, e, context.Background(), Benchmark{Strategy: Strategy{Kind: UserCentric, Rate: 20, Streams: 1}, Source: sessionList{s}})
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3", len(recs))
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].Session.Turn < recs[j].Session.Turn })
	const gap = int64(50 * time.Millisecond)
	r0, r1, r2 := recs[0], recs[1], recs[2]
	if r0.Intended != res.Start || r1.Intended != res.Start+gap {
		t.Errorf("turns 0 and 1 due at %v and %v, want 0 and the gap", time.Duration(r0.Intended-res.Start), time.Duration(r1.Intended-res.Start))
	}
	if late := r1.Dispatched - r1.Intended; late < int64(60*time.Millisecond) || r1.Dispatched < r0.End {
		t.Errorf("turn 1 sent %v after its slot, before turn 0 ended: %v; want it sent when turn 0 ended, about 70 ms late", time.Duration(late), r1.Dispatched < r0.End)
	}
	if d := r2.Intended - r1.Dispatched; d < gap-int64(5*time.Millisecond) || d > gap+int64(time.Millisecond) {
		t.Errorf("turn 2 due %v after turn 1 went out, want the gap (%v)", time.Duration(d), time.Duration(gap))
	}
}

// TestUserCentricSessionCap runs 2 users at 100 req/s (a 20 ms gap; user
// 1's first slot at 10 ms) with --concurrency 1: one user mid-session at
// a time. Sessions of 2 turns last at least the gap, so user 1's first
// slot comes while user 0's session runs, whatever the machine's speed:
// the sessions never overlap, a session that waited keeps its slot as
// its first turn's intended time (the wait is lateness), and its second
// turn is due one gap after its first went out.
func TestUserCentricSessionCap(t *testing.T) {
	e := sessionEngine(t, &recorder{}, nil)
	var sessions sessionList
	for range 4 {
		sessions = append(sessions, &Session{Turns: []Turn{{Prompt: "a", MaxTokens: 2}, {Prompt: "b", MaxTokens: 2}}})
	}
	const gap = int64(20 * time.Millisecond)
	res, recs := collect(t, e, context.Background(), Benchmark{Strategy: Strategy{Kind: UserCentric, Rate: 100, Streams: 2, MaxConcurrency: 1}, Source: sessions})
	if len(recs) != 8 || res.StopReason != StopDataExhausted {
		t.Fatalf("%d records, stop %s; want the 8 turns of 4 sessions, requests_exhausted", len(recs), res.StopReason)
	}
	bySession := map[string][]*record.Record{}
	for _, r := range recs {
		if r.Status != record.StatusSuccessful {
			t.Fatalf("turn %d of %s: %s %s", r.Session.Turn, r.Session.ID, r.Status, r.Error)
		}
		bySession[r.Session.ID] = append(bySession[r.Session.ID], r)
	}
	type span struct{ first, second *record.Record }
	var spans []span
	for id, rs := range bySession {
		if len(rs) != 2 {
			t.Fatalf("%s: %d turns, want 2", id, len(rs))
		}
		sort.Slice(rs, func(i, j int) bool { return rs[i].Session.Turn < rs[j].Session.Turn })
		spans = append(spans, span{rs[0], rs[1]})
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].first.Dispatched < spans[j].first.Dispatched })
	if a, b := spans[0].first.Intended-res.Start, spans[1].first.Intended-res.Start; min(a, b) != 0 || max(a, b) != gap/2 {
		t.Errorf("the first two sessions due at %v and %v, want the users' first slots, 0 and 10ms", time.Duration(a), time.Duration(b))
	}
	for k := 1; k < len(spans); k++ {
		prev, cur := spans[k-1], spans[k]
		if cur.first.Dispatched < prev.second.End {
			t.Fatalf("session %d began %v before session %d ended: two users mid-session under --concurrency 1",
				k, time.Duration(prev.second.End-cur.first.Dispatched), k-1)
		}
	}
	// The second session waited for the first one's slot: its lateness
	// is the wait, and its next turn counts from when it went out.
	w := spans[1]
	if late := w.first.Dispatched - w.first.Intended; w.first.Dispatched < spans[0].second.End || late <= 0 {
		t.Errorf("the waiting session went out %v after its slot, want after the first session ended", time.Duration(late))
	}
	if d := w.second.Intended; d < spans[0].second.End+gap || d > w.first.Dispatched+gap {
		t.Errorf("its second turn due %v after its first went out, want one gap (%v) after it took the slot",
			time.Duration(d-w.first.Dispatched), time.Duration(gap))
	}
}

// TestUserCentricRequestCap: plain requests (one-turn sessions) of 3
// users under --concurrency 2 against a server that takes 30 ms: never
// more than 2 in flight, and a request that waited for a slot records
// the wait as lateness from its slot.
func TestUserCentricRequestCap(t *testing.T) {
	e := sessionEngine(t, slowChat{&recorder{}, 30 * time.Millisecond}, nil)
	res, recs := collect(t, e, context.Background(), Benchmark{Strategy: Strategy{Kind: UserCentric, Rate: 300, Streams: 3, MaxConcurrency: 2},
		Source:      sessionList{{Turns: []Turn{{Prompt: "a", MaxTokens: 2}}}}.plain(),
		Constraints: Constraints{MaxRequests: 9}})
	if len(recs) != 9 || res.StopReason != StopMaxRequests {
		t.Fatalf("%d records, stop %s; want 9, max_requests", len(recs), res.StopReason)
	}
	waited := 0
	for _, r := range recs {
		if r.Status != record.StatusSuccessful {
			t.Fatalf("request %d: %s %s", r.ID, r.Status, r.Error)
		}
		if r.Dispatched-r.Intended >= int64(10*time.Millisecond) {
			waited++
		}
	}
	if most := clitest.MostOpen(recs, clitest.Dispatched, clitest.Ended, 0); most > 2 {
		t.Errorf("%d requests in flight at once, over the cap of 2", most)
	}
	// User 2's first slot (6.7 ms) comes while users 0 and 1 hold both
	// slots for 30 ms: it went out at least 20 ms late.
	if waited == 0 {
		t.Error("no request waited for a slot: the cap never bound")
	}
}
