package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/dataset"
	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/metadata"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/tokenize"
)

// probe collects the run metadata before any load: what the run knows,
// and the server's answers on the run's own HTTP client.
func (s *state) probe(ctx context.Context) error {
	m := &s.cfg.Metadata
	in := metadataInputs(s.cfg, s.data, s.tok, s.runID, s.generated)
	md, err := collectRunMetadata(ctx, s.stderr, m.Strict, metadataProbe(s.client, s.models, m.ProbeTimeout), in, s.consoleCols())
	s.md = md
	if err == nil && md != nil {
		s.probeReplicas(ctx, md, in)
	}
	return err
}

// probeReplicas probes every target after the first (the one the run
// metadata describes) and warns, one line each, where a replica runs
// another engine, engine version or model.
func (s *state) probeReplicas(ctx context.Context, first *report.RunMetadata, in metadata.Inputs) {
	bases, public := s.client.BaseURLs(), s.client.PublicURLs()
	for i := 1; i < len(bases); i++ {
		p := metadataProbe(s.client, nil, s.cfg.Metadata.ProbeTimeout)
		p.BaseURL = bases[i]
		res, err := metadata.Collect(ctx, p, in)
		if err != nil || res.Metadata == nil {
			fmt.Fprintf(s.stderr, "WARNING: target %s: metadata probe failed\n", public[i])
			continue
		}
		md := res.Metadata
		for _, f := range [...]struct{ name, got, want string }{
			{"engine", md.Engine, first.Engine}, {"engine version", md.EngineVersion, first.EngineVersion}, {"model", md.Model, first.Model},
		} {
			if f.got != f.want {
				fmt.Fprintf(s.stderr, "WARNING: target %s runs %s %q, %s runs %q: the replicas differ\n", public[i], f.name, f.got, public[0], f.want)
			}
		}
	}
}

// metadataInputs gathers what the run itself knows for its metadata.
func metadataInputs(cfg *Config, d *dataset.Dataset, tok *tokenize.Tokenizer, runID string, generated bool) metadata.Inputs {
	desc := d.Description
	in := metadata.Inputs{
		Labels: cfg.Metadata.Labels, Data: desc.String(), Warmup: strings.TrimSpace(cfg.Metadata.Warmup),
		RunID: runID, RunIDGenerated: generated, Version: cfg.Build.Version, Commit: cfg.Build.Commit,
		ISL: desc.PromptTokens.Mean, OSL: desc.OutputTokens.Mean,
		SLO: cfg.SLO.String(), SLODefault: cfg.SLO.Default,
	}
	if in.Warmup == "" {
		in.Warmup = "none"
	}
	if tok != nil {
		in.Tokenizer, in.TokenizerHash = tok.Name(), tok.Hash()
	}
	return in
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
	if !ValidRunID(id) {
		return "", usagef("%s: label %s=%q: a run id uses letters, digits, '.', '_' and '-' only", decl.Source, decl.Key, decl.Value)
	}
	return id, nil
}

// ValidRunID reports whether s can name a run (and its directory).
func ValidRunID(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return s != "" && s != "." && s != ".."
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
// it to w in lines of at most cols columns (the fields, their sources,
// what is missing and how to fill it) and, when strict, fails with a
// usage error (exit 2) listing the missing fields. The probe's idle
// connections are closed.
func collectRunMetadata(ctx context.Context, w io.Writer, strict bool, p metadata.Probe, in metadata.Inputs, cols int) (*report.RunMetadata, error) {
	res, err := metadata.Collect(ctx, p, in)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, ErrInterrupted
		}
		return nil, usagef("run metadata: %v", err)
	}
	if err := metadata.WriteTextWidth(w, res.Metadata, res.Notes, cols); err != nil {
		return nil, err
	}
	if strict {
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
