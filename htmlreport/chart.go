package htmlreport

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// seriesKind says how a series is drawn.
type seriesKind uint8

const (
	lineSeries    seriesKind = iota // points joined by straight lines
	stepSeries                      // a step function: flat after each point up to the next x (CDFs)
	scatterSeries                   // markers only
)

// point is one data point. Tip, when set, becomes the point's tooltip (an
// SVG <title>); R is a scatter marker's radius in pixels (0: default).
type point struct {
	x, y float64
	r    float64
	tip  string
	// hollow draws a scatter marker as an outline only.
	hollow bool
	// label is written beside a scatter marker.
	label string
	// bar draws an error bar from lo to hi (the confidence interval of
	// y); an infinite end (a bound the sample cannot give) runs to the
	// plot's edge.
	bar    bool
	lo, hi float64
}

// series is one named set of points.
type series struct {
	name  string
	kind  seriesKind
	pts   []point
	color int  // palette index
	dots  bool // line and step series: mark each point (with its tooltip)
}

// refLine is a horizontal (threshold) or vertical reference line.
type refLine struct {
	v     float64
	label string
}

// marker is a labelled point drawn above the series (the knee).
type marker struct {
	x, y  float64
	label string
}

// axis describes one axis of a chart.
type axis struct {
	label string // name and unit, e.g. "TTFT P99 (ms)"
	log   bool   // log10 scale (non-positive values are not drawn)
	zero  bool   // a linear domain includes 0
	max   int    // most intervals between ticks (0: 6 for y, 8 for x)
	pad   bool   // widen the data range by 8% each side (room for large markers)
}

// chart is an SVG line/step/scatter chart. Build one, then call svg.
type chart struct {
	id     string // unique within the page (SVG ids derive from it)
	title  string // accessible name and tooltip of the whole chart
	x, y   axis
	series []series
	hlines []refLine // thresholds, drawn dashed in red across the plot
	vlines []refLine // vertical guides (round boundaries, the knee's load)
	marks  []marker
	height float64 // plot area height in pixels (0: 240)
	empty  string  // text shown when nothing can be plotted (default "no data")
}

// Chart geometry (SVG user units; the page scales the SVG to its width).
const (
	chartWidth   = 720.0
	marginLeft   = 66.0
	marginRight  = 20.0
	marginTop    = 14.0
	marginBottom = 44.0 // tick labels and the x axis label
	legendRow    = 18.0
	charWidth    = 6.2 // approximate advance of an 11px sans-serif character
)

// labelMargin keeps a label this far inside the chart's edges.
const labelMargin = 2.0

// textWidth estimates the width of an 11px label in SVG units.
func textWidth(s string) float64 { return charWidth * float64(utf8.RuneCountInString(s)) }

// label is the SVG text of a label beside a point: starting at x when it
// fits before the chart's right edge, else ending at xEnd when it fits
// after the left edge (first, with leftFirst), else on the side with more
// room, broken into lines (at spaces, and after "-", "_", "/", "," or
// ".") that fit it. No part falls outside the chart, which would clip it,
// and nothing is cut.
func label(class, text string, x, xEnd, y float64, leftFirst bool) string {
	right, left := chartWidth-labelMargin-x, xEnd-labelMargin
	anchor, at, room := "start", x, right
	switch tw := textWidth(text); {
	case leftFirst && tw <= left:
		anchor, at, room = "end", xEnd, left
	case tw <= right:
	case tw <= left || left > right:
		anchor, at, room = "end", xEnd, left
	}
	var b strings.Builder
	b.WriteString(`<text`)
	if class != "" {
		b.WriteString(` class="` + class + `"`)
	}
	b.WriteString(` x="` + fmtCoord(at) + `" y="` + fmtCoord(y) + `"`)
	if anchor != "start" {
		b.WriteString(` text-anchor="` + anchor + `"`)
	}
	b.WriteString(`>`)
	lines := breakLabel(text, int(max(room, charWidth)/charWidth))
	if len(lines) == 1 {
		b.WriteString(esc(text))
	} else {
		for i, ln := range lines {
			dy := "0"
			if i > 0 {
				dy = "1.15em"
			}
			b.WriteString(`<tspan x="` + fmtCoord(at) + `" dy="` + dy + `">` + esc(ln) + `</tspan>`)
		}
	}
	b.WriteString(`</text>`)
	return b.String()
}

