package loadgen

import (
	"fmt"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/goodput-dev/goodput/record"
)

// ClientLoad describes the load generator's own state during a benchmark,
// so a report can say when its latency figures are not to be trusted.
type ClientLoad struct {
	CPUSeconds  float64 // user+system CPU of this process during the benchmark
	WallSeconds float64
	Cores       float64 // CPUSeconds / WallSeconds
	MaxProcs    int     // GOMAXPROCS at the start (the ceiling when adapted)
	// MinProcs is the lowest GOMAXPROCS the governor set during the
	// benchmark (MaxProcs when it is off or never lowered it), and
	// ProcsChanges how many times it changed the setting.
	MinProcs     int
	ProcsChanges int
	// SchedLag is how late a 5 ms timer in this process fires: it grows
	// when the process is CPU-starved, and delays every timestamp taken.
	SchedLagP50us, SchedLagP99us, SchedLagMaxus float64
	// DeliveryLag is chunk arrival minus the server's emission stamp (only
	// against a goodput mock, which stamps chunks): it grows when the
	// client reads slower than the server writes.
	DeliveryLagP50us, DeliveryLagP99us float64
	DeliverySamples                    int64
	// ReadLag is, per request, the longest the client took to read bytes
	// after the kernel received them (only with kernel receive
	// timestamps): P50 and P99 over requests. Arrival times do not
	// include it, but a client that lags this much sends its next
	// requests late.
	ReadLagP50us, ReadLagP99us float64
	ReadLagSamples             int64
	// ArrivalTimestamps says how response arrival times were taken:
	// "kernel" (receive timestamps), "user" (when reads returned), or a
	// mix with its counts; empty when no response arrived.
	ArrivalTimestamps string
	Saturated         bool
	Reason            string // why Saturated is set
}

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
			_ = m.lag.RecordValue(max((now-due)/1000, 1))
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
		_ = m.readLag.RecordValue(max(r.MaxReadLag/1000, 1))
	}
	if stamped {
		for i, e := range r.EmitTimes {
			_ = m.delivery.RecordValue(max((r.ChunkTimes[i]-e)/1000, 1))
		}
	}
	m.mu.Unlock()
}

func (m *monitor) finish() ClientLoad {
	close(m.stopCh)
	<-m.done
	l := ClientLoad{
		CPUSeconds:  m.cpu() - m.cpu0,
		WallSeconds: float64(m.clock.Now()-m.t0) / 1e9,
		MaxProcs:    runtime.GOMAXPROCS(0),
	}
	l.MinProcs = l.MaxProcs
	if g := m.gov; g != nil {
		applyProcs(g.ceiling)
		l.MaxProcs, l.MinProcs, l.ProcsChanges = g.ceiling, g.least, g.changes
	}
	if l.WallSeconds > 0 {
		l.Cores = l.CPUSeconds / l.WallSeconds
	}
	if m.lag.TotalCount() > 0 {
		l.SchedLagP50us = float64(m.lag.ValueAtQuantile(50))
		l.SchedLagP99us = float64(m.lag.ValueAtQuantile(99))
		l.SchedLagMaxus = float64(m.lag.Max())
	}
	m.mu.Lock()
	if n := m.delivery.TotalCount(); n > 0 {
		l.DeliverySamples = n
		l.DeliveryLagP50us = float64(m.delivery.ValueAtQuantile(50))
		l.DeliveryLagP99us = float64(m.delivery.ValueAtQuantile(99))
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
		l.ReadLagSamples = n
		l.ReadLagP50us = float64(m.readLag.ValueAtQuantile(50))
		l.ReadLagP99us = float64(m.readLag.ValueAtQuantile(99))
	}
	m.mu.Unlock()
	switch {
	case l.SchedLagP99us > float64(satSchedLagP99.Microseconds()):
		l.Saturated = true
		l.Reason = fmt.Sprintf("timer lag P99 %.1f ms > %v: the client process is CPU-starved", l.SchedLagP99us/1000, satSchedLagP99)
	case l.DeliverySamples >= deliveryMinSamp && l.DeliveryLagP99us > float64(satDeliveryP99.Microseconds()):
		l.Saturated = true
		l.Reason = fmt.Sprintf("chunk delivery lag P99 %.1f ms > %v: the client reads slower than the server writes", l.DeliveryLagP99us/1000, satDeliveryP99)
	case l.ReadLagSamples >= deliveryMinSamp && l.ReadLagP99us > float64(satReadLagP99.Microseconds()):
		l.Saturated = true
		l.Reason = fmt.Sprintf("read lag P99 %.1f ms > %v: the client reads bytes long after they arrive, and sends its next requests late", l.ReadLagP99us/1000, satReadLagP99)
	case l.MaxProcs > 0 && l.Cores >= satCPUFraction*float64(l.MaxProcs):
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
