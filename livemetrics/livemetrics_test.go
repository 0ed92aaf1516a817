package livemetrics

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/dataset"
	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report/accum"
	"github.com/goodput-dev/goodput/sweep"
	"github.com/goodput-dev/goodput/telemetry"
	"github.com/goodput-dev/goodput/telemetry/promtest"
)

// runAgainstMock runs rounds against a fresh mock with lm's observer and
// returns them.
func runAgainstMock(t *testing.T, ctx context.Context, lm func(*loadgen.Engine) sweep.Observer, plan sweep.List, d time.Duration) []sweep.Round {
	t.Helper()
	srv, err := mock.New(mock.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	client, err := loadgen.NewClient(loadgen.ClientConfig{Target: srv.URL()}, loadgen.NewClock())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.CloseIdle)
	spec, err := dataset.ParseSpec("prompt_tokens=32,output_tokens=16")
	if err != nil {
		t.Fatal(err)
	}
	engine := loadgen.NewEngine(client)
	runner := &sweep.Runner{Engine: engine, Source: dataset.NewSynthetic(spec, 1), Observer: lm(engine),
		Constraints: loadgen.Constraints{MaxDuration: d}, Report: accum.Config{Seed: 1}, Info: accum.BenchmarkInfo{RunID: "live"}}
	rounds, err := runner.Run(ctx, plan)
	if err != nil {
		t.Fatal(err)
	}
	return rounds
}

