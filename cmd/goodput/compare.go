package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"github.com/goodput-dev/goodput/cli"
	"github.com/goodput-dev/goodput/compare"
	"github.com/goodput-dev/goodput/internal/texttable"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/run"
)

// limitValue is a threshold flag of `goodput compare` (a pflag.Value).
type limitValue struct {
	spec  compare.MetricSpec
	limit compare.Limit
}

func (v *limitValue) String() string { return v.limit.String() }
func (v *limitValue) Type() string   { return "limit" }

func (v *limitValue) Set(s string) error {
	l, err := compare.ParseLimit(s, v.spec.Accept...)
	if err != nil {
		return err
	}
	if v.spec.HigherIsBetter && l.Kind == compare.LimitPercent && l.Num > 100 {
		return fmt.Errorf("%q: a drop cannot exceed 100%%; want a percentage like 5%% or off", s)
	}
	v.limit = l
	return nil
}

// limitUsage is the help text of a threshold flag.
func limitUsage(s compare.MetricSpec) string {
	what := strings.TrimSpace(strings.SplitN(s.Title, " (", 2)[0])
	if len(what) > 1 && unicode.IsLower(rune(what[1])) {
		what = strings.ToLower(what[:1]) + what[1:]
	}
	verb := "rises"
	if s.HigherIsBetter {
		verb = "drops"
	}
	return fmt.Sprintf("fail when %s %s by more than this: %s", what, verb, s.Forms())
}

// runCompare implements `goodput compare BASELINE CURRENT`: exit 0 when
// no metric regressed beyond its threshold and the noise, 1 when one did,
// 2 on bad input (an unreadable report, no matching benchmarks, a bad
// flag value), 5 when no metric regressed but a crossing was undecidable
// at the runs' sample sizes (unless --allow-undecided).
func runCompare(_ context.Context, e *cli.Env, args []string) error {
	fs := cli.NewFlagSet("compare", "compare [flags] BASELINE CURRENT\n\nBASELINE and CURRENT are report files (goodput, GuideLLM v2 or older GuideLLM) or run directories holding benchmarks.json.\nExit status: 0 pass, 1 a regression beyond its threshold and the noise, 2 bad input, "+strconv.Itoa(cli.ExitUndecided)+" undecided: a threshold crossed where the runs have too few requests to judge it (the verdict names how many would; --allow-undecided passes it).", e.Stdout)
	limits := map[string]*limitValue{}
	for _, s := range compare.Metrics() {
		v := &limitValue{spec: s}
		if err := v.Set(s.Default); err != nil {
			return fmt.Errorf("default of --%s: %w", s.Flag, err)
		}
		limits[s.Key] = v
		fs.Var(v, s.Flag, limitUsage(s))
	}
	strict := fs.Bool("strict", false, "fail on every threshold crossing, also those within the run-to-run noise")
	allowUndecided := fs.Bool("allow-undecided", false, "pass a threshold crossing the runs have too few requests to judge (by default it exits 5)")
	var wide bool
	cli.WideFlag(&wide, fs)
	mdPath := fs.String("markdown", "", "also write the comparison as Markdown (for a pull-request comment) to this file")
	jsonPath := fs.String("json", "", "also write the machine-readable verdict (JSON) to this file")
	resamples := fs.Int("bootstrap-resamples", compare.DefaultResamples, "bootstrap resamples per percentile interval (100 to 100000)")
	seed := fs.Uint64("seed", compare.DefaultSeed, "seed of the bootstrap (≥ 1)")
	clientCPU := &limitValue{spec: compare.MetricSpec{Accept: []compare.LimitKind{compare.LimitPercent}}}
	clientCPU.limit = compare.Limit{Kind: compare.LimitPercent, Num: compare.DefaultClientCostLimit}
	fs.Var(clientCPU, "max-client-cpu-increase", "client-cost reports (make bench): fail when goodput's CPU per token ÷ the minimal client's rises by more than this: a percentage like 10% or off")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return cli.Usagef("want two reports, got %d argument(s): goodput compare [flags] BASELINE CURRENT", fs.NArg())
	}
	if *resamples < 100 || *resamples > 100000 {
		return cli.Usagef("--bootstrap-resamples %d: want 100 to 100000", *resamples)
	}
	if *seed == 0 {
		return cli.Usagef("--seed 0: want a seed ≥ 1")
	}
	if done, err := compareClientCost(e, fs.Arg(0), fs.Arg(1), clientCPU.limit); done || err != nil {
		return err
	}
	base, baseName, err := readReportArg(fs.Arg(0))
	if err != nil {
		return err
	}
	cur, curName, err := readReportArg(fs.Arg(1))
	if err != nil {
		return err
	}
	opt := compare.Options{Limits: map[string]compare.Limit{}, Strict: *strict, AllowUndecided: *allowUndecided, Resamples: *resamples, Seed: *seed}
	for k, v := range limits {
		opt.Limits[k] = v.limit
	}
	res, err := compare.Compare(base, cur, baseName, curName, opt)
	if err != nil {
		if errors.Is(err, compare.ErrNoMatch) {
			return cli.Usagef("%v", err)
		}
		return err
	}
	cols := texttable.Columns
	if wide {
		cols = 0
	}
	if err := res.WriteTextWidth(e.Stdout, cols); err != nil {
		return err
	}
	for _, out := range []struct {
		flag, path string
		write      func(io.Writer) error
	}{{"--markdown", *mdPath, res.WriteMarkdown}, {"--json", *jsonPath, res.WriteJSON}} {
		if out.path == "" {
			continue
		}
		if err := run.WriteFileAtomic(out.path, out.write); err != nil {
			return cli.Usagef("%s: %v", out.flag, err)
		}
	}
	switch {
	case res.Regressions > 0:
		return cli.ErrGateFailed
	case !res.Pass:
		return cli.ErrGateUndecided
	}
	return nil
}

