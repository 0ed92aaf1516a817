package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
	"golang.org/x/term"

	"github.com/goodput-dev/goodput/dataset"
	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/accum"
	"github.com/goodput-dev/goodput/report/console"
	"github.com/goodput-dev/goodput/scorecard/measure"
	"github.com/goodput-dev/goodput/slo"
	"github.com/goodput-dev/goodput/sweep"
	"github.com/goodput-dev/goodput/telemetry"
	"github.com/goodput-dev/goodput/tokenize"
)

// state is one run in progress: what each step leaves for the next.
type state struct {
	cfg    *Config
	env    Env
	stderr io.Writer // env.Stderr (fitLines on a terminal), or the logger's lines under --log-format json

	client  *loadgen.Client
	models  []loadgen.ModelInfo
	tok     *tokenize.Tokenizer
	tokNote string
	// readyNote says what the readiness check could not check.
	readyNote string
	ovNote    string // what --chat-template-overhead measured or applied
	cacheNote string // the run's cache-warm warning (cacheNote), "" when none
	data      *dataset.Dataset

	runID, shardHash string
	generated        bool // the run id is the default one
	log              *zap.Logger
	md               *report.RunMetadata
	files            *runFiles
	scPath           string // the scorecard file, "" for none
	claimed          string // the empty scorecard file made to claim the run id, "" for none
	made             string // the run directory, when this run created it
	tel              *measure.Telemetry
	live             *liveMetrics
	jsonl            recordsFile
	enc              *record.Encoder
	closers          []func()
}

// Run executes cfg and writes its outputs; it returns the report. Order
// matters: everything that can fail (target, model, tokenizer, data,
// metadata, output directory, telemetry) is checked before any load is
// sent. A run that fails before it writes anything leaves no empty run
// directory behind: the same run id must stay usable for the retry. A run
// that wrote its outputs but measured no working server (a benchmark
// without a successful request, a server that went away) returns its
// report and a NoSuccessError, unless Config.AllowAllErrors.
func Run(ctx context.Context, cfg *Config, env Env) (*report.Report, error) {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	s := &state{cfg: cfg, env: env, stderr: env.Stderr}
	if cols := s.consoleCols(); cols > 0 && isTerminal(env.Stderr) {
		// On a terminal the diagnostics fit it; a file or a pipe (a CI
		// log, a test) keeps each message on one line, for grep.
		fl := &fitLines{w: env.Stderr, cols: cols}
		s.stderr = fl
		s.onClose(fl.flush)
	}
	rep, err := s.run(ctx)
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	if err != nil {
		s.release()
	}
	return rep, err
}

func (s *state) run(ctx context.Context) (*report.Report, error) {
	for _, step := range []func(context.Context) error{s.checkOutputs, s.connect, s.openData, s.name, s.startLog, s.probe, s.prepareFiles, s.startTelemetry, s.startLiveMetrics, s.openRecords} {
		if err := step(ctx); err != nil {
			return nil, err
		}
	}
	rounds, runErr := s.rounds(ctx)
	interrupted := errors.Is(runErr, context.Canceled) || ctx.Err() != nil
	// A late shard and a control request the server refused stop the
	// run after the rounds already done, which are written.
	if runErr != nil && !interrupted && !((errors.Is(runErr, sweep.ErrShardLate) || errors.Is(runErr, loadgen.ErrControl)) && len(rounds) > 0) {
		return nil, runErr
	}
	if len(rounds) == 0 {
		if interrupted {
			return nil, ErrInterrupted
		}
		return nil, ErrNoBenchmarks
	}
	rep, err := s.report(rounds, interrupted)
	if err != nil {
		return nil, err
	}
	lost := s.recordsLoss(rep)
	if err := s.write(rep, rounds, lost); err != nil {
		return rep, err
	}
	if interrupted {
		return rep, ErrInterrupted
	}
	if runErr != nil {
		return rep, runErr // a late shard's or a control request's error, after writing the rounds it ran
	}
	return rep, s.noSuccess(rep)
}

