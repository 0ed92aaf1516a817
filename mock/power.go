package mock

import (
	"sync"
	"time"
)

// powerHistory is the number of power segments kept for looking back in
// time (the DCGM power average and EnergyJ of past instants).
const powerHistory = 1 << 12

// powerSegment is a stretch of time with constant power.
type powerSegment struct {
	t    int64   // start, ns on the meter clock
	e    float64 // base energy at t, J
	busy float64 // busy time at t, s
	p    float64 // base power during the segment, W
	on   bool    // something running during the segment
}

// dcgmSample is what the DCGM exposition shows: the state at the last
// update instant.
type dcgmSample struct {
	t     int64   // update instant, ns on the meter clock
	e     float64 // base energy at t, J
	power float64 // mean base power over the averaging window ending at t, W
	util  float64 // busy fraction over that window
}

// powerMeter integrates the power model exactly: power is piecewise
// constant (it changes only when the number of running sequences does), so
// the energy at any instant is the energy at the start of its segment plus
// power × elapsed. "Base" quantities are those of one GPU with factor 1;
// GPU i draws gpuFactor(i) × base.
//
// Changes may be reported slightly in the past (the engine sets the power
// of a step at the step's start, which it may process a little late); a
// change is never placed before the last change or the last read, so a
// value once read never changes and the energy counter is monotonic.
type powerMeter struct {
	mu       sync.Mutex
	origin   time.Time
	spec     GPUSpec
	interval int64 // DCGM update interval, ns
	window   int64 // power and utilisation averaging window, ns: min(1s, interval)

	running  int
	lastRead int64
	hist     [powerHistory]powerSegment // ring; hist[(hHead+hLen-1)%N] is current
	hHead    int
	hLen     int
	sample   dcgmSample
}

func newPowerMeter(origin time.Time, spec GPUSpec, interval time.Duration) *powerMeter {
	pm := &powerMeter{origin: origin, spec: spec, interval: int64(interval), window: int64(min(interval, time.Second))}
	pm.hist[0] = powerSegment{p: pm.basePower(0)}
	pm.hLen = 1
	pm.sample = dcgmSample{power: pm.hist[0].p}
	return pm
}

// basePower is the power model: min(MaxWatts, IdleWatts + WattsPerSeq × running).
func (pm *powerMeter) basePower(running int) float64 {
	return min(pm.spec.MaxWatts, pm.spec.IdleWatts+pm.spec.WattsPerSeq*float64(running))
}

// gpuFactor is GPU i's fixed share of the base power, in [0.97, 1].
func gpuFactor(i int) float64 {
	return 1 - 0.03*float64((i*5)%7)/6
}

func (pm *powerMeter) now() int64 { return int64(time.Since(pm.origin)) }

func (pm *powerMeter) cur() *powerSegment {
	return &pm.hist[(pm.hHead+pm.hLen-1)%powerHistory]
}

// set records that running sequences run from t (ns on the meter clock) on.
func (pm *powerMeter) set(t int64, running int) {
	pm.mu.Lock()
	pm.setLocked(t, running)
	pm.mu.Unlock()
}

// add changes the running count by delta now (the independent latency
// model: requests start and end).
func (pm *powerMeter) add(delta int) {
	pm.mu.Lock()
	pm.setLocked(pm.now(), pm.running+delta)
	pm.mu.Unlock()
}

func (pm *powerMeter) setLocked(t int64, running int) {
	if running == pm.running {
		return
	}
	c := pm.cur()
	t = max(t, c.t, pm.lastRead)
	pm.advanceSample(t)
	next := powerSegment{
		t:    t,
		e:    c.e + c.p*float64(t-c.t)/1e9,
		busy: c.busy,
		p:    pm.basePower(running),
		on:   running > 0,
	}
	if c.on {
		next.busy += float64(t-c.t) / 1e9
	}
	pm.running = running
	if next.t == c.t { // replace a zero-length segment
		*c = next
		return
	}
	if pm.hLen < powerHistory {
		pm.hLen++
	} else {
		pm.hHead = (pm.hHead + 1) % powerHistory
	}
	*pm.cur() = next
}

// at returns the base energy (J) and busy time (s) at t, or ok false when t
// is before the oldest segment kept.
func (pm *powerMeter) at(t int64) (e, busy float64, ok bool) {
	for i := pm.hLen - 1; i >= 0; i-- {
		s := &pm.hist[(pm.hHead+i)%powerHistory]
		if s.t <= t {
			e = s.e + s.p*float64(t-s.t)/1e9
			busy = s.busy
			if s.on {
				busy += float64(t-s.t) / 1e9
			}
			return e, busy, true
		}
	}
	return 0, 0, false
}

// advanceSample moves the DCGM sample to the last update instant at or
// before t. That instant lies in the current segment (an earlier call would
// have taken it otherwise), so its energy is exact; the averaging window may
// reach further back, into the history.
func (pm *powerMeter) advanceSample(t int64) {
	tk := t - t%pm.interval
	if tk <= pm.sample.t {
		return
	}
	e, busy, _ := pm.at(tk)
	ws := max(tk-pm.window, 0)
	e0, busy0, ok := pm.at(ws)
	if !ok { // more than powerHistory changes within the window: use what is kept
		oldest := &pm.hist[pm.hHead]
		ws, e0, busy0 = oldest.t, oldest.e, oldest.busy
	}
	s := dcgmSample{t: tk, e: e, power: pm.cur().p, util: 0}
	if span := float64(tk-ws) / 1e9; span > 0 {
		s.power = (e - e0) / span
		s.util = (busy - busy0) / span
	} else if pm.cur().on {
		s.util = 1
	}
	pm.sample = s
}

// read returns the DCGM sample as of now.
func (pm *powerMeter) read() dcgmSample { return pm.readAt(pm.now()) }

// readAt returns the DCGM sample as of t on the meter clock (not before the
// last read).
func (pm *powerMeter) readAt(t int64) dcgmSample {
	pm.mu.Lock()
	defer pm.mu.Unlock()
	t = max(t, pm.lastRead)
	pm.lastRead = t
	pm.advanceSample(t)
	return pm.sample
}

// energyAt returns the base energy in J at t on the meter clock; ok is false
// for a t in the future or before the history kept.
func (pm *powerMeter) energyAt(t int64) (float64, bool) {
	pm.mu.Lock()
	defer pm.mu.Unlock()
	now := pm.now()
	if t > now || t < 0 {
		return 0, false
	}
	pm.lastRead = max(pm.lastRead, t)
	e, _, ok := pm.at(t)
	return e, ok
}
