// Package metadata collects what makes a benchmark run auditable: the
// twelve mandatory metadata of a reproducible LLM benchmark (serving
// engine and version, model and revision, precision, tokenizer and the
// hash of its file, ISL, OSL, hardware, maximum concurrency tested,
// goodput's version and commit, the declared SLO, the warmup and the run
// id), plus free labels, into report.RunMetadata.
//
// Call Collect before any load is sent: it probes the server's endpoints
// at once (a failed probe leaves its fields empty and adds a note; no
// secret is ever recorded) and merges labels and the run's own inputs.
// Call Finish once the benchmarks ran; Strict turns missing required
// fields into an error for --strict-metadata, and Hint says how to fill
// each one:
//
//	res, err := metadata.Collect(ctx, metadata.Probe{BaseURL: base, Client: hc, Header: h, Secrets: []string{apiKey},
//		Models: models, Model: model}, metadata.Inputs{Labels: labels, ISL: 256, OSL: 128, …})
//	if strict { if err := metadata.Strict(res.Metadata); err != nil { … exit 2 … } }
//	notes := metadata.Finish(res.Metadata, rep.Benchmarks) // max concurrency; measured ISL/OSL fallback
//	rep.Run.Metadata = res.Metadata
//
// README.md beside this file lists the probed sources, how the model,
// precision and hardware are chosen, the label keys and their precedence.
package metadata
