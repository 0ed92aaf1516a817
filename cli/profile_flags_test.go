package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/sweep"
)

func TestProfileDefaultLayout(t *testing.T) {
	po := profileOptions{models: []string{"Qwen/Qwen3-0.6B"}, endpointType: "chat"}
	for _, c := range []struct {
		rate         bool
		concs, rates []float64
		want         string
	}{
		{false, []float64{4}, nil, "artifacts/Qwen_Qwen3-0.6B-openai-chat-concurrency4"},
		{false, []float64{4, 8}, nil, "artifacts/Qwen_Qwen3-0.6B-openai-chat-concurrency_sweep"},
		{true, nil, []float64{2.5}, "artifacts/Qwen_Qwen3-0.6B-openai-chat-request_rate2.5"},
		{true, []float64{8}, []float64{1, 2}, "artifacts/Qwen_Qwen3-0.6B-openai-chat-request_rate_sweep"},
	} {
		p := po
		lay, err := p.layout(c.rate, c.concs, c.rates)
		if err != nil {
			t.Fatal(err)
		}
		if lay.target.Dir != c.want || lay.report != filepath.Join(c.want, "goodput.json") || lay.records != filepath.Join(c.want, "goodput.jsonl") {
			t.Errorf("layout %+v, want dir %s", lay, c.want)
		}
	}
	p := profileOptions{models: []string{"m"}, output: "/r/aiperf.json"}
	lay, err := p.layout(false, []float64{1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if lay.target.Single != "/r/aiperf.json" || lay.report != "/r/aiperf.goodput.json" || lay.target.Base != "aiperf.json" {
		t.Errorf("--output layout %+v", lay)
	}
}

func TestProfileCommandRedaction(t *testing.T) {
	got := profileCommand("goodput profile", []string{"--api-key", "sk-1", "--api-key=sk-2", "-H", "Authorization: Bearer sk-3",
		"-HX-Key:sk-4", "--header={\"a\":\"sk-5\"}", "--goodput", "time_to_first_token:5 inter_token_latency:1", "--model", "m"})
	want := `goodput profile --api-key '***' '--api-key=***' -H 'Authorization:***' '-HX-Key:***' '--header={***}' --goodput 'time_to_first_token:5 inter_token_latency:1' --model m`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// A profile flag's error names the profile flag itself.
func TestProfileErrorsNameProfileFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--url", "ftp://x:1"}, "goodput profile: --url: "},
		{[]string{"--isl", "0"}, "goodput profile: --isl 0: want a token count ≥ 1"},
		{[]string{"--concurrency", "0"}, `goodput profile: --concurrency "0": want whole numbers ≥ 1`},
		{[]string{"--request-timeout-seconds", "0"}, "goodput profile: --request-timeout-seconds 0: want seconds > 0"},
	} {
		code, _, stderr := runGoodput(t, append([]string{"profile", "--model", "m", "--artifact-dir", t.TempDir()}, tc.args...)...)
		if code != ExitUsage || !strings.HasPrefix(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// The profile's flags become typed values directly: the same rounds,
// data, limits and warmup the benchmark's parsers read from its flags.
func TestProfilePlanIsTyped(t *testing.T) {
	var po profileOptions
	fs := pflag.NewFlagSet("profile", pflag.ContinueOnError)
	profileFlags(&po, fs)
	if err := fs.Parse([]string{"--model", "m", "--request-rate", "2,4.5", "--request-rate-mode", "constant", "--concurrency", "8",
		"--isl", "100", "--isl-stddev", "10", "--osl", "20", "--request-count", "30", "--warmup-request-count", "5",
		"--random-seed", "7", "-H", "X-A: b", "--extra-inputs", "ignore_eos:true", "--artifact-dir", t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	p, _, err := po.draft(fs, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	list := p.Plan.Planner.(sweep.List)
	if len(list) != 2 || list[1].Kind != loadgen.Constant || list[1].Rate != 4.5 || list[1].MaxConcurrency != 8 || list[1].Seed != 7 {
		t.Errorf("rounds %+v", list)
	}
	if p.Data.Synthetic.String() != "prompt_tokens=100,prompt_tokens_stdev=10,output_tokens=20,output_tokens_stdev=0" &&
		p.Data.Synthetic.String() != "prompt_tokens=100,prompt_tokens_stdev=10,output_tokens=20" {
		t.Errorf("data %s", p.Data.Synthetic)
	}
	// The warmup is a phase of its own: 5 requests, at the rate list's
	// in-flight cap of 8 streams (a list gives the warmup no rate), before
	// the 30 measured ones.
	if w := p.Plan.WarmupPhase; w == nil || w.Constraints.MaxRequests != 5 || w.Strategy.Kind != loadgen.Concurrent || w.Strategy.Streams != 8 ||
		!p.Plan.Warmup.IsZero() || p.Plan.Constraints.MaxRequests != 30 {
		t.Errorf("warmup phase %+v, transient warmup %v, max requests %d", w, p.Plan.Warmup, p.Plan.Constraints.MaxRequests)
	}
	if p.Client.Headers["X-A"] != "b" || p.Client.ExtraBody != `{"ignore_eos":true}` || p.ExtraBody["ignore_eos"] != true {
		t.Errorf("headers %v, body %s", p.Client.Headers, p.Client.ExtraBody)
	}
	if fmt.Sprint(p.Plan.Profile.Rate) != "[2 4.5]" || p.Plan.Profile.Kind != "constant" || p.Metadata.Warmup != "concurrent@8, 5 requests" || p.Plan.Seed != 7 {
		t.Errorf("profile %+v, warmup %q, seed %d", p.Plan.Profile, p.Metadata.Warmup, p.Plan.Seed)
	}
}

// AIPerf's --sequence-distribution becomes the synthetic spec's mix; it
// excludes --isl/--osl and --input-file, and a bad value names the flag.
func TestProfileSequenceDistribution(t *testing.T) {
	_, p, err := profilePlan(t, "--seq-dist", "64|10,32|8:70;256,128:30")
	if err != nil {
		t.Fatal(err)
	}
	mix := p.Data.Synthetic.Mix
	if len(mix) != 2 || mix[0].Prompt.Stdev != 10 || mix[0].Output.Mean != 32 || mix[1].Weight != 30 || p.Data.Synthetic.Prompt.Set() {
		t.Fatalf("mix %+v, spec %s", mix, p.Data.Synthetic)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--sequence-distribution", "64,32:70;256,128:20"}, "--sequence-distribution \"64,32:70;256,128:20\": the probabilities sum to 90, want 100"},
		{[]string{"--sequence-distribution", "64,32:100", "--isl", "100"}, "--sequence-distribution and --isl: give one"},
		{[]string{"--seq-dist", "64,32:100", "--input-file", "x.jsonl"}, "--sequence-distribution shapes synthetic prompts, not --input-file"},
	} {
		_, _, err := profilePlan(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}
