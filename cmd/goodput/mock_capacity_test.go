package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/cli"
	"github.com/goodput-dev/goodput/mock"
)

// TestMockCapacityFlags: each capacity and GPU flag given overrides that
// one parameter of the preset (an explicit zero included); without
// --preset a capacity flag starts from tiny; --gpu-* start from the
// capacity model's GPU, else the default H100; --knee-data or the preset's
// reference shape is the analytic knee's workload.
func TestMockCapacityFlags(t *testing.T) {
	// The presets' values, written out (mock/doc.go).
	tiny := capacityParams{8, 512, 5 * time.Millisecond, 500 * time.Microsecond, 20 * time.Microsecond}
	p70b := capacityParams{12, 8192, 2400 * time.Microsecond, 50 * time.Microsecond, 10 * time.Microsecond}
	l4 := mock.GPUSpec{Name: "NVIDIA L4", MemoryMiB: 23034, DriverVersion: "570.124.06", IdleWatts: 16, WattsPerSeq: 8, MaxWatts: 72}
	h100 := mock.GPUSpec{Name: "NVIDIA H100 80GB HBM3", MemoryMiB: 81559, DriverVersion: "570.124.06", IdleWatts: 70, WattsPerSeq: 20, MaxWatts: 700}
	with := func(p capacityParams, edit func(*capacityParams)) *capacityParams { edit(&p); return &p }
	gpu := func(g mock.GPUSpec, edit func(*mock.GPUSpec)) *mock.GPUSpec { edit(&g); return &g }

	tests := []struct {
		name     string
		args     []string
		want     *capacityParams // nil: no capacity model
		wantName string
		wantGPUs int           // CapacityModel.GPUs
		wantGPU  *mock.GPUSpec // Config.GPU; nil: left to the default
		knee     mock.Workload
	}{
		{name: "no capacity flag", args: nil},
		{name: "preset alone", args: []string{"--preset", "70b-8xh100"},
			want: &p70b, wantName: "70b-8xh100", wantGPUs: 8, knee: mock.Workload{PromptTokens: 1024, OutputTokens: 256, TokensPerChunk: 1}},
		{name: "every capacity flag over a preset",
			args: []string{"--preset", "70b-8xh100", "--max-num-seqs", "24", "--max-num-batched-tokens", "4096",
				"--step-base", "3ms", "--step-per-seq", "40us", "--prefill-per-token", "12us"},
			want:     &capacityParams{24, 4096, 3 * time.Millisecond, 40 * time.Microsecond, 12 * time.Microsecond},
			wantName: "70b-8xh100", wantGPUs: 8, knee: mock.Workload{PromptTokens: 1024, OutputTokens: 256, TokensPerChunk: 1}},
		{name: "one flag without a preset starts from tiny", args: []string{"--max-num-seqs", "4"},
			want: with(tiny, func(p *capacityParams) { p.maxNumSeqs = 4 }), wantName: "tiny", wantGPUs: 1,
			knee: mock.Workload{PromptTokens: 256, OutputTokens: 128, TokensPerChunk: 1}},
		{name: "an explicit zero is an override", args: []string{"--step-per-seq", "0", "--prefill-per-token=0s"},
			want: with(tiny, func(p *capacityParams) { p.stepPerSeq, p.prefillPerToken = 0, 0 }), wantName: "tiny", wantGPUs: 1,
			knee: mock.Workload{PromptTokens: 256, OutputTokens: 128, TokensPerChunk: 1}},
		{name: "gpu flags without a capacity model", args: []string{"--gpu-idle-watts", "50", "--gpu-memory-mib", "1000"},
			wantGPU: gpu(h100, func(g *mock.GPUSpec) { g.IdleWatts, g.MemoryMiB = 50, 1000 })},
		{name: "gpu flags over the preset's GPU",
			args: []string{"--preset", "tiny", "--gpu-name", "NVIDIA L40S", "--gpu-max-watts", "350", "--gpu-watts-per-seq", "0"},
			want: &tiny, wantName: "tiny", wantGPUs: 1,
			wantGPU: gpu(l4, func(g *mock.GPUSpec) { g.Name, g.MaxWatts, g.WattsPerSeq = "NVIDIA L40S", 350, 0 }),
			knee:    mock.Workload{PromptTokens: 256, OutputTokens: 128, TokensPerChunk: 1}},
		{name: "knee data and tokens per chunk",
			args: []string{"--preset", "8b-1xh100", "--knee-data", "prompt_tokens=512,output_tokens=64", "--tokens-per-chunk", "2"},
			want: &capacityParams{256, 8192, 6 * time.Millisecond, 50 * time.Microsecond, 8 * time.Microsecond}, wantName: "8b-1xh100", wantGPUs: 1,
			knee: mock.Workload{PromptTokens: 512, OutputTokens: 64, TokensPerChunk: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, err := parseMockFlags(&cli.Env{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }}, tc.args)
			if err != nil {
				t.Fatalf("parseMockFlags(%q): %v", tc.args, err)
			}
			m := o.cfg.Capacity
			switch {
			case tc.want == nil && m != nil:
				t.Errorf("capacity model %+v, want none", *m)
			case tc.want != nil && m == nil:
				t.Errorf("no capacity model, want %+v", *tc.want)
			case tc.want != nil:
				got := capacityParams{m.MaxNumSeqs, m.MaxNumBatchedTokens, m.StepBase, m.StepPerSeq, m.PrefillPerToken}
				if got != *tc.want || m.Name != tc.wantName || m.GPUs != tc.wantGPUs {
					t.Errorf("capacity model %s %+v with %d GPUs, want %s %+v with %d", m.Name, got, m.GPUs, tc.wantName, *tc.want, tc.wantGPUs)
				}
			}
			switch {
			case tc.wantGPU == nil && o.cfg.GPU != nil:
				t.Errorf("GPU %+v, want the default", *o.cfg.GPU)
			case tc.wantGPU != nil && (o.cfg.GPU == nil || *o.cfg.GPU != *tc.wantGPU):
				t.Errorf("GPU %+v, want %+v", o.cfg.GPU, *tc.wantGPU)
			}
			if o.knee != tc.knee && tc.want != nil {
				t.Errorf("knee workload %+v, want %+v", o.knee, tc.knee)
			}
			if _, err := mock.New(o.cfg); err != nil {
				t.Errorf("mock.New: %v", err)
			}
		})
	}
}

