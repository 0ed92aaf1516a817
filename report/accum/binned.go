package accum

import (
	"math"
	"strconv"

	"github.com/goodput-dev/goodput/metric"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/stats"
)

const (
	// binnedTimeBins is the number of time bins of the rate and concurrency
	// distributions beyond ExactCap (bins double in width as the run
	// grows).
	binnedTimeBins = 1 << 14
	// binnedTokenBins is the number of time bins of the token rate
	// distributions above TokenEventCap.
	binnedTokenBins = 1 << 16
)

// Value metrics of the binned path (integers in the histograms:
// nanoseconds, tokens, or per-iteration ratios times 1e6).
const (
	aIters = iota
	aPrompt
	aOutput
	aTotal
	aOutPerIter
	aIterPerIter
	aTextIn
	aTextOut
	numBinned
)

// binnedScale divides the recorded integers back into GuideLLM's units.
var binnedScale = [numBinned]float64{
	aIters: 1, aPrompt: 1, aOutput: 1, aTotal: 1, aOutPerIter: 1e6, aIterPerIter: 1e6, aTextIn: 1, aTextOut: 1,
}

// Time-bin channels, per status.
const (
	cRPS = iota
	cPromptTok
	cOutTok
	cTextIn
	cTextOut
	numRateCh
)

const (
	kReq = iota
	kTextIn
	kTextOut
	numConcCh
)

// binnedAgg aggregates the requests in the window once there are more
// than ExactCap of them: histograms for the value metrics, time bins for
// rates and concurrency, plain counters for the rest.
type binnedAgg struct {
	vals [numBinned][report.NumStatus]*stats.HistAcc
	// lat are GuideLLM's latency metrics (binned reports them), by slot.
	lat     [metric.N][report.NumStatus]*stats.HistAcc
	bins    binSeries
	counts  [report.NumStatus]int64
	textIn  [report.NumStatus]int64 // requests with a text input value
	textOut [report.NumStatus]int64

	errClass     map[string]int64
	errMsg       map[[2]uint8]int64 // by (class index, message index)
	errHTTP      map[int]int64
	errored      int64
	intervals    [report.NumStatus]int64
	textRequests [report.NumStatus]int64
	confidence   float64      // of the distributions' intervals
	media        *binnedMedia // nil until a request with media
}

// binSeries holds weights per time bin (Unix seconds) for several
// channels; concurrency channels keep, per bin, the net change of the
// level and Σ change×(bin end − change time), enough to integrate the
// level over each bin.
type binSeries struct {
	origin, width float64
	used          int
	rate          [][report.NumStatus][]float64 // numRateCh channels (the media's: numMedia)
	net, part     [][report.NumStatus][]float64 // numConcCh channels (the media's: numMedia)
	nbins         int
	tmp           []float64      // channel sums
	ss            []stats.Tagged // per-bin samples
}

func newBinSeries(origin, width float64, nbins, nRate, nConc int) binSeries {
	b := binSeries{origin: origin, width: width, nbins: nbins, rate: make([][report.NumStatus][]float64, nRate),
		net: make([][report.NumStatus][]float64, nConc), part: make([][report.NumStatus][]float64, nConc)}
	for c := range b.rate {
		for st := range b.rate[c] {
			b.rate[c][st] = make([]float64, nbins)
		}
	}
	for c := range b.net {
		for st := range b.net[c] {
			b.net[c][st] = make([]float64, nbins)
			b.part[c][st] = make([]float64, nbins)
		}
	}
	return b
}

// index returns the bin of time t, doubling the bin width as needed.
func (b *binSeries) index(t float64) int {
	i := int(math.Floor((t - b.origin) / b.width))
	if i < 0 {
		i = 0
	}
	for i >= b.nbins {
		b.coarsen()
		i = int(math.Floor((t - b.origin) / b.width))
	}
	if i+1 > b.used {
		b.used = i + 1
	}
	return i
}

