package telemetry

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// PromServerSeries is what a Prometheus holds of an inference server's
// series under a selector: the engine and, for each figure, the first of
// its names (serverScalars, serverHistograms) with series. Find it with
// ServerSeries; ServerWindow uses it for every window.
type PromServerSeries struct {
	Matchers Matchers
	Engine   string
	scalars  [srvFixedCols]*metricRef
	hists    [numHists]*metricRef
}

// Probe returns the selector of a gauge the server always exposes (its
// running requests), for waiting until Prometheus has scraped past a
// window end.
func (ps PromServerSeries) Probe() string {
	for _, i := range []int{srvRunning, srvWaiting, srvKV, srvGen} {
		if r := ps.scalars[i]; r != nil {
			return ps.selector(*r, "")
		}
	}
	for _, r := range ps.hists {
		if r != nil {
			return ps.selector(*r, "_count")
		}
	}
	return ""
}

// selector renders the series of r under the matchers, with suffix added
// to the name (_bucket, _sum, _count of a histogram).
func (ps PromServerSeries) selector(r metricRef, suffix string) string {
	ms := append(Matchers(nil), ps.Matchers...)
	if r.label != "" {
		ms = append(ms, Matcher{Name: r.label, Op: "=", Value: r.value})
	}
	if r.plus != "" { // both families: {__name__=~"a|b",…}
		ms = append(Matchers{{Name: "__name__", Op: "=~", Value: regexp.QuoteMeta(r.name) + "|" + regexp.QuoteMeta(r.plus)}}, ms...)
		return ms.selector("")
	}
	if r.times != "" { // series by series, matched on their labels
		return "(" + ms.selector(r.name) + " * " + ms.selector(r.times) + ")"
	}
	name := r.name + suffix
	if r.histSum {
		name = r.name + "_sum"
	}
	return ms.selector(name)
}

// serverNamePattern matches every engine's series names: the engine
// table's prefixes, less those another prefix covers (nv_trt_llm_ by nv_).
var serverNamePattern = func() string {
	var all []string
	for _, e := range engineTable {
		all = append(all, e.Prefixes...)
	}
	var alts []string
	for _, p := range all {
		covered := false
		for _, q := range all {
			covered = covered || q != p && strings.HasPrefix(p, q)
		}
		if !covered {
			alts = append(alts, regexp.QuoteMeta(p)+".+")
		}
	}
	return strings.Join(alts, "|")
}()