// capacityParams are the CapacityModel fields the capacity flags set.
type capacityParams struct {
	maxNumSeqs, maxNumBatchedTokens       int
	stepBase, stepPerSeq, prefillPerToken time.Duration
}

// TestMockCapacityFlagErrors: a value out of range names its flag; a value
// the user did not give (the preset's) is named with where it came from.
func TestMockCapacityFlagErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string // the whole stderr line
	}{
		{[]string{"--max-num-seqs", "0"}, "goodput mock: --max-num-seqs: must be in 1..65536, got 0"},
		{[]string{"--preset", "8b-1xh100", "--max-num-seqs", "10000"},
			"goodput mock: --max-num-batched-tokens: must be in --max-num-seqs..16777216 (10000..16777216), got 8192 (the 8b-1xh100 preset's value; give --max-num-batched-tokens)"},
		{[]string{"--max-num-seqs", "16", "--max-num-batched-tokens", "8"},
			"goodput mock: --max-num-batched-tokens: must be in --max-num-seqs..16777216 (16..16777216), got 8"},
		{[]string{"--step-base", "0"}, "goodput mock: --step-base: must be a duration in 1µs..10s, got 0s"},
		{[]string{"--prefill-per-token", "2s"}, "goodput mock: --prefill-per-token: must be a duration in 0..1s, got 2s"},
		{[]string{"--gpu-max-watts", "50"},
			"goodput mock: --gpu-idle-watts: must be in 0..--gpu-max-watts (50), got 70 (the default GPU's value; give --gpu-idle-watts)"},
		{[]string{"--knee-data", "prompt_tokens=256,output_tokens=128"},
			"goodput mock: --knee-data needs a capacity model: give --preset or a capacity flag such as --max-num-seqs"},
	}
	for _, tc := range tests {
		code, stderr := runBounded(t, append([]string{"mock", "--port", "0"}, tc.args...))
		if code != cli.ExitUsage || strings.TrimRight(stderr, "\n") != tc.want {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, cli.ExitUsage, tc.want)
		}
	}
}

