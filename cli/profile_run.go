package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/aiperf"
	"github.com/goodput-dev/goodput/report/console"
	"github.com/goodput-dev/goodput/reqtype"
	"github.com/goodput-dev/goodput/run"
	"github.com/goodput-dev/goodput/slo"
)

// Profile runs `goodput profile`: AIPerf's flags (and --config YAML) into
// a run.Config, the run, then AIPerf's exports beside goodput's report.
func Profile(ctx context.Context, e *Env, args []string) error {
	var po profileOptions
	p, lay, slos, err := po.setup(e, args)
	if err != nil {
		return err
	}
	tokName := po.tokenizer
	_, runErr := run.Run(ctx, p.runConfig(), run.Env{Stdout: e.Stdout, Stderr: e.Stderr, Getenv: e.Getenv})
	var noSuccess *run.NoSuccessError
	if runErr != nil && !errors.Is(runErr, run.ErrInterrupted) && !errors.As(runErr, &noSuccess) {
		return runErr
	}
	if _, err := os.Stat(lay.report); err != nil && runErr != nil {
		return runErr // interrupted before any benchmark finished: nothing to export
	}
	rep, err := report.Read(lay.report)
	if err != nil {
		return fmt.Errorf("reading back the run's report for the AIPerf export: %w", err)
	}
	opts := aiperf.Options{
		GoodputVersion: e.Build.Version, SLOs: slos, CLICommand: profileCommand("goodput profile", args),
		ArtifactDir: lay.target.Dir, Tokenizer: tokName,
	}
	switch {
	case po.useServerTokenCount:
		opts.TokenCounts = aiperf.TokensServer
	case tokName != "":
		opts.TokenCounts = aiperf.TokensClient // AIPerf's default: its tokenizer's counts
	}
	opts.PerChunkUsage = po.perChunkUsage
	opts.HTTPTrace = po.exportHTTPTrace || po.showTraceTiming
	paths, _, err := run.WriteAIPerf(rep, lay.records, lay.target, opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.Stderr, "wrote %s\n", strings.Join(paths, ", "))
	if po.showTraceTiming {
		if err := writeTraceTiming(e, rep, paths, po.wide); err != nil {
			return err
		}
	}
	if errors.Is(runErr, run.ErrInterrupted) {
		return runErr
	}
	return afterRun(e.Stderr, rep, runErr, p.maxErrorRate)
}

// writeTraceTiming prints AIPerf's HTTP Trace Timing table
// (--show-trace-timing) from the JSON exports just written (paths holds
// each benchmark's JSON then CSV).
func writeTraceTiming(e *Env, rep *report.Report, paths []string, wide bool) error {
	var xs []*aiperf.Export
	for i := 0; i < len(paths); i += 2 {
		f, err := os.Open(paths[i])
		if err != nil {
			return fmt.Errorf("--show-trace-timing: %w", err)
		}
		x, err := aiperf.Read(f, paths[i])
		f.Close()
		if err != nil {
			return fmt.Errorf("--show-trace-timing: %w", err)
		}
		xs = append(xs, x)
	}
	cols := console.Columns
	if wide {
		cols = 0
	}
	return aiperf.WriteTraceTiming(e.Stdout, xs, aiperf.Labels(rep), cols)
}

