package telemetry

import (
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// t0 is the base time of the golden tests.
var t0 = time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)

// fakeClock is a settable clock; scrapes take no time on it.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: t0} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Set(d time.Duration) {
	c.mu.Lock()
	c.now = t0.Add(d)
	c.mu.Unlock()
}

func at(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }

// fakeGPU is one GPU of a fake dcgm-exporter. NaN leaves a metric out.
type fakeGPU struct {
	index, uuid string
	energyMJ    float64
	powerW      float64
}

// The two H200s of telemetry.md §1.
func exampleGPUs() []fakeGPU {
	return []fakeGPU{
		{index: "0", uuid: "GPU-3b1f6c2e-8d4a-4f1b-9c7e-2a5d9e0f1a11", energyMJ: 48213377120, powerW: 612.48},
		{index: "1", uuid: "GPU-7c0d2b9a-1e3f-4a6b-8d2c-5f9e1b3a7c22", energyMJ: 47990312455, powerW: 598.02},
	}
}

// dcgmText renders a dcgm-exporter exposition in the label order of the
// current template (telemetry.md §1); hostLabel is "Hostname" (releases up to
// 4.5.3-4.8.2) or "hostname" (main after d5e5f51).
func dcgmText(hostLabel, host string, gpus []fakeGPU) string {
	var b strings.Builder
	labels := func(g fakeGPU) string {
		return fmt.Sprintf(`gpu="%s",UUID="%s",pci_bus_id="00000000:%s:00.0",device="nvidia%s",modelName="NVIDIA H200",%s="%s",DCGM_FI_DRIVER_VERSION="570.124.06",container="vllm",namespace="llm-serving",pod="llama70b-0"`,
			g.index, g.uuid, map[string]string{"0": "18", "1": "2A"}[g.index], g.index, hostLabel, host)
	}
	b.WriteString("# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).\n# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n")
	for _, g := range gpus {
		if !math.IsNaN(g.powerW) {
			fmt.Fprintf(&b, "DCGM_FI_DEV_POWER_USAGE{%s} %g\n", labels(g), g.powerW)
		}
	}
	b.WriteString("# HELP DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION Total energy consumption since boot (in mJ).\n# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n")
	for _, g := range gpus {
		if !math.IsNaN(g.energyMJ) {
			fmt.Fprintf(&b, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{%s} %.0f\n", labels(g), g.energyMJ)
		}
	}
	return b.String()
}

// textServer serves whatever body is current, as Prometheus text.
type textServer struct {
	*httptest.Server
	mu     sync.Mutex
	body   string
	status int
	hits   int
}

func newTextServer(t *testing.T, body string) *textServer {
	t.Helper()
	s := &textServer{body: body, status: http.StatusOK}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		body, status := s.body, s.status
		s.hits++
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *textServer) set(body string) {
	s.mu.Lock()
	s.body = body
	s.mu.Unlock()
}

func (s *textServer) setStatus(code int) {
	s.mu.Lock()
	s.status = code
	s.mu.Unlock()
}

// deadURL returns a URL on 127.0.0.1 where nothing listens.
func deadURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// near compares floats with a relative tolerance (and absolute near zero).
func near(got, want, rel float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	if got == want {
		return true
	}
	return math.Abs(got-want) <= rel*math.Max(1, math.Abs(want))
}

func hasWarning(ws []string, sub string) bool {
	for _, w := range ws {
		if strings.Contains(w, sub) {
			return true
		}
	}
	return false
}

// powerModel is a fake GPU pair whose power follows
// p(t) = meanW + ampW·sin(2πt/periodS) (t in seconds since base) and whose
// energy counter is its exact integral, in mJ, at the time of each request.
type powerModel struct {
	base    time.Time
	meanW   float64
	ampW    float64
	periodS float64
}

func (m powerModel) power(t time.Time) float64 {
	if m.ampW == 0 {
		return m.meanW
	}
	x := t.Sub(m.base).Seconds()
	return m.meanW + m.ampW*math.Sin(2*math.Pi*x/m.periodS)
}

// energyJ is ∫ p dt from base to t.
func (m powerModel) energyJ(t time.Time) float64 {
	x := t.Sub(m.base).Seconds()
	e := m.meanW * x
	if m.ampW != 0 {
		e += m.ampW * m.periodS / (2 * math.Pi) * (1 - math.Cos(2*math.Pi*x/m.periodS))
	}
	return e
}

// handler serves the model as two GPUs (the second at 80 % of the first)
// with counters starting from the telemetry.md example values.
func (m powerModel) handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		g := exampleGPUs()
		for i, f := range []float64{1, 0.8} {
			g[i].energyMJ += math.Round(f * m.energyJ(now) * 1000)
			g[i].powerW = math.Round(f*m.power(now)*100) / 100
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = w.Write([]byte(dcgmText("Hostname", "gpu-node-07", g)))
	})
}