// TestMockKneeLine holds the startup line's analytic knee against values
// computed by hand.
//
// 2 slots, 512-token budget, every step 20 ms (no per-sequence or prefill
// cost), 100-token prompts and 10 output tokens: a prompt fits one step
// (k = 1), so a request holds its slot K = k + S − 1 = 10 steps and a slot
// turns over every C_s = 10 × 20 ms = 200 ms: 2 × 10 / 0.2 s = 100 tok/s,
// 10 req/s (the budget allows 512 / (0.02 × 109) = 235 req/s). Closed loop
// beyond N* = 2.2 streams: TTFT P99 = (N − M + 1) × C_s/M + one prefill step
// = (N − 1) × 100 ms + 20 ms: 420 ms at N = 5, 520 ms at N = 6. Every gap
// is one 20 ms step. Open loop: TTFT is a step in progress plus the
// prefill step, far below 500 ms, up to saturation.
//
// The tiny preset at its reference shape is mock/doc.go's table: N = 10 at
// 861 tok/s, 6.73 req/s.
func TestMockKneeLine(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--max-num-seqs", "2", "--step-base", "20ms", "--step-per-seq", "0", "--prefill-per-token", "0", "--knee-data", "prompt_tokens=100,output_tokens=10"},
			"analytic knee for prompt_tokens=100,output_tokens=10 under TTFT P99 < 500ms, ITL P95 < 50ms: " +
				"concurrency 5 (100 tok/s, TTFT P99 420ms, ITL P95 20ms; ttft_p99 fails at 6), " +
				"rate 10.00 req/s (100 tok/s, bound by saturation); saturation 10.00 req/s = 100 tok/s"},
		{[]string{"--preset", "tiny"},
			"analytic knee for prompt_tokens=256,output_tokens=128 under TTFT P99 < 500ms, ITL P95 < 50ms: " +
				"concurrency 10 (861 tok/s, TTFT P99 459.48ms, ITL P95 13.62ms; ttft_p99 fails at 11), " +
				"rate 6.73 req/s (861 tok/s, bound by saturation); saturation 6.73 req/s = 861 tok/s"},
		{[]string{"--preset", "70b-8xh100", "--step-base", "200ms"},
			"analytic knee for prompt_tokens=1024,output_tokens=256 under TTFT P99 < 500ms, ITL P95 < 50ms: " +
				"no concurrency meets it (itl_p95 fails at 1), no constant rate meets it (itl_p95); saturation 0.233 req/s = 60 tok/s"},
	}
	for _, tc := range tests {
		o, err := parseMockFlags(&cli.Env{Stdout: io.Discard, Getenv: func(string) string { return "" }}, tc.args)
		if err != nil {
			t.Fatal(err)
		}
		if got := describeKnee(o.cfg.Capacity, o.knee); got != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.args, got, tc.want)
		}
	}
}

