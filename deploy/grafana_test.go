package deploy

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/livemetrics"
	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/telemetry"
	"github.com/goodput-dev/goodput/telemetry/promtest"
)

// dashboardExprs reads the Grafana dashboard and returns every query, its
// variables replaced by match-all.
func dashboardExprs(t *testing.T) (map[string]any, []string) {
	t.Helper()
	data, err := os.ReadFile("grafana/goodput-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Title  string `json:"title"`
		Panels []struct {
			Type    string `json:"type"`
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("grafana/goodput-dashboard.json: %v", err)
	}
	var raw map[string]any
	_ = json.Unmarshal(data, &raw)
	vars := regexp.MustCompile(`\$[a-z_]+`)
	var exprs []string
	for _, p := range d.Panels {
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			exprs = append(exprs, vars.ReplaceAllString(tg.Expr, ".*"))
		}
	}
	return raw, exprs
}

// TestGrafanaDashboard: the dashboard shows the run's own series next to
// vLLM's and dcgm-exporter's; every goodput_* series it queries is one
// that --metrics-addr serves; and a real Prometheus, scraping a live
// endpoint, accepts every query (no parse error).
func TestGrafanaDashboard(t *testing.T) {
	_, exprs := dashboardExprs(t)
	all := strings.Join(exprs, "\n")
	for _, want := range []string{"goodput_requests_total", "goodput_requests_in_flight", "goodput_time_to_first_token_seconds_bucket",
		"vllm:time_to_first_token_seconds_bucket", "vllm:num_requests_waiting", "vllm:prefix_cache_hits_total",
		"DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_PROF_SM_ACTIVE", "DCGM_FI_DEV_POWER_USAGE"} {
		if !strings.Contains(all, want) {
			t.Errorf("the dashboard does not query %s", want)
		}
	}
	lm, err := livemetrics.Listen("127.0.0.1:0", livemetrics.Options{InFlight: func() float64 { return 1 }})
	if err != nil {
		t.Fatal(err)
	}
	defer lm.Close(context.Background())
	obs := lm.Observer(nil)
	obs.BenchmarkStart(0, loadgen.Strategy{Kind: loadgen.Constant, Rate: 2}, loadgen.Constraints{}, 0)
	r := record.New()
	r.Status, r.Dispatched, r.FirstToken, r.End, r.OutputTokens, r.ChunkTimes = record.StatusSuccessful, 1e9, 1.1e9, 2e9, 3, []int64{1.1e9, 1.2e9}
	obs.Record(r)
	resp, err := http.Get("http://" + lm.Addr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, name := range regexp.MustCompile(`goodput_[a-z0-9_]+`).FindAllString(all, -1) {
		if !strings.Contains(string(body), "\n"+name) && !strings.HasPrefix(string(body), name) {
			t.Errorf("the dashboard queries %s, which --metrics-addr does not serve", name)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	promURL, logs := promtest.Start(t, ctx, lm.Addr(), "/metrics")
	prom, err := telemetry.NewPrometheus(promURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range exprs {
		if _, _, err := prom.Query(ctx, e, time.Now()); err != nil {
			t.Errorf("Prometheus rejects %s: %v\n%s", e, err, logs.String())
		}
	}
}

// TestScrapeAnnotations: every Job that runs a benchmark with
// --metrics-addr is annotated for scraping on that port, on the Job and on
// its pods, and its container declares the port.
func TestScrapeAnnotations(t *testing.T) {
	seen := 0
	for _, dir := range kustomizations {
		r := mustRender(t, dir)
		for _, j := range r.jobs {
			for _, c := range j.Spec.Template.Spec.Containers {
				addr := ""
				for _, a := range c.Args {
					if v, ok := strings.CutPrefix(a, "--metrics-addr="); ok {
						addr = v
					}
				}
				if addr == "" {
					continue
				}
				seen++
				port := addr[strings.LastIndex(addr, ":")+1:]
				for what, ann := range map[string]map[string]string{"job": j.Annotations, "pod template": j.Spec.Template.Annotations} {
					if ann["prometheus.io/scrape"] != "true" || ann["prometheus.io/port"] != port || ann["prometheus.io/path"] != "/metrics" {
						t.Errorf("%s: %s %s annotations %v, want scrape true, port %s, path /metrics", dir, j.Name, what, ann, port)
					}
				}
				declared := false
				for _, p := range c.Ports {
					declared = declared || (p.Name == "metrics" && strings.EqualFold(port, itoa(int(p.ContainerPort))))
				}
				if !declared {
					t.Errorf("%s: %s container %s does not declare port metrics %s", dir, j.Name, c.Name, port)
				}
			}
		}
	}
	if seen < 2 {
		t.Errorf("%d containers serve --metrics-addr; want the base's and the indexed shards'", seen)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
