package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/dataset"
	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/run"
	"github.com/goodput-dev/goodput/sweep"
	"github.com/goodput-dev/goodput/tokenize"
)

// limits reads the request count, duration, cancellation and grace
// period into the run's constraints, and the warmup phase.
func (po *profileOptions) limits(fs *pflag.FlagSet, p *draft, concs, rates []float64) error {
	if po.duration < 0 || math.IsNaN(po.duration) || math.IsInf(po.duration, 0) {
		return Usagef("--benchmark-duration %v: want seconds > 0", po.duration)
	}
	if po.requestCount < 0 {
		return Usagef("--request-count %d: want requests ≥ 1", po.requestCount)
	}
	maxConc := 1
	switch {
	case len(rates) > 0 && len(concs) == 1:
		maxConc = int(concs[0])
	case len(rates) == 0 && len(concs) > 0:
		maxConc = int(slices.Max(concs))
	}
	count := po.requestCount
	if count == 0 && po.duration == 0 && po.rateSeries == "" && po.inputFile == "" && po.conversations == 0 {
		count = max(10, 2*maxConc) // AIPerf's default; a series, a file and a trace end by themselves
	}
	p.Plan.Constraints = loadgen.Constraints{MaxDuration: time.Duration(po.duration * float64(time.Second))}
	switch {
	case !(po.cancelRate >= 0 && po.cancelRate <= 100):
		return Usagef("--request-cancellation-rate %v: want a percentage from 0 to 100", po.cancelRate)
	case !(po.cancelDelay >= 0) || math.IsInf(po.cancelDelay, 0):
		return Usagef("--request-cancellation-delay %v: want seconds ≥ 0", po.cancelDelay)
	case po.cancelDelay > 0 && po.cancelRate == 0:
		return Usagef("--request-cancellation-delay needs --request-cancellation-rate (the share of requests to cancel)")
	case po.cancelRate > 0:
		p.Plan.Constraints.Cancel = &loadgen.Cancellation{Rate: po.cancelRate / 100, Delay: time.Duration(po.cancelDelay * float64(time.Second)), Seed: uint64(p.Plan.Seed)}
	}
	if po.gracePeriod != "" {
		g, err := gracePeriod(po.gracePeriod)
		switch {
		case err != nil:
			return err
		case po.duration == 0:
			return Usagef("--benchmark-grace-period applies with --benchmark-duration (requests in flight at its end)")
		}
		p.Plan.Constraints.Drain = g
	}
	if count > 0 {
		p.Plan.Constraints.MaxRequests = count
	}
	if err := po.warmup(fs, p, concs, rates); err != nil {
		return err
	}
	if n := po.conversations * po.turns; po.requestCount > n && po.conversations > 0 && po.inputFile == "" && po.turnsStddev == 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("--request-count %d is superseded by --%s %d: its %d conversations of %d turn(s) send at most %d requests, each once (AIPerf's --conversation-num counts sessions, --request-count single-turn requests)",
			po.requestCount, usedAlias(fs, conversationNumFlags), po.conversations, po.conversations, po.turns, n))
	}
	return nil
}

