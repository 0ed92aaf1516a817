package report

import (
	"fmt"
	"io"
	"runtime"
)

// SchemaGuideLLMVersion is the GuideLLM release whose report schema
// goodput writes.
const SchemaGuideLLMVersion = "0.7.3"

// NewReport assembles a report in GuideLLM's v2 layout from benchmarks
// produced by Accumulator.Finish. goodputVersion is written as
// metadata.goodput_version; config is the scenario (see NewScenario).
func NewReport(goodputVersion string, config *Scenario, benchmarks ...*Benchmark) *Report {
	if benchmarks == nil {
		benchmarks = []*Benchmark{}
	}
	return &Report{
		Metadata: &Metadata{
			Version: 2, GuideLLMVersion: SchemaGuideLLMVersion, PythonVersion: "",
			Platform: runtime.GOOS + "/" + runtime.GOARCH, GoodputVersion: goodputVersion,
		},
		Config:     config,
		Benchmarks: benchmarks,
		Layout:     LayoutGoodput,
	}
}

// WriteJSON writes the report as one line of JSON in GuideLLM's style
// (Python json.dumps spacing and float formatting). The output is a
// function of the Report alone: the same Report always gives the same
// bytes, and a goodput report read back with Decode writes the same bytes
// again.
func (r *Report) WriteJSON(w io.Writer) error {
	b, err := r.MarshalJSONBytes()
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	return nil
}

// MarshalJSONBytes returns what WriteJSON writes. The layout written is
// always report v2 as GuideLLM v0.7 loads it: a GuideLLM v0.2–v0.3
// report is converted by AsV2, and a report AsV2 refuses (an error
// wrapping ErrNotV2) is not written.
func (r *Report) MarshalJSONBytes() ([]byte, error) {
	v2, err := r.AsV2()
	if err != nil {
		return nil, fmt.Errorf("encoding report: %w", err)
	}
	out := *v2
	if out.Metadata == nil {
		out.Metadata = &Metadata{}
	}
	if out.Metadata.Version != 2 {
		m := *out.Metadata
		m.Version = 2
		out.Metadata = &m
	}
	if out.Benchmarks == nil {
		out.Benchmarks = []*Benchmark{}
	}
	b, err := MarshalCompact(&out)
	if err != nil {
		return nil, fmt.Errorf("encoding report: %w", err)
	}
	return pySpace(b), nil
}
