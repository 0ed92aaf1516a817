package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"go.uber.org/zap"
	"golang.org/x/term"

	"github.com/goodput-dev/goodput/dataset"
	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/metadata"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/accum"
	"github.com/goodput-dev/goodput/report/aiperf"
	"github.com/goodput-dev/goodput/report/console"
	"github.com/goodput-dev/goodput/sweep"
	"github.com/goodput-dev/goodput/tokenize"
)

// execute runs a validated benchmark plan and writes its outputs. Order
// matters: everything that can fail (target, model, tokenizer, data,
// metadata, output directory) is checked before any load is sent.
func execute(ctx context.Context, e *env, o *benchOptions, p *plan) error {
	// A run that fails before it writes anything leaves no empty run
	// directory behind: the same run id must stay usable for the retry.
	var made string
	err := executeRun(ctx, e, o, p, &made)
	if err != nil && made != "" {
		_ = os.Remove(made) // only succeeds while the directory is empty
	}
	return err
}

// executeRun is execute; it sets *made to the run directory once it has
// created it.
func executeRun(ctx context.Context, e *env, o *benchOptions, p *plan, made *string) error {
	clock := loadgen.NewClock()
	client, err := loadgen.NewClient(p.client, clock)
	if err != nil {
		return usagef("%v", err)
	}
	defer client.CloseIdle()
	var models []loadgen.ModelInfo
	if !p.skipReady {
		if models, err = client.Ready(ctx); err != nil {
			return err
		}
	} else if client.Model() == "" {
		return usagef("--model is required when validate_backend is false")
	}
	tok, tokNote := p.tokenizer(client.Model(), o)
	data := p.data
	if tok != nil || p.shardPlan != nil {
		opts := o.dataOptions(tok, p.replay)
		if p.shardPlan != nil {
			// Shards must not send the same prompts at the same moment.
			opts.Seed = p.shard.shard.Seed(uint64(o.seed))
		}
		if data, err = dataset.Open(o.data, opts); err != nil {
			return usagef("--data: %s", oneLineErr(err))
		}
	}
	if tok != nil && p.client.CountTokens == nil {
		client.SetCountTokens(tok.Count)
	}
	runID := o.runID
	generated := false
	if runID == "" {
		if runID, err = labelsRunID(p.metaLabels); err != nil {
			return err
		}
	}
	shardHash, dirID, outputPath := "", "", o.outputPath
	if p.shardPlan != nil {
		// Every pod derives the same run id; each writes its own shard files.
		shardHash = p.shard.configHash(o, client.Model())
		runID = p.shard.runID(runID, shardHash)
		outputPath, dirID = p.shard.outputs(o.outputPath, runID)
	}
	if runID == "" {
		runID, generated = defaultRunID(time.Now(), configKey(o, client.Model())), true
	}
	if dirID == "" {
		dirID = runID
	}
	log := newLogger(e.stderr, o.logFormat)
	defer func() { _ = log.Sync() }()
	// With --log-format json every diagnostic line goes through the
	// logger, so stderr stays JSON Lines; the tables go to stdout.
	de := *e
	if o.logFormat == "json" {
		de.stderr = &logLines{log: log}
	}
	if tokNote != "" {
		log.Warn(tokNote)
	}
	for _, n := range p.shard.notes {
		log.Info(n)
	}
	in := metadataInputs(p, data, tok, runID, generated)
	in.SLO, in.SLODefault = o.sweep.spec().String(), o.sweep.spec().Default
	if in.Warmup = strings.TrimSpace(o.warmup); in.Warmup == "" {
		in.Warmup = "none"
	}
	md, err := collectRunMetadata(ctx, de.stderr, &o.meta, metadataProbe(client, models, o.meta.probeTimeout), in)
	if err != nil {
		return err
	}
	// A console-only run (a warmup step, say) writes no files and needs
	// no output directory.
	files := &runFiles{runID: runID}
	if p.outputs["json"] || p.outputs["csv"] || p.outputs["jsonl"] || p.outputs["html"] || p.outputs["scorecard"] || p.outputs["aiperf"] {
		if files, err = resolveRunFiles(outputPath, o.outputDir, dirID, o.force); err != nil {
			return err
		}
		if files.created {
			*made = files.dir
		}
	}
	scPath := ""
	if p.outputs["scorecard"] {
		if scPath, err = scorecardPath(files); err != nil {
			return err
		}
	}
	tel, err := openTelemetry(ctx, &de, p.telemetry, client.BaseURL())
	if err != nil {
		return err
	}
	defer tel.Close()
	log.Info("run", zapStr("run_id", runID), zapStr("target", client.PublicURL()), zapStr("model", client.Model()),
		zapStr("data", data.Description.String()), zapStr("output", files.dir))

	var enc *record.Encoder
	var jsonl *os.File
	if p.outputs["jsonl"] {
		if jsonl, err = os.Create(files.jsonl); err != nil {
			return fmt.Errorf("records file: %w", err)
		}
		defer jsonl.Close()
		enc = record.NewEncoder(jsonl)
	}
	scenario, err := p.scenario(client, files, data, tok, o.seed, o.sampleRequests)
	if err != nil {
		return err
	}
	engine := loadgen.NewEngine(client)
	if e.getenv("GOMAXPROCS") == "" {
		// GOMAXPROCS follows the client's own load, unless the user fixed it.
		engine.AdaptProcs(runtime.GOMAXPROCS(0))
	}
	total := sweep.Planned(p.planner)
	if p.shardPlan != nil {
		engine.SetShard(p.shard.shard.Index)
	}
	live := newLiveStats(engine, total)
	var obs sweep.Observer
	closeProgress := func() {}
	switch {
	case !isTerminal(e.stderr):
		every := o.progressInterval
		if o.disableProgress {
			every = 0 // the start and end of each benchmark only
		}
		obs = newLogProgress(log, live, every)
	case !o.disableProgress:
		tp := newTermProgress(e.stderr, live)
		closeProgress = tp.Close
		obs = tp
	}
	tobs := tel.Observer(obs, engine.Clock().Time)
	sloSpec := o.sweep.spec()
	runner := &sweep.Runner{
		Engine: engine, Source: data.Source, Sources: data.Round, Constraints: p.cons,
		Report: accum.Config{Warmup: p.warm, Cooldown: p.cool, SampleSize: sampleSize(o.sampleRequests),
			Seed: uint64(o.seed), SLO: sloSpec},
		Info:    accum.BenchmarkInfo{RunID: runID},
		Records: enc, Observer: tobs,
	}
	var rounds []sweep.Round
	var runErr error
	switch {
	case p.shardPlan != nil:
		runner.Report.Warmup, runner.Report.Cooldown = p.shardPlan.Warmup, p.shardPlan.Cooldown
		rounds, runErr = runner.RunShard(ctx, p.shardPlan)
	default:
		runner.StartAt = p.shard.startAt // 0 unless --start-at
		rounds, runErr = runner.Run(ctx, narratedPlanner{Planner: p.planner, live: live})
	}
	closeProgress()
	finishTelemetry(ctx, e, tobs, p.telemetry.Wait)
	interrupted := errors.Is(runErr, context.Canceled) || ctx.Err() != nil
	if runErr != nil && !interrupted && !(errors.Is(runErr, sweep.ErrShardLate) && len(rounds) > 0) {
		return runErr
	}
	if len(rounds) == 0 {
		if interrupted {
			return errInterrupted
		}
		return errNoBenchmarks
	}
	benches := make([]*report.Benchmark, len(rounds))
	for i, r := range rounds {
		benches[i] = r.Benchmark
	}
	if p.profile = o.sweep.finalProfile(p.profile, rounds); o.sweep.search != nil {
		// A knee search is written as the profile of the loads it ran.
		if scenario, err = p.scenario(client, files, data, tok, o.seed, o.sampleRequests); err != nil {
			return err
		}
	}
	rep := report.NewReport(version, scenario, benches...)
	finishRunMetadata(de.stderr, md, rep.Benchmarks)
	rep.Goodput = &report.RunExtras{
		Version: report.ExtrasVersion, RunID: runID, Interrupted: interrupted, Metadata: md,
		SLO: sloSpec.Report(), Knee: o.sweep.knee(p.planner, rounds),
	}
	if p.shardPlan != nil {
		rep.Goodput.Shard = p.shardPlan.Info(shardHash, runID)
	}
	if err := writeOutputs(&de, p, files, rep, jsonl); err != nil {
		return err
	}
	if !p.outputs["console"] {
		printKnee(de.stderr, rep.Goodput.Knee)
	}
	if p.outputs["scorecard"] || tel.Active() {
		var w io.Writer
		if p.outputs["console"] {
			w = e.stdout
		}
		if _, err := writeScorecard(w, scPath, rep); err != nil {
			return err
		}
	}
	for _, r := range rounds {
		if r.Result.Client.Saturated {
			fmt.Fprintf(de.stderr, "WARNING: benchmark %d (%s): the load generator was saturated (%s); its latency figures are unreliable.\n",
				r.Benchmark.Config.RunIndex, r.Strategy, r.Result.Client.Reason)
		}
	}
	fields := []zap.Field{zap.String("run_id", runID), zap.Int("benchmarks", len(rep.Benchmarks)), zap.Bool("interrupted", interrupted)}
	if k := rep.Goodput.Knee; k != nil {
		fields = append(fields, zap.Bool("knee_found", k.Found))
		if k.Index >= 0 {
			fields = append(fields, zap.Int("knee_benchmark", int(k.Index)), zap.Float64("knee_goodput_output_tok_s", float64(k.GoodputOutputTokS)))
		}
	}
	if files.dir != "" {
		fields = append(fields, zap.String("output", files.dir))
	}
	log.Info("run finished", fields...)
	if interrupted {
		return errInterrupted
	}
	return runErr // a late shard's error, after writing the rounds it ran
}