// runs reads the repeated runs' settings (--num-profile-runs itself is
// applied once the plan is complete, in finish), the pauses between
// benchmarks, the confidence and the time slices.
func (po *profileOptions) runs(fs *pflag.FlagSet, p *draft, benchmarks int) error {
	changed := func(n string) bool { return fs != nil && fs.Changed(n) }
	switch {
	case po.sweepMode != "repeated":
		return Usagef("--parameter-sweep-mode %q: goodput runs the whole list once per run (repeated); independent is not supported", po.sweepMode)
	case !(po.confidence > 0 && po.confidence < 1):
		return Usagef("--confidence-level %v: want a confidence between 0 and 1, e.g. 0.95", po.confidence)
	case po.runCooldown < 0 || po.sweepGap < 0 || math.IsNaN(po.runCooldown+po.sweepGap) || math.IsInf(po.runCooldown+po.sweepGap, 0):
		return Usagef("--profile-run-cooldown-seconds %v, --parameter-sweep-cooldown-seconds %v: want seconds ≥ 0", po.runCooldown, po.sweepGap)
	case po.runCooldown > 0 && po.profileRuns < 2:
		return Usagef("--profile-run-cooldown-seconds: pauses between repeated runs: give --num-profile-runs ≥ 2")
	case po.sweepGap > 0 && benchmarks < 2:
		return Usagef("--parameter-sweep-cooldown-seconds: pauses between the benchmarks of a --concurrency or --request-rate list: give several values")
	case po.runCooldown > 0 && po.sweepGap > 0 && po.runCooldown != po.sweepGap:
		return Usagef("--profile-run-cooldown-seconds %v and --parameter-sweep-cooldown-seconds %v: goodput pauses the same before every benchmark: give one", po.runCooldown, po.sweepGap)
	case po.sliceDuration < 0 || math.IsNaN(po.sliceDuration) || math.IsInf(po.sliceDuration, 0) || changed("slice-duration") && po.sliceDuration == 0:
		return Usagef("--slice-duration %v: want seconds > 0", po.sliceDuration)
	}
	if changed("confidence-level") {
		p.Plan.Confidence = po.confidence
	}
	if gap := max(po.runCooldown, po.sweepGap); gap > 0 {
		p.Plan.Drain.Gap = time.Duration(gap * float64(time.Second))
	}
	p.Metrics.SliceDuration = time.Duration(po.sliceDuration * float64(time.Second))
	return nil
}

// request reads the request's settings: timeout, display, headers and
// extra body fields.
func (po *profileOptions) request(fs *pflag.FlagSet, p *draft) error {
	if fs.Changed("request-timeout-seconds") {
		if !(po.requestTimeout > 0) || math.IsInf(po.requestTimeout, 0) {
			return Usagef("--request-timeout-seconds %v: want seconds > 0", po.requestTimeout)
		}
		p.Client.RequestTimeout = time.Duration(po.requestTimeout * float64(time.Second))
	}
	var err error
	if p.Plan.Control, err = po.control.control(fs); err != nil {
		return err
	}
	if po.ui != "dashboard" && po.ui != "simple" && po.ui != "none" {
		return Usagef("--ui-type %q: want dashboard, simple or none", po.ui)
	}
	p.Progress.Disable = po.ui == "none"
	for _, h := range po.headers {
		hs, err := parseAIPerfHeader(h)
		if err != nil {
			return err
		}
		if p.Client.Headers == nil {
			p.Client.Headers = map[string]string{}
		}
		for _, kv := range hs {
			p.Client.Headers[kv[0]] = kv[1]
		}
	}
	if len(po.extraInputs) > 0 {
		body, err := parseExtraInputs(po.extraInputs)
		if err != nil {
			return err
		}
		b, err := json.Marshal(body)
		if err != nil {
			return Usagef("--extra-inputs: %v", err)
		}
		p.ExtraBody, p.Client.ExtraBody = body, string(b)
	}
	return nil
}

