package mock

import (
	"bytes"
	"context"
	"io"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// dcgmFamilies lists the exposition's families: type and HELP text, as in
// dcgm-exporter's default-counters.csv.
var dcgmFamilies = []struct {
	name, help string
	typ        dto.MetricType
}{
	{"DCGM_FI_DEV_SM_CLOCK", "SM clock frequency (in MHz).", dto.MetricType_GAUGE},
	{"DCGM_FI_DEV_MEM_CLOCK", "Memory clock frequency (in MHz).", dto.MetricType_GAUGE},
	{"DCGM_FI_DEV_MEMORY_TEMP", "Memory temperature (in C).", dto.MetricType_GAUGE},
	{"DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C).", dto.MetricType_GAUGE},
	{"DCGM_FI_DEV_POWER_USAGE", "Power draw (in W).", dto.MetricType_GAUGE},
	{"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "Total energy consumption since boot (in mJ).", dto.MetricType_COUNTER},
	{"DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", dto.MetricType_GAUGE},
	{"DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB).", dto.MetricType_GAUGE},
	{"DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).", dto.MetricType_GAUGE},
}

// getDCGM fetches and parses a DCGM exposition.
func getDCGM(t *testing.T, url string) (map[string]*dto.MetricFamily, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Fatalf("GET %s: %d %q", url, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("parsing the DCGM exposition: %v\n%s", err, raw)
	}
	return fams, string(raw)
}

// gpuValue returns the value of family name for GPU index gpu.
func gpuValue(t *testing.T, fams map[string]*dto.MetricFamily, name string, gpu int) float64 {
	t.Helper()
	for _, m := range fams[name].GetMetric() {
		if hasLabels(m, map[string]string{"gpu": strconv.Itoa(gpu)}) {
			if c := m.GetCounter(); c != nil {
				return c.GetValue()
			}
			return m.GetGauge().GetValue()
		}
	}
	t.Fatalf("%s has no series for gpu %d", name, gpu)
	return 0
}

func TestDCGMExposition(t *testing.T) {
	p, _ := Preset(Preset70B8xH100)
	cfg := capacityConfig(p)
	cfg.Seed = 7
	s := startServer(t, cfg)
	fams, raw := getDCGM(t, s.URL()+"/dcgm/metrics")

	uuidRE := regexp.MustCompile(`^GPU-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	// dcgm-exporter's label order, kept by the parser.
	wantLabels := []string{"gpu", "UUID", "pci_bus_id", "device", "modelName", "Hostname", "DCGM_FI_DRIVER_VERSION"}
	for _, f := range dcgmFamilies {
		mf := fams[f.name]
		if mf == nil || mf.GetType() != f.typ || mf.GetHelp() != f.help {
			t.Fatalf("family %s: %v, want type %v help %q", f.name, mf, f.typ, f.help)
		}
		if len(mf.GetMetric()) != 8 {
			t.Fatalf("%s has %d series, want one per GPU (8)", f.name, len(mf.GetMetric()))
		}
		uuids := map[string]bool{}
		for i, m := range mf.GetMetric() {
			var names []string
			lbl := map[string]string{}
			for _, l := range m.GetLabel() {
				names = append(names, l.GetName())
				lbl[l.GetName()] = l.GetValue()
			}
			if strings.Join(names, ",") != strings.Join(wantLabels, ",") {
				t.Fatalf("%s labels %v, want %v", f.name, names, wantLabels)
			}
			if lbl["gpu"] != strconv.Itoa(i) || lbl["device"] != "nvidia"+strconv.Itoa(i) || lbl["modelName"] != "NVIDIA H100 80GB HBM3" ||
				lbl["Hostname"] != DCGMHostname || lbl["DCGM_FI_DRIVER_VERSION"] != "570.124.06" || !uuidRE.MatchString(lbl["UUID"]) {
				t.Errorf("%s series %d labels %v", f.name, i, lbl)
			}
			uuids[lbl["UUID"]] = true
		}
		if len(uuids) != 8 {
			t.Errorf("%s: %d distinct UUIDs, want 8", f.name, len(uuids))
		}
	}
	// Label order and value formats as dcgm-exporter writes them: power is
	// a float with six decimals, the other fields integers.
	first := regexp.MustCompile(`(?m)^DCGM_FI_DEV_POWER_USAGE\{gpu="0",UUID="GPU-[^"]+",pci_bus_id="00000000:18:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="goodput-mock",DCGM_FI_DRIVER_VERSION="570.124.06"\} 115\.000000$`)
	if !first.MatchString(raw) {
		t.Errorf("GPU 0's power line is not in dcgm-exporter's shape:\n%s", raw)
	}
	if !regexp.MustCompile(`(?m)^DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION\{gpu="7",[^}]+\} \d+$`).MatchString(raw) {
		t.Errorf("energy counter not an integer:\n%s", raw)
	}
	// Before the first update interval: the state at New, idle.
	for i := range 8 {
		f := gpuFactor(i)
		checks := []struct {
			name string
			want float64
		}{
			{"DCGM_FI_DEV_POWER_USAGE", math.Round(115*f*1e6) / 1e6},
			{"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", dcgmBootEnergyMJ(i)},
			{"DCGM_FI_DEV_GPU_UTIL", 0},
			{"DCGM_FI_DEV_SM_CLOCK", dcgmSMClockIdle},
			{"DCGM_FI_DEV_MEM_CLOCK", dcgmMemClock},
			{"DCGM_FI_DEV_FB_USED", 73403}, // floor(0.9 × 81559)
			{"DCGM_FI_DEV_FB_FREE", 8156},
			{"DCGM_FI_DEV_GPU_TEMP", math.Round(30 + 45*115*f/700)},
		}
		for _, c := range checks {
			if got := gpuValue(t, fams, c.name, i); got != c.want {
				t.Errorf("GPU %d %s = %v, want %v", i, c.name, got, c.want)
			}
		}
	}
	// UUIDs depend only on the seed.
	cfg2 := cfg
	s2 := startServer(t, cfg2)
	cfg3 := cfg
	cfg3.Seed = 8
	s3 := startServer(t, cfg3)
	if a, b, c := s.dcgmLabels[3], s2.dcgmLabels[3], s3.dcgmLabels[3]; a != b || a == c {
		t.Errorf("labels: same seed %v / %v, other seed %v", a, b, c)
	}
}

// TestPowerMeterIntegral drives the power model with a known schedule and
// checks the energy (J), the DCGM samples and the clamping, against values
// computed by hand. Model: 100 W idle, 50 W per sequence, 300 W cap.
func TestPowerMeterIntegral(t *testing.T) {
	spec := DefaultGPU()
	spec.IdleWatts, spec.WattsPerSeq, spec.MaxWatts = 100, 50, 300
	sec := func(x float64) int64 { return int64(x * 1e9) }
	schedule := func() *powerMeter {
		pm := newPowerMeter(time.Now().Add(-time.Hour), spec, time.Second)
		pm.set(sec(1), 2)  // 200 W from 1 s
		pm.set(sec(3), 10) // 600 W capped at 300 W from 3 s
		pm.set(sec(4), 0)  // idle from 4 s
		return pm
	}
	// Samples at the update instants: energy exact, power and utilisation
	// averaged over the second before. Changes and reads in time order, as
	// they happen.
	pm := newPowerMeter(time.Now().Add(-time.Hour), spec, time.Second)
	for _, c := range []struct {
		set, running int // at second set (if > 0), running sequences
		at           float64
		t, e, p, ut  float64
	}{
		{0, 0, 0.5, 0, 0, 100, 0}, // before the first update: the state at New
		{1, 2, 2.5, 2, 300, 200, 1},
		{3, 10, 3.9, 3, 500, 200, 1}, // [2,3]: 200 W, busy
		{4, 0, 4.0, 4, 800, 300, 1},  // [3,4]: capped
		{0, 0, 5.2, 5, 900, 100, 0},  // [4,5]: idle
	} {
		if c.set > 0 {
			pm.set(sec(float64(c.set)), c.running)
		}
		s := pm.readAt(sec(c.at))
		if s.t != sec(c.t) || math.Abs(s.e-c.e) > 1e-9 || math.Abs(s.power-c.p) > 1e-9 || math.Abs(s.util-c.ut) > 1e-12 {
			t.Errorf("read at %vs: %+v, want sample at %vs with %v J, %v W, util %v", c.at, s, c.t, c.e, c.p, c.ut)
		}
	}
	// A change reported before the last read (an engine step processed
	// late) starts at the read: what was read stays true.
	pm.set(sec(5.0), 1)
	if e, _ := pm.energyAt(sec(5.2)); math.Abs(e-920) > 1e-9 {
		t.Errorf("energy at 5.2 s changed to %v J after a late change, want 920", e)
	}
	if e, _ := pm.energyAt(sec(6.2)); math.Abs(e-1070) > 1e-9 { // 920 + 150 W × 1 s
		t.Errorf("energy at 6.2 s = %v J, want 1070", e)
	}

	pm = schedule()
	for _, c := range []struct{ t, want float64 }{
		{0.5, 50}, {1, 100}, {2, 300}, {3, 500}, {3.5, 650}, {4, 800}, {5.5, 950},
	} {
		if got, ok := pm.energyAt(sec(c.t)); !ok || math.Abs(got-c.want) > 1e-9 {
			t.Errorf("energy at %vs = %v (ok %v), want %v J", c.t, got, ok, c.want)
		}
	}
	if _, ok := pm.energyAt(pm.now() + sec(1)); ok {
		t.Error("energy of a future instant reported")
	}
}

// scrapeWindow is one scrape whose update instant is known: the scrape
// started and ended within the same update interval.
type scrapeWindow struct {
	u      time.Time // the update instant it shows
	energy []float64 // counter per GPU, mJ
	power  []float64
}

// scrapeKnown scrapes and returns the scrape with its update instant, or
// false when it straddled an update.
func scrapeKnown(t *testing.T, s *Server, url string, interval time.Duration, gpus int) (scrapeWindow, bool) {
	before := time.Since(s.started)
	fams, _ := getDCGM(t, url)
	after := time.Since(s.started)
	if before/interval != after/interval {
		return scrapeWindow{}, false
	}
	w := scrapeWindow{u: s.started.Add(before / interval * interval)}
	for i := range gpus {
		w.energy = append(w.energy, gpuValue(t, fams, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", i))
		w.power = append(w.power, gpuValue(t, fams, "DCGM_FI_DEV_POWER_USAGE", i))
	}
	return w, true
}

// backgroundLoad runs n closed-loop streams against s until ctx ends.
func backgroundLoad(ctx context.Context, s *Server, n int, body string) *sync.WaitGroup {
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for ctx.Err() == nil {
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+"/v1/completions", strings.NewReader(body))
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
	return &wg
}

// TestDCGMEnergyGroundTruth: under load, each scraped energy counter is its
// boot offset plus floor(its share of EnergyJ at the update instant) in mJ,
// the power gauge is the mean power over the second before (here the
// 100 ms interval), so a window's energy from counter differences matches
// the ground truth to the millijoule.
func TestDCGMEnergyGroundTruth(t *testing.T) {
	const interval = 100 * time.Millisecond
	tiny, _ := Preset(PresetTiny)
	cfg := capacityConfig(tiny)
	cfg.GPUs = 4
	cfg.DCGMUpdateInterval = interval
	s := startServer(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	wg := backgroundLoad(ctx, s, 6, `{"prompt":"`+strings.Repeat("x", 400)+`","max_tokens":20,"ignore_eos":true,"stream":true}`)
	defer func() { cancel(); wg.Wait() }()

	var got []scrapeWindow
	for len(got) < 8 {
		time.Sleep(70 * time.Millisecond)
		if w, ok := scrapeKnown(t, s, s.URL()+"/dcgm/metrics", interval, 4); ok {
			got = append(got, w)
		}
	}
	for _, w := range got {
		if w.u.Before(s.started.Add(interval)) {
			continue // the sample at New: no interval before it
		}
		truth, ok := s.EnergyJ(w.u)
		before, ok2 := s.EnergyJ(w.u.Add(-interval))
		if !ok || !ok2 {
			t.Fatalf("no ground truth at %v", w.u)
		}
		sum := 0.0
		for i, e := range w.energy {
			sum += e - dcgmBootEnergyMJ(i)
			wantP := gpuFactor(i) * (truth - before) / s.gpuFactorSum / interval.Seconds()
			if math.Abs(w.power[i]-wantP) > 1e-5 {
				t.Errorf("GPU %d power %v W, want the mean over the interval %v W", i, w.power[i], wantP)
			}
		}
		if math.Abs(sum/1000-truth) > 0.004 { // floor to the mJ on 4 GPUs
			t.Errorf("counters sum to %v J at %v, ground truth %v J", sum/1000, w.u, truth)
		}
	}
	// Window energy from counter differences, as a telemetry consumer
	// computes it, against the ground truth over the same update instants.
	a, b := got[0], got[len(got)-1]
	window := 0.0
	for i := range a.energy {
		window += (b.energy[i] - a.energy[i]) / 1000
	}
	ta, _ := s.EnergyJ(a.u)
	tb, _ := s.EnergyJ(b.u)
	t.Logf("window %v: counters %.4f J, ground truth %.4f J, mean power %.1f W", b.u.Sub(a.u), window, tb-ta, (tb-ta)/b.u.Sub(a.u).Seconds())
	if math.Abs(window-(tb-ta)) > 0.008 || tb-ta <= 0 {
		t.Errorf("window energy %v J, ground truth %v J", window, tb-ta)
	}
	// Under load the GPUs draw more than idle.
	if p := (tb - ta) / b.u.Sub(a.u).Seconds() / s.gpuFactorSum; p <= tiny.GPU.IdleWatts {
		t.Errorf("mean power per GPU %v W under load, want above the %v W idle", p, tiny.GPU.IdleWatts)
	}
}

// TestDCGMUpdateInterval: values change only at the update instants, like
// dcgm-exporter's collect interval: scrapes within one interval are
// identical, and the energy counter moves once per interval.
func TestDCGMUpdateInterval(t *testing.T) {
	const interval = 100 * time.Millisecond
	tiny, _ := Preset(PresetTiny)
	cfg := capacityConfig(tiny)
	cfg.DCGMUpdateInterval = interval
	s := startServer(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	wg := backgroundLoad(ctx, s, 4, `{"prompt":"x","max_tokens":30,"ignore_eos":true,"stream":true}`)
	defer func() { cancel(); wg.Wait() }()

	byInstant := map[time.Time][]scrapeWindow{}
	deadline := time.Now().Add(650 * time.Millisecond)
	for time.Now().Before(deadline) {
		if w, ok := scrapeKnown(t, s, s.URL()+"/dcgm/metrics", interval, 1); ok {
			byInstant[w.u] = append(byInstant[w.u], w)
		}
		time.Sleep(15 * time.Millisecond)
	}
	if len(byInstant) < 4 {
		t.Fatalf("scrapes covered %d update instants in 650 ms at a %v interval", len(byInstant), interval)
	}
	prevE := -1.0
	for u, ws := range byInstant {
		for _, w := range ws[1:] {
			if w.energy[0] != ws[0].energy[0] || w.power[0] != ws[0].power[0] {
				t.Errorf("two scrapes within the interval at %v differ: %v/%v vs %v/%v", u, w.energy, w.power, ws[0].energy, ws[0].power)
			}
		}
	}
	// Ordered by instant, the counter strictly increases (power is never 0).
	instants := make([]time.Time, 0, len(byInstant))
	for u := range byInstant {
		instants = append(instants, u)
	}
	slices.SortFunc(instants, time.Time.Compare)
	for _, u := range instants {
		e := byInstant[u][0].energy[0]
		if e <= prevE {
			t.Errorf("energy counter %v at %v, not above %v at the previous instant", e, u, prevE)
		}
		prevE = e
	}
}

// TestDCGMSecondListener: Config.DCGMAddr opens a dcgm-exporter-like port
// serving /metrics (and /health); Close closes it.
func TestDCGMSecondListener(t *testing.T) {
	cfg := fastConfig()
	cfg.DCGMAddr = "127.0.0.1:0"
	s := startServer(t, cfg)
	u := s.DCGMURL()
	if u == "" || u == s.URL() {
		t.Fatalf("DCGMURL %q (main %q)", u, s.URL())
	}
	fams, raw := getDCGM(t, u+"/metrics")
	if n := len(fams["DCGM_FI_DEV_POWER_USAGE"].GetMetric()); n != 1 {
		t.Errorf("%d GPUs without a capacity model, want 1", n)
	}
	if _, main := getDCGM(t, s.URL()+"/dcgm/metrics"); main != raw {
		t.Errorf("the two endpoints differ:\n%s\n%s", raw, main)
	}
	resp, err := http.Get(u + "/health")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /health on the DCGM port: %v %v", resp, err)
	}
	resp.Body.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if resp, err := http.Get(u + "/metrics"); err == nil {
		resp.Body.Close()
		t.Error("DCGM listener still serving after Close")
	}
	if s2, _ := New(fastConfig()); s2.DCGMURL() != "" {
		t.Error("DCGMURL without DCGMAddr")
	}
}

// TestPowerFollowsRequests: without a capacity model, power follows the
// number of admitted requests.
func TestPowerFollowsRequests(t *testing.T) {
	cfg := fastConfig()
	cfg.ITL = time.Hour // the streams stay after their first token
	cfg.DCGMUpdateInterval = 10 * time.Millisecond
	cfg.GPU = &GPUSpec{Name: "Test GPU", MemoryMiB: 1000, DriverVersion: "1.0", IdleWatts: 100, WattsPerSeq: 10, MaxWatts: 125}
	s := startServer(t, cfg)
	var resps []*http.Response
	for range 3 {
		resps = append(resps, post(t, nil, s.URL()+"/v1/completions", `{"prompt":"x","max_tokens":5,"ignore_eos":true,"stream":true}`))
	}
	if !waitFor(5*time.Second, func() bool { return s.Stats().Running == 3 }) {
		t.Fatal("streams not admitted")
	}
	time.Sleep(3 * cfg.DCGMUpdateInterval)
	fams, _ := getDCGM(t, s.URL()+"/dcgm/metrics")
	if p := gpuValue(t, fams, "DCGM_FI_DEV_POWER_USAGE", 0); p != 125 { // 100 + 3×10 = 130, capped at 125
		t.Errorf("power %v W with 3 requests, want 125 (capped)", p)
	}
	if u := gpuValue(t, fams, "DCGM_FI_DEV_GPU_UTIL", 0); u != 100 {
		t.Errorf("utilisation %v%% with requests running, want 100", u)
	}
	if c := gpuValue(t, fams, "DCGM_FI_DEV_SM_CLOCK", 0); c != dcgmSMClockBusy {
		t.Errorf("SM clock %v while busy", c)
	}
	for _, r := range resps {
		r.Body.Close()
	}
	if !waitFor(5*time.Second, func() bool { return s.Stats().Running == 0 }) {
		t.Fatal("streams did not end")
	}
	time.Sleep(3 * cfg.DCGMUpdateInterval)
	fams, _ = getDCGM(t, s.URL()+"/dcgm/metrics")
	if p := gpuValue(t, fams, "DCGM_FI_DEV_POWER_USAGE", 0); p != 100 {
		t.Errorf("power %v W when idle, want 100", p)
	}
}