// setup parses AIPerf's command line into the run's draft config, its output
// layout and the AIPerf SLOs, everything a profile run needs before the
// load.
func (po *profileOptions) setup(e *Env, args []string) (*draft, *profileLayout, []slo.AIPerfThreshold, error) {
	fs := NewFlagSet("profile", "profile --model M [--url URL] [--concurrency 4,8 | --request-rate 2,4] [flags]  (AIPerf's flags)", e.Stdout)
	profileFlags(po, fs)
	parsed, err := aiperfArgs(args)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := ParseFlags(fs, parsed); err != nil {
		return nil, nil, nil, err
	}
	if fs.NArg() > 0 {
		return nil, nil, nil, Usagef("unexpected argument %q (see 'goodput profile --help')", fs.Arg(0))
	}
	if po.configFile != "" {
		if err := po.readAIPerfConfig(fs, po.configFile, e.Getenv); err != nil {
			return nil, nil, nil, err
		}
	}
	if t, ok := reqtype.ByAIPerf(po.endpointType); po.apiKey == "" && ok && t.KeyEnv != "" {
		po.apiKey = e.Getenv(t.KeyEnv)
	}
	if po.apiKey == "" {
		po.apiKey = e.Getenv("OPENAI_API_KEY")
	}
	p, lay, err := po.draft(fs, e.Getenv)
	if err != nil {
		return nil, nil, nil, err
	}
	p.Build = e.Build
	slos, err := slo.ParseAIPerfGoodput(po.goodput...)
	if err != nil {
		return nil, nil, nil, Usagef("%v", err)
	}
	p.SLO = slo.Default()
	if rt, ok := p.Client.Endpoint.Type(); ok {
		p.SLO = slo.DefaultFor(rt, po.streaming) // without tokens to time: the request latency
	}
	if len(po.goodput) > 0 {
		// The same thresholds judge every benchmark in goodput's own report.
		// (AIPerf's export judges its own, longer list of tags: a tag the
		// SLO has no metric for only leaves goodput's report on its
		// default SLO, said so.)
		if sp, err := slo.AIPerfSpec(slos); err == nil {
			p.SLO = sp
		} else {
			fmt.Fprintf(e.Stderr, "note: --goodput: %v; goodput's own report keeps the default SLO (the AIPerf export applies --goodput)\n", oneLineErr(err))
		}
	}
	if err := po.finish(p); err != nil {
		return nil, nil, nil, err
	}
	if err := po.failures.apply(fs, p); err != nil {
		return nil, nil, nil, err
	}
	return p, lay, slos, nil
}

// checkPerChunkUsage checks --per-chunk-usage's conditions, AIPerf's:
// the server's token counts, chat and streaming (the per-chunk usage
// comes from the chat stream's continuous_usage_stats).
func (po *profileOptions) checkPerChunkUsage() error {
	switch {
	case !po.perChunkUsage:
		return nil
	case !po.useServerTokenCount:
		return Usagef("--per-chunk-usage needs --use-server-token-count (the output length must be the server's count its per-chunk usage is part of)")
	case po.endpointType != "chat":
		return Usagef("--per-chunk-usage: only for --endpoint-type chat, not %s", po.endpointType)
	case !po.streaming:
		return Usagef("--per-chunk-usage needs --streaming (per-chunk usage comes with each streamed chunk)")
	}
	return nil
}

// profileLayout says where a profile run writes its files.
type profileLayout struct {
	report  string // goodput's report (JSON); its CSV and JSON Lines beside it
	records string // goodput's JSON Lines records
	target  run.AIPerfTarget
}