// TestLiveMetricsPrometheus: a real Prometheus scrapes the endpoint every
// second during a two-round run against the mock; after Close (which waits
// for a last scrape) the scraped request count, per round and in all,
// equals the report's (goodput.requests: recorded less not dispatched),
// and the in-flight gauge, histograms and round
// series were seen.
func TestLiveMetricsPrometheus(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test takes about 10 s; skipped with -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var engine *loadgen.Engine
	lm, err := Listen("127.0.0.1:0", Options{InFlight: func() float64 {
		if engine == nil {
			return 0
		}
		return float64(engine.Live().InFlight)
	}})
	if err != nil {
		t.Fatal(err)
	}
	promURL, logs := promtest.Start(t, ctx, lm.Addr(), "/metrics")
	prom, err := telemetry.NewPrometheus(promURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	query := func(expr string) (float64, bool) {
		v, _, err := prom.Query(ctx, expr, time.Now())
		if err != nil || len(v) == 0 {
			return 0, false
		}
		return v[0].Value, true
	}
	// Wait until Prometheus scrapes the endpoint.
	for {
		if _, ok := query(`up{job="dcgm-exporter"} == 1`); ok {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("prometheus never scraped %s\n%s", lm.Addr(), logs.String())
		case <-time.After(200 * time.Millisecond):
		}
	}
	rounds := runAgainstMock(t, ctx, func(e *loadgen.Engine) sweep.Observer { engine = e; return lm.Observer(nil) },
		sweep.List{{Kind: loadgen.Concurrent, Streams: 4}, {Kind: loadgen.Constant, Rate: 20}}, 3*time.Second)
	if err := lm.Close(ctx); err != nil {
		t.Fatal(err)
	}
	var total int64
	for i, r := range rounds {
		// Every request the round made: the report's records less those
		// never dispatched (request_totals also leaves out the few that
		// ended outside the round's window).
		rc := r.Benchmark.Extras.Requests
		want := int64(rc.Recorded - rc.Invalid - rc.NotDispatched)
		total += want
		got, ok := query(`sum(last_over_time(goodput_requests_total{round="` + itoa(i) + `"}[5m]))`)
		if !ok || int64(got) != want {
			t.Errorf("round %d: Prometheus scraped %v requests (found %v), the report has %d\n%s", i, got, ok, want, logs.String())
		}
	}
	if got, ok := query(`sum(last_over_time(goodput_requests_total[5m]))`); !ok || int64(got) != total {
		t.Errorf("all rounds: scraped %v, report %d", got, total)
	}
	if got, ok := query(`max_over_time(goodput_requests_in_flight[5m])`); !ok || got < 1 {
		t.Errorf("in flight never seen above 0: %v %v", got, ok)
	}
	if got, ok := query(`max_over_time(goodput_round_target_load{kind="rate"}[5m])`); !ok || got != 20 {
		t.Errorf("target rate %v %v, want 20", got, ok)
	}
	okReqs, _ := query(`sum(last_over_time(goodput_requests_total{round="0",status="successful"}[5m]))`)
	if got, ok := query(`sum(last_over_time(goodput_time_to_first_token_seconds_count{round="0"}[5m]))`); !ok || got != okReqs || got < 1 {
		t.Errorf("TTFT observations %v, successful requests %v", got, okReqs)
	}
	if _, ok := query(`last_over_time(process_cpu_seconds_total[5m])`); !ok {
		t.Error("no process CPU series")
	}
}

// TestLiveMetricsSeries: the exposition's series after a short run, read
// without Prometheus; errors counted by status and class; Close without
// scrapers returns at once; a busy address is an error naming the flag.
func TestLiveMetricsSeries(t *testing.T) {
	ctx := context.Background()
	lm, err := Listen("127.0.0.1:0", Options{})
	if err != nil {
		t.Fatal(err)
	}
	obs := lm.Observer(nil)
	obs.BenchmarkStart(0, loadgen.Strategy{Kind: loadgen.Concurrent, Streams: 3}, loadgen.Constraints{}, 0)
	ok := record.New()
	ok.Status, ok.Dispatched, ok.FirstToken, ok.End, ok.OutputTokens = record.StatusSuccessful, 1e9, 1.2e9, 2e9, 5
	ok.ChunkTimes = []int64{1.2e9, 1.4e9, 1.6e9}
	bad := record.New()
	bad.Status, bad.ErrorClass, bad.Dispatched = record.StatusErrored, record.ErrHTTPStatus, 1e9
	never := record.New()
	never.Status, never.ErrorClass = record.StatusIncomplete, record.ErrCancelled
	obs.Record(ok)
	obs.Record(ok)
	obs.Record(bad)
	obs.Record(never) // cancelled before dispatch: not a request
	resp, err := http.Get("http://" + lm.Addr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	text := string(body)
	for _, want := range []string{
		`goodput_requests_total{class="none",round="0",status="successful"} 2`,
		`goodput_requests_total{class="http_status",round="0",status="errored"} 1`,
		`goodput_output_tokens_total{round="0"} 10`,
		`goodput_inter_token_latency_seconds_count{round="0"} 4`,
		`goodput_time_to_first_token_seconds_bucket{round="0",le="0.25"} 2`,
		`goodput_e2e_request_latency_seconds_sum{round="0"} 2`,
		`goodput_round 0`, `goodput_round_target_load{kind="concurrency"} 3`,
		`goodput_round_info{round="0",strategy="concurrent@3"} 1`,
	} {
		if strings.Contains(text, `status="incomplete"`) {
			t.Error("a request cancelled before dispatch was counted")
		}
		if !strings.Contains(text, want) {
			t.Errorf("exposition lacks %s", want)
		}
	}
	obs.BenchmarkEnd(0, sweep.Round{})
	start := time.Now()
	// At once; a few seconds of slack for a busy machine.
	if err := lm.Close(ctx); err != nil || time.Since(start) > 5*time.Second {
		t.Errorf("close: %v after %v", err, time.Since(start))
	}
	busy, err := Listen("127.0.0.1:0", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close(ctx)
	if _, err := Listen(busy.Addr(), Options{}); err == nil || !strings.Contains(err.Error(), "--metrics-addr") {
		t.Errorf("busy address: %v", err)
	}
}

func itoa(i int) string { return string(rune('0' + i)) }
