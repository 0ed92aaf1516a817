package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/scorecard"
	"github.com/goodput-dev/goodput/scorecard/measure"
)

// openTelemetry probes every telemetry source before the load and starts
// sampling; it prints one line per source to w. A failing source is an
// error naming it (exit 1) unless the configuration makes it optional.
func openTelemetry(ctx context.Context, w io.Writer, cfg measure.Config, target string) (*measure.Telemetry, error) {
	tel, err := measure.Open(ctx, cfg, target)
	if err != nil {
		return nil, err
	}
	for _, l := range tel.Lines() {
		fmt.Fprintln(w, l)
	}
	return tel, nil
}

// finishTelemetry waits for the last windows' readings (each at most
// wait after its end) and writes every benchmark's goodput.telemetry. It
// is not cut short by the run's interrupt: the completed rounds'
// telemetry belongs in the partial report.
func finishTelemetry(ctx context.Context, w io.Writer, obs *measure.Observer, wait time.Duration) {
	if wait <= 0 {
		wait = measure.DefaultWait
	}
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), wait+30*time.Second)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		obs.Finish(fctx)
	}()
	select {
	case <-done:
		return
	case <-time.After(time.Second):
		fmt.Fprintf(w, "telemetry: waiting for readings after the last window (at most --telemetry-wait %v)\n", wait)
	}
	<-done
}

// scorecardPath is where the run's scorecard goes: scorecard-<run-id>.json
// beside the report. "" when the run writes no files. An existing file is
// refused without --force, before the load.
//
// With claim (a generated run id beside an --output-path file, whose
// directory other runs share), the file is made at once, empty, so that
// a run started at the same moment finds it taken (errTaken) instead of
// overwriting it later.
func scorecardPath(files *runFiles, claim bool) (string, error) {
	if files == nil || files.dir == "" {
		return "", nil
	}
	p := filepath.Join(files.dir, scorecard.FileName(files.runID))
	if claim && !files.overwriteAll {
		f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		switch {
		case errors.Is(err, fs.ErrExist):
			return "", errTaken
		case err != nil:
			return "", fmt.Errorf("scorecard file: %w", err)
		}
		return p, f.Close()
	}
	if _, err := os.Stat(p); err == nil && !files.overwriteAll {
		return "", usagef("%s exists; a run never overwrites another (use another --run-id, or --force)", p)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("scorecard file: %w", err)
	}
	return p, nil
}

// writeScorecard builds the scorecard from the finished report, writes it
// to path (atomically; nothing when path is "") and prints its summary to
// w (nothing when w is nil).
func writeScorecard(w io.Writer, path string, rep *report.Report) (*scorecard.File, error) {
	card, err := scorecard.Build(rep)
	if err != nil {
		return nil, err
	}
	if path != "" {
		if err := WriteFileAtomic(path, card.Write); err != nil {
			return nil, err
		}
	}
	if w != nil {
		if err := scorecard.WriteSummary(w, card, path); err != nil {
			return nil, err
		}
	}
	return card, nil
}