func (b *binSeries) coarsen() {
	half := b.nbins / 2
	for c := range b.rate {
		for st := range b.rate[c] {
			x := b.rate[c][st]
			for j := 0; j < half; j++ {
				x[j] = x[2*j] + x[2*j+1]
			}
			clear(x[half:])
		}
	}
	for c := range b.net {
		for st := range b.net[c] {
			n, p := b.net[c][st], b.part[c][st]
			for j := 0; j < half; j++ {
				n0, n1, p0, p1 := n[2*j], n[2*j+1], p[2*j], p[2*j+1]
				n[j] = n0 + n1
				p[j] = p0 + n0*b.width + p1
			}
			clear(n[half:])
			clear(p[half:])
		}
	}
	b.width *= 2
	b.used = (b.used + 1) / 2
}

func (b *binSeries) addRate(c int, st uint8, t, w float64) {
	i := b.index(t)
	b.rate[c][st][i] += w
}

func (b *binSeries) addInterval(c int, st uint8, t0, t1, w float64) {
	for _, e := range [2]struct{ t, w float64 }{{t0, w}, {t1, -w}} {
		i := b.index(e.t)
		end := b.origin + float64(i+1)*b.width
		b.net[c][st][i] += e.w
		b.part[c][st][i] += e.w * math.Max(end-e.t, 0)
	}
}

// ensureBinned creates the binned aggregates; their time bins start
// at the scheduler start (or just before the first request seen).
func (a *Accumulator) ensureBinned(first int64) *binnedAgg {
	if a.binned != nil {
		return a.binned
	}
	origin := a.cfg.Start
	if origin == 0 || (first != 0 && first < origin) {
		origin = first - 1e9
	}
	if a.minStart != 0 && a.minStart < origin {
		origin = a.minStart
	}
	x := &binnedAgg{bins: newBinSeries(NsToSec(origin), 1e-3, binnedTimeBins, numRateCh, numConcCh),
		errClass: map[string]int64{}, errMsg: map[[2]uint8]int64{}, errHTTP: map[int]int64{}, confidence: a.confidence()}
	for _, l := range metric.All {
		if binnedLatency(l) {
			for st := range x.lat[l.Slot] {
				x.lat[l.Slot][st] = stats.NewHistAcc()
			}
		}
	}
	for i := range x.vals {
		for st := range x.vals[i] {
			x.vals[i][st] = stats.NewHistAcc()
		}
	}
	a.binned = x
	return x
}

// binnedAdd adds an in-window request, and its media (nil: none), to the
// binned aggregates.
func (a *Accumulator) binnedAdd(s *RequestSummary, media *mediaVals) {
	x := a.ensureBinned(s.start)
	x.addMedia(s, media)
	st := s.status
	x.counts[st]++
	rec := func(m int, v float64, ok bool, w int64) {
		if !ok {
			v = 0
		}
		x.vals[m][st].Record(int64(math.Round(v*binnedScale[m])), w)
	}
	r := s.timing(nil)
	for _, l := range metric.All {
		if binnedLatency(l) {
			v, ok := l.Value(r)
			if !ok {
				v = 0
			}
			x.lat[l.Slot][st].Record(int64(math.Round(v/l.Scale()*l.Scale())), l.Samples(r.OutputTokens))
		}
	}
	rec(aIters, float64(s.reqIters), true, 1)
	p, pok := s.promptTokens()
	rec(aPrompt, float64(p), pok, 1)
	out, ook := s.outputTokens()
	rec(aOutput, float64(out), ook, 1)
	tot, tok := s.totalTokens()
	rec(aTotal, float64(tot), tok, 1)
	if s.first == 0 || s.last == 0 || s.tokIters <= 1 {
		rec(aOutPerIter, float64(out), ook, 1)
	} else {
		first := 0.0
		if ook && out != 0 {
			first = 1
		}
		rec(aOutPerIter, first, true, 1)
		if tpi, ok := s.iterTokensPerIteration(); ok {
			rec(aOutPerIter, tpi, true, int64(s.tokIters-1))
			rec(aIterPerIter, tpi, true, int64(s.tokIters-1))
		}
	}
	t0, t1 := NsToSec(s.start), NsToSec(s.end)
	b := &x.bins
	b.addRate(cRPS, st, t1, 1)
	b.addInterval(kReq, st, t0, t1, 1)
	x.intervals[st]++
	pw := 0.0
	if pok {
		pw = float64(p)
	}
	b.addRate(cPromptTok, st, NsToSec(s.promptEventNs()), pw)
	s.outputEvents(func(t, w float64) { b.addRate(cOutTok, st, t, w) })
	if pok || s.usageOut >= 0 {
		x.textRequests[st]++
		ow := math.Max(float64(s.usageOut), 0)
		if pok {
			rec(aTextIn, pw, true, 1)
			x.textIn[st]++
		}
		if s.usageOut >= 0 {
			rec(aTextOut, ow, true, 1)
			x.textOut[st]++
		}
		b.addRate(cTextIn, st, t1, pw)
		b.addRate(cTextOut, st, t1, ow)
		b.addInterval(kTextIn, st, t0, t1, pw)
		b.addInterval(kTextOut, st, t0, t1, ow)
	}
	if st != report.StatusSuccessful {
		name := a.classNames[s.errClass]
		if name == "" {
			name = "unknown"
		}
		x.errClass[name]++
		if s.errMsg != 0 {
			x.errMsg[[2]uint8{s.errClass, s.errMsg}]++
		}
		if st == report.StatusErrored {
			x.errored++
			if s.http != 0 && name == string(record.ErrHTTPStatus) {
				x.errHTTP[int(s.http)]++
			}
		}
	}
}

