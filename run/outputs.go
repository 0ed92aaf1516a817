package run

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/goodput-dev/goodput/htmlreport"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/aiperf"
	"github.com/goodput-dev/goodput/sweep"
	"sigs.k8s.io/yaml"
)

// writeOutputs writes the chosen outputs in the table's order (the
// console summary last) and names the files written. An output the disk
// has no room for does not stop the others: failed says which, one line
// each.
func (s *state) writeOutputs(rep *report.Report) (failed []string, err error) {
	var written []string
	for _, o := range outputTable {
		if o.write == nil || !s.cfg.Outputs.Kinds[o.Name] {
			continue
		}
		paths, err := o.write(s, rep)
		if err != nil {
			if !diskFull(err) {
				return failed, err
			}
			failed = append(failed, OneLine(err))
			continue
		}
		written = append(written, paths...)
	}
	if len(written) > 0 {
		fmt.Fprintf(s.stderr, "wrote %s\n", strings.Join(written, ", "))
	}
	return failed, nil
}

// recordsWhole says whether the run wrote a records file holding every
// record (none was lost to a failed write).
func (s *state) recordsWhole() bool {
	if s.jsonl == nil {
		return false
	}
	_, _, err := s.enc.Loss()
	return err == nil
}

// writeAIPerf writes the AIPerf exports of --outputs aiperf: from the
// records file when the run wrote one (exact, AIPerf's way), else
// approximated from the report.
func (s *state) writeAIPerf(rep *report.Report) ([]string, error) {
	records := ""
	if s.recordsWhole() {
		records = s.files.jsonl
	}
	opts := aiperf.Options{GoodputVersion: s.cfg.Build.Version, ArtifactDir: s.files.dir}
	if rep.Run != nil && rep.Run.Metadata != nil {
		opts.Tokenizer = rep.Run.Metadata.Tokenizer
	}
	paths, _, err := WriteAIPerf(rep, records, AIPerfTarget{Dir: s.files.dir, Base: "profile_export_aiperf.json"}, opts)
	return paths, err
}

// writeRunHTML writes a finished run's HTML report (--outputs html) to
// rf.htmlPath(). With withRecords (the run wrote its records file, flushed
// by now), "requests over time" is drawn from rf.jsonl per time bin.
func writeRunHTML(rf *runFiles, rep *report.Report, withRecords bool) error {
	opts := htmlreport.Options{Names: []string{rf.runID}}
	if withRecords && rf.jsonl != "" {
		opts.Records = []htmlreport.RecordSource{htmlreport.RecordsFile(rf.jsonl)}
	}
	return WriteFileAtomic(rf.htmlPath(), func(w io.Writer) error { return htmlreport.Render(w, []*report.Report{rep}, opts) })
}

// htmlPath is where a run writes its HTML report: report.html in the run
// directory, or <stem>.html beside --output-path FILE.json.
func (rf *runFiles) htmlPath() string {
	if rf.html != "" {
		return rf.html
	}
	if rf.json == "" || filepath.Base(rf.json) == "benchmarks.json" {
		return filepath.Join(rf.dir, "report.html")
	}
	return strings.TrimSuffix(rf.json, filepath.Ext(rf.json)) + ".html"
}

// yamlPath is where a run writes its YAML report: benchmarks.yaml in the
// run directory, or <stem>.yaml beside --output-path FILE.json.
func (rf *runFiles) yamlPath() string {
	if rf.yaml != "" {
		return rf.yaml
	}
	if rf.json == "" || filepath.Base(rf.json) == "benchmarks.json" {
		return filepath.Join(rf.dir, "benchmarks.yaml")
	}
	return strings.TrimSuffix(rf.json, filepath.Ext(rf.json)) + ".yaml"
}

// writeYAML writes the report as YAML: GuideLLM's report model, the JSON
// report's content (GuideLLM's --output kind=yaml).
func writeYAML(w io.Writer, rep *report.Report) error {
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		return err
	}
	y, err := yaml.JSONToYAML(b.Bytes())
	if err != nil {
		return err
	}
	_, err = w.Write(y)
	return err
}

