package dataset

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// File formats.
const (
	formatJSONL = "jsonl"
	formatJSON  = "json"
	formatCSV   = "csv"
	formatText  = "txt"
	// Columnar formats: records are numbered rows, not lines.
	formatParquet = "parquet"
	formatArrow   = "arrow"
)

// maxFileSize bounds what a data file may hold once decompressed.
const maxFileSize = 4 << 30

// table is a data file read into rows of named columns.
type table struct {
	name    string   // the path as given, for messages
	format  string   // formatJSONL, formatJSON, formatCSV or formatText
	columns []string // in order of first appearance
	index   map[string]int
	rows    []tableRow
}

// tableRow is one record: a JSON object or a CSV/text record.
type tableRow struct {
	line int    // 1-based line where the record starts (row, for Parquet and Arrow)
	file string // the shard holding the row, when a directory was read; "" means table.name
	obj  map[string]json.RawMessage
	rec  []string
}

// at names a row for messages: "f.csv:12", or "f.parquet row 12" in a
// columnar file.
func (t *table) at(r *tableRow) string {
	name := t.name
	if r.file != "" {
		name = r.file
	}
	if t.format == formatParquet || t.format == formatArrow {
		return fmt.Sprintf("%s row %d", name, r.line)
	}
	return fmt.Sprintf("%s:%d", name, r.line)
}

// cell is one value of a row.
type cell struct {
	raw json.RawMessage // JSON formats: the value as written
	str string          // CSV and text: the field
}

// isJSON reports whether the cell came from a JSON file.
func (c cell) isJSON() bool { return c.raw != nil }

// get returns the value of column col; ok is false when the row lacks it or
// it is JSON null.
func (t *table) get(r *tableRow, col string) (cell, bool) {
	if r.obj != nil {
		v, ok := r.obj[col]
		if !ok || string(v) == "null" {
			return cell{}, false
		}
		return cell{raw: v}, true
	}
	i, ok := t.index[col]
	if !ok || i >= len(r.rec) {
		return cell{}, false
	}
	return cell{str: r.rec[i]}, true
}

// fileData is a data file's bytes (decompressed) and the sha256 of the file
// as stored.
type fileData struct {
	data   []byte
	sha256 string
	format string // from the extension, "" when unknown
}

// readFile reads path, gunzipping *.gz, and guesses the format from the
// extension (before .gz).
func readFile(path string) (fileData, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return fileData{}, fmt.Errorf("reading %s: %w", path, errors.Unwrap(err))
	}
	sum := sha256.Sum256(raw)
	fd := fileData{data: raw, sha256: hex.EncodeToString(sum[:])}
	name := strings.ToLower(path)
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return fileData{}, fmt.Errorf("reading %s: not gzip data: %v", path, err)
		}
		fd.data, err = io.ReadAll(io.LimitReader(zr, maxFileSize+1))
		if err != nil {
			return fileData{}, fmt.Errorf("reading %s: %v", path, err)
		}
		if len(fd.data) > maxFileSize {
			return fileData{}, fmt.Errorf("reading %s: more than %d bytes once decompressed", path, maxFileSize)
		}
		name = strings.TrimSuffix(name, ".gz")
	}
	fd.format = formatOf(name)
	return fd, nil
}

// sniffFormat guesses a JSON format from the content: JSON Lines when the
// first line is a whole JSON object and there is more, JSON otherwise.
func sniffFormat(data []byte) string {
	data = bytes.TrimPrefix(data, utf8BOM)
	trimmed := bytes.TrimSpace(data)
	switch {
	case len(trimmed) == 0:
		return ""
	case trimmed[0] == '[':
		return formatJSON
	case trimmed[0] != '{':
		return ""
	}
	first, _, _ := bytes.Cut(trimmed, []byte("\n"))
	if json.Valid(bytes.TrimSpace(first)) {
		return formatJSONL
	}
	return formatJSON
}

var utf8BOM = []byte{0xef, 0xbb, 0xbf}

// parseTable parses data in the given format.
func parseTable(name, format string, data []byte) (*table, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	t := &table{name: name, format: format, index: map[string]int{}}
	var err error
	switch format {
	case formatJSONL:
		err = t.parseJSONL(data)
	case formatJSON:
		err = t.parseJSON(data)
	case formatCSV:
		err = t.parseCSV(data)
	case formatText:
		t.parseText(data)
	case formatParquet:
		err = t.parseParquet(data)
	case formatArrow:
		err = t.parseArrow(data)
	default:
		return nil, fmt.Errorf("%s: unknown format %q", name, format)
	}
	if err != nil {
		return nil, err
	}
	if len(t.rows) == 0 {
		return nil, fmt.Errorf("%s: no records", name)
	}
	return t, nil
}

func (t *table) addColumn(c string) {
	if _, ok := t.index[c]; !ok {
		t.index[c] = len(t.columns)
		t.columns = append(t.columns, c)
	}
}

func (t *table) parseJSONL(data []byte) error {
	r := bufio.NewReader(bytes.NewReader(data))
	for line := 1; ; line++ {
		b, err := r.ReadBytes('\n')
		if b = bytes.TrimSpace(b); len(b) > 0 {
			obj, err := t.object(b)
			if err != nil {
				return fmt.Errorf("%s:%d: %v (want one JSON object per line)", t.name, line, err)
			}
			t.rows = append(t.rows, tableRow{line: line, obj: obj})
		}
		if err != nil { // io.EOF: the reader holds all of data
			return nil
		}
	}
}

