package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/parquet-go/parquet-go"
)

// Parquet and Arrow files become tables of JSON values, so the column
// mapping, conversations and counts of JSON files apply to them unchanged.
// Parquet is read with parquet-go, Arrow IPC (files, Feather v2 and the
// streams of the datasets library's cache) with arrow-go's ipc package.

// arrowFileMagic opens an Arrow IPC file (and Feather v2); a stream has none.
var arrowFileMagic = []byte("ARROW1")

// parseParquet reads every row group of a Parquet file.
func (t *table) parseParquet(data []byte) (err error) {
	defer t.recoverLibrary("Parquet", &err)
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return fmt.Errorf("%s: not a readable Parquet file: %s", t.name, oneLineError(err))
	}
	for _, fld := range f.Schema().Fields() {
		t.addColumn(fld.Name())
	}
	r := parquet.NewGenericReader[map[string]any](f, f.Schema())
	defer r.Close()
	buf := make([]map[string]any, 128)
	for {
		for i := range buf {
			buf[i] = map[string]any{}
		}
		n, err := r.Read(buf)
		for _, m := range buf[:n] {
			row := tableRow{line: len(t.rows) + 1, obj: make(map[string]json.RawMessage, len(m))}
			for k, v := range m {
				b, err := json.Marshal(jsonValue(v))
				if err != nil {
					return fmt.Errorf("%s row %d: column %q: %v", t.name, row.line, k, err)
				}
				row.obj[k] = b
			}
			t.rows = append(t.rows, row)
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s row %d: %s", t.name, len(t.rows)+1, oneLineError(err))
		}
	}
}

// jsonValue makes a Parquet value JSON-ready: byte strings that are UTF-8
// text become strings (a BYTE_ARRAY column without a STRING annotation).
func jsonValue(v any) any {
	switch v := v.(type) {
	case []byte:
		if utf8.Valid(v) {
			return string(v)
		}
	case []any:
		for i := range v {
			v[i] = jsonValue(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = jsonValue(v[k])
		}
	}
	return v
}

// parseArrow reads an Arrow IPC file (Feather v2) or stream (the datasets
// library's cache files).
func (t *table) parseArrow(data []byte) (err error) {
	defer t.recoverLibrary("Arrow", &err)
	if bytes.HasPrefix(data, []byte("FEA1")) {
		return fmt.Errorf("%s: a Feather v1 file: re-save it as Feather v2 (pyarrow.feather.write_feather(table, path))", t.name)
	}
	// No message of a well-formed file is larger than the file: the limits
	// turn a corrupt length into an error instead of a huge allocation.
	limits := []ipc.Option{ipc.WithMetadataSizeLimit(int64(len(data))), ipc.WithBodySizeLimit(int64(len(data)))}
	if bytes.HasPrefix(data, arrowFileMagic) {
		f, err := ipc.NewFileReader(bytes.NewReader(data), limits...)
		if err != nil {
			return fmt.Errorf("%s: not a readable Arrow file: %s", t.name, oneLineError(err))
		}
		defer f.Close()
		t.arrowColumns(f.Schema())
		for i := range f.NumRecords() {
			rec, err := f.RecordBatch(i)
			if err != nil {
				return fmt.Errorf("%s row %d: %s", t.name, len(t.rows)+1, oneLineError(err))
			}
			if err := t.arrowRows(rec); err != nil {
				return err
			}
		}
		return nil
	}
	r, err := ipc.NewReader(bytes.NewReader(data), limits...)
	if err != nil {
		return fmt.Errorf("%s: not a readable Arrow file or stream: %s", t.name, oneLineError(err))
	}
	defer r.Release()
	t.arrowColumns(r.Schema())
	for r.Next() {
		if err := t.arrowRows(r.RecordBatch()); err != nil {
			return err
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("%s row %d: %s", t.name, len(t.rows)+1, oneLineError(err))
	}
	return nil
}

func (t *table) arrowColumns(s *arrow.Schema) {
	for _, f := range s.Fields() {
		t.addColumn(f.Name)
	}
}

// arrowRows appends the rows of one record batch; null values are left out,
// as JSON null is.
func (t *table) arrowRows(rec arrow.RecordBatch) error {
	first := len(t.rows)
	for range rec.NumRows() {
		t.rows = append(t.rows, tableRow{line: len(t.rows) + 1, obj: make(map[string]json.RawMessage, rec.NumCols())})
	}
	for j, col := range rec.Columns() {
		name := rec.ColumnName(j)
		for i := range col.Len() {
			if col.IsNull(i) {
				continue
			}
			b, err := json.Marshal(col.GetOneForMarshal(i))
			if err != nil {
				return fmt.Errorf("%s row %d: column %q: %v", t.name, first+i+1, name, err)
			}
			t.rows[first+i].obj[name] = b
		}
	}
	return nil
}

// recoverLibrary turns a panic of a file library on malformed input into an
// error naming the file.
func (t *table) recoverLibrary(format string, err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("%s: not a readable %s file (%s)", t.name, format, oneLineError(fmt.Errorf("%v", p)))
	}
}

// oneLineError flattens a library's message to one line.
func oneLineError(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