// scenario describes the run in GuideLLM's scenario terms for the report.
func (s *state) scenario(prof report.Profile) (*report.Scenario, error) {
	c := s.client
	cfg := c.Config()
	var outs []report.Output
	for _, o := range outputTable {
		if !o.Scenario || !s.cfg.Outputs.Kinds[o.Name] {
			continue
		}
		out := report.Output{Kind: o.Name}
		if o.path != nil {
			out.Path = o.path(s.files)
		}
		outs = append(outs, out)
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
	if s.tok != nil {
		tokName = s.tok.Name()
	}
	var content map[string]any
	if cfg.ContentExtras != "" {
		_ = json.Unmarshal([]byte(cfg.ContentExtras), &content) // checked by the client
	}
	return report.NewScenario(report.SpecInput{
		Backend: report.Backend{
			Target: c.PublicURL(), Model: c.Model(), RequestFormat: string(cfg.Endpoint), APIKeySet: cfg.APIKey != "",
			Timeout: timeout, TimeoutConnect: cfg.ConnectTimeout.Seconds(), HTTP2: !cfg.DisableHTTP2, Stream: !cfg.NoStream && cfg.Endpoint.Streams(),
			ExtraBody: s.cfg.ExtraBody, ExtraHeaders: headers, ContentExtras: content,
		},
		Profile:     prof,
		Constraints: sweep.ReportConstraints(s.cfg.Plan.Constraints),
		Tokenizer:   tokName,
		RawData:     []json.RawMessage{s.data.Description.GuideLLM},
		Seed:        s.cfg.Plan.Seed, SampleSize: specSampleSize(s.cfg.Plan.SampleRequests), Outputs: outs, Labels: s.cfg.Metadata.ScenarioLabels,
	})
}

// specSampleSize is the spec's sample_size for Plan.SampleRequests: its 0
// (every request) is GuideLLM's null.
func specSampleSize(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// AIPerfInputError marks an AIPerf export that failed on its input (a
// records file that cannot be read or does not belong to the report).
type AIPerfInputError struct{ Err error }

func (e AIPerfInputError) Error() string { return e.Err.Error() }
func (e AIPerfInputError) Unwrap() error { return e.Err }

// AIPerfTarget says where the AIPerf exports of one report go: one
// benchmark writes Single (or Dir/Base) and its CSV beside it; several
// write Dir/<label>/Base and its CSV, <label> being AIPerf's variation
// name (aiperf.Labels).
type AIPerfTarget struct {
	Dir, Base string
	Single    string // "" = Dir/Base
}

// WriteAIPerf writes one AIPerf export (JSON and CSV) per benchmark of
// rep: from the records file when one is given (exact, AIPerf's way),
// else approximated from the report (approx is then true). It returns the
// paths written.
func WriteAIPerf(rep *report.Report, records string, t AIPerfTarget, opts aiperf.Options) (paths []string, approx bool, err error) {
	if len(rep.Benchmarks) == 0 {
		return nil, false, nil
	}
	labels := aiperf.Labels(rep)
	for i := range rep.Benchmarks {
		jsonPath := filepath.Join(t.Dir, t.Base)
		if len(rep.Benchmarks) > 1 {
			jsonPath = filepath.Join(t.Dir, labels[i], t.Base)
		} else if t.Single != "" {
			jsonPath = t.Single
		}
		x, exact, err := aiperfExport(rep, i, records, opts)
		if err != nil {
			return paths, false, err
		}
		approx = approx || !exact
		if err := os.MkdirAll(filepath.Dir(jsonPath), 0o755); err != nil {
			return paths, approx, fmt.Errorf("AIPerf export: %w", err)
		}
		csvPath := strings.TrimSuffix(jsonPath, filepath.Ext(jsonPath)) + ".csv"
		if err := WriteFileAtomic(jsonPath, x.WriteJSON); err != nil {
			return paths, approx, err
		}
		if err := WriteFileAtomic(csvPath, x.WriteCSV); err != nil {
			return paths, approx, err
		}
		paths = append(paths, jsonPath, csvPath)
	}
	return paths, approx, nil
}

// aiperfExport computes benchmark i's export, from records when given.
func aiperfExport(rep *report.Report, i int, records string, opts aiperf.Options) (*aiperf.Export, bool, error) {
	if records == "" {
		x, err := aiperf.FromReport(rep, i, opts)
		if err != nil {
			return nil, false, AIPerfInputError{fmt.Errorf("AIPerf export of benchmark %d: %w", i, err)}
		}
		return x, false, nil
	}
	f, err := os.Open(records)
	if err != nil {
		return nil, true, AIPerfInputError{fmt.Errorf("records file: %w", err)}
	}
	defer f.Close()
	x, err := aiperf.FromJSONL(rep, i, f, records, opts)
	if err != nil {
		return nil, true, AIPerfInputError{fmt.Errorf("AIPerf export of benchmark %d: %w", i, err)}
	}
	return x, true, nil
}
