// Package run executes one benchmark run: it checks the server, opens the
// data, collects the run metadata, starts telemetry, runs the rounds of the
// load plan, and writes the report, the per-request records, the HTML page,
// the AIPerf exports and the scorecard.
//
// A front end (goodput benchmark, goodput profile) validates its own flags
// into a Config and calls Run. Everything here is typed: no value of a
// Config is a flag string to be parsed again. Errors of bad input are
// UsageError (the command exits 2); ErrInterrupted means the run stopped
// on a signal after writing what it had.
package run

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/dataset"
	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/metadata"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/accum"
	"github.com/goodput-dev/goodput/scorecard/measure"
	"github.com/goodput-dev/goodput/slo"
	"github.com/goodput-dev/goodput/sweep"
	"github.com/goodput-dev/goodput/tokenize"
)

// Config is a validated run.
type Config struct {
	Client    loadgen.ClientConfig
	SkipReady bool           // skip the readiness check (--backend-args validate_backend:false); needs Client.Model
	ExtraBody map[string]any // Client.ExtraBody decoded, for the report's scenario
	Data      Data
	Plan      Plan
	SLO       slo.Spec // every round is judged against it
	Telemetry measure.Config
	Outputs   Outputs
	Metadata  Metadata
	Progress  Progress
	Build     Build
	Tokens    Tokens
	Metrics   Metrics
	// MetricsAddr, when set, serves the run's own series in Prometheus
	// exposition on this address while it runs (--metrics-addr :9090;
	// package livemetrics).
	MetricsAddr string
	// Notes are what the front end says about how it read the invocation
	// (a flag another supersedes, a named file the run overwrites): each
	// is warned once on stderr and kept in the report (goodput.notes).
	Notes []string
	// AllowAllErrors keeps a run whose benchmark had no successful request
	// (or whose server went away) from returning NoSuccessError:
	// GuideLLM's behaviour (--allow-all-errors).
	AllowAllErrors bool
}

// Metrics is what the report measures beyond its defaults; the zero value
// adds nothing.
type Metrics struct {
	// Streaming, when set, measures each request's longest stall and,
	// with a TBT deadline, its token deadlines and fluidity index.
	Streaming *accum.StreamingConfig
	// SliceDuration > 0 cuts each benchmark's window into time slices.
	SliceDuration time.Duration
	// Percentiles is the percentile list of the extras' table and the
	// console's (nil: none).
	Percentiles []float64
	// KneeDetection, when set, fits the throughput knee of a concurrent
	// profile (the run extras' throughput_knee); an adaptive one also
	// needs Plan.Planner to be a sweep.KneePlanner.
	KneeDetection *sweep.KneeDetection
	// NumRuns > 1 says Plan.Planner plays the plan that many times
	// (sweep.Repeat): the run extras then give each figure's spread across
	// the runs, flagging those whose coefficient of variation exceeds
	// RunVariation.
	NumRuns      int
	RunVariation float64
}

// Tokens is what the run does about the server's and the client's token
// counts.
type Tokens struct {
	// Overhead is the prompt tokens the server adds to each request (a chat
	// template's role markers and special tokens): exact synthetic prompts
	// are built that much shorter, so that the server bills the requested
	// count. 0: none. With OverheadAuto the run measures it first, with
	// one probe request shaped like the data's first, and Overhead is
	// ignored.
	Overhead     int
	OverheadAuto bool
	// MismatchWarn is the share of the server's tokens (0.01 = 1 %) by
	// which its counts and the client's may differ before the run warns;
	// 0: accum.DefaultTokenMismatchWarn, negative: never.
	MismatchWarn float64
}

// applies reports whether an overhead is to be applied to the prompts.
func (t Tokens) applies() bool { return t.OverheadAuto || t.Overhead > 0 }

// Data is the run's data: a --data value or a synthetic spec.
type Data struct {
	Value     string        // a --data value for dataset.Open, when Synthetic is nil
	Synthetic *dataset.Spec // synthetic prompts built by a front end
	// Options open the data; Options.Tokenizer is the explicit tokenizer
	// (nil: the model's, when found locally).
	Options dataset.Options
	// Opened is the data opened with Options while validating. The run
	// uses it unless the model's tokenizer or a shard's seed changes the
	// prompts.
	Opened *dataset.Dataset
	Getenv func(string) string // environment of the tokenizer lookup; nil: os.Getenv
}