// release removes what a failed run made and left empty: its scorecard
// claim and its run directory, so the same run id stays usable.
func (s *state) release() {
	if s.claimed != "" {
		if st, err := os.Stat(s.claimed); err == nil && st.Size() == 0 {
			_ = os.Remove(s.claimed)
		}
	}
	if s.made != "" {
		_ = os.Remove(s.made) // only succeeds while the directory is empty
	}
}

// onClose registers f to run when the run ends, last registered first.
func (s *state) onClose(f func()) { s.closers = append(s.closers, f) }

// connect makes the client and checks the server is ready (GET
// /v1/models), which also names the model when none was given.
func (s *state) connect(ctx context.Context) error {
	cc := s.cfg.Client
	if cc.MaxConns == 0 {
		// Keep a connection per stream between requests: with fewer, the
		// streams that finish together would dial again.
		cc.MaxConns = max(1024, sweep.MaxStreams(s.cfg.Plan.Planner))
	}
	client, err := loadgen.NewClient(cc, loadgen.NewClock())
	if err != nil {
		return usagef("%v", err)
	}
	s.client = client
	s.onClose(client.CloseIdle)
	if !s.cfg.SkipReady {
		s.models, err = client.Ready(ctx)
		s.readyNote = client.ReadyNote()
		return err
	}
	if client.Model() == "" {
		return usagef("--model is required when validate_backend is false")
	}
	return nil
}

// openData picks the tokenizer and opens the data once: the data opened
// while validating serves unless the model's tokenizer or a shard's seed
// changes the prompts.
func (s *state) openData(ctx context.Context) error {
	d := &s.cfg.Data
	tok, note := d.tokenizer(s.client.Model())
	s.tok, s.data, s.tokNote = tok, d.Opened, note
	shard := s.cfg.Plan.Shard.Plan != nil
	opts := d.Options
	opts.Tokenizer = tok
	if shard {
		// Shards must not send the same prompts at the same moment.
		opts.Seed = s.cfg.Plan.Shard.Shard.Seed(uint64(s.cfg.Plan.Seed))
	}
	if s.data == nil || tok != d.Options.Tokenizer || shard {
		var err error
		if s.data, err = d.Open(opts); err != nil {
			return usagef("--data: %s", OneLine(err))
		}
	}
	if err := loadgen.CheckSessions(s.cfg.Client.Endpoint, s.data.Source); err != nil {
		return usagef("--data: %s", OneLine(err))
	}
	// A server's tokenizer does not count outputs: that would be one more
	// request to the server under test per response; its usage counts them.
	if tok != nil && !tok.Remote() && s.cfg.Client.CountTokens == nil {
		s.client.SetCountTokens(tok.Count)
	}
	if first, ok := s.data.Source.Request(0); ok {
		if err := loadgen.CheckMedia(s.client.Config().Endpoint, first); err != nil {
			return usagef("--data with --request-type: %v", err)
		}
	}
	// A media column may be empty in the first row: its kind is refused
	// for an API that cannot send it, whatever the first row holds.
	for _, c := range []struct{ role, kind string }{{"image_column", "image"}, {"audio_column", "audio"}, {"video_column", "video"}} {
		if _, ok := s.data.Description.Columns[c.role]; ok {
			if err := loadgen.CheckMediaKinds(s.client.Config().Endpoint, c.kind); err != nil {
				return usagef("--data with --request-type: %s: %v", c.role, err)
			}
		}
	}
	if s.cfg.Tokens.applies() {
		return s.applyOverhead(ctx, opts)
	}
	return nil
}

