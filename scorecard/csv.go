package scorecard

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Aggregate CSV columns added after the scorecard's own.
var paretoColumns = [...]string{"pareto.slo", "pareto.status", "pareto.dominated_by", "pareto.reason", "source_file"}

// WriteCSV writes one flat row per entry: every field of the run's
// scorecard row as a column named by its JSON path (metadata.model,
// cost.cpm_eur_1m, …; a list of strings joined with "; ", other lists as
// JSON), goodput's own fields first in their order, then any other field
// the files carry in order of first appearance, then the Pareto verdict
// and the source file. Numbers are written as read (a hand-written
// "1,890" becomes 1890). verdicts is parallel to entries (nil leaves the
// verdict columns empty).
func WriteCSV(w io.Writer, entries []Entry, verdicts []Verdict) error {
	var cols []string
	seen := map[string]bool{}
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			cols = append(cols, k)
		}
	}
	tmpl, err := json.Marshal(templateRow())
	if err != nil {
		return err
	}
	tk, _, err := flatten(tmpl)
	if err != nil {
		return err
	}
	for _, k := range tk {
		add(k)
	}
	rows := make([]map[string]string, len(entries))
	for i, e := range entries {
		keys, vals, err := flatten(e.JSON)
		if err != nil {
			return fmt.Errorf("%s: %w", e.Path, err)
		}
		// The values the lenient reader understood replace their text as
		// written ("1,890" becomes 1890); what it could not read stays as
		// written.
		typed, err := json.Marshal(e.Row)
		if err != nil {
			return fmt.Errorf("%s: %w", e.Path, err)
		}
		tkeys, tvals, err := flatten(typed)
		if err != nil {
			return fmt.Errorf("%s: %w", e.Path, err)
		}
		for _, k := range tkeys {
			if v := tvals[k]; v != "" {
				if _, ok := vals[k]; !ok {
					keys = append(keys, k)
				}
				vals[k] = v
			}
		}
		for _, k := range keys {
			add(k)
		}
		rows[i] = vals
	}
	for _, c := range paretoColumns {
		add(c)
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(cols); err != nil {
		return err
	}
	rec := make([]string, len(cols))
	for i, e := range entries {
		v := rows[i]
		if verdicts != nil {
			v["pareto.slo"], v["pareto.status"] = verdicts[i].SLO, verdicts[i].Status
			v["pareto.dominated_by"], v["pareto.reason"] = strings.Join(verdicts[i].DominatedBy, "; "), verdicts[i].Reason
		}
		v["source_file"] = e.Path
		for j, c := range cols {
			rec[j] = v[c]
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// templateRow has every block and field, for the column order.
func templateRow() Row {
	t := true
	return Row{Performance: &Performance{SLOPass: &t}, Cost: &Cost{}, Energy: &Energy{PUEDefault: &t}, Carbon: &Carbon{}}
}

// flatten turns a JSON object into dotted keys (in document order) and
// cell texts.
func flatten(data []byte) ([]string, map[string]string, error) {
	var keys []string
	vals := map[string]string{}
	var walk func(prefix string, raw json.RawMessage) error
	walk = func(prefix string, raw json.RawMessage) error {
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			return nil
		}
		put := func(v string) {
			if _, ok := vals[prefix]; !ok {
				keys = append(keys, prefix)
			}
			vals[prefix] = v
		}
		switch raw[0] {
		case '{':
			ks, vs, err := orderedObject(raw)
			if err != nil {
				return err
			}
			for i, k := range ks {
				name := k
				if prefix != "" {
					name = prefix + "." + k
				}
				if err := walk(name, vs[i]); err != nil {
					return err
				}
			}
		case '[':
			var strs []string
			if json.Unmarshal(raw, &strs) == nil {
				put(strings.Join(strs, "; "))
				return nil
			}
			var buf bytes.Buffer
			if err := json.Compact(&buf, raw); err != nil {
				return err
			}
			put(buf.String())
		case '"':
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return err
			}
			put(s)
		case 'n':
			put("")
		default:
			put(string(raw)) // number or boolean, as written
		}
		return nil
	}
	if err := walk("", data); err != nil {
		return nil, nil, err
	}
	return keys, vals, nil
}

// orderedObject splits a JSON object into its keys and raw values, in
// document order.
func orderedObject(data []byte) ([]string, []json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, fmt.Errorf("want a JSON object")
	}
	var keys []string
	var vals []json.RawMessage
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		k, ok := kt.(string)
		if !ok {
			return nil, nil, fmt.Errorf("want an object key")
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		keys = append(keys, k)
		vals = append(vals, v)
	}
	return keys, vals, nil
}
