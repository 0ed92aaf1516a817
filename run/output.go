package run

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/report/console"
)

// Output is one kind of output (--outputs, GuideLLM's --output kind=…):
// its spelling, what it is, where its file goes and what writes it.
// outputTable lists every kind in the order they are named, written and
// announced; a new kind is one row.
type Output struct {
	Name string // the spelling in --outputs and Outputs.Kinds
	Help string // what it is, for --outputs' help; "" when the name says it
	// Dir: it writes into the run's directory (a run of only the others
	// needs none).
	Dir bool
	// Scenario: listed, with its path, among the outputs of the report's
	// scenario (GuideLLM's spec.outputs).
	Scenario bool

	path  func(rf *runFiles) string       // its one file; nil: none of its own
	place func(rf *runFiles, path string) // puts its file at a path of its own; nil: beside the JSON report
	// write writes it from the finished report and returns the files it
	// wrote, for the closing "wrote" line; nil when written elsewhere.
	write func(s *state, rep *report.Report) ([]string, error)
}

// The outputs' names, for the run's steps that concern one kind.
const (
	outJSON      = "json"
	outYAML      = "yaml"
	outCSV       = "csv"
	outJSONL     = "jsonl"
	outHTML      = "html"
	outScorecard = "scorecard"
	outAIPerf    = "aiperf"
	outConsole   = "console"
)

// DefaultOutputs are the outputs a run writes unless told otherwise
// (benchmark's --outputs).
const DefaultOutputs = outJSON + "," + outCSV + "," + outJSONL + "," + outHTML + "," + outScorecard + "," + outConsole

var outputTable = []Output{
	{Name: outJSON, Help: "GuideLLM v2 report", Dir: true, Scenario: true,
		path: func(rf *runFiles) string { return rf.json },
		write: func(s *state, rep *report.Report) ([]string, error) {
			return []string{s.files.json}, WriteFileAtomic(s.files.json, rep.WriteJSON)
		}},
	{Name: outYAML, Help: "the same report as YAML", Dir: true, Scenario: true,
		path:  (*runFiles).yamlPath,
		place: func(rf *runFiles, p string) { rf.yaml = p },
		write: func(s *state, rep *report.Report) ([]string, error) {
			p := s.files.yamlPath()
			return []string{p}, WriteFileAtomic(p, func(w io.Writer) error { return writeYAML(w, rep) })
		}},
	{Name: outCSV, Dir: true, Scenario: true,
		path:  func(rf *runFiles) string { return rf.csv },
		place: func(rf *runFiles, p string) { rf.csv = p },
		write: func(s *state, rep *report.Report) ([]string, error) {
			return []string{s.files.csv}, WriteFileAtomic(s.files.csv, func(w io.Writer) error { return report.WriteCSV(w, rep) })
		}},
	// The records are written during the run (openRecords, the runner);
	// here they are synced, before the HTML report reads them.
	{Name: outJSONL, Help: "every request", Dir: true,
		path: func(rf *runFiles) string { return rf.jsonl },
		write: func(s *state, _ *report.Report) ([]string, error) {
			if s.jsonl != nil {
				if err := s.jsonl.Sync(); err != nil {
					return nil, fmt.Errorf("records file: %w", err)
				}
			}
			return []string{s.files.jsonl}, nil
		}},
	{Name: outHTML, Help: "a self-contained report.html", Dir: true,
		path:  (*runFiles).htmlPath,
		place: func(rf *runFiles, p string) { rf.html = p },
		write: func(s *state, rep *report.Report) ([]string, error) {
			return []string{s.files.htmlPath()}, writeRunHTML(s.files, rep, s.recordsWhole())
		}},
	// The scorecard is written after the closing knee line, also when
	// only telemetry asks for it (state.write).
	{Name: outScorecard, Help: "cost, energy, latency rows", Dir: true},
	{Name: outAIPerf, Help: "AIPerf's profile_export_aiperf.json and .csv per benchmark", Dir: true,
		write: (*state).writeAIPerf},
	{Name: outConsole, Scenario: true,
		write: func(s *state, rep *report.Report) ([]string, error) {
			return nil, console.WriteWidth(s.env.Stdout, rep, s.consoleCols())
		}},
}

// outputNames lists the kinds: "json, yaml, …, console".
func outputNames() string {
	names := make([]string, len(outputTable))
	for i, o := range outputTable {
		names[i] = o.Name
	}
	return strings.Join(names, ", ")
}

// OutputsHelp is --outputs' help: the kinds and what each is.
func OutputsHelp() string {
	parts := make([]string, len(outputTable))
	for i, o := range outputTable {
		parts[i] = o.Name
		if o.Help != "" {
			parts[i] += " (" + o.Help + ")"
		}
	}
	return "comma list of " + strings.Join(parts, ", ")
}

// ParseOutputs reads --outputs, a comma list of kinds, into the set of
// Outputs.Kinds. An unknown kind or an empty list is a UsageError.
func ParseOutputs(list string) (map[string]bool, error) {
	kinds := map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if _, ok := lookupOutput(name); !ok {
			return nil, usagef("--outputs: unknown output %q (want a comma list of %s)", name, outputNames())
		}
		kinds[name] = true
	}
	if len(kinds) == 0 {
		return nil, usagef("--outputs %q: want a comma list of %s", list, outputNames())
	}
	return kinds, nil
}

func lookupOutput(name string) (Output, bool) {
	for _, o := range outputTable {
		if o.Name == name {
			return o, true
		}
	}
	return Output{}, false
}

// checkOutputs refuses a kind outside the table (a typed
// configuration's typo) before anything else is done.
func (s *state) checkOutputs(context.Context) error {
	for _, name := range slices.Sorted(maps.Keys(s.cfg.Outputs.Kinds)) {
		if _, ok := lookupOutput(name); !ok {
			return usagef("outputs: unknown output %q (want %s)", name, outputNames())
		}
	}
	return nil
}

// needDir says whether any kind chosen writes into the run's directory.
func (o *Outputs) needDir() bool {
	for _, out := range outputTable {
		if out.Dir && o.Kinds[out.Name] {
			return true
		}
	}
	return false
}