// binnedLatency reports whether the binned path keeps metric l: GuideLLM's
// latencies (goodput's extras come from the online histograms).
func binnedLatency(l *metric.Latency) bool { return l.Guide != nil && !l.Chunks }

// metrics computes GuideLLM's metrics from the binned aggregates.
func (x *binnedAgg) metrics(w MeasureWindow, ex *report.Extras) report.Metrics {
	var m report.Metrics
	m.RequestTotals = &report.StatusCounts{
		Successful: report.Int(x.counts[report.StatusSuccessful]), Errored: report.Int(x.counts[report.StatusErrored]),
		Incomplete: report.Int(x.counts[report.StatusIncomplete]),
		Total:      report.Int(x.counts[report.StatusSuccessful] + x.counts[report.StatusErrored] + x.counts[report.StatusIncomplete]),
	}
	v := func(i int) *report.StatusDistributionSummary {
		return StatusFromAccs(x.vals[i], binnedScale[i], x.confidence)
	}
	for _, l := range metric.All {
		if binnedLatency(l) {
			*l.Guide(&m) = StatusFromAccs(x.lat[l.Slot], l.Scale(), x.confidence)
		}
	}
	m.RequestStreamingIterationsCount = v(aIters)
	m.PromptTokenCount = v(aPrompt)
	m.OutputTokenCount = v(aOutput)
	m.TotalTokenCount = v(aTotal)
	m.OutputTokensPerIteration = v(aOutPerIter)
	m.IterTokensPerIteration = v(aIterPerIter)
	lo, hi := NsToSec(w.Start), NsToSec(w.End)
	m.RequestsPerSecond = x.bins.rateSDS(cRPS, lo, hi, true)
	m.RequestConcurrency = x.bins.concSDS(kReq, lo, hi, true, x.intervals)
	m.PromptTokensPerSecond = x.bins.rateSDS(cPromptTok, 0, 0, false)
	m.OutputTokensPerSecond = x.bins.rateSDS(cOutTok, 0, 0, false)
	m.TokensPerSecond = x.bins.rateSDS(-1, 0, 0, false)
	ms := &report.MetricsSummary{}
	anyIn, anyOut := false, false
	for st := range x.textIn {
		anyIn = anyIn || x.textIn[st] > 0
		anyOut = anyOut || x.textOut[st] > 0
	}
	if anyIn {
		ms.Input = v(aTextIn)
		ms.InputPerSecond = x.bins.rateSDS(cTextIn, 0, 0, false)
		ms.InputConcurrency = x.bins.concSDS(kTextIn, 0, 0, false, x.textRequests)
	}
	if anyOut {
		ms.Output = v(aTextOut)
		ms.OutputPerSecond = x.bins.rateSDS(cTextOut, 0, 0, false)
		ms.OutputConcurrency = x.bins.concSDS(kTextOut, 0, 0, false, x.textRequests)
	}
	if anyIn && anyOut {
		var pooled [report.NumStatus]*stats.HistAcc
		for st := range pooled {
			pooled[st] = stats.NewHistAcc()
			pooled[st].Merge(x.vals[aTextIn][st])
			pooled[st].Merge(x.vals[aTextOut][st])
		}
		ms.Total = StatusFromAccs(pooled, 1, x.confidence)
		ms.TotalPerSecond = x.bins.rateSDS(-2, 0, 0, false)
		var twice [report.NumStatus]int64
		for st := range twice {
			twice[st] = 2 * x.textRequests[st]
		}
		ms.TotalConcurrency = x.bins.concSDS(-1, 0, 0, false, twice)
	}
	m.Text = &report.TextMetrics{}
	if anyIn || anyOut {
		m.Text.Tokens = ms
	}
	m.Image, m.Video, m.Audio = x.mediaMetrics()
	m.ToolCall = &report.ToolCallMetrics{}
	return m
}