// Plan is the load plan: the rounds and what bounds and measures each.
type Plan struct {
	Planner          sweep.Planner
	Profile          report.Profile    // the report's profile before the rounds ran
	Search           *sweep.KneeSearch // a knee search, written as the profile of the loads it ran
	Constraints      loadgen.Constraints
	Warmup, Cooldown report.TransientPhase
	// WarmupPhase, when set, runs before every benchmark's measured phase
	// (AIPerf's warmup phase, loadgen.Benchmark.Warmup); Run gives it its
	// source (the data's Warmup). Not in a shard's rounds.
	WarmupPhase *loadgen.Phase
	// Control, when set, is sent around every round (AIPerf's control
	// hooks: sweep.Runner.Control). Not in a shard's rounds.
	Control        *loadgen.Control
	Seed           int64
	SampleRequests int     // request records kept per status in the JSON report (0: all)
	TargetLoadTokS float64 // output tokens/s to serve, for the knee's replicas
	Shard          Shard
	// TargetMOE, when set, stops each round once its statistic is known
	// to the margin asked (GuideLLM's target_moe).
	TargetMOE *sweep.TargetMOE
	// Drain, when set, waits before each round of a run that is not a
	// shard (its Gap, Max and KeepBusy) until the server has drained what
	// earlier rounds left: by the queue gauges of the server metrics the
	// telemetry samples, else by the previous round's longest request.
	Drain *sweep.Drain
	// Confidence is the confidence (0..1) of the report's intervals and of
	// the decisions taken on them (0: stats.DefaultConfidence).
	Confidence float64
}

// Shard is one pod's share of a multi-pod run.
type Shard struct {
	Plan    *sweep.ShardPlan // nil: the run is not one shard of several
	Shard   sweep.Shard
	StartAt int64 // shared start (Unix ns), 0 for none
	Notes   []string
}

// Outputs says what the run writes and where.
type Outputs struct {
	Path  string          // a report file, its other outputs beside it ("" : Dir)
	Dir   string          // runs are written to Dir/<run id>/
	Kinds map[string]bool // json, yaml, csv, jsonl, html, scorecard, aiperf, console
	// Files places single outputs (csv, html, yaml) at a path of their
	// own, GuideLLM's --output kind=K,path=P; the others stay where Path or
	// Dir puts them.
	Files map[string]string
	RunID string // "" : from the labels, else a timestamp and the experiment's hash
	Force bool   // overwrite an existing run
	Wide  bool   // the console's tables whole, not cut to console.Columns
}

// Metadata is what the run records about itself.
type Metadata struct {
	Labels         []metadata.Label  // labels file and --label, for the run metadata
	ScenarioLabels map[string]string // --label k=v, for the report's scenario
	Strict         bool              // fail before the load when a field is missing
	ProbeTimeout   time.Duration
	Warmup         string // the warmup as the user gave it ("" : none)
}

// Progress is the live display.
type Progress struct {
	Disable   bool          // no progress bars; off a terminal, start and end lines only
	LogFormat string        // console or json
	Interval  time.Duration // of progress log lines
}

// Build names the binary in reports.
type Build struct{ Version, Commit string }

// Env is what a run may touch besides its configuration.
type Env struct {
	Stdout, Stderr io.Writer
	Getenv         func(string) string
}

// UsageError is bad input found while running (a model the server does
// not serve, an existing run): the command exits 2 with the message.
type UsageError struct{ Msg string }

func (e UsageError) Error() string { return e.Msg }

func usagef(format string, args ...any) error { return UsageError{fmt.Sprintf(format, args...)} }

// ErrInterrupted is returned when a run stopped on its context's
// cancellation after writing its partial report.
var ErrInterrupted = errors.New("interrupted")

// ErrNoBenchmarks is returned when no round finished.
var ErrNoBenchmarks = errors.New("no benchmark ran")

// tokenizer is the run's tokenizer: the explicit one when given, else the
// model's own when a tokenizer.json for it is found locally. Without one,
// token counts of prompts are approximate and output tokens come from the
// server's usage; the note says so.
func (d *Data) tokenizer(model string) (*tokenize.Tokenizer, string) {
	if d.Options.Tokenizer != nil {
		return d.Options.Tokenizer, ""
	}
	tok, err := tokenize.Resolve(model, tokenize.ResolveOptions{Getenv: d.Getenv})
	if err != nil {
		return nil, fmt.Sprintf("no tokenizer for model %q found locally, so prompt lengths are approximate and output tokens come from the server's usage (pass --processor to fix): %s", model, OneLine(err))
	}
	return tok, ""
}

// Open opens the data with opts.
func (d *Data) Open(opts dataset.Options) (*dataset.Dataset, error) {
	if d.Synthetic != nil {
		return dataset.OpenSynthetic(*d.Synthetic, opts)
	}
	return dataset.Open(d.Value, opts)
}

// OneLine flattens an error to one line.
func OneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }
