package telemetry

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"
)

// Columns of a GPU series.
const (
	gpuEnergyCol = 0 // counter, J
	gpuPowerCol  = 1 // gauge, W
	gpuGaugeCol0 = 2 // gauge GPUGauge(c - gpuGaugeCol0), in its unit
)

// gpuColumns are the column kinds of a GPU series.
func gpuColumns() []colKind {
	k := []colKind{counterCol, gaugeCol}
	for range NumGPUGauges {
		k = append(k, gaugeCol)
	}
	return k
}

// maxIntervalGaps is how many recent value-change gaps feed the update
// interval estimate of a GPU.
const maxIntervalGaps = 16

// GPUSampler samples GPU energy counters and power from one or more sources
// (dcgm-exporter URLs, NVML) and answers energy queries over past windows.
//
// Only readings whose values changed since the previous one are stored:
// dcgm-exporter refreshes its values every collect interval (30 s by
// default) and serves the same numbers in between, so an unchanged reading
// carries no new information and its timestamp would distort interpolation.
// The time of a stored point is the midpoint of the scrape that first saw the
// new value.
type GPUSampler struct {
	opts     SamplerOptions
	clock    clock
	sources  []*gpuSourceState
	loop     poller
	sampleMu sync.Mutex // serialises Sample

	mu     sync.Mutex // guards everything below and the sources' state
	gpus   []*gpuState
	byKey  map[gpuKey]*gpuState
	notify chan struct{} // closed and replaced after every sample
}

type gpuSourceState struct {
	src    GPUSource
	lastOK int64 // time of the last read that returned readings; 0 = never
	errs   errorLog
}

type gpuKey struct {
	source *gpuSourceState
	id     GPUID
}

type gpuState struct {
	id        GPUID
	src       *gpuSourceState
	s         *series
	rawEnergy float64 // last raw counter value (mJ), for change detection
	rawPower  float64
	firstSeen int64
	lastSeen  int64 // last read that included this GPU, changed or not
	gaps      []int64
}

// NewGPUSampler returns a sampler over the given sources. Call Start to
// sample in the background, or Sample to take one reading now.
func NewGPUSampler(sources []GPUSource, opts SamplerOptions) (*GPUSampler, error) {
	if len(sources) == 0 {
		return nil, errors.New("gpu sampler: no source (give at least one dcgm-exporter URL or NVML)")
	}
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	g := &GPUSampler{opts: o, clock: newClock(o.Now), byKey: map[gpuKey]*gpuState{}, notify: make(chan struct{})}
	for _, s := range sources {
		if s == nil {
			return nil, errors.New("gpu sampler: nil source")
		}
		g.sources = append(g.sources, &gpuSourceState{src: s})
	}
	return g, nil
}

// Start takes a first sample, returning its error (an unreachable URL, an
// exposition without DCGM metrics), then samples every Interval until ctx
// ends or Stop is called. Each read retries transient errors (HTTP 5xx,
// time-outs, connection errors; see retry.go) within the interval.
func (g *GPUSampler) Start(ctx context.Context) error {
	periodic := func(ctx context.Context) error { return g.sample(ctx, g.opts.Interval) }
	return g.loop.start(ctx, g.opts.Interval, g.Sample, periodic)
}

// Stop ends background sampling and waits for it. Windows stay queryable.
func (g *GPUSampler) Stop() { g.loop.stop() }

// Sample reads every source once, now, and stores the readings. It returns
// the sources' errors joined (the readings that did arrive are kept). It is
// safe to call concurrently with background sampling, e.g. to take a reading
// exactly at a window edge. Transient errors are retried until ctx's
// deadline (one Timeout when it has none).
func (g *GPUSampler) Sample(ctx context.Context) error {
	return g.sample(ctx, probeBound(ctx, g.opts.Timeout))
}

func (g *GPUSampler) sample(ctx context.Context, bound time.Duration) error {
	g.sampleMu.Lock()
	defer g.sampleMu.Unlock()

	type result struct {
		t   int64
		rs  []GPUReading
		err error
	}
	results := make([]result, len(g.sources))
	var wg sync.WaitGroup
	for i, st := range g.sources {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var res result
			_, res.err = retry(ctx, bound, g.opts.Timeout, func(rctx context.Context) error {
				t0 := g.clock.nanos()
				var err error
				res.rs, err = st.src.ReadGPUs(rctx)
				t1 := g.clock.nanos()
				res.t = t0 + (t1-t0)/2
				return err
			})
			results[i] = res
		}()
	}
	wg.Wait()

	g.mu.Lock()
	var errs []error
	for i, r := range results {
		st := g.sources[i]
		if r.err != nil {
			st.errs.add(r.t, r.err)
			errs = append(errs, r.err)
		}
		if len(r.rs) > 0 {
			st.lastOK = r.t
		}
		for _, rd := range r.rs {
			g.ingest(st, r.t, rd)
		}
	}
	close(g.notify)
	g.notify = make(chan struct{})
	g.mu.Unlock()
	return errors.Join(errs...)
}

// ingest stores one reading (g.mu held).
func (g *GPUSampler) ingest(st *gpuSourceState, t int64, rd GPUReading) {
	k := gpuKey{source: st, id: rd.GPU}
	gs := g.byKey[k]
	if gs == nil {
		gs = &gpuState{id: rd.GPU, src: st, s: newSeries(g.opts.MaxPoints, gpuColumns()...),
			rawEnergy: math.NaN(), rawPower: math.NaN(), firstSeen: t}
		g.byKey[k] = gs
		g.gpus = append(g.gpus, gs)
	}
	if t <= gs.lastSeen {
		return
	}
	gs.lastSeen = t
	if gs.s.len() > 0 && sameReading(gs, rd) {
		return // the source has not refreshed its values
	}
	if prev, ok := gs.s.last(); ok {
		if len(gs.gaps) == maxIntervalGaps {
			copy(gs.gaps, gs.gaps[1:])
			gs.gaps = gs.gaps[:maxIntervalGaps-1]
		}
		gs.gaps = append(gs.gaps, t-prev)
	}
	gs.rawEnergy, gs.rawPower = rd.EnergyMJ, rd.PowerW
	raw := make([]float64, gpuGaugeCol0+int(NumGPUGauges))
	raw[gpuEnergyCol], raw[gpuPowerCol] = rd.EnergyMJ/1000, rd.PowerW
	for k := range NumGPUGauges {
		raw[gpuGaugeCol0+int(k)] = rd.Gauges.raw(k)
	}
	gs.s.add(t, raw)
}

// sameReading: with a counter, the counter decides (it moves every refresh
// even at idle); without one, the power value does.
func sameReading(gs *gpuState, rd GPUReading) bool {
	if math.IsNaN(rd.EnergyMJ) != math.IsNaN(gs.rawEnergy) || math.IsNaN(rd.PowerW) != math.IsNaN(gs.rawPower) {
		return false
	}
	if !math.IsNaN(rd.EnergyMJ) {
		return rd.EnergyMJ == gs.rawEnergy
	}
	return rd.PowerW == gs.rawPower
}

// updateInterval is the median of the recent gaps between value changes.
func (gs *gpuState) updateInterval() time.Duration {
	if len(gs.gaps) == 0 {
		return 0
	}
	g := append([]int64(nil), gs.gaps...)
	sort.Slice(g, func(i, j int) bool { return g[i] < g[j] })
	return time.Duration(g[len(g)/2])
}

// GPUs lists the GPUs seen so far, in discovery order.
func (g *GPUSampler) GPUs() []GPUID {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]GPUID, len(g.gpus))
	for i, gs := range g.gpus {
		out[i] = gs.id
	}
	return out
}