// applyOverhead reopens exact synthetic data with the server's prompt
// overhead taken off every prompt: the given one, or (auto) the one a probe
// request shaped like the data's first measures. A probe, not the first
// requests of the run: every request is then built the same way, before
// the load starts, and the data stays reproducible from the report.
func (s *state) applyOverhead(ctx context.Context, opts dataset.Options) error {
	t := s.cfg.Tokens
	probe := s.data.ProbeRequest()
	if probe == nil {
		why := "needs a tokenizer (--processor): without one synthetic prompts are approximate"
		if s.tok != nil {
			why = "applies to synthetic data (prompt_tokens=…) only"
		}
		return usagef("--chat-template-overhead %s; data %s", why, s.data.Description.String())
	}
	ov, how := t.Overhead, "given"
	if t.OverheadAuto {
		var err error
		if ov, err = s.client.PromptOverhead(ctx, probe); err != nil {
			return fmt.Errorf("--chat-template-overhead auto: %w", err)
		}
		how = fmt.Sprintf("measured with one probe request: %d prompt tokens billed for %d counted by %s", ov+probe.PromptTokens, probe.PromptTokens, s.tok.Name())
	}
	if ov <= 0 {
		s.ovNote = fmt.Sprintf("prompt overhead %d (%s): exact prompts are built as requested", ov, how)
		return nil
	}
	opts.PromptOverhead = ov
	d, err := s.cfg.Data.Open(opts)
	if err != nil {
		return usagef("--data with --chat-template-overhead %d: %s", ov, OneLine(err))
	}
	s.data = d
	s.ovNote = fmt.Sprintf("prompt overhead %d tokens (%s): exact prompts are built %d tokens shorter so that the server bills the requested count", ov, how, ov)
	return nil
}

// startLog starts the run's logger. With --log-format json every
// diagnostic line goes through it, so stderr stays JSON Lines; the tables
// go to stdout.
func (s *state) startLog(context.Context) error {
	logTo := s.env.Stderr
	if fl, ok := s.stderr.(*fitLines); ok && s.cfg.Progress.LogFormat != "json" {
		logTo = fl // a terminal: the log lines fit it too
	}
	s.log = newLogger(logTo, s.cfg.Progress.LogFormat)
	s.onClose(func() { _ = s.log.Sync() })
	if s.cfg.Progress.LogFormat == "json" {
		s.stderr = &logLines{log: s.log}
	}
	if s.tokNote != "" {
		s.log.Warn(s.tokNote)
	}
	if s.readyNote != "" {
		s.log.Warn(s.readyNote)
	}
	if s.ovNote != "" {
		s.log.Info(s.ovNote)
	}
	for _, n := range s.cfg.Plan.Shard.Notes {
		s.log.Info(n)
	}
	for _, n := range s.cfg.Notes {
		s.log.Warn(n)
	}
	return nil
}

// name chooses the run id: the explicit one, the labels', a shard run's
// shared one, else a timestamp and the configuration's hash.
func (s *state) name(context.Context) error {
	o := &s.cfg.Outputs
	s.runID = o.RunID
	if s.runID == "" {
		var err error
		if s.runID, err = labelsRunID(s.cfg.Metadata.Labels); err != nil {
			return err
		}
	}
	if sh := &s.cfg.Plan.Shard; sh.Plan != nil {
		// Every pod derives the same run id; each writes its own shard files.
		var err error
		if s.shardHash, err = s.cfg.ShardHash(s.client.Model()); err != nil {
			return err
		}
		s.runID = shardRunID(s.runID, sh.StartAt, s.shardHash)
	}
	if s.runID == "" {
		key, err := s.cfg.ExperimentKey(s.client.Model())
		if err != nil {
			return err
		}
		s.runID, s.generated = defaultRunID(time.Now(), key), true
	}
	return nil
}

// prepareFiles resolves the output files and proves the directory
// writable. A console-only run (a warmup step, say) writes no files and
// needs no output directory.
func (s *state) prepareFiles(context.Context) error {
	o := &s.cfg.Outputs
	s.files = &runFiles{runID: s.runID}
	if !o.needDir() {
		return nil
	}
	// A generated id taken by a run started in the same second with the
	// same configuration gets a suffix (-2, -3, …): the claim of its
	// directory, or of its scorecard beside an --output-path file, is
	// atomic, so two runs started at once never write the same files.
	base := s.runID
	for n := 1; ; n++ {
		if n > 1 {
			s.runID = fmt.Sprintf("%s-%d", base, n)
		}
		err := s.claimFiles()
		if !errors.Is(err, errTaken) {
			return err
		}
		if n == maxRunIDSuffix {
			return fmt.Errorf("run ids %s to %s are all taken: give --run-id", base, s.runID)
		}
	}
}