// logLines is an io.Writer that logs each line written to it (the
// diagnostics of a --log-format json run).
type logLines struct {
	log *zap.Logger
	buf []byte
}

func (w *logLines) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		if line := strings.TrimRight(string(w.buf[:i]), " \r"); strings.TrimSpace(line) != "" {
			w.log.Info(line)
		}
		w.buf = w.buf[i+1:]
	}
}

// tokenizer is the run's tokenizer: --processor when given (resolved in
// validate), else the model's own when a tokenizer.json for it is found
// locally. Without one, token counts of prompts are approximate and
// output tokens come from the server's usage; the note says so.
func (p *plan) tokenizer(model string, o *benchOptions) (*tokenize.Tokenizer, string) {
	if p.tokExplicit != nil {
		return p.tokExplicit, ""
	}
	tok, err := tokenize.Resolve(model, tokenize.ResolveOptions{Getenv: o.getenv})
	if err != nil {
		return nil, fmt.Sprintf("no tokenizer for model %q found locally, so prompt lengths are approximate and output tokens come from the server's usage (pass --processor to fix): %s", model, oneLineErr(err))
	}
	return tok, ""
}

// metadataInputs gathers what the run itself knows for its metadata.
func metadataInputs(p *plan, d *dataset.Dataset, tok *tokenize.Tokenizer, runID string, generated bool) metadata.Inputs {
	in := metadata.Inputs{
		Labels: p.metaLabels, Data: d.Description.String(), Warmup: p.warm.String(),
		RunID: runID, RunIDGenerated: generated, Version: version, Commit: commit,
		ISL: d.Description.PromptTokens.Mean, OSL: d.Description.OutputTokens.Mean,
	}
	if tok != nil {
		in.Tokenizer, in.TokenizerHash = tok.Name(), tok.Hash()
	}
	return in
}

