package measure

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/goodput-dev/goodput/telemetry"
)

// Energy scopes, as written in the report.
const (
	scopeDirect     = "GPU (energy counters read from the GPUs' own telemetry)"
	scopePrometheus = "GPU (dcgm-exporter series in Prometheus)"
)

// energyReading is one energy source's figures over a window.
type energyReading struct {
	source, scope string
	w             *telemetry.EnergyWindow // GPU sources
	kepler        *telemetry.KeplerEnergy
	err           error
}

// energyJ returns the reading's energy, NaN when it has none.
func (e energyReading) energyJ() float64 {
	switch {
	case e.err != nil:
		return math.NaN()
	case e.w != nil:
		if e.w.Method == telemetry.MethodNone {
			return math.NaN()
		}
		return e.w.EnergyJ
	case e.kepler != nil:
		return e.kepler.EnergyJ
	}
	return math.NaN()
}

// measurements are the raw source figures of one window.
type measurements struct {
	energy    []energyReading // in order of preference
	server    *telemetry.ServerWindow
	serverErr error
	alloc     *telemetry.CostAllocation
	allocErr  error
	notes     []string // waits that timed out
}

// queryTimeout bounds each query made after the wait.
const queryTimeout = 30 * time.Second

// promPoll is how often Prometheus is asked whether it has scraped past a
// window end.
const promPoll = 250 * time.Millisecond

// measure reads every source over [start, end]. It first waits (at most
// cfg.Wait, or until abort) for each source to hold a reading after end,
// so that the end is interpolated rather than clamped; a wait that times
// out leaves a note and the figures cover the samples so far.
func (t *Telemetry) measure(abort context.Context, start, end time.Time) measurements {
	waitCtx, cancel := context.WithTimeout(abort, t.cfg.wait())
	defer cancel()
	var mu sync.Mutex
	var m measurements
	note := func(s string) {
		mu.Lock()
		m.notes = append(m.notes, s)
		mu.Unlock()
	}
	query := func() (context.Context, context.CancelFunc) { return context.WithTimeout(abort, queryTimeout) }
	var direct, prom, kepler *energyReading
	var wg sync.WaitGroup
	run := func(f func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f()
		}()
	}
	if t.gpu != nil {
		direct = &energyReading{source: joinNames(t.gpuNames), scope: scopeDirect}
		run(func() {
			if err := t.gpu.WaitCovered(waitCtx, end); err != nil {
				note(fmt.Sprintf("GPU energy: no reading after the window end within %v (%v); the energy covers the samples so far", t.cfg.wait(), err))
			}
			w, err := t.gpu.Window(start, end, t.cfg.GPUSelector)
			if err != nil {
				direct.err = err
				return
			}
			direct.w = &w
		})
	}
	if t.prom != nil {
		if t.promDCGM {
			prom = &energyReading{source: t.prom.Name(), scope: scopePrometheus}
		}
		if t.kepler != nil {
			kepler = &energyReading{source: t.prom.Name() + " (kepler)"}
		}
		run(func() {
			metric := t.promCounter
			if !t.promDCGM {
				metric = `{__name__=~"kepler_.*_joules_total"}`
			} else {
				metric = selector(metric, t.cfg.PrometheusSelector)
			}
			if err := waitPrometheus(waitCtx, t.prom, metric, end); err != nil {
				note(fmt.Sprintf("%s: no scrape after the window end within %v (%v); increase() extrapolates from the last sample", t.prom.Name(), t.cfg.wait(), err))
			}
			if prom != nil {
				qctx, qcancel := query()
				w, err := t.prom.GPUWindow(qctx, start, end, t.cfg.PrometheusSelector)
				qcancel()
				if err != nil {
					prom.err = err
				} else {
					prom.w = &w
				}
			}
			if kepler != nil {
				qctx, qcancel := query()
				k, err := t.prom.KeplerWindow(qctx, start, end, *t.kepler)
				qcancel()
				if err != nil {
					kepler.err = err
				} else {
					kepler.kepler, kepler.scope = &k, "Kepler: "+k.Scope
				}
			}
		})
	}
	if t.server != nil {
		run(func() {
			if err := t.server.WaitCovered(waitCtx, end); err != nil {
				note(fmt.Sprintf("server metrics: no scrape after the window end within %v (%v)", t.cfg.wait(), err))
			}
			w, err := t.server.Window(start, end)
			if err != nil {
				m.serverErr = err
				return
			}
			m.server = &w
		})
	}
	if t.serverProm != nil {
		run(func() {
			m.server, m.serverErr = t.serverPromWindow(waitCtx, query, start, end, note)
		})
	}
	if t.opencost != nil {
		run(func() {
			qctx, qcancel := query()
			defer qcancel()
			q := t.cfg.OpenCostQuery
			q.Start, q.End = start, end
			a, err := t.opencost.Allocation(qctx, q)
			if err != nil {
				m.allocErr = err
				return
			}
			m.alloc = &a
		})
	}
	wg.Wait()
	for _, e := range []*energyReading{direct, prom, kepler} {
		if e != nil {
			m.energy = append(m.energy, *e)
		}
	}
	return m
}

// serverPromWindow reads the server figures of [start, end] from the
// Prometheus of --server-metrics prometheus=URL,selector={…}, once it has
// scraped the server past end (or waitCtx ends: then increase()
// extrapolates from the last scrape, and a note says so).
func (t *Telemetry) serverPromWindow(waitCtx context.Context, query func() (context.Context, context.CancelFunc), start, end time.Time, note func(string)) (*telemetry.ServerWindow, error) {
	qctx, qcancel := query()
	ps, err := t.serverProm.ServerSeries(qctx, t.cfg.ServerMetricsSelector, end)
	qcancel()
	if err != nil {
		return nil, err
	}
	if err := waitPrometheus(waitCtx, t.serverProm, ps.Probe(), end); err != nil {
		note(fmt.Sprintf("server metrics: %s has not scraped the server after the window end within %v (%v); increase() extrapolates from the last scrape", t.serverProm.Name(), t.cfg.wait(), err))
	}
	qctx, qcancel = query()
	defer qcancel()
	if again, err := t.serverProm.ServerSeries(qctx, t.cfg.ServerMetricsSelector, end); err == nil {
		ps = again // histograms created during the window, now scraped
	}
	w, err := t.serverProm.ServerWindow(qctx, start, end, ps)
	if err != nil {
		return nil, err
	}
	return &w, nil
}

// waitPrometheus polls until p's newest sample of expr is at or after end.
func waitPrometheus(ctx context.Context, p *telemetry.Prometheus, expr string, end time.Time) error {
	tick := time.NewTicker(promPoll)
	defer tick.Stop()
	want := float64(end.UnixNano()) / 1e9
	var last error
	for {
		v, _, err := p.Query(ctx, "max(timestamp("+expr+"))", time.Now())
		if err == nil {
			if len(v) > 0 && v[0].Value >= want {
				return nil
			}
			last = fmt.Errorf("newest sample older than the window end")
		} else {
			last = err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %v)", ctx.Err(), last)
		case <-tick.C:
		}
	}
}

func joinNames(names []string) string {
	s := ""
	for i, n := range names {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}
