package scorecard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/goodput-dev/goodput/report"
)

// maxFileBytes bounds a scorecard file read.
const maxFileBytes = 64 << 20

// Write writes f as indented JSON (one key per line, for diffs in git),
// ending with a newline.
func (f *File) Write(w io.Writer) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding scorecard: %w", err)
	}
	b = append(b, '\n')
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("writing scorecard: %w", err)
	}
	return nil
}

// FileName is the scorecard's file name for a run id.
func FileName(runID string) string { return "scorecard-" + runID + ".json" }

// Read reads a scorecard file; see Decode.
func Read(path string) (*File, []string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(data) > maxFileBytes {
		return nil, nil, fmt.Errorf("%s: larger than %d MiB, not a scorecard", path, maxFileBytes>>20)
	}
	return Decode(data, path)
}

// Decode reads a scorecard: goodput's own, or one written by hand or by
// another tool in the article's layout. It is lenient: unknown keys are
// ignored (metadata keeps them), numbers may be strings ("0.97",
// "3 120"), and a value that does not fit its field is dropped with a
// warning rather than failing the file. A missing run_id is taken from the
// file name (scorecard-<run-id>.json). It fails only on invalid JSON, a
// top-level value that is not an object, or an object with none of the
// scorecard blocks.
func Decode(data []byte, name string) (*File, []string, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case len(bytes.TrimSpace(data)) == 0:
			return nil, nil, fmt.Errorf("%s: empty file, not a scorecard", name)
		case errors.As(err, &typ):
			return nil, nil, fmt.Errorf("%s: not a scorecard: the top-level JSON value is %s, want an object", name, report.JSONKind(bytes.TrimSpace(data)))
		case errors.As(err, &syn):
			return nil, nil, fmt.Errorf("%s: invalid JSON at byte %d: %v", name, syn.Offset, err)
		}
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	if top == nil {
		return nil, nil, fmt.Errorf("%s: not a scorecard: the top-level JSON value is null, want an object", name)
	}
	found := false
	for _, k := range []string{"performance", "cost", "energy", "carbon"} {
		if _, ok := top[k]; ok {
			found = true
		}
	}
	if !found {
		return nil, nil, fmt.Errorf("%s: not a scorecard: none of the keys performance, cost, energy, carbon", name)
	}
	var f File
	warns, err := decodeRow(top, &f.Row, "")
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	if raw, ok := top["rounds"]; ok && string(bytes.TrimSpace(raw)) != "null" {
		var rounds []map[string]json.RawMessage
		if err := json.Unmarshal(raw, &rounds); err != nil {
			warns = append(warns, "rounds: want an array of rows; ignored")
		}
		for i, r := range rounds {
			var row Row
			w, err := decodeRow(r, &row, fmt.Sprintf("rounds[%d].", i))
			if err != nil {
				return nil, nil, fmt.Errorf("%s: rounds[%d]: %w", name, i, err)
			}
			warns = append(warns, w...)
			f.Rounds = append(f.Rounds, row)
		}
	}
	if f.RunID == "" {
		base := filepath.Base(name)
		f.RunID = strings.TrimSuffix(strings.TrimPrefix(base, "scorecard-"), ".json")
		warns = append(warns, fmt.Sprintf("no run_id: using %q from the file name", f.RunID))
	}
	for i := range warns {
		warns[i] = name + ": " + warns[i]
	}
	return &f, warns, nil
}

// decodeRow fills a row from its keys leniently.
func decodeRow(top map[string]json.RawMessage, r *Row, prefix string) ([]string, error) {
	var warns []string
	if v, ok := top["run_id"]; ok {
		if err := setLenient(reflect.ValueOf(&r.RunID).Elem(), v); err != nil {
			warns = append(warns, prefix+"run_id: "+err.Error())
		}
	}
	if v, ok := top["metadata"]; ok && string(bytes.TrimSpace(v)) != "null" {
		extra, problems, err := decodeLenient(v, reflect.ValueOf(&r.Metadata).Elem())
		if err != nil {
			warns = append(warns, prefix+"metadata: "+err.Error()+"; ignored")
		}
		r.Metadata.Extra = extra
		for _, p := range problems {
			warns = append(warns, prefix+"metadata."+p+" (kept as is)")
		}
	}
	block := func(key string, dst any) bool {
		v, ok := top[key]
		if !ok || string(bytes.TrimSpace(v)) == "null" {
			return false
		}
		_, problems, err := decodeLenient(v, reflect.ValueOf(dst).Elem())
		if err != nil {
			warns = append(warns, prefix+key+": "+err.Error()+"; ignored")
			return false
		}
		for _, p := range problems {
			warns = append(warns, prefix+key+"."+p+"; ignored")
		}
		return true
	}
	var p Performance
	if block("performance", &p) {
		r.Performance = &p
	}
	var c Cost
	if block("cost", &c) {
		r.Cost = &c
	}
	var e Energy
	if block("energy", &e) {
		r.Energy = &e
	}
	var cb Carbon
	if block("carbon", &cb) {
		r.Carbon = &cb
	}
	return warns, nil
}