// WaitCovered blocks until every GPU still reported by its source has a
// stored value change at or after t, so that a window ending at t can be
// interpolated at its end rather than clamped. With dcgm-exporter's default
// 30 s collect interval this can take up to 30 s after t; bound it with ctx.
func (g *GPUSampler) WaitCovered(ctx context.Context, t time.Time) error {
	tn := g.clock.nanosOf(t)
	for {
		g.mu.Lock()
		why := g.uncovered(tn)
		ch := g.notify
		g.mu.Unlock()
		if why == "" {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("waiting for GPU samples after %s: %s: %w", t.Format(time.RFC3339Nano), why, ctx.Err())
		case <-g.loop.stoppedCh(): // nil (never ready) when not started
			return fmt.Errorf("waiting for GPU samples after %s: %s: %w", t.Format(time.RFC3339Nano), why, errStopped)
		}
	}
}

// uncovered returns why t is not covered yet, or "" (g.mu held).
func (g *GPUSampler) uncovered(t int64) string {
	if len(g.gpus) == 0 {
		return "no GPU seen yet"
	}
	for _, gs := range g.gpus {
		if gs.src.lastOK > gs.lastSeen {
			continue // gone from its source
		}
		last, _ := gs.s.last()
		if last < t {
			return fmt.Sprintf("%s last changed at %s (update interval %v)", gs.id, g.clock.timeOf(last).Format(time.RFC3339Nano), gs.updateInterval())
		}
	}
	return ""
}