// writeOutputs writes the report files and prints the console summary.
func writeOutputs(e *env, p *plan, files *runFiles, rep *report.Report, jsonl *os.File) error {
	if jsonl != nil {
		if err := jsonl.Sync(); err != nil {
			return fmt.Errorf("records file: %w", err)
		}
	}
	if p.outputs["json"] {
		if err := writeFileAtomic(files.json, rep.WriteJSON); err != nil {
			return err
		}
	}
	if p.outputs["csv"] {
		if err := writeFileAtomic(files.csv, func(w io.Writer) error { return report.WriteCSV(w, rep) }); err != nil {
			return err
		}
	}
	if p.outputs["html"] {
		if err := writeRunHTML(files, rep, p.outputs["jsonl"]); err != nil {
			return err
		}
	}
	var aiperfPaths []string
	if p.outputs["aiperf"] {
		records := ""
		if jsonl != nil {
			records = files.jsonl // exact, AIPerf's way; else approximated from the report
		}
		opts := aiperf.Options{GoodputVersion: version, ArtifactDir: files.dir}
		if rep.Goodput != nil && rep.Goodput.Metadata != nil {
			opts.Tokenizer = rep.Goodput.Metadata.Tokenizer
		}
		paths, _, err := writeAIPerfExports(rep, records, aiperfTarget{dir: files.dir, base: "profile_export_aiperf.json"}, opts)
		if err != nil {
			return err
		}
		aiperfPaths = paths
	}
	if p.outputs["console"] {
		if err := console.Write(e.stdout, rep); err != nil {
			return err
		}
	}
	var written []string
	for _, k := range []string{"json", "csv", "jsonl", "html"} {
		if p.outputs[k] {
			written = append(written, map[string]string{"json": files.json, "csv": files.csv, "jsonl": files.jsonl, "html": files.htmlPath()}[k])
		}
	}
	written = append(written, aiperfPaths...)
	if len(written) > 0 {
		fmt.Fprintf(e.stderr, "wrote %s\n", strings.Join(written, ", "))
	}
	return nil
}