// finish checks what needs the server-independent resources (the target's
// form, the tokenizer, the data) and splits a sharded run.
func (po *profileOptions) finish(p *draft) error {
	for _, t := range append([]string{p.Client.Target}, p.Client.Targets...) {
		if _, err := loadgen.NormalizeTarget(t); err != nil {
			return Usagef("--url: %v", err)
		}
	}
	if po.tokenizer != "" {
		// Exact synthetic prompt lengths and client-side token counts.
		// "builtin" is AIPerf's name for tiktoken's o200k_base.
		name := po.tokenizer
		if name == "builtin" {
			name = "o200k_base"
		}
		tok, err := tokenize.Resolve(name, tokenize.ResolveOptions{Getenv: p.Data.Getenv, Flag: "--tokenizer",
			Server: &tokenize.ServerOptions{URL: p.Client.Target, Model: p.Client.Model, APIKey: p.Client.APIKey}})
		if err != nil {
			return Usagef("%s", oneLineErr(err))
		}
		p.tokExplicit = tok
	}
	p.Data.Options = dataset.Options{Tokenizer: p.tokExplicit, Seed: uint64(p.Plan.Seed), TimeScale: 1, Samples: po.conversations, Session: po.fileSession}
	var err error
	if p.Data.Options.Salt, err = parsePromptSalt(po.promptSalt); err != nil {
		return err
	}
	if po.inputFile != "" {
		p.Data.Options.Trace = slices.Contains(aiperfTraceTypes, po.datasetType)
		p.Data.Options.TraceStart = time.Duration(po.scheduleStart) * time.Millisecond
		p.Data.Options.TraceEnd = time.Duration(po.scheduleEnd) * time.Millisecond
		p.Data.Options.Shuffle = po.sampling == "shuffle"
		if ep, ok := p.Client.Endpoint.Type(); ok && ep.Pooling() && (ep.Batch == dataset.PoolingInputs || ep.Batch == dataset.PoolingDocuments) {
			p.Data.Options.Pooling = ep.Batch // AIPerf's texts records: one request each
		}
		if p.Data.Opened, err = dataset.Open(po.inputFile, p.Data.Options); err != nil {
			return Usagef("--input-file: %s", oneLineErr(err))
		}
		l, ok := p.Data.Opened.Source.(interface{ Pooled() bool })
		pooled := ok && l.Pooled()
		if pooled && p.Client.BatchSize > 1 {
			return Usagef("--batch-size or --rankings-passages-mean %d: each record of %s gives its request's texts; leave them out", p.Client.BatchSize, po.inputFile)
		}
		if k := p.Data.Opened.Description.Kind; p.Data.Options.Salt != 0 && !dataset.Salted(k) {
			return Usagef("--prompt-salt: applies to synthetic data and traces, not to %s", k)
		}
		if po.datasetType == "multi_turn" && p.Data.Opened.Description.Sessions == 0 && !pooled {
			return Usagef(`--custom-dataset-type multi_turn: %s holds no conversations (want {"session_id":…,"turns":[{"text":…,"delay":ms},…]} a line)`, po.inputFile)
		}
	} else if p.Data.Opened, err = dataset.OpenSynthetic(*p.Data.Synthetic, p.Data.Options); err != nil {
		return Usagef("--isl/--osl: %s", oneLineErr(err))
	}
	if p.replay {
		if len(p.Data.Opened.Schedule) == 0 {
			return Usagef("--input-file %s: no timestamps to replay (add --no-fixed-schedule to send it under --concurrency)", po.inputFile)
		}
		s := po.shape(loadgen.Strategy{Kind: loadgen.Replay, Schedule: p.Data.Opened.Schedule, MaxConcurrency: p.Plan.Profile.MaxConcurrency})
		p.Plan.Planner, p.Plan.Profile.MaxConcurrency = sweep.List{s}, s.MaxConcurrency
	}
	if err := po.telemetryFlags(&p.telDefaults); err != nil {
		return err
	}
	if p.Telemetry, err = p.telDefaults.config(nil); err != nil {
		return err
	}
	if p.shard, err = p.shardDefaults.resolve(p.Data.Getenv, time.Now()); err != nil {
		return err
	}
	if err := repeatPlan(p, "--num-profile-runs", po.profileRuns, "--run-variation-threshold", sweep.DefaultRunVariation); err != nil {
		return err
	}
	if p.shard.sharded && p.Plan.WarmupPhase != nil {
		return errWarmupShard
	}
	if p.shard.sharded && p.Plan.Control != nil {
		return errControlShard
	}
	return p.shardRun(p.Plan.Profile.Kind)
}