// TestMockSessionLine: --session-data prints each turn's lone TTFT from
// the capacity model, turn k ≥ 1 finding the whole blocks of the
// conversation before it cached. With 20 ms steps, 100 µs per prefill
// token and a 512-token budget: turn 0 prefills 70 + 30 + 20 (template)
// tokens in one step (20 + 12 ms); turn 1's prompt is 70 + 30 + 20 + 30 +
// 20 = 170 tokens, 112 of the 120 before it cached (7 blocks of 16): 58
// prefilled (20 + 5.8 ms).
func TestMockSessionLine(t *testing.T) {
	o, err := parseMockFlags(&cli.Env{Stdout: io.Discard, Getenv: func(string) string { return "" }}, []string{
		"--step-base", "20ms", "--step-per-seq", "0", "--prefill-per-token", "100us", "--max-num-batched-tokens", "512", "--chat-template-tokens", "20",
		"--session-data", "turns=2,prompt_tokens=30,output_tokens=20,prefix_tokens=70"})
	if err != nil {
		t.Fatal(err)
	}
	want := "expected TTFT by turn of a lone conversation (turns=2,prompt_tokens=30,output_tokens=20,prefix_tokens=70): " +
		"turn 0 32ms (120 prompt, 0 cached), turn 1 25.8ms (170 prompt, 112 cached)"
	if got := describeSessionTTFT(&o.cfg, *o.session); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

// TestMockCommandServesOverrides runs the mock command in-process on
// 127.0.0.1:0 with overrides and checks that the engine it serves has
// them: its startup lines, two slots (a third request waits), 20 ms steps
// (the chunks' emission stamps), and the simulated GPUs in the DCGM
// exposition.
func TestMockCommandServesOverrides(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- runMock(ctx, &cli.Env{Stdout: pw, Stderr: io.Discard, Getenv: func(string) string { return "" }}, []string{
			"--port", "0", "--max-num-seqs", "2", "--step-base", "20ms", "--step-per-seq", "0", "--prefill-per-token", "0",
			"--knee-data", "prompt_tokens=100,output_tokens=10", "--gpus", "2", "--gpu-name", "Test GPU", "--gpu-memory-mib", "1000",
			"--block-size", "32", "--prefix-cache-tokens", "1000"})
		pw.Close()
	}()
	lines := bufio.NewScanner(pr)
	var out []string
	for len(out) < 6 && lines.Scan() {
		out = append(out, lines.Text())
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	if len(out) < 6 {
		t.Fatalf("startup lines %q (%v)", out, <-done)
	}
	url := strings.TrimSuffix(strings.TrimPrefix(out[0], `goodput mock serving "goodput-mock" on `), " (Ctrl-C to stop)")
	want := []string{
		"goodput mock serving \"goodput-mock\" on " + url + " (Ctrl-C to stop)",
		"capacity model tiny preset (the base without --preset) with --max-num-seqs=2 --step-base=20ms --step-per-seq=0s --prefill-per-token=0s: " +
			"2 slots, 512-token step budget, step 20ms + 0s per decoding sequence + 0s per prefill token",
		"analytic knee for prompt_tokens=100,output_tokens=10 under TTFT P99 < 500ms, ITL P95 < 50ms: " +
			"concurrency 5 (100 tok/s, TTFT P99 420ms, ITL P95 20ms; ttft_p99 fails at 6), " +
			"rate 10.00 req/s (100 tok/s, bound by saturation); saturation 10.00 req/s = 100 tok/s",
		"DCGM exporter metrics for 2 × Test GPU (16 W idle + 8 W per running sequence, 72 W cap) on " + url + "/dcgm/metrics",
		"prefix cache: 32-token blocks, 992 tokens, least recently used evicted first; usage reports cached tokens",
		// No prefill cost: the cache saves nothing here.
		"expected TTFT of a lone request of prompt_tokens=100 by cached share: 0% (0 cached) 20ms, 25% (0 cached) 20ms, 50% (32 cached) 20ms, 75% (64 cached) 20ms, 90% (64 cached) 20ms",
	}
	for i := range want {
		if out[i] != want[i] {
			t.Errorf("startup line %d:\n got %s\nwant %s", i+1, out[i], want[i])
		}
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("served on %q, want 127.0.0.1", url)
	}

	// Three long streams: two get the slots, the third waits. Each running
	// stream reports the span of the emission stamps of its first 26
	// chunks.
	reqCtx, stopReqs := context.WithCancel(ctx)
	spans := make(chan time.Duration, 3)
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() { streamStampSpan(reqCtx, url, 26, spans) })
	}
	defer func() { stopReqs(); wg.Wait() }()

	deadline := time.Now().Add(10 * time.Second)
	for {
		running, waiting := engineGauges(t, url)
		if running > 2 {
			t.Fatalf("%v requests running with --max-num-seqs 2", running)
		}
		if running == 2 && waiting == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s: %v running, %v waiting; want 2 and 1", running, waiting)
		}
		time.Sleep(10 * time.Millisecond) // polling interval, not synchronisation
	}

	// Every step lasts 20 ms (two decoding sequences, no per-sequence or
	// prefill cost): 25 gaps span 500 ms. Deadlines are absolute, so the
	// span is 500 ms plus the last chunk's timer lateness minus the
	// first's; the bounds allow 125 ms of lateness on the first and about
	// 1 s on the last (measured: 499.3 to 500.5 ms). The
	// tiny preset's own step (5 ms + 2 × 500 µs) would give 150 ms.
	for range 2 {
		select {
		case span := <-spans:
			if span < 375*time.Millisecond || span > 1500*time.Millisecond {
				t.Errorf("25 gaps spanned %v, want about 500 ms (20 ms steps)", span)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no running stream delivered 26 chunks within 10 s")
		}
	}

	dcgm := httpGet(t, url+"/dcgm/metrics")
	used := regexp.MustCompile(`(?m)^DCGM_FI_DEV_FB_USED\{[^}]*modelName="Test GPU"[^}]*\} 900$`).FindAllString(dcgm, -1)
	if len(used) != 2 {
		t.Errorf("DCGM exposition: %d GPUs named \"Test GPU\" with 900 MiB used (90%% of 1000), want 2:\n%s", len(used), dcgm)
	}

	stopReqs()
	wg.Wait()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("runMock: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("runMock still serving 10 s after its context ended")
	}
}

var emitStampRE = regexp.MustCompile(`"goodput_emit_ns":(\d+)`)

