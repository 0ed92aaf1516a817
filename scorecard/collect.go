package scorecard

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/goodput-dev/goodput/report"
)

// Collect gathers the runs under the given paths for an aggregate. A file
// is read as a scorecard when its name is scorecard-*.json, else as a
// goodput or GuideLLM report (its scorecard is built with Build). A
// directory contributes DIR/scorecard-*.json and DIR/*/scorecard-*.json;
// a directory among those without a scorecard contributes the reports in
// it instead (every *.json that reads as one; other JSON files are skipped
// with a warning). Entries come in path order; their names are the run ids,
// suffixed with the path when two runs share one. Warnings are the
// lenient reader's remarks and the files skipped.
func Collect(paths []string) ([]Entry, []string, error) {
	var entries []Entry
	var warns []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, warns, err
		}
		if !st.IsDir() {
			e, w, err := readEntry(p, true)
			warns = append(warns, w...)
			if err != nil {
				return nil, warns, err
			}
			entries = append(entries, e...)
			continue
		}
		dirs := []string{p}
		subs, err := os.ReadDir(p)
		if err != nil {
			return nil, warns, err
		}
		for _, s := range subs {
			if s.IsDir() && !strings.HasPrefix(s.Name(), ".") {
				dirs = append(dirs, filepath.Join(p, s.Name()))
			}
		}
		for _, d := range dirs {
			e, w, err := readDir(d)
			warns = append(warns, w...)
			if err != nil {
				return nil, warns, err
			}
			entries = append(entries, e...)
		}
	}
	uniqueNames(entries)
	return entries, warns, nil
}

// readDir reads one directory's scorecards, or its reports when it has
// none.
func readDir(dir string) ([]Entry, []string, error) {
	cards, err := filepath.Glob(filepath.Join(dir, "scorecard-*.json"))
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(cards)
	var entries []Entry
	var warns []string
	if len(cards) > 0 {
		for _, c := range cards {
			e, w, err := readEntry(c, true)
			warns = append(warns, w...)
			if err != nil {
				return nil, warns, err
			}
			entries = append(entries, e...)
		}
		return entries, warns, nil
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(files)
	for _, f := range files {
		e, w, err := readEntry(f, false)
		warns = append(warns, w...)
		if err != nil {
			warns = append(warns, fmt.Sprintf("%s: skipped: %v", f, err))
			continue
		}
		entries = append(entries, e...)
	}
	return entries, warns, nil
}

// readEntry reads one file. strict makes a report that does not read an
// error rather than a skip.
func readEntry(path string, strict bool) ([]Entry, []string, error) {
	if strings.HasPrefix(filepath.Base(path), "scorecard-") && strings.HasSuffix(path, ".json") {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, err
		}
		f, warns, err := Decode(data, path)
		if err != nil {
			return nil, warns, err
		}
		js, err := rowJSON(data)
		if err != nil {
			return nil, warns, fmt.Errorf("%s: %w", path, err)
		}
		return []Entry{{Name: f.RunID, Row: f.Row, Path: path, JSON: js}}, warns, nil
	}
	rep, err := report.Read(path)
	if err != nil {
		if strict {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("not a scorecard or a goodput/GuideLLM report (%v)", firstLine(err.Error()))
	}
	f, err := Build(rep)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	js, err := json.Marshal(f.Row)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return []Entry{{Name: f.RunID, Row: f.Row, Path: path, JSON: js}},
		[]string{fmt.Sprintf("%s: no scorecard; its row was built from the report (%s)", path, f.Row.Metadata.Row)}, nil
}

// rowJSON is a scorecard file without its rounds.
func rowJSON(data []byte) ([]byte, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, err
	}
	if _, ok := top["rounds"]; !ok {
		return data, nil
	}
	// Rebuild the object without "rounds", keeping the key order.
	keys, vals, err := orderedObject(data)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteByte('{')
	n := 0
	for i, k := range keys {
		if k == "rounds" {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vals[i])
		n++
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// uniqueNames suffixes duplicate run ids with their path.
func uniqueNames(entries []Entry) {
	count := map[string]int{}
	for _, e := range entries {
		count[e.Name]++
	}
	for i := range entries {
		if entries[i].Name == "" {
			entries[i].Name = entries[i].Path
		} else if count[entries[i].Name] > 1 {
			entries[i].Name += " (" + entries[i].Path + ")"
		}
	}
}