// telemetryFlags applies AIPerf's server-metrics and GPU telemetry flags
// to the benchmark's telemetry options.
func (po *profileOptions) telemetryFlags(o *scorecardOptions) error {
	switch {
	case po.noServerMetrics && len(po.serverMetrics) > 0:
		return Usagef("--server-metrics and --no-server-metrics are mutually exclusive")
	case po.noServerMetrics:
		o.serverMetrics = []string{"off"}
	case len(po.serverMetrics) == 1 && po.serverMetrics[0] == "":
		o.serverMetrics = []string{"on"}
	case len(po.serverMetrics) > 0:
		urls := make([]string, 0, len(po.serverMetrics))
		for _, m := range po.serverMetrics {
			u, err := metricsURL(m)
			if err != nil {
				return Usagef("--server-metrics %q: %v", m, err)
			}
			urls = append(urls, u)
		}
		o.serverMetrics = urls
	}
	if po.noGPUTelemetry && len(po.gpuTelemetry) > 0 {
		return Usagef("--gpu-telemetry and --no-gpu-telemetry are mutually exclusive")
	}
	for _, v := range po.gpuTelemetry {
		switch {
		case v == "":
			// AIPerf's default DCGM endpoints; either may be absent.
			o.dcgmURLs = append(o.dcgmURLs, "http://localhost:9400/metrics", "http://localhost:9401/metrics")
			o.optional = true
		case v == "pynvml":
			o.nvml = true
		case v == "dashboard" || v == "amdsmi" || strings.HasSuffix(strings.ToLower(v), ".csv"):
			return Usagef("--gpu-telemetry %s: not supported (dcgm-exporter URLs or pynvml)", v)
		default:
			u, err := metricsURL(v)
			if err != nil {
				return Usagef("--gpu-telemetry %q: %v", v, err)
			}
			o.dcgmURLs = append(o.dcgmURLs, u)
		}
	}
	return nil
}

// metricsURL completes AIPerf's short forms of a /metrics endpoint:
// node1:9400 is http://node1:9400/metrics.
func metricsURL(s string) (string, error) {
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", errors.New("want host:port, or an http(s) URL of a /metrics endpoint")
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/metrics"
	}
	return u.String(), nil
}

// layout applies --output / --artifact-dir (see the comment at the top).
func (po *profileOptions) layout(rateMode bool, concs, rates []float64) (*profileLayout, error) {
	if po.output != "" && po.artifactDir != "" {
		return nil, Usagef("--output and --artifact-dir: give one of them")
	}
	if po.output != "" {
		st, err := os.Stat(po.output)
		if !strings.HasSuffix(po.output, "/") && (err != nil || !st.IsDir()) {
			if filepath.Ext(po.output) != ".json" {
				return nil, Usagef("--output %q: want the path of a .json file (or a directory)", po.output)
			}
			dir, base := filepath.Dir(po.output), filepath.Base(po.output)
			stem := strings.TrimSuffix(base, ".json")
			rep := filepath.Join(dir, stem+".goodput.json")
			return &profileLayout{report: rep, records: strings.TrimSuffix(rep, ".json") + ".jsonl",
				target: run.AIPerfTarget{Dir: dir, Base: base, Single: po.output}}, nil
		}
		po.artifactDir = po.output
	}
	dir := po.artifactDir
	if dir == "" { // AIPerf's auto-name, e.g. Qwen_Qwen3-0.6B-openai-chat-concurrency4
		var load string
		switch {
		case po.userCentricSet:
			load = "user_centric_rate" + formatList(rates)
		case rateMode && len(rates) > 1:
			load = "request_rate_sweep"
		case rateMode:
			load = "request_rate" + formatList(rates)
		case len(concs) > 1:
			load = "concurrency_sweep"
		default:
			load = "concurrency" + formatList(concs)
		}
		dir = filepath.Join("artifacts", aiperfDirName(strings.Join(po.models, ","))+"-openai-"+po.endpointType+"-"+load)
	}
	rep := filepath.Join(dir, "goodput.json")
	return &profileLayout{report: rep, records: filepath.Join(dir, "goodput.jsonl"),
		target: run.AIPerfTarget{Dir: dir, Base: "profile_export_aiperf.json"}}, nil
}

// aiperfDirName makes a model name usable in a directory name, as AIPerf
// does (Qwen/Qwen3-0.6B → Qwen_Qwen3-0.6B).
func aiperfDirName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
}