// extras fills the error breakdown of the binned path.
func (x *binnedAgg) extras(ex *report.Extras) {
	ex.Errors = report.ErrorCounts{ByClass: map[string]report.Int{}, ByHTTPStatus: map[string]report.Int{}}
	for k, v := range x.errClass {
		ex.Errors.ByClass[k] = report.Int(v)
	}
	for k, v := range x.errHTTP {
		ex.Errors.ByHTTPStatus[strconv.Itoa(k)] = report.Int(v)
	}

	total := x.counts[report.StatusSuccessful] + x.counts[report.StatusErrored] + x.counts[report.StatusIncomplete]
	if total > 0 {
		ex.Errors.ErrorRate = report.Float(float64(x.errored) / float64(total))
	}
}

// channel returns the bin weights of a rate channel for a status (all
// statuses when st == numStatus); c = -1 pools prompt and output tokens,
// c = -2 pools text input and output.
func (b *binSeries) channel(c int, st uint8) []float64 {
	if cap(b.tmp) < b.used {
		b.tmp = make([]float64, b.used)
	}
	out := b.tmp[:b.used]
	clear(out)
	add := func(c int, st uint8) {
		for i := range out {
			out[i] += b.rate[c][st][i]
		}
	}
	chans := []int{c}
	switch c {
	case -1:
		chans = []int{cPromptTok, cOutTok}
	case -2:
		chans = []int{cTextIn, cTextOut}
	}
	for _, ch := range chans {
		if st == report.NumStatus {
			for s := uint8(0); s < report.NumStatus; s++ {
				add(ch, s)
			}
		} else {
			add(ch, st)
		}
	}
	return out
}

// rateSDS approximates a rate distribution by the rate of each time bin,
// weighted by the part of the bin inside [lo, hi] (windowed) or inside the
// span of non-empty bins. Count is the total weight.
func (b *binSeries) rateSDS(c int, lo, hi float64, windowed bool) *report.StatusDistributionSummary {
	out := &report.StatusDistributionSummary{}
	for st := uint8(0); st <= report.NumStatus; st++ {
		d := b.rateSummary(b.channel(c, st), lo, hi, windowed)
		out.SetStatus(st, &d)
	}
	return out
}

func (b *binSeries) rateSummary(ch []float64, lo, hi float64, windowed bool) report.DistributionSummary {
	first, last := -1, -1
	total := 0.0
	for i, v := range ch {
		if v != 0 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return stats.ZeroSummary(0)
	}
	ss := b.ss[:0]
	defer func() { b.ss = ss[:0] }()
	for i := range ch {
		b0 := b.origin + float64(i)*b.width
		b1 := b0 + b.width
		var ov float64
		if windowed {
			ov = math.Min(b1, hi) - math.Max(b0, lo)
		} else if i >= first && i <= last {
			ov = b.width
		}
		if ov <= 0 {
			continue
		}
		total += ch[i] * ov / b.width
		ss = append(ss, stats.Tagged{Value: ch[i] / b.width, Weight: ov})
	}
	if len(ss) == 0 {
		return stats.ZeroSummary(0)
	}
	stats.SortSamples(ss)
	return stats.SummaryFromUnique(stats.UniqueInto(ss, stats.AllStatus, ss[:0]), int64(math.RoundToEven(total)))
}

// concSDS approximates a concurrency distribution by the time-average
// level of each bin, weighted by the part of the bin inside the window (or
// the span of bins with changes). c = -1 pools text input and output.
func (b *binSeries) concSDS(c int, lo, hi float64, windowed bool, counts [report.NumStatus]int64) *report.StatusDistributionSummary {
	out := &report.StatusDistributionSummary{}
	chans := []int{c}
	if c == -1 {
		chans = []int{kTextIn, kTextOut}
	}
	var total int64
	for st := uint8(0); st <= report.NumStatus; st++ {
		net := make([]float64, b.used)
		part := make([]float64, b.used)
		var n int64
		for _, ch := range chans {
			for s := uint8(0); s < report.NumStatus; s++ {
				if st != report.NumStatus && s != st {
					continue
				}
				for i := 0; i < b.used; i++ {
					net[i] += b.net[ch][s][i]
					part[i] += b.part[ch][s][i]
				}
			}
		}
		if st < report.NumStatus {
			n = counts[st]
			total += n
		} else {
			n = total
		}
		d := b.concSummary(net, part, lo, hi, windowed, n)
		out.SetStatus(st, &d)
	}
	return out
}

func (b *binSeries) concSummary(net, part []float64, lo, hi float64, windowed bool, count int64) report.DistributionSummary {
	first, last := -1, -1
	for i := range net {
		if net[i] != 0 || part[i] != 0 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 || count == 0 {
		return stats.ZeroSummary(0)
	}
	ss := b.ss[:0]
	defer func() { b.ss = ss[:0] }()
	level := 0.0
	for i := range net {
		b0 := b.origin + float64(i)*b.width
		b1 := b0 + b.width
		avg := math.Max((level*b.width+part[i])/b.width, 0)
		level += net[i]
		var ov float64
		if windowed {
			ov = math.Min(b1, hi) - math.Max(b0, lo)
		} else if i >= first && i <= last {
			ov = b.width
		}
		if ov > 0 {
			ss = append(ss, stats.Tagged{Value: avg, Weight: ov})
		}
	}
	if len(ss) == 0 {
		return stats.ZeroSummary(0)
	}
	stats.SortSamples(ss)
	return stats.SummaryFromUnique(stats.UniqueInto(ss, stats.AllStatus, ss[:0]), count)
}

// binnedTokenRates computes output_tokens_per_second and
// tokens_per_second from time bins over the span of the token events
// (used when the events exceed TokenEventCap).
func (a *Accumulator) binnedTokenRates(in []int32) (*report.StatusDistributionSummary, *report.StatusDistributionSummary) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, i := range in {
		s := a.sums.at(int(i))
		for _, t := range [4]int64{s.promptEventNs(), s.first, s.last, s.end} {
			if t != 0 {
				lo = math.Min(lo, NsToSec(t))
				hi = math.Max(hi, NsToSec(t))
			}
		}
	}
	const nb = binnedTokenBins
	width := (hi - lo) / float64(nb-1)
	if !(width > 0) {
		width = 1e-3
	}
	inv := 1 / width
	b := binSeries{origin: lo, width: width, nbins: nb, used: nb, rate: make([][report.NumStatus][]float64, numRateCh)}
	for st := range b.rate[cOutTok] {
		b.rate[cOutTok][st] = make([]float64, nb)
		b.rate[cPromptTok][st] = make([]float64, nb)
	}
	idx := func(t float64) int {
		return min(max(int((t-lo)*inv), 0), nb-1)
	}
	for _, i := range in {
		s := a.sums.at(int(i))
		outCh, promptCh := b.rate[cOutTok][s.status], b.rate[cPromptTok][s.status]
		promptCh[idx(NsToSec(s.promptEventNs()))] += promptWeight(s)
		out, ok := s.outputTokens()
		if s.first == 0 || s.last == 0 || s.tokIters <= 1 {
			t := s.last
			if t == 0 {
				t = s.end
			}
			if ok {
				outCh[idx(NsToSec(t))] += float64(out)
			}
			continue
		}
		start, stop := NsToSec(s.first), NsToSec(s.last)
		if ok && out != 0 {
			outCh[idx(start)]++
		}
		tpi, ok := s.iterTokensPerIteration()
		if !ok {
			continue
		}
		n := int(s.tokIters)
		step := (stop - start) / float64(n-1)
		for k := 1; k < n-1; k++ {
			outCh[idx(float64(k)*step+start)] += tpi
		}
		outCh[idx(stop)] += tpi
	}
	return b.rateSDS(cOutTok, 0, 0, false), b.rateSDS(-1, 0, 0, false)
}