// Window returns the energy and power of the selected GPUs over
// [start, end]. See README.md for the window semantics. It errors when end is
// not after start or no GPU matches sel; data problems become warnings.
func (g *GPUSampler) Window(start, end time.Time, sel GPUSelector) (EnergyWindow, error) {
	if !end.After(start) {
		return EnergyWindow{}, fmt.Errorf("energy window: end %s is not after start %s", end.Format(time.RFC3339Nano), start.Format(time.RFC3339Nano))
	}
	a, b := g.clock.nanosOf(start), g.clock.nanosOf(end)
	g.mu.Lock()
	defer g.mu.Unlock()

	var picked []*gpuState
	for _, gs := range g.gpus {
		if sel.Matches(gs.id) {
			picked = append(picked, gs)
		}
	}
	if len(picked) == 0 {
		seen := make([]string, len(g.gpus))
		for i, gs := range g.gpus {
			seen[i] = gs.id.String()
		}
		if len(seen) == 0 {
			seen = []string{"none"}
		}
		return EnergyWindow{}, fmt.Errorf("energy window: no GPU matches selector %q (seen: %s)", sel.String(), strings.Join(seen, "; "))
	}
	sort.SliceStable(picked, func(i, j int) bool { return lessGPU(picked[i].id, picked[j].id) })

	w := EnergyWindow{Start: start, End: end, Coverage: 1}
	var names []string
	methods := map[string]bool{}
	warnedSrc := map[*gpuSourceState]bool{}
	for _, gs := range picked {
		ge, warns := g.gpuWindow(gs, a, b)
		w.GPUs = append(w.GPUs, ge)
		w.Warnings = append(w.Warnings, warns...)
		if !containsString(names, ge.Source) {
			names = append(names, ge.Source)
		}
		methods[ge.Method] = true
		if !math.IsNaN(ge.EnergyJ) {
			w.EnergyJ += ge.EnergyJ
		}
		if !math.IsNaN(ge.MeanPowerW) {
			w.MeanPowerW += ge.MeanPowerW
		}
		w.Coverage = math.Min(w.Coverage, ge.Coverage)
		w.UpdateInterval = max(w.UpdateInterval, ge.UpdateInterval)
		if !warnedSrc[gs.src] {
			warnedSrc[gs.src] = true
			if msg, ok := gs.src.errs.warning(gs.src.src.Name(), a, b); ok {
				w.Warnings = append(w.Warnings, msg)
			}
		}
	}
	seen := map[string]string{}
	for _, gs := range picked {
		if gs.id.UUID == "" {
			continue
		}
		if other, dup := seen[gs.id.UUID]; dup && other != gs.src.src.Name() {
			w.Warnings = append(w.Warnings, fmt.Sprintf("%s is reported by both %s and %s and is counted twice: give each exporter once", gs.id, other, gs.src.src.Name()))
		}
		seen[gs.id.UUID] = gs.src.src.Name()
	}
	w.Source = strings.Join(names, ", ")
	w.Method = combineMethods(methods)
	if w.Method == MethodNone {
		w.EnergyJ, w.MeanPowerW = math.NaN(), math.NaN()
	}
	w.PeakPowerW = peakOfSum(picked, gpuPowerCol, a, b)
	w.Gauges, w.ThrottleReasons = gaugeWindows(picked, w.GPUs, a, b, start)
	w.Power = powerSeries(picked, a, b, start)
	if w.UpdateInterval > 0 && end.Sub(start) < coarseFactor*w.UpdateInterval {
		w.Warnings = append(w.Warnings, fmt.Sprintf(
			"update interval too coarse: the window (%v) is shorter than %d × the detected update interval (%v); energy is interpolated between few readings (run dcgm-exporter with -c 1000, or lengthen and pad the window)",
			end.Sub(start).Round(time.Millisecond), coarseFactor, w.UpdateInterval.Round(time.Millisecond)))
	}
	return w, nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func combineMethods(m map[string]bool) string {
	delete(m, MethodNone)
	switch {
	case len(m) == 0:
		return MethodNone
	case len(m) > 1:
		return MethodMixed
	}
	for k := range m {
		return k
	}
	return MethodNone
}

// gpuWindow computes one GPU's figures over [a, b] (g.mu held).
func (g *GPUSampler) gpuWindow(gs *gpuState, a, b int64) (GPUEnergy, []string) {
	ge := GPUEnergy{GPU: gs.id, Source: gs.src.src.Name(), Method: MethodNone,
		EnergyJ: math.NaN(), MeanPowerW: math.NaN(), PeakPowerW: math.NaN(), UpdateInterval: gs.updateInterval()}
	for k := range ge.Gauges {
		ge.Gauges[k] = GaugeStats{Mean: math.NaN(), Peak: math.NaN()}
	}
	var warns []string
	s := gs.s
	ca, cb, ok := s.span(a, b)
	if !ok {
		warns = append(warns, fmt.Sprintf("missing samples: %s has fewer than two readings spanning the window; it is left out of the sums", gs.id))
		return ge, warns
	}
	ge.Coverage = float64(cb-ca) / float64(b-a)
	ge.Samples = s.pointsIn(a, b)
	if ca > a {
		first, _ := s.first()
		what := "first appeared"
		if first < a {
			what = "first reading"
		}
		warns = append(warns, fmt.Sprintf("partial coverage: %s %s %v after the window start; energy covers %.1f%% of the window",
			gs.id, what, time.Duration(ca-a).Round(time.Millisecond), 100*ge.Coverage))
	}
	if cb < b {
		if gs.src.lastOK > gs.lastSeen && gs.lastSeen < b {
			warns = append(warns, fmt.Sprintf("GPU disappeared: %s is no longer reported by %s since %s",
				gs.id, gs.src.src.Name(), g.clock.timeOf(gs.lastSeen).Format(time.RFC3339)))
		}
		warns = append(warns, fmt.Sprintf("partial coverage: %s has no reading after %v before the window end; energy covers %.1f%% of the window (call WaitCovered before Window)",
			gs.id, time.Duration(b-cb).Round(time.Millisecond), 100*ge.Coverage))
	}
	lo, hi := s.bracket(ca, cb)
	gpuGauges(s, &ge, ca, cb, lo, hi)
	counterOK := s.valid(gpuEnergyCol, lo, hi)
	powerOK := s.valid(gpuPowerCol, lo, hi)
	dur := float64(cb-ca) / 1e9
	switch {
	case counterOK:
		ge.Method = MethodCounter
		ge.EnergyJ = s.delta(gpuEnergyCol, ca, cb)
		for _, rt := range s.resetsIn(gpuEnergyCol, s.t[lo], s.t[hi]) {
			warns = append(warns, fmt.Sprintf("counter reset: %s energy counter dropped at %s (driver reload?); the post-reset value was added",
				gs.id, g.clock.timeOf(rt).Format(time.RFC3339)))
		}
	case powerOK:
		ge.Method = MethodPowerIntegral
		ge.EnergyJ = s.areaAt(gpuPowerCol, cb) - s.areaAt(gpuPowerCol, ca)
		warns = append(warns, fmt.Sprintf("no energy counter for %s over the window: energy is the trapezoid integral of %s", gs.id, MetricDCGMPower))
	default:
		warns = append(warns, fmt.Sprintf("missing samples: %s has neither a continuous energy counter nor power readings over the window; it is left out of the sums", gs.id))
	}
	switch {
	case powerOK:
		ge.MeanPowerW = s.mean(gpuPowerCol, ca, cb)
		ge.PeakPowerW = s.peakIn(gpuPowerCol, ca, cb)
	case counterOK && dur > 0:
		ge.MeanPowerW = ge.EnergyJ / dur
		warns = append(warns, fmt.Sprintf("no power readings for %s: mean power derived from the energy counter, peak unavailable", gs.id))
	}
	limit := 3 * max(int64(ge.UpdateInterval), int64(g.opts.Interval))
	if gap, at := s.maxGap(lo, hi); gap > limit {
		warns = append(warns, fmt.Sprintf("missing samples: %s has no new reading for %v from %s (update interval %v)",
			gs.id, time.Duration(gap).Round(time.Millisecond), g.clock.timeOf(at).Format(time.RFC3339), ge.UpdateInterval.Round(time.Millisecond)))
	}
	return ge, warns
}

// colSpan is one GPU's stretch of valid readings of a column inside a
// window.
type colSpan struct {
	gs     *gpuState
	ca, cb int64
	lo, hi int // its points bracketing [ca, cb]
}

// colSpans returns the GPUs' spans of valid readings of column col inside
// [a, b] (g.mu held); GPUs without any are left out.
func colSpans(gpus []*gpuState, col int, a, b int64) []colSpan {
	var spans []colSpan
	for _, gs := range gpus {
		ca, cb, ok := gs.s.span(a, b)
		if !ok {
			continue
		}
		lo, hi := gs.s.bracket(ca, cb)
		if !gs.s.valid(col, lo, hi) {
			continue
		}
		spans = append(spans, colSpan{gs, ca, cb, lo, hi})
	}
	return spans
}

// sumAt is the sum of the spans' interpolated column col at t and how many
// spans cover t.
func sumAt(spans []colSpan, col int, t int64) (float64, int) {
	sum, n := 0.0, 0
	for _, sp := range spans {
		if t >= sp.ca && t <= sp.cb {
			sum += sp.gs.s.valueAt(col, t)
			n++
		}
	}
	return sum, n
}

// peakOfSum is the highest sum of the GPUs' interpolated column col at any
// of their point times inside [a, b] (g.mu held). GPUs without readings
// there are left out; NaN when none has any.
func peakOfSum(gpus []*gpuState, col int, a, b int64) float64 {
	spans := colSpans(gpus, col, a, b)
	if len(spans) == 0 {
		return math.NaN()
	}
	var times []int64
	for _, sp := range spans {
		times = append(times, sp.ca, sp.cb)
		for i := sp.lo; i <= sp.hi; i++ {
			if t := sp.gs.s.t[i]; t >= sp.ca && t <= sp.cb {
				times = append(times, t)
			}
		}
	}
	peak := math.Inf(-1)
	for _, t := range times {
		sum, _ := sumAt(spans, col, t)
		peak = math.Max(peak, sum)
	}
	return peak
}

// seriesOf samples the GPUs' interpolated column col, summed (or averaged
// over the GPUs covering each instant when mean is set), at up to
// MaxPowerPoints evenly spaced instants of [a, b] (g.mu held), at most one
// per second of window. emit receives each instant's offset from a and
// value; instants no GPU covers are left out. It reports whether any GPU
// has readings.
func seriesOf(gpus []*gpuState, col int, a, b int64, mean bool, emit func(off int64, v float64)) bool {
	spans := colSpans(gpus, col, a, b)
	if len(spans) == 0 || b <= a {
		return false
	}
	n := max(int(min(int64(MaxPowerPoints), (b-a)/int64(time.Second)+1)), 2)
	for k := 0; k < n; k++ {
		off := (b - a) * int64(k) / int64(n-1)
		sum, c := sumAt(spans, col, a+off)
		if c == 0 {
			continue
		}
		if mean {
			sum /= float64(c)
		}
		emit(off, sum)
	}
	return true
}

// powerSeries is the summed power series of the GPUs over [a, b]; start is
// the instant of a. nil when no GPU has power readings.
func powerSeries(gpus []*gpuState, a, b int64, start time.Time) []PowerSample {
	var out []PowerSample
	seriesOf(gpus, gpuPowerCol, a, b, false, func(off int64, v float64) {
		out = append(out, PowerSample{T: start.Add(time.Duration(off)), W: v})
	})
	return out
}

// gaugeWindows combines the GPUs' gauges over [a, b] (g.mu held); per-GPU
// figures are already in ges. Only gauges some GPU reports are returned.
func gaugeWindows(gpus []*gpuState, ges []GPUEnergy, a, b int64, start time.Time) ([]GaugeWindow, uint64) {
	var out []GaugeWindow
	var throttle uint64
	for _, ge := range ges {
		throttle |= ge.ThrottleReasons
	}
	for k := range NumGPUGauges {
		if k == GaugeThrottle {
			continue
		}
		gw := GaugeWindow{Gauge: k, Mean: math.NaN(), Peak: math.NaN()}
		sum, peak := 0.0, math.Inf(-1)
		for _, ge := range ges {
			st := ge.Gauges[k]
			if math.IsNaN(st.Mean) {
				continue
			}
			gw.GPUs++
			sum += st.Mean
			peak = nanMax(peak, st.Peak)
		}
		if gw.GPUs == 0 {
			continue
		}
		col := gpuGaugeCol0 + int(k)
		if k.Summed() {
			gw.Mean, gw.Peak = sum, peakOfSum(gpus, col, a, b)
		} else {
			gw.Mean, gw.Peak = sum/float64(gw.GPUs), peak
		}
		t0 := float64(start.UnixNano()) / 1e9
		seriesOf(gpus, col, a, b, !k.Summed(), func(off int64, v float64) {
			gw.Series = append(gw.Series, GaugeSample{T: t0 + float64(off)/1e9, V: v})
		})
		out = append(out, gw)
	}
	return out, throttle
}

// gpuGauges fills ge's gauges over [ca, cb] from the points [lo, hi]
// (g.mu held): a gauge needs a reading at every point.
func gpuGauges(s *series, ge *GPUEnergy, ca, cb int64, lo, hi int) {
	for k := range NumGPUGauges {
		ge.Gauges[k] = GaugeStats{Mean: math.NaN(), Peak: math.NaN()}
		col := gpuGaugeCol0 + int(k)
		if !s.valid(col, lo, hi) {
			continue
		}
		if k == GaugeThrottle {
			for i := lo; i <= hi; i++ {
				ge.ThrottleReasons |= uint64(s.cols[col].v[i])
			}
			continue
		}
		ge.Gauges[k] = GaugeStats{Mean: s.mean(col, ca, cb), Peak: s.peakIn(col, ca, cb)}
	}
}