// scenario describes the run in GuideLLM's scenario terms for the report.
func (p *plan) scenario(c *loadgen.Client, files *runFiles, d *dataset.Dataset, tok *tokenize.Tokenizer, seed int64, samples int) (*report.Scenario, error) {
	cfg := c.Config()
	var outs []report.Output
	if p.outputs["json"] {
		outs = append(outs, report.Output{Kind: "json", Path: files.json})
	}
	if p.outputs["csv"] {
		outs = append(outs, report.Output{Kind: "csv", Path: files.csv})
	}
	if p.outputs["console"] {
		outs = append(outs, report.Output{Kind: "console"})
	}
	var headers []string
	for k := range cfg.Headers {
		headers = append(headers, k)
	}
	var timeout *float64
	if cfg.RequestTimeout > 0 {
		t := cfg.RequestTimeout.Seconds()
		timeout = &t
	}
	tokName := ""
	if tok != nil {
		tokName = tok.Name()
	}
	return report.NewScenario(report.SpecInput{
		Backend: report.Backend{
			Target: c.PublicURL(), Model: c.Model(), RequestFormat: string(cfg.Endpoint), APIKeySet: cfg.APIKey != "",
			Timeout: timeout, TimeoutConnect: cfg.ConnectTimeout.Seconds(), HTTP2: !cfg.DisableHTTP2, Stream: !cfg.NoStream,
			ExtraBody: p.extraBody, ExtraHeaders: headers,
		},
		Profile:     p.profile,
		Constraints: sweep.ReportConstraints(p.cons),
		Tokenizer:   tokName,
		RawData:     []json.RawMessage{d.Description.GuideLLM},
		Seed:        seed, SampleSize: samples, Outputs: outs, Labels: p.labels,
	})
}

func sampleSize(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// configKey is the part of the invocation that defines the experiment (not
// where its files go), hashed into the default run id.
func configKey(o *benchOptions, model string) string {
	return strings.Join([]string{o.target, model, o.requestType, o.rateType, o.rate, o.data, o.processor, o.sweep.slo, o.sweep.kneeAxis,
		fmt.Sprint(o.maxSeconds, o.maxRequests, o.warmup, o.cooldown, o.seed)}, "|")
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