// claimFiles resolves the files of run id s.runID; errTaken when another
// run claimed that generated id first.
func (s *state) claimFiles() error {
	o := &s.cfg.Outputs
	dirID := s.runID
	if sh := &s.cfg.Plan.Shard; sh.Plan != nil {
		dirID = s.runID + shardSuffix(sh.Shard)
	}
	var err error
	if s.files, err = resolveRunFiles(o.Path, o.Dir, dirID, o.Force, s.generated); err != nil {
		return err
	}
	s.files.runID = s.runID
	if s.files.created {
		s.made = s.files.dir
	}
	if err := s.files.place(o.Files, o.Force); err != nil {
		return err
	}
	if o.Kinds[outScorecard] {
		if s.scPath, err = scorecardPath(s.files, s.generated && !s.files.created); err != nil {
			return err
		}
		if s.generated && !s.files.created && !o.Force {
			s.claimed = s.scPath
		}
	}
	return nil
}

// startTelemetry probes every telemetry source and starts sampling.
func (s *state) startTelemetry(ctx context.Context) error {
	tel, err := openTelemetry(ctx, s.stderr, s.cfg.Telemetry, s.client.BaseURL())
	if err != nil {
		return err
	}
	s.tel = tel
	s.onClose(tel.Close)
	s.log.Info("run", zap.String("run_id", s.runID), zap.String("target", s.client.PublicURL()), zap.String("model", s.client.Model()),
		zap.String("data", s.data.Description.String()), zap.String("output", s.files.dir))
	return nil
}

// openRecords opens the per-request JSON Lines file.
func (s *state) openRecords(context.Context) error {
	if !s.cfg.Outputs.Kinds[outJSONL] {
		return nil
	}
	f, err := createRecords(s.files.jsonl)
	if err != nil {
		return fmt.Errorf("records file: %w", err)
	}
	s.jsonl, s.enc = f, record.NewEncoder(f)
	s.onClose(func() { f.Close() })
	return nil
}

// rounds runs the load plan's rounds under the progress display and the
// telemetry windows, and waits for the last windows' readings.
func (s *state) rounds(ctx context.Context) ([]sweep.Round, error) {
	p := &s.cfg.Plan
	engine := loadgen.NewEngine(s.client)
	if s.env.Getenv("GOMAXPROCS") == "" {
		// GOMAXPROCS follows the client's own load, unless the user fixed it.
		engine.AdaptProcs(runtime.GOMAXPROCS(0))
	}
	if p.Shard.Plan != nil {
		engine.SetShard(p.Shard.Shard.Index)
	}
	engine.SetServerGone(func(g loadgen.ServerGone) {
		s.log.Warn(fmt.Sprintf("server went away: %d requests in a row could not reach %s (last: %s); benchmark %d stopped and no more requests are sent to it",
			g.Failures, s.requestURL(), g.LastError, g.Benchmark))
	})
	streams := sweep.MaxStreams(p.Planner)
	if w := fitOpenFiles(streams); w != "" {
		fmt.Fprintln(s.stderr, w)
	}
	heapMsg, restoreHeap := fitHeap(streams, s.env.Getenv)
	defer restoreHeap()
	if heapMsg != "" {
		fmt.Fprintln(s.stderr, heapMsg)
	}
	live := newLiveStats(engine, sweep.Planned(p.Planner))
	obs, closeProgress := s.progress(live)
	obs = s.live.observer(engine, obs)
	tobs := s.tel.Observer(obs, engine.Clock().Time)
	runner := &sweep.Runner{
		Engine: engine, Source: s.client.Group(s.data.Source), Sources: func(r int) loadgen.Source { return s.client.Group(s.data.Round(r)) },
		Constraints: p.Constraints, TargetMOE: p.TargetMOE,
		Report: accum.Config{Warmup: p.Warmup, Cooldown: p.Cooldown, SampleSize: sampleSize(p.SampleRequests),
			Seed: uint64(p.Seed), SLO: s.cfg.SLO,
			RequestType: requestType(s.client.Config().Endpoint), InputKind: inputKind(s.client.Config().Endpoint), Models: s.client.SentModels(), Targets: s.client.PublicURLs(), PromptOverhead: s.data.Description.PromptOverhead,
			Tokenizer: s.tokName(), TokenMismatchWarn: s.cfg.Tokens.MismatchWarn, Confidence: p.Confidence,
			Streaming: s.cfg.Metrics.Streaming, SliceNs: int64(s.cfg.Metrics.SliceDuration), Percentiles: s.cfg.Metrics.Percentiles},
		Info:    accum.BenchmarkInfo{RunID: s.runID},
		Records: s.enc, Observer: tobs,
	}
	var rounds []sweep.Round
	var err error
	if sp := p.Shard.Plan; sp != nil {
		runner.Report.Warmup, runner.Report.Cooldown = sp.Warmup, sp.Cooldown
		rounds, err = runner.RunShard(ctx, sp)
	} else {
		runner.StartAt = p.Shard.StartAt // 0 unless --start-at
		runner.Drain = s.drain()
		if w := p.WarmupPhase; w != nil {
			ph := *w
			ph.Source = s.client.Group(s.data.Warmup())
			runner.Warmup = &ph
		}
		runner.Control = p.Control
		rounds, err = runner.Run(ctx, narratedPlanner{Planner: p.Planner, live: live})
	}
	closeProgress()
	finishTelemetry(ctx, s.stderr, tobs, s.cfg.Telemetry.Wait)
	return rounds, err
}