// breakLabel breaks s into lines of at most n runes at its spaces or
// after "-", "_", "/", "," or "."; a part with no such place stays whole.
func breakLabel(s string, n int) []string {
	if utf8.RuneCountInString(s) <= n {
		return []string{s}
	}
	var parts []string // each ends at a place to break
	start := 0
	for i, r := range s {
		switch r {
		case ' ':
			parts = append(parts, s[start:i+1])
			start = i + 1
		case '-', '_', '/', ',', '.':
			parts = append(parts, s[start:i+1])
			start = i + 1
		}
	}
	parts = append(parts, s[start:])
	var lines []string
	cur := ""
	for _, p := range parts {
		if cur != "" && utf8.RuneCountInString(strings.TrimRight(cur+p, " ")) > n {
			lines = append(lines, strings.TrimRight(cur, " "))
			cur = ""
		}
		cur += p
	}
	if cur = strings.TrimRight(cur, " "); cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// palette holds series colours, dark enough on white and on paper, and
// distinguishable with the common colour-vision deficiencies (first eight
// after Okabe and Ito).
var palette = [...]string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#7F3C8D", "#8C564B", "#555555", "#B8860B"}

const (
	thresholdColor = "#C0392B"
	markerColor    = "#111111"
)

func colorOf(i int) string {
	if i < 0 {
		i = -i
	}
	return palette[i%len(palette)]
}

// dashOf gives series beyond the palette a dash pattern, so that the
// eleventh series is not mistaken for the first.
func dashOf(i int) string {
	switch (max(i, 0) / len(palette)) % 3 {
	case 1:
		return "6 3"
	case 2:
		return "2 2"
	}
	return ""
}

// layout is a chart's computed geometry.
type layout struct {
	x, y                     *scale
	left, top, right, bottom float64 // plot area
	legend                   []legendItem
	height                   float64 // whole SVG
	hasData                  bool
}

type legendItem struct {
	series int // index in chart.series
	x, y   float64
	lines  []string // the series' name, broken to fit a row
}

// layout computes the scales from the data, the reference lines and the
// markers, and places the legend.
func (c *chart) layout() *layout {
	ph := c.height
	if ph <= 0 {
		ph = 240
	}
	l := &layout{left: marginLeft, top: marginTop, right: chartWidth - marginRight}
	l.bottom = l.top + ph

	// Legend rows below the x axis label.
	lx, ly := l.left, l.bottom+marginBottom+4
	rows := 0
	for i, s := range c.series {
		if s.name == "" {
			continue
		}
		// A name too long for a row of its own takes several lines.
		lines := breakLabel(s.name, int((l.right-l.left-28-14)/charWidth))
		tw := 0.0
		for _, ln := range lines {
			tw = max(tw, textWidth(ln))
		}
		w := 28 + tw + 14
		if rows == 0 {
			rows = 1
		}
		if lx+w > l.right && lx > l.left {
			lx = l.left
			ly += legendRow
			rows++
		}
		l.legend = append(l.legend, legendItem{series: i, x: lx, y: ly, lines: lines})
		lx += w
		if len(lines) > 1 { // the next item starts below the last line
			lx = l.right
			ly += legendRow * float64(len(lines)-1)
			rows += len(lines) - 1
		}
	}
	l.height = l.bottom + marginBottom + float64(rows)*legendRow + 4

	var xs, ys, bars []float64
	keep := func(dst []float64, v float64, log bool) []float64 {
		if usable(v) && (!log || v > 0) {
			dst = append(dst, v)
		}
		return dst
	}
	for _, s := range c.series {
		for _, p := range s.pts {
			if usable(p.x) && usable(p.y) && (!c.x.log || p.x > 0) && (!c.y.log || p.y > 0) {
				xs, ys = append(xs, p.x), append(ys, p.y)
				l.hasData = true
				if p.bar {
					bars = keep(keep(bars, p.lo, c.y.log), p.hi, c.y.log)
				}
			}
		}
	}
	// An interval widens the axis only as far as the points' own span
	// (on a log axis, their ratio) past them: a wide one (a few requests'
	// P99) is cut at the plot's edge instead of squeezing the points.
	ys = append(ys, barsWithin(ys, bars, c.y.log)...)
	for _, h := range c.hlines {
		ys = keep(ys, h.v, c.y.log)
	}
	for _, v := range c.vlines {
		xs = keep(xs, v.v, c.x.log)
	}
	for _, m := range c.marks {
		if usable(m.x) && usable(m.y) {
			xs, ys = keep(xs, m.x, c.x.log), keep(ys, m.y, c.y.log)
		}
	}
	l.x = fitScale(c.x, xs, 8, l.left, l.right)
	l.y = fitScale(c.y, ys, 6, l.bottom, l.top)
	return l
}

// barsWithin returns the interval bounds that lie within the points'
// span past the points (at least half their largest magnitude; on a log
// axis the same in decades).
func barsWithin(pts, bounds []float64, log bool) []float64 {
	if len(pts) == 0 {
		return nil
	}
	lo, hi := slices.Min(pts), slices.Max(pts)
	if log {
		lo, hi = math.Log10(lo), math.Log10(hi)
	}
	span := math.Max(hi-lo, 0.5*math.Max(math.Abs(lo), math.Abs(hi)))
	if log {
		span = math.Max(hi-lo, 0.3) // at least a factor of two
	}
	var in []float64
	for _, b := range bounds {
		v := b
		if log {
			v = math.Log10(b)
		}
		if v >= lo-span && v <= hi+span {
			in = append(in, b)
		}
	}
	return in
}

// fitScale builds an axis's scale over the values vs.
func fitScale(a axis, vs []float64, defMax int, r0, r1 float64) *scale {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if a.log {
		if len(vs) == 0 {
			return logScale(1, 10, r0, r1)
		}
		if a.pad && hi > lo {
			f := math.Pow(hi/lo, 0.08)
			lo, hi = lo/f, hi*f
		}
		return logScale(lo, hi, r0, r1)
	}
	if len(vs) == 0 {
		lo, hi = 0, 1
	}
	if a.zero {
		lo, hi = math.Min(lo, 0), math.Max(hi, 0)
	}
	if a.pad {
		d := (hi - lo) * 0.08
		if d == 0 {
			d = math.Abs(hi) * 0.08
		}
		if a.zero && lo >= 0 {
			lo, hi = math.Max(lo-d, 0), hi+d
		} else {
			lo, hi = lo-d, hi+d
		}
	}
	n := a.max
	if n <= 0 {
		n = defMax
	}
	return linearScale(lo, hi, n, r0, r1)
}

// svg appends the chart as an <svg> element to b. Every text from the
// chart's fields is escaped.
func (c *chart) svg(b *strings.Builder) {
	l := c.layout()
	id := c.id
	w := func(parts ...string) {
		for _, p := range parts {
			b.WriteString(p)
		}
	}
	f := fmtCoord
	w(`<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="`, esc(id), `" viewBox="0 0 `, f(chartWidth), " ", f(l.height),
		`" role="img" aria-label="`, esc(c.title), `">`, "\n")
	w(`<title>`, esc(c.title), "</title>\n")
	w(`<defs><clipPath id="`, esc(id), `-c"><rect x="`, f(l.left-6), `" y="`, f(l.top-6), `" width="`, f(l.right-l.left+12),
		`" height="`, f(l.bottom-l.top+12), `"/></clipPath></defs>`, "\n")

	// Grid and axes.
	w(`<g class="grid">`)
	for _, t := range l.y.ticks {
		if y, ok := l.y.px(t.v); ok && t.major {
			w(`<line x1="`, f(l.left), `" y1="`, f(y), `" x2="`, f(l.right), `" y2="`, f(y), `"/>`)
		}
	}
	for _, t := range l.x.ticks {
		if x, ok := l.x.px(t.v); ok && t.major {
			w(`<line x1="`, f(x), `" y1="`, f(l.top), `" x2="`, f(x), `" y2="`, f(l.bottom), `"/>`)
		}
	}
	w("</g>\n")
	w(`<g class="axis">`)
	w(`<line x1="`, f(l.left), `" y1="`, f(l.bottom), `" x2="`, f(l.right), `" y2="`, f(l.bottom), `"/>`)
	w(`<line x1="`, f(l.left), `" y1="`, f(l.top), `" x2="`, f(l.left), `" y2="`, f(l.bottom), `"/>`)
	for _, t := range l.x.ticks {
		x, ok := l.x.px(t.v)
		if !ok {
			continue
		}
		tl := 3.0
		if t.major {
			tl = 5
		}
		w(`<line x1="`, f(x), `" y1="`, f(l.bottom), `" x2="`, f(x), `" y2="`, f(l.bottom+tl), `"/>`)
		if t.label != "" {
			w(`<text x="`, f(x), `" y="`, f(l.bottom+17), `" text-anchor="middle">`, esc(t.label), `</text>`)
		}
	}
	for _, t := range l.y.ticks {
		y, ok := l.y.px(t.v)
		if !ok {
			continue
		}
		tl := 3.0
		if t.major {
			tl = 5
		}
		w(`<line x1="`, f(l.left-tl), `" y1="`, f(y), `" x2="`, f(l.left), `" y2="`, f(y), `"/>`)
		if t.label != "" {
			w(`<text x="`, f(l.left-8), `" y="`, f(y+4), `" text-anchor="end">`, esc(t.label), `</text>`)
		}
	}
	w("</g>\n")
	w(`<text class="xl" x="`, f((l.left+l.right)/2), `" y="`, f(l.bottom+36), `" text-anchor="middle">`, esc(c.x.label), "</text>\n")
	w(`<text class="yl" transform="translate(14 `, f((l.top+l.bottom)/2), `) rotate(-90)" text-anchor="middle">`, esc(c.y.label), "</text>\n")

	if !l.hasData {
		msg := c.empty
		if msg == "" {
			msg = "no data"
		}
		w(`<text class="nodata" x="`, f((l.left+l.right)/2), `" y="`, f((l.top+l.bottom)/2), `" text-anchor="middle">`, esc(msg), "</text>\n")
	}

	// Reference lines.
	for _, v := range c.vlines {
		x, ok := l.x.px(v.v)
		if !ok {
			continue
		}
		w(`<g class="vref"><line x1="`, f(x), `" y1="`, f(l.top), `" x2="`, f(x), `" y2="`, f(l.bottom), `"/>`)
		if v.label != "" {
			w(label("", v.label, x+3, x-3, l.top+9, false))
		}
		w("</g>\n")
	}
	for _, h := range c.hlines {
		y, ok := l.y.px(h.v)
		if !ok {
			continue
		}
		w(`<g class="href"><line x1="`, f(l.left), `" y1="`, f(y), `" x2="`, f(l.right), `" y2="`, f(y), `" stroke="`, thresholdColor, `"/>`)
		if h.label != "" {
			w(`<text x="`, f(l.left+4), `" y="`, f(y-4), `" fill="`, thresholdColor, `">`, esc(h.label), `</text>`)
		}
		w("</g>\n")
	}

	// Series.
	for i := range c.series {
		c.seriesSVG(b, l, i)
	}

	// Markers.
	for _, m := range c.marks {
		x, okx := l.x.px(m.x)
		y, oky := l.y.px(m.y)
		if !okx || !oky {
			continue
		}
		w(`<g class="mark"><path d="M`, f(x), " ", f(y-7), "L", f(x+7), " ", f(y), "L", f(x), " ", f(y+7), "L", f(x-7), " ", f(y),
			`Z" fill="`, markerColor, `"><title>`, esc(m.label), `</title></path>`)
		if m.label != "" {
			w(label("", m.label, x+10, x-10, y-9, x > (l.left+l.right)/2))
		}
		w("</g>\n")
	}

	// Legend.
	for _, it := range l.legend {
		s := c.series[it.series]
		col := colorOf(s.color)
		w(`<g class="lgi" data-s="`, strconv.Itoa(it.series), `">`)
		switch s.kind {
		case scatterSeries:
			w(`<circle cx="`, f(it.x+10), `" cy="`, f(it.y), `" r="4" fill="`, col, `"/>`)
		default:
			w(`<line x1="`, f(it.x), `" y1="`, f(it.y), `" x2="`, f(it.x+22), `" y2="`, f(it.y), `" stroke="`, col, `" stroke-width="2.5"`)
			if d := dashOf(s.color); d != "" {
				w(` stroke-dasharray="`, d, `"`)
			}
			w(`/>`)
		}
		w(`<text x="`, f(it.x+28), `" y="`, f(it.y+4), `">`)
		if len(it.lines) > 1 {
			for j, ln := range it.lines {
				w(`<tspan x="`, f(it.x+28), `" y="`, f(it.y+4+legendRow*float64(j)), `">`, esc(ln), `</tspan>`)
			}
		} else {
			w(esc(s.name))
		}
		w("</text></g>\n")
	}
	b.WriteString("</svg>\n")
}

// seriesSVG draws series i: its path (gaps where a point cannot be
// placed), then its point markers with their tooltips.
func (c *chart) seriesSVG(b *strings.Builder, l *layout, i int) {
	s := c.series[i]
	col := colorOf(s.color)
	f := fmtCoord
	b.WriteString(`<g class="s" data-s="` + strconv.Itoa(i) + `"`)
	if s.kind != scatterSeries { // markers stay whole; lines are clipped to the plot
		b.WriteString(` clip-path="url(#` + esc(c.id) + `-c)"`)
	}
	b.WriteString(">")
	if s.name != "" {
		b.WriteString("<title>" + esc(s.name) + "</title>")
	}
	if s.kind != scatterSeries {
		var d strings.Builder
		open := false
		var prevY float64
		for _, p := range s.pts {
			x, okx := l.x.px(p.x)
			y, oky := l.y.px(p.y)
			if !okx || !oky {
				open = false
				continue
			}
			switch {
			case !open:
				d.WriteString("M" + f(x) + " " + f(y))
			case s.kind == stepSeries:
				d.WriteString("H" + f(x))
				if f(y) != f(prevY) {
					d.WriteString("V" + f(y))
				}
			default:
				d.WriteString("L" + f(x) + " " + f(y))
			}
			open, prevY = true, y
		}
		if d.Len() > 0 {
			b.WriteString(`<path d="` + d.String() + `" fill="none" stroke="` + col + `" stroke-width="2"`)
			if dash := dashOf(s.color); dash != "" {
				b.WriteString(` stroke-dasharray="` + dash + `"`)
			}
			b.WriteString("/>")
		}
	}
	if s.kind == scatterSeries || s.dots {
		for _, p := range s.pts {
			x, okx := l.x.px(p.x)
			y, oky := l.y.px(p.y)
			if !okx || !oky {
				continue
			}
			r := p.r
			if r <= 0 || math.IsNaN(r) {
				r = 3.5
			}
			r = math.Min(r, 40)
			if p.bar {
				y0, ok0 := l.y.px(p.lo)
				if !ok0 {
					y0 = l.bottom
				}
				y1, ok1 := l.y.px(p.hi)
				if !ok1 {
					y1 = l.top
				}
				// A bound past the plot's edge is cut there, without its cap.
				ok0 = ok0 && y0 >= l.top && y0 <= l.bottom
				ok1 = ok1 && y1 >= l.top && y1 <= l.bottom
				y0, y1 = math.Min(math.Max(y0, l.top), l.bottom), math.Min(math.Max(y1, l.top), l.bottom)
				b.WriteString(`<path class="ci" d="M` + f(x) + " " + f(y0) + "V" + f(y1))
				if ok0 {
					b.WriteString("M" + f(x-4) + " " + f(y0) + "h8")
				}
				if ok1 {
					b.WriteString("M" + f(x-4) + " " + f(y1) + "h8")
				}
				b.WriteString(`" fill="none" stroke="` + col + `" stroke-width="1.5"/>`)
			}
			b.WriteString(`<circle cx="` + f(x) + `" cy="` + f(y) + `" r="` + f(r) + `"`)
			if p.hollow {
				b.WriteString(` fill="#ffffff" stroke="` + col + `" stroke-width="2"`)
			} else {
				b.WriteString(` fill="` + col + `"`)
				if s.kind == scatterSeries {
					b.WriteString(` fill-opacity="0.75" stroke="` + col + `"`)
				}
			}
			if p.tip != "" {
				b.WriteString("><title>" + esc(p.tip) + "</title></circle>")
			} else {
				b.WriteString("/>")
			}
			if p.label != "" {
				b.WriteString(label("pl", p.label, x+r+4, x-r-4, y+4, false))
			}
		}
	}
	b.WriteString("</g>\n")
}
