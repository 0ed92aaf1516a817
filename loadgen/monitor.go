package loadgen

import (
	"fmt"
	"math"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
)

// Saturation thresholds. Measured on an idle 2-core machine, a 5 ms Go
// timer fires a median of ~60-80 µs late with P99 under ~1 ms; chunk
// delivery lag on loopback is tens of µs. Beyond these limits the client's
// own delays are the same order as the ITLs it measures.
const (
	satSchedLagP99  = 5 * time.Millisecond
	satDeliveryP99  = 5 * time.Millisecond
	satReadLagP99   = 50 * time.Millisecond
	satCPUFraction  = 0.9
	schedLagPeriod  = 5 * time.Millisecond
	maxLagMicros    = 60_000_000
	lagSigFigs      = 3
	deliveryMinSamp = 100
)

// monitor samples the client's scheduling lag and CPU during a benchmark.
type monitor struct {
	clock    *Clock
	stopCh   chan struct{}
	done     chan struct{}
	lag      *hdrhistogram.Histogram
	mu       sync.Mutex
	delivery *hdrhistogram.Histogram
	readLag  *hdrhistogram.Histogram
	// responses counts records with a response; kernel those whose
	// arrival times are kernel receive timestamps.
	responses, kernel int64
	cpu0              float64
	t0                int64
	gov               *procGovernor  // nil: GOMAXPROCS is left alone
	cpu               func() float64 // the process's CPU seconds (processCPU)
	// aborted is when the benchmark cancelled its requests in flight (0:
	// not yet). The client's own delays after it are not the load's:
	// cancelling thousands of requests at once delays the reads and
	// timers of that moment, so neither read lag nor timer lag counts
	// from then on.
	aborted atomic.Int64
}

// newMonitor builds a benchmark's monitor; a ceiling above 1 turns on the
// GOMAXPROCS governor with that ceiling.
func newMonitor(c *Clock, ceiling int) *monitor {
	var gov *procGovernor
	if ceiling > 1 {
		gov = newProcGovernor(ceiling)
	}
	return &monitor{
		clock: c, stopCh: make(chan struct{}), done: make(chan struct{}), gov: gov, cpu: processCPU,
		lag:      hdrhistogram.New(1, maxLagMicros, lagSigFigs),
		delivery: hdrhistogram.New(1, maxLagMicros, lagSigFigs),
		readLag:  hdrhistogram.New(1, maxLagMicros, lagSigFigs),
	}
}

func (m *monitor) start() {
	if m.gov != nil {
		applyProcs(m.gov.ceiling)
	}
	m.cpu0, m.t0 = m.cpu(), m.clock.Now()
	govAt, govCPU := m.t0, m.cpu0
	go func() {
		defer close(m.done)
		t := time.NewTimer(schedLagPeriod)
		defer t.Stop()
		for {
			due := m.clock.Now() + int64(schedLagPeriod)
			select {
			case <-m.stopCh:
				return
			case <-t.C:
			}
			now := m.clock.Now()
			if a := m.aborted.Load(); a == 0 || due < a {
				_ = m.lag.RecordValue(max((now-due)/1000, 1))
			}
			if m.gov != nil && now-govAt >= int64(govInterval) {
				cpu := m.cpu()
				applyProcs(m.gov.step((cpu - govCPU) / (float64(now-govAt) / 1e9)))
				govAt, govCPU = now, cpu
			}
			t.Reset(schedLagPeriod)
		}
	}()
}

// observe records a request's read lag, and chunk delivery lag from its
// emission stamps.
func (m *monitor) observe(r *record.Record) {
	stamped := len(r.EmitTimes) > 0 && len(r.EmitTimes) == len(r.ChunkTimes)
	if r.Headers == 0 {
		return
	}
	m.mu.Lock()
	m.responses++
	if r.RxKernel {
		m.kernel++
		if a := m.aborted.Load(); a == 0 || r.End < a {
			_ = m.readLag.RecordValue(max(r.MaxReadLag/1000, 1))
		}
	}
	if stamped {
		for i, e := range r.EmitTimes {
			_ = m.delivery.RecordValue(max((r.ChunkTimes[i]-e)/1000, 1))
		}
	}
	m.mu.Unlock()
}