// draft checks AIPerf's flags and fills the run's draft config from them, with the
// benchmark command's defaults for what AIPerf has no flag for. Errors
// name the profile's own flags.
func (po *profileOptions) draft(fs *pflag.FlagSet, getenv func(string) string) (*draft, *profileLayout, error) {
	d := &benchOptions{}
	benchFlags(d, pflag.NewFlagSet("benchmark-defaults", pflag.ContinueOnError))
	p := newDraft()
	p.Data.Getenv, p.meta, p.Plan.SampleRequests, p.Plan.Seed = getenv, d.meta, d.sampleRequests, d.seed
	p.Progress = run.Progress{LogFormat: d.logFormat, Interval: d.progressInterval}
	p.telDefaults, p.shardDefaults = d.tel, d.shard
	// Every round waits for an idle server, as the benchmark's do.
	p.Plan.Drain, _ = d.drain.drain(0, false)
	var err error
	if fs.Changed("random-seed") {
		p.Plan.Seed = po.seed
	}
	p.Client = loadgen.ClientConfig{APIKey: po.apiKey, NoStream: !po.streaming,
		// AIPerf sends no ignore_eos unless asked (--extra-inputs ignore_eos:true).
		NoIgnoreEOS: true, ConnectTimeout: d.connectTimeout, StallTimeout: d.stallTimeout, RequestTimeout: d.requestTimeout}
	if err := po.servers(p); err != nil {
		return nil, nil, err
	}
	if len(p.Client.Targets) == 1 {
		p.Client.Targets = nil
	}
	if len(p.Client.Models) == 1 {
		p.Client.Models = nil
	}
	rt, ok := reqtype.ByAIPerf(po.endpointType)
	switch {
	case ok:
		p.Client.Endpoint = loadgen.Endpoint(rt.Path)
	default:
		return nil, nil, Usagef("--endpoint-type %q: goodput profile supports %s", po.endpointType, reqtype.Names(profileType, func(t *reqtype.Type) string { return t.AIPerf }, "and"))
	}
	if po.legacyMaxTokens && (len(rt.MaxTokens) == 0 || rt.MaxTokensFixed) {
		return nil, nil, Usagef("--use-legacy-max-tokens: only for --endpoint-type chat and completions")
	}
	if err := po.checkPerChunkUsage(); err != nil {
		return nil, nil, err
	}
	if h := po.sessionHeader; h != "" && strings.Trim(h, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") != "" {
		return nil, nil, Usagef("--session-header %q: want a header name such as x-session-id", h)
	}
	p.Client.SessionHeader = po.sessionHeader
	if po.legacyMaxTokens {
		p.Client.MaxTokensField = "max_tokens"
	}
	if e := po.customEndpoint; e != "" {
		if !strings.HasPrefix(e, "/") || strings.ContainsAny(e, "?# ") {
			return nil, nil, Usagef("--custom-endpoint %q: want a path like /v1/custom", e)
		}
		p.Client.Path = e
	}
	endpointFromURLs(p)
	if po.transport != "http" {
		return nil, nil, Usagef("--transport %q: goodput profile speaks http only", po.transport)
	}
	po.userCentricSet = fs.Changed("user-centric-rate") || fs.Changed("num-users")
	po.prefillSet, po.prefillRampSet = fs.Changed("prefill-concurrency"), fs.Changed("prefill-concurrency-ramp-duration")
	concs, rates, err := po.loads(p)
	if err != nil {
		return nil, nil, err
	}
	if err := po.dataSpec(fs, p); err != nil {
		return nil, nil, err
	}
	if err := po.pooling(fs, p); err != nil {
		return nil, nil, err
	}
	if err := po.limits(fs, p, concs, rates); err != nil {
		return nil, nil, err
	}
	if err := po.request(fs, p); err != nil {
		return nil, nil, err
	}
	if err := po.runs(fs, p, max(len(concs), len(rates))); err != nil {
		return nil, nil, err
	}
	lay, err := po.layout(len(rates) > 0, concs, rates)
	if err != nil {
		return nil, nil, err
	}
	p.Outputs = run.Outputs{Path: lay.report, Dir: d.outputDir, Force: true, Wide: po.wide} // AIPerf overwrites its artifacts
	p.Outputs.Kinds = map[string]bool{"json": true, "csv": true, "jsonl": true, "console": true}
	return p, lay, nil
}

// servers reads AIPerf's --url and --model lists and their strategies
// into the client: several servers are benchmark's --target A,B with
// --target-selection, several models its --model a,b with
// --model-selection-strategy.
func (po *profileOptions) servers(p *draft) error {
	urls := po.urls
	if len(urls) == 0 {
		urls = []string{"localhost:8000"}
	}
	for _, u := range urls {
		if !strings.Contains(u, "://") {
			u = "http://" + u
		}
		p.Client.Targets = append(p.Client.Targets, u)
	}
	p.Client.Target = p.Client.Targets[0]
	switch po.urlStrategy {
	case loadgen.TargetRoundRobin, loadgen.TargetLeastInFlight:
		if po.urlStrategy != loadgen.TargetRoundRobin {
			p.Client.TargetSelection = po.urlStrategy
		}
	default:
		return Usagef("--url-strategy %q: want round_robin or least_in_flight", po.urlStrategy)
	}
	models, weights, err := loadgen.ParseModels(strings.Join(po.models, ","))
	switch {
	case err != nil:
		return Usagef("--model: %v", err)
	case len(models) == 0:
		return Usagef("--model is required, e.g. --model Qwen/Qwen3-0.6B")
	}
	p.Client.Model, p.Client.Models, p.Client.ModelWeights = models[0], models, weights
	switch s := po.modelSelection; {
	case s != loadgen.ModelRoundRobin && s != loadgen.ModelRandom && s != loadgen.ModelWeighted:
		return Usagef("--model-selection-strategy %q: want round_robin or random (or weighted, with weights: --model a:0.6,b:0.4)", s)
	case (s == loadgen.ModelWeighted) != (weights != nil):
		return Usagef("--model-selection-strategy %s: weights (--model a:0.6,b:0.4) go with weighted, and weighted needs them", s)
	case s != loadgen.ModelRoundRobin:
		p.Client.ModelSelection, p.Client.ModelSeed = s, uint64(p.Plan.Seed)
	}
	return nil
}
