package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/metadata"
	"github.com/goodput-dev/goodput/report"
)

// metadataOptions are the run-metadata flags of `goodput benchmark`
// (--label is the benchmark command's own flag).
type metadataOptions struct {
	labelsFile   string
	strict       bool
	probeTimeout time.Duration
}

// metadataFlags registers the run-metadata flags.
func metadataFlags(o *metadataOptions, fs *pflag.FlagSet) {
	fs.StringVar(&o.labelsFile, "labels-file", "", `Kubernetes downward-API labels file (lines key="value"); bench/engine, bench/model, bench/hardware, bench/precision, bench/isl, bench/osl, bench/run-id, bench/tokenizer, bench/concurrency fill the run metadata, other keys become labels`)
	fs.BoolVar(&o.strict, "strict-metadata", false, "fail (exit 2) before any load is sent when a run metadata field cannot be filled")
	fs.DurationVar(&o.probeTimeout, "metadata-timeout", metadata.DefaultProbeTimeout, "time limit of the server probes for run metadata (GET /version, /v1/models, /metrics, /info, /get_server_info, all at once)")
}

// metadataLabels validates the labels file and the --label flags and
// returns them as one list, the file first (a flag overrides the file
// for the same field). Errors are usage errors naming the flag or the
// file's line.
func (o *metadataOptions) metadataLabels(flagLabels []string) ([]metadata.Label, error) {
	if o.probeTimeout <= 0 {
		return nil, usagef("--metadata-timeout %v: want a positive duration, e.g. 3s", o.probeTimeout)
	}
	var out []metadata.Label
	if o.labelsFile != "" {
		l, err := metadata.ReadLabelsFile(o.labelsFile)
		if err != nil {
			return nil, usagef("%v", err)
		}
		out = append(out, l...)
	}
	for _, s := range flagLabels {
		l, err := metadata.ParseLabelFlag(s)
		if err != nil {
			return nil, usagef("%v", err)
		}
		out = append(out, l)
	}
	if err := metadata.ValidateLabels(out); err != nil {
		return nil, usagef("%v", err)
	}
	return out, nil
}

// labelsRunID is the run id the labels declare (bench/run-id or run_id),
// "" when none: the run id to use when --run-id is not given. It becomes
// a directory name, so it must be a valid run id (a usage error names the
// label otherwise).
func labelsRunID(labels []metadata.Label) (string, error) {
	var decl *metadata.Label
	for i, l := range labels {
		if f, ok := metadata.LabelField(l.Key); ok && f == metadata.FieldRunID {
			decl = &labels[i]
		}
	}
	if decl == nil {
		return "", nil
	}
	id := strings.TrimSpace(decl.Value)
	if !validRunID(id) {
		return "", usagef("%s: label %s=%q: a run id uses letters, digits, '.', '_' and '-' only", decl.Source, decl.Key, decl.Value)
	}
	return id, nil
}

// metadataProbe builds the probe of the server on the run's own HTTP
// client (its TLS settings and redirect policy) with its headers and API
// key (sent, never recorded), and the models the readiness check listed.
func metadataProbe(c *loadgen.Client, models []loadgen.ModelInfo, timeout time.Duration) metadata.Probe {
	h := c.Header()
	h.Del("Content-Type")
	h.Del("Accept")
	return metadata.Probe{BaseURL: c.BaseURL(), Client: c.HTTP(), Header: h, Secrets: c.Secrets(), Models: models, Model: c.Model(), Timeout: timeout}
}

// collectRunMetadata collects the run metadata before any load, prints
// it to w (the fields, their sources, what is missing and how to fill it)
// and, under --strict-metadata, fails with a usage error (exit 2) listing
// the missing fields. The probe's idle connections are closed.
func collectRunMetadata(ctx context.Context, w io.Writer, o *metadataOptions, p metadata.Probe, in metadata.Inputs) (*report.RunMetadata, error) {
	res, err := metadata.Collect(ctx, p, in)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, errInterrupted
		}
		return nil, usagef("run metadata: %v", err)
	}
	if err := metadata.WriteText(w, res.Metadata, res.Notes); err != nil {
		return nil, err
	}
	if o.strict {
		if err := metadata.Strict(res.Metadata); err != nil {
			return nil, usagef("%v", err)
		}
	}
	return res.Metadata, nil
}

// finishRunMetadata completes the metadata once the benchmarks ran (max
// concurrency tested, measured ISL/OSL where none was configured) and
// prints its notes and any field still missing to w.
func finishRunMetadata(w io.Writer, md *report.RunMetadata, benchmarks []*report.Benchmark) {
	for _, n := range metadata.Finish(md, benchmarks) {
		fmt.Fprintf(w, "run metadata: %s\n", n)
	}
	if len(md.Missing) > 0 {
		fmt.Fprintf(w, "run metadata missing: %s\n", joinMissing(md.Missing))
	}
}

func joinMissing(fields []string) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = f + " (" + metadata.Hint(f) + ")"
	}
	return strings.Join(parts, ", ")
}