func (m *monitor) finish() report.ClientLoad {
	close(m.stopCh)
	<-m.done
	cpu, wall := m.cpu()-m.cpu0, float64(m.clock.Now()-m.t0)/1e9
	l := report.ClientLoad{
		CPUSeconds:  report.Float(cpu),
		WallSeconds: report.Float(wall),
		MaxProcs:    report.Int(runtime.GOMAXPROCS(0)),
		GOGC:        report.Int(gcPercent()),
	}
	l.MinProcs = l.MaxProcs
	if g := m.gov; g != nil {
		applyProcs(g.ceiling)
		l.MaxProcs, l.MinProcs, l.ProcsChanges = report.Int(g.ceiling), report.Int(g.least), report.Int(g.changes)
	}
	if wall > 0 {
		l.Cores = report.Float(cpu / wall)
	}
	if m.lag.TotalCount() > 0 {
		l.SchedLagP50us = report.Float(m.lag.ValueAtQuantile(50))
		l.SchedLagP99us = report.Float(m.lag.ValueAtQuantile(99))
		l.SchedLagMaxus = report.Float(m.lag.Max())
	}
	m.mu.Lock()
	if n := m.delivery.TotalCount(); n > 0 {
		l.DeliverySamples = report.Int(n)
		l.DeliveryLagP50us = report.Float(m.delivery.ValueAtQuantile(50))
		l.DeliveryLagP99us = report.Float(m.delivery.ValueAtQuantile(99))
	}
	switch {
	case m.responses == 0:
	case m.kernel == m.responses:
		l.ArrivalTimestamps = "kernel"
	case m.kernel == 0:
		l.ArrivalTimestamps = "user"
	default:
		l.ArrivalTimestamps = fmt.Sprintf("kernel for %d of %d responses, else user", m.kernel, m.responses)
	}
	if n := m.readLag.TotalCount(); n > 0 {
		l.ReadLagSamples = report.Int(n)
		l.ReadLagP50us = report.Float(m.readLag.ValueAtQuantile(50))
		l.ReadLagP99us = report.Float(m.readLag.ValueAtQuantile(99))
	}
	m.mu.Unlock()
	us := func(d time.Duration) report.Float { return report.Float(d.Microseconds()) }
	switch {
	case l.SchedLagP99us > us(satSchedLagP99):
		l.Saturated = true
		l.Reason = fmt.Sprintf("timer lag P99 %.1f ms > %v: the client process is CPU-starved", l.SchedLagP99us/1000, satSchedLagP99)
	case l.DeliverySamples >= deliveryMinSamp && l.DeliveryLagP99us > us(satDeliveryP99):
		l.Saturated = true
		l.Reason = fmt.Sprintf("chunk delivery lag P99 %.1f ms > %v: the client reads slower than the server writes", l.DeliveryLagP99us/1000, satDeliveryP99)
	case l.ReadLagSamples >= deliveryMinSamp && l.ReadLagP99us > us(satReadLagP99):
		l.Saturated = true
		l.Reason = fmt.Sprintf("read lag P99 %.1f ms > %v: the client reads bytes long after they arrive, and sends its next requests late", l.ReadLagP99us/1000, satReadLagP99)
	case l.MaxProcs > 0 && l.Cores >= satCPUFraction*report.Float(l.MaxProcs):
		l.Saturated = true
		l.Reason = fmt.Sprintf("the process used %.2f of %d cores", l.Cores, l.MaxProcs)
	}
	return l
}

// processCPU returns this process's user+system CPU time in seconds.
func processCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// gcPercent is the collector's GOGC setting (-1 when off).
func gcPercent() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	v := s[0].Value.Uint64()
	if v > math.MaxInt32 {
		return -1 // off: the runtime reports an impossible percentage
	}
	return int(v)
}