// drain is the plan's wait before each round, reading the server's queue
// gauges from the server metrics the telemetry samples, else probing it
// with one-token requests; nil for none.
func (s *state) drain() *sweep.Drain {
	if s.cfg.Plan.Drain == nil {
		return nil
	}
	d := *s.cfg.Plan.Drain
	if url, hc := s.tel.ServerMetrics(); url != "" && d.Gauges == nil {
		if q, err := telemetry.NewReplicaQueueReader(s.tel.ServerMetricsReplicas(), hc); err == nil {
			d.Gauges = q
		} else {
			s.log.Warn("server queue gauges unreadable; rounds wait until a one-token probe is as fast as on the idle server", zap.Error(err))
		}
	}
	if d.Probe == nil && s.cfg.Telemetry.ServerMetrics != measure.ServerMetricsOff {
		// Where the server has no queue gauges (or they fail at the first
		// read), one-token probes tell when it is idle; with server
		// metrics off nothing but the load is sent, and the drain waits
		// by latency.
		d.Probe = sweep.RequestProbe{Client: s.client, Request: loadgen.NewRequest("", "Hello.", 1)}
	}
	if d.Progress == nil {
		d.Progress = func(line string) { s.log.Info(line) }
	}
	return &d
}

// progress chooses the display: log lines off a terminal, bars on one.
func (s *state) progress(live *liveStats) (sweep.Observer, func()) {
	pr := &s.cfg.Progress
	switch {
	case !isTerminal(s.env.Stderr):
		every := pr.Interval
		if pr.Disable {
			every = 0 // the start and end of each benchmark only
		}
		return newLogProgress(s.log, live, every), func() {}
	case !pr.Disable:
		tp := newTermProgress(s.env.Stderr, live)
		return tp, tp.Close
	}
	return nil, func() {}
}