// streamStampSpan streams a long completion and sends on spans the time
// between the emission stamps of its first and n-th chunks; it returns when
// ctx ends or the stream does.
func streamStampSpan(ctx context.Context, url string, n int, spans chan<- time.Duration) {
	body := `{"model":"goodput-mock","prompt":"hello","max_tokens":1000,"ignore_eos":true,"stream":true}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/completions", strings.NewReader(body))
	if err != nil {
		return
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	var first int64
	chunks := 0
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		m := emitStampRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		ns, _ := strconv.ParseInt(m[1], 10, 64)
		chunks++
		if chunks == 1 {
			first = ns
		}
		if chunks == n {
			spans <- time.Duration(ns - first)
		}
	}
}

// engineGauges reads vllm:num_requests_running and
// vllm:num_requests_waiting from the mock's /metrics.
func engineGauges(t *testing.T, url string) (running, waiting float64) {
	t.Helper()
	running, waiting = -1, -1
	for _, line := range strings.Split(httpGet(t, url+"/metrics"), "\n") {
		var dst *float64
		switch {
		case strings.HasPrefix(line, "vllm:num_requests_running{"):
			dst = &running
		case strings.HasPrefix(line, "vllm:num_requests_waiting{"):
			dst = &waiting
		default:
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		*dst = v
	}
	if running < 0 || waiting < 0 {
		t.Fatal("/metrics has no vllm:num_requests_running or vllm:num_requests_waiting")
	}
	return running, waiting
}

func httpGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return string(b)
}

// FuzzParseKneeData: --knee-data either fails with one line naming the
// flag or gives lengths in range that read back the same from their
// canonical form.
func FuzzParseKneeData(f *testing.F) {
	for _, s := range []string{"prompt_tokens=256,output_tokens=128", "output_tokens=1, prompt_tokens=16777216", "prompt_tokens=0,output_tokens=1",
		"prompt_tokens=1", "x", "", "prompt_tokens=1,prompt_tokens=2", "prompt_tokens=+5,output_tokens=0x10", "prompt_tokens=1,output_tokens=2,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := parseKneeData(s)
		if err != nil {
			if msg := err.Error(); strings.ContainsAny(msg, "\n\r") || !strings.HasPrefix(msg, "--knee-data ") {
				t.Fatalf("error %q: want one line naming --knee-data", msg)
			}
			return
		}
		if w.PromptTokens < 1 || w.PromptTokens > 1<<24 || w.OutputTokens < 1 || w.OutputTokens > 1<<24 || w.TokensPerChunk != 0 {
			t.Fatalf("%q gave %+v", s, w)
		}
		again, err := parseKneeData("prompt_tokens=" + strconv.Itoa(w.PromptTokens) + ",output_tokens=" + strconv.Itoa(w.OutputTokens))
		if err != nil || again != w {
			t.Fatalf("%q gave %+v, its canonical form %+v (%v)", s, w, again, err)
		}
	})
}

// TestMockPrefixCacheLine: the startup line gives the lone-request TTFT
// of the knee shape by cached share (tiny: 5 ms per step, 20 µs per
// prefill token, so 256 tokens cost 5 ms + 5.12 ms and 224 cached ones
// save 4.48 ms), and says when the cache is off.
func TestMockPrefixCacheLine(t *testing.T) {
	tiny, _ := mock.Preset(mock.PresetTiny)
	cfg := mock.DefaultConfig()
	cfg.Capacity = &tiny
	got := describePrefixCache(&cfg, mock.Workload{PromptTokens: 256, OutputTokens: 128})
	want := "prefix cache: 16-token blocks, 262144 tokens, least recently used evicted first; usage reports cached tokens\n" +
		"expected TTFT of a lone request of prompt_tokens=256 by cached share: 0% (0 cached) 10.12ms, 25% (64 cached) 8.84ms, " +
		"50% (128 cached) 7.56ms, 75% (192 cached) 6.28ms, 90% (224 cached) 5.64ms"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	o, err := parseMockFlags(&cli.Env{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }}, []string{"--no-prefix-cache"})
	if err != nil {
		t.Fatal(err)
	}
	if o.cfg.PrefixCache {
		t.Error("--no-prefix-cache left the prefix cache on")
	}
	if got := describePrefixCache(&o.cfg, o.knee); !strings.HasPrefix(got, "prefix cache off") {
		t.Errorf("--no-prefix-cache: %q", got)
	}
}