// compareClientCost compares two client-cost reports (bench/suite -json)
// when both files are ones; done is false when neither is. A limit of off
// shows the rows without failing.
func compareClientCost(e *cli.Env, basePath, curPath string, limit compare.Limit) (done bool, err error) {
	var docs [2]*compare.ClientCost
	for i, p := range []string{basePath, curPath} {
		data, err := os.ReadFile(p)
		if err != nil {
			// Directories and unreadable files: readReportArg says why.
			return false, nil
		}
		if docs[i], _, err = compare.ReadClientCostFile(data, p); err != nil {
			return true, cli.Usagef("%v", err)
		}
	}
	switch {
	case docs[0] == nil && docs[1] == nil:
		return false, nil
	case docs[0] == nil || docs[1] == nil:
		return true, cli.Usagef("%s and %s: one is a client-cost report (make bench), the other is not; compare like with like", basePath, curPath)
	}
	pct := limit.Num
	if limit.Kind == compare.LimitOff {
		pct = math.Inf(1)
	}
	res, err := compare.CompareClientCost(docs[0], docs[1], basePath, curPath, pct)
	if err != nil {
		return true, cli.Usagef("%v", err)
	}
	if err := res.WriteText(e.Stdout); err != nil {
		return true, err
	}
	if !res.Pass {
		return true, cli.ErrGateFailed
	}
	return true, nil
}

// readReportArg reads a report file, or the benchmarks.json of a run
// directory. Errors are usage errors naming the file.
func readReportArg(path string) (*report.Report, string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, "", cli.Usagef("%s: %v", path, errors.Unwrap(err))
	}
	if st.IsDir() {
		f := filepath.Join(path, "benchmarks.json")
		if _, err := os.Stat(f); err != nil {
			return nil, "", cli.Usagef("%s is a directory without benchmarks.json (want a report file or a run directory)", path)
		}
		path = f
	}
	r, err := report.Read(path)
	if err != nil {
		return nil, "", cli.Usagef("%v", err)
	}
	return r, path, nil
}