// report builds the run's report from its rounds.
func (s *state) report(rounds []sweep.Round, interrupted bool) (*report.Report, error) {
	benches := make([]*report.Benchmark, len(rounds))
	for i, r := range rounds {
		benches[i] = r.Benchmark
	}
	scenario, err := s.scenario(finalProfile(&s.cfg.Plan, rounds))
	if err != nil {
		return nil, err
	}
	rep := report.NewReport(s.cfg.Build.Version, scenario, benches...)
	finishRunMetadata(s.stderr, s.md, rep.Benchmarks)
	notes := s.cfg.Notes
	if s.cacheNote = cacheNote(rep.Benchmarks, s.data != nil && s.data.Description.Salt != 0); s.cacheNote != "" {
		notes = append(notes[:len(notes):len(notes)], s.cacheNote)
	}
	rep.Run = &report.RunExtras{
		Version: report.ExtrasVersion, RunID: s.runID, Interrupted: interrupted, Metadata: s.md,
		SLO: s.cfg.SLO.Report(), Knee: sweep.FindKnee(s.cfg.Plan.Planner, rounds, s.cfg.Plan.TargetLoadTokS),
		ThroughputKnee: sweep.ThroughputKnee(s.cfg.Metrics.KneeDetection, s.cfg.Plan.Planner, rounds),
		Trials:         sweep.Trials(s.cfg.Metrics.NumRuns, rounds, s.cfg.Plan.Confidence, s.cfg.Metrics.RunVariation),
		Notes:          notes,
	}
	if sp := s.cfg.Plan.Shard.Plan; sp != nil {
		rep.Run.Shard = sp.Info(s.shardHash, s.runID)
	}
	return rep, nil
}

// finalProfile is the report profile once the rounds ran: a knee search
// is written as GuideLLM's concurrent (or constant/poisson) profile of the
// loads it ran; other profiles are unchanged.
func finalProfile(p *Plan, rounds []sweep.Round) report.Profile {
	if p.Search == nil || len(rounds) == 0 {
		return p.Profile
	}
	prof := p.Search.Profile(rounds)
	prof.Warmup, prof.Cooldown = p.Profile.Warmup, p.Profile.Cooldown
	return prof
}

// write writes the outputs, the scorecard and the closing lines. With a
// full disk (or lost records, lost) it writes what it can, the console
// summary included, and returns an OutputsLostError naming what is
// missing.
func (s *state) write(rep *report.Report, rounds []sweep.Round, lost string) error {
	kinds := s.cfg.Outputs.Kinds
	var missing []string
	if lost != "" {
		missing = append(missing, lost)
	}
	failed, err := s.writeOutputs(rep)
	if err != nil {
		return err
	}
	missing = append(missing, failed...)
	if !kinds[outConsole] {
		printKnee(s.stderr, rep.Run.Knee)
	}
	if kinds[outScorecard] || s.tel.Active() {
		var w io.Writer
		var summary strings.Builder
		if kinds[outConsole] {
			w = &summary
		}
		_, err := writeScorecard(w, s.scPath, rep)
		if summary.Len() > 0 {
			_, _ = io.WriteString(s.env.Stdout, console.Wrap(summary.String(), s.consoleCols()))
		}
		if err != nil {
			if !diskFull(err) {
				return err
			}
			missing = append(missing, OneLine(err))
		}
	}
	for _, b := range rep.Benchmarks {
		if b.Extras == nil {
			continue
		}
		for _, w := range b.Extras.TokenWarnings {
			fmt.Fprintf(s.stderr, "WARNING: benchmark %d (%s): %s\n", b.Config.RunIndex, b.Label(), w.Message)
		}
	}
	if s.cacheNote != "" {
		fmt.Fprintf(s.stderr, "WARNING: %s.\n", s.cacheNote)
	}
	for _, r := range rounds {
		if g := r.Benchmark.Extras; g != nil && g.Drain.Warning() != "" {
			fmt.Fprintf(s.stderr, "WARNING: benchmark %d (%s) %s.\n", r.Benchmark.Config.RunIndex, r.Strategy, g.Drain.Warning())
		}
		if res := r.Result; r.Strategy.Kind == loadgen.Throughput && res.Successful == 0 && res.Incomplete > 0 {
			// GuideLLM's sweep then falls to rates below the synchronous one.
			fmt.Fprintf(s.stderr, "WARNING: benchmark %d (%s): no request of its %d streams completed within the round: the server cannot serve that many at once "+
				"(a small server queues them past the round's end; Ollama may stall); --max-concurrency N caps a sweep's throughput round (--rate, --rate-type throughput's).\n",
				r.Benchmark.Config.RunIndex, r.Strategy, r.Strategy.Streams)
		}
		for _, c := range r.Result.Control {
			if c.Error != "" { // a profiler stop: the others stop the run
				fmt.Fprintf(s.stderr, "WARNING: benchmark %d (%s): %s POST %s failed: %s.\n", r.Benchmark.Config.RunIndex, r.Strategy, c.Hook, c.URL, c.Error)
			}
		}
		if r.Result.Client.Saturated {
			fmt.Fprintf(s.stderr, "WARNING: benchmark %d (%s): the load generator was saturated (%s); its latency figures are unreliable.\n",
				r.Benchmark.Config.RunIndex, r.Strategy, r.Result.Client.Reason)
		}
	}
	s.logFinished(rep)
	if len(missing) > 0 {
		return &OutputsLostError{Lines: missing}
	}
	return nil
}