// ServerSeries finds which server series Prometheus holds under the
// matchers at time at (its instant-query lookback, 5 min by default): one
// query, count by name and the labels the engine tables filter on. No
// series of any engine is an error naming the selector.
func (p *Prometheus) ServerSeries(ctx context.Context, m Matchers, at time.Time) (PromServerSeries, error) {
	labels := []string{"__name__"}
	for _, q := range serverScalars {
		for _, r := range q.refs {
			if r.label != "" && !contains(labels, r.label) {
				labels = append(labels, r.label)
			}
		}
	}
	for _, h := range serverHistograms {
		for _, r := range h.refs {
			if r.label != "" && !contains(labels, r.label) {
				labels = append(labels, r.label)
			}
		}
	}
	all := append(Matchers{{Name: "__name__", Op: "=~", Value: serverNamePattern}}, m...)
	v, _, err := p.Query(ctx, "count by ("+strings.Join(labels, ", ")+") ({"+all.String()+"})", at)
	if err != nil {
		return PromServerSeries{}, err
	}
	have := func(r metricRef, suffix string) bool {
		name := r.name + suffix
		if r.histSum {
			name = r.name + "_sum"
		}
		for _, s := range v {
			if s.Labels["__name__"] == name && (r.label == "" || s.Labels[r.label] == r.value) {
				return true
			}
		}
		return false
	}
	ps := PromServerSeries{Matchers: m}
	found := false
	for i, q := range serverScalars {
		for _, r := range q.refs {
			if have(r, "") {
				ps.scalars[i], found = &r, true
				if ps.Engine == "" {
					ps.Engine = engineOf(r.name)
				}
				break
			}
		}
	}
	for h, sh := range serverHistograms {
		for _, r := range sh.refs {
			if have(r, "_bucket") {
				ps.hists[h], found = &r, true
				break
			}
		}
	}
	if !found {
		names, _ := MetricsEngines()
		return PromServerSeries{}, fmt.Errorf("%s: no %s series under {%s} at %s (looked for %s, …; is the server scraped by this Prometheus, and do its series carry these labels?)",
			p.name, names, m, at.UTC().Format(time.RFC3339), strings.Join(refNames(serverScalars[srvRunning].refs), ", "))
	}
	if ps.Engine == "" {
		for _, r := range ps.hists {
			if r != nil {
				ps.Engine = engineOf(r.name)
				break
			}
		}
	}
	return ps, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ServerWindow returns the server figures over [start, end] from the
// series ps found, the same figures a ServerSampler computes from its own
// scrapes, summed over every replica under the selector (those that come
// and go included). Every query is an instant query at time = end over the
// range [D], D = end − start:
//
//	counter        sum(increase(NAME{m}[D]))
//	histogram      sum by (le) (increase(NAME_bucket{m}[D])), and _sum, _count alike
//	gauge          avg_over_time(sum(NAME{m})[D:step]), max_over_time(…) (avg for KV cache usage)
//	scrapes        max by (instance) (count_over_time(PROBE{m}[D]))
//
// increase() needs two samples of a series inside the range: a window
// holding fewer than two scrapes of the server is an error saying so (its
// figures are left out rather than guessed); one holding fewer than
// coarseFactor scrapes gets an "inexact" warning, since increase()
// extrapolates up to a scrape interval at each edge. Replicas counts the
// instances scraped in the window; Coverage is the fewest scrapes of an
// instance over the most. A series that appears inside the window (vLLM
// creates its histograms at the first request) misses its first value.
func (p *Prometheus) ServerWindow(ctx context.Context, start, end time.Time, ps PromServerSeries) (ServerWindow, error) {
	if !end.After(start) {
		return ServerWindow{}, fmt.Errorf("%s: server window: end %s is not after start %s", p.name, end.Format(time.RFC3339Nano), start.Format(time.RFC3339Nano))
	}
	d := end.Sub(start).Round(time.Millisecond)
	rng := "[" + promDuration(d) + "]"
	sub := "[" + promDuration(d) + ":" + promDuration(max(time.Second, d/1000)) + "]"
	w := newServerWindow(start, end, ps.Engine, 0)
	run := func(expr string) ([]PromSample, error) {
		v, warns, err := p.Query(ctx, expr, end)
		for _, x := range warns {
			w.Warnings = append(w.Warnings, "prometheus: "+x)
		}
		return v, err
	}
	one := func(expr string) (float64, error) {
		v, err := run(expr)
		if err != nil || len(v) == 0 {
			return math.NaN(), err
		}
		return v[0].Value, nil
	}

	probe := ps.Probe()
	scrapes, err := run("max by (instance) (count_over_time(" + probe + rng + "))")
	if err != nil {
		return ServerWindow{}, err
	}
	most, fewest := 0, math.MaxInt
	for _, s := range scrapes {
		n := int(s.Value)
		most, fewest = max(most, n), min(fewest, n)
	}
	if most < 2 {
		return ServerWindow{}, fmt.Errorf("%s: the %v window ending at %s holds %d scrape(s) of %s: increase() needs two, so a round shorter than about two scrape intervals cannot be read (lengthen the round or scrape the server more often); its server figures are left out",
			p.name, d, end.UTC().Format(time.RFC3339), most, probe)
	}
	w.Replicas = len(scrapes)
	w.Coverage = float64(fewest) / float64(most)
	for _, s := range scrapes {
		if n := int(s.Value); float64(n) < 0.9*float64(most) {
			w.Warnings = append(w.Warnings, fmt.Sprintf("missing samples: instance %s has %d of %d scrapes in the window (it started, stopped or failed scrapes)", s.Labels["instance"], n, most))
		}
	}
	if most < coarseFactor {
		w.Warnings = append(w.Warnings, fmt.Sprintf(
			"inexact: the window (%v) holds %d scrapes of the server in %s (one about every %v): increase() extrapolates to the window edges, so the counters and histograms are approximate; lengthen the round to %d scrape intervals or scrape more often",
			d, most, p.name, (d/time.Duration(most)).Round(time.Millisecond), coarseFactor))
	}

	f := newServerFigures()
	for i, q := range serverScalars {
		r := ps.scalars[i]
		if r == nil {
			continue
		}
		f.used[q.key] = r.String()
		sel := ps.selector(*r, "")
		if q.kind == gaugeCol {
			agg := "sum"
			if q.mean {
				agg = "avg"
			}
			inner := agg + "(" + sel + ")" + sub
			mean, err := one("avg_over_time(" + inner + ")")
			if err != nil {
				return ServerWindow{}, err
			}
			peak, err := one("max_over_time(" + inner + ")")
			if err != nil {
				return ServerWindow{}, err
			}
			f.gauges[i] = Stat{Mean: mean * r.scale, Max: peak * r.scale}
			continue
		}
		rg := rng
		if r.times != "" { // a product is no stored series: over a subquery
			rg = sub
		}
		v, err := one("sum(increase(" + sel + rg + "))")
		if err != nil {
			return ServerWindow{}, err
		}
		f.counters[i] = v * r.scale
	}
	for h, sh := range serverHistograms {
		r := ps.hists[h]
		if r == nil {
			continue
		}
		f.used[sh.key] = r.String()
		buckets, err := run("sum by (le) (increase(" + ps.selector(*r, "_bucket") + rng + "))")
		if err != nil {
			return ServerWindow{}, err
		}
		hd := histDelta{metric: r.String()}
		for _, s := range buckets {
			le, err := strconv.ParseFloat(s.Labels["le"], 64)
			if err != nil {
				w.Warnings = append(w.Warnings, fmt.Sprintf("%s: bucket le=%q is not a number; skipped", r, s.Labels["le"]))
				continue
			}
			hd.buckets = append(hd.buckets, Bucket{UpperBound: le * r.scale, Count: s.Value})
		}
		sort.Slice(hd.buckets, func(i, j int) bool { return hd.buckets[i].UpperBound < hd.buckets[j].UpperBound })
		if hd.count, err = one("sum(increase(" + ps.selector(*r, "_count") + rng + "))"); err != nil {
			return ServerWindow{}, err
		}
		sum, err := one("sum(increase(" + ps.selector(*r, "_sum") + rng + "))")
		if err != nil {
			return ServerWindow{}, err
		}
		hd.sum = sum * r.scale
		f.hists[h] = hd
	}
	f.fill(&w)
	return w, nil
}