// object decodes one JSON object, recording its keys as columns in order.
func (t *table) object(b []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		if err != nil {
			return nil, fmt.Errorf("not a JSON object: %s", jsonErr(err))
		}
		return nil, fmt.Errorf("not a JSON object: starts with %s", abbrev(b))
	}
	obj := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("not a JSON object: %s", jsonErr(err))
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("key %q: %s", key, jsonErr(err))
		}
		if _, dup := obj[key]; dup {
			return nil, fmt.Errorf("key %q given twice", key)
		}
		obj[key] = v
		t.addColumn(key)
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("not a JSON object: %s", jsonErr(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("text after the JSON object")
	}
	return obj, nil
}

// abbrev quotes the start of b for a message.
func abbrev(b []byte) string {
	if len(b) > 24 {
		b = b[:24]
	}
	return fmt.Sprintf("%q", b)
}

// wrapperKeys are the keys under which JSON files commonly hold their list of
// records, in order of preference.
var wrapperKeys = []string{"data", "rows", "records", "items", "examples", "instances", "train", "samples"}

func (t *table) parseJSON(data []byte) error {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		var top map[string]json.RawMessage
		if err := json.Unmarshal(trimmed, &top); err != nil {
			return fmt.Errorf("%s:%d: %s (want a JSON array of objects or an object holding one)", t.name, errorLine(data, err), jsonErr(err))
		}
		key := ""
		for _, k := range wrapperKeys {
			if v, ok := top[k]; ok && isArray(v) {
				key = k
				break
			}
		}
		if key == "" {
			var arrays []string
			for k, v := range top {
				if isArray(v) {
					arrays = append(arrays, k)
				}
			}
			if len(arrays) != 1 {
				return fmt.Errorf("%s: a JSON object must hold its records in one list, e.g. {\"data\": [...]} (lists found: %d)", t.name, len(arrays))
			}
			key = arrays[0]
		}
		return t.parseArray(data, key)
	}
	return t.parseArray(data, "")
}

func isArray(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] == '['
}

// parseArray reads the array at the top level (key "") or under key of the
// top-level object.
func (t *table) parseArray(data []byte, key string) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	fail := func(err error) error {
		return fmt.Errorf("%s:%d: %s", t.name, lineAt(data, dec.InputOffset()), jsonErr(err))
	}
	if key != "" {
		if _, err := dec.Token(); err != nil {
			return fail(err)
		}
		for {
			tok, err := dec.Token()
			if err != nil {
				return fail(err)
			}
			if tok == key {
				break
			}
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return fail(err)
			}
		}
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		if err == nil {
			err = errors.New("want a JSON array of objects")
		}
		return fail(err)
	}
	for dec.More() {
		start := lineAt(data, skipSpace(data, dec.InputOffset()))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return fail(err)
		}
		obj, err := t.object(v)
		if err != nil {
			return fmt.Errorf("%s:%d: %v (want an array of JSON objects)", t.name, start, err)
		}
		t.rows = append(t.rows, tableRow{line: start, obj: obj})
	}
	if _, err := dec.Token(); err != nil {
		return fail(err)
	}
	return nil
}

// skipSpace returns the offset of the first byte at or after off that is
// neither white space nor a comma.
func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ',':
			off++
			continue
		}
		break
	}
	return off
}

// lineAt returns the 1-based line of byte offset off.
func lineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

// errorLine returns the line of a json syntax error's offset, 1 otherwise.
func errorLine(data []byte, err error) int {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return lineAt(data, se.Offset)
	}
	return 1
}

func (t *table) parseCSV(data []byte) error {
	r := csv.NewReader(bytes.NewReader(data))
	header, err := r.Read()
	if err != nil {
		return t.csvError(err)
	}
	for i, h := range header {
		h = strings.TrimSpace(h)
		if h == "" {
			return fmt.Errorf("%s:1: column %d has no name in the header row (the first row names the columns)", t.name, i+1)
		}
		if _, dup := t.index[h]; dup {
			return fmt.Errorf("%s:1: column %q named twice in the header row", t.name, h)
		}
		t.addColumn(h)
	}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return t.csvError(err)
		}
		line, _ := r.FieldPos(0)
		t.rows = append(t.rows, tableRow{line: line, rec: rec})
	}
}

func (t *table) csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s:%d: %v (want comma-separated values with a header row)", t.name, pe.Line, pe.Err)
	}
	if err == io.EOF {
		return fmt.Errorf("%s: empty file (want a header row naming the columns, then one row per request)", t.name)
	}
	return fmt.Errorf("%s: %v", t.name, err)
}

// parseText makes one row per non-blank line, in column "text".
func (t *table) parseText(data []byte) {
	t.addColumn("text")
	for i, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSuffix(l, "\r")
		if strings.TrimSpace(l) != "" {
			t.rows = append(t.rows, tableRow{line: i + 1, rec: []string{l}})
		}
	}
}

// Column is a data file's column as Inspect shows it.
type Column struct {
	Name string
	// Type is what the first row holding a value has in it: string,
	// number, bool, list or object (JSON, Parquet and Arrow files), or text
	// (CSV and text files).
	Type string
}

// describeColumns returns the table's columns with the type of their first
// value.
func (t *table) describeColumns() []Column {
	cols := make([]Column, len(t.columns))
	for i, c := range t.columns {
		cols[i].Name = c
		for j := range t.rows {
			v, ok := t.get(&t.rows[j], c)
			if !ok {
				continue
			}
			cols[i].Type = cellType(v)
			break
		}
	}
	return cols
}

func cellType(c cell) string {
	if !c.isJSON() {
		return "text"
	}
	b := bytes.TrimSpace(c.raw)
	switch {
	case len(b) == 0:
		return ""
	case b[0] == '"':
		return "string"
	case b[0] == '[':
		return "list"
	case b[0] == '{':
		return "object"
	case b[0] == 't' || b[0] == 'f':
		return "bool"
	}
	return "number"
}