func (s *state) logFinished(rep *report.Report) {
	fields := []zap.Field{zap.String("run_id", s.runID), zap.Int("benchmarks", len(rep.Benchmarks)), zap.Bool("interrupted", rep.Run.Interrupted)}
	if k := rep.Run.Knee; k != nil {
		fields = append(fields, zap.Bool("knee_found", k.Found))
		if k.Index >= 0 {
			fields = append(fields, zap.Int("knee_benchmark", int(k.Index)), zap.Float64("knee_goodput_output_tok_s", float64(k.GoodputOutputTokS)))
		}
	}
	if s.files.dir != "" {
		fields = append(fields, zap.String("output", s.files.dir))
	}
	s.log.Info("run finished", fields...)
}

// printKnee writes the knee summary (the console report's last lines) to
// w; nothing for a nil knee.
func printKnee(w io.Writer, k *report.Knee) {
	if k == nil {
		return
	}
	fmt.Fprint(w, slo.KneeSummary(k, nil))
}

// consoleCols is the width of the console summary: console.Columns, 0
// (no limit) with --wide.
func (s *state) consoleCols() int {
	if s.cfg.Outputs.Wide {
		return 0
	}
	return console.Columns
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

// fitLines is an io.Writer that writes each line written to it wrapped
// to cols columns (console.Wrap, tabs expanded): the run's diagnostics
// and log lines on a terminal fit it as the console summary does. A line
// is written once it is whole; flush writes what is left.
type fitLines struct {
	mu   sync.Mutex
	w    io.Writer
	cols int
	buf  []byte
}

func (f *fitLines) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.buf = append(f.buf, p...)
	i := bytes.LastIndexByte(f.buf, '\n')
	if i < 0 {
		return len(p), nil
	}
	_, err := io.WriteString(f.w, console.Wrap(expandTabs(string(f.buf[:i+1])), f.cols))
	f.buf = append(f.buf[:0], f.buf[i+1:]...)
	return len(p), err
}

// expandTabs replaces each tab (between a log line's fields) with the
// spaces up to the next multiple of 8 columns, as a terminal shows it.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		switch r {
		case '\t':
			n := 8 - col%8
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case '\n':
			b.WriteRune(r)
			col = 0
		default:
			b.WriteRune(r)
			col++
		}
	}
	return b.String()
}

func (f *fitLines) flush() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.buf) > 0 {
		_, _ = io.WriteString(f.w, console.Wrap(expandTabs(string(f.buf)), f.cols))
		f.buf = f.buf[:0]
	}
}

// sampleSize is the accumulator's sample size for Plan.SampleRequests,
// whose 0 means every request.
func sampleSize(n int) int {
	if n == 0 {
		return accum.SampleAll
	}
	return n
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// tokName names the run's tokenizer, "" without one.
func (s *state) tokName() string {
	if s.tok == nil {
		return ""
	}
	return s.tok.Name()
}

// requestType is the report's name of an endpoint's request type
// (GuideLLM's chat_completions and text_completions), and inputKind what
// its extras' inputs count ("" none): its row of reqtype.All.
func requestType(e loadgen.Endpoint) string {
	if t, ok := e.Type(); ok {
		return t.ReportName()
	}
	return ""
}

func inputKind(e loadgen.Endpoint) string {
	if t, ok := e.Type(); ok {
		return t.Inputs
	}
	return ""
}
