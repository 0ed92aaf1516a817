package dataset

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/parquet-go/parquet-go"
)

// pqTurn and pqRow are a ShareGPT-like Parquet schema: a prompt column, a
// system column, counts and a list of turns.
type pqTurn struct {
	From  string `parquet:"from"`
	Value string `parquet:"value"`
}

type pqRow struct {
	ID       int64    `parquet:"id"`
	Question string   `parquet:"question"`
	System   *string  `parquet:"system,optional"`
	Output   int64    `parquet:"output_tokens_count"`
	Turns    []pqTurn `parquet:"conversations,list"`
}

var fixtureRows = []pqRow{
	{ID: 1, Question: "What is Go?", System: ptr("Be brief."), Output: 16,
		Turns: []pqTurn{{"human", "hi"}, {"gpt", "hello there"}}},
	{ID: 2, Question: "Name a prime.", Output: 4},
	{ID: 3, Question: "Sum 2 and 3.", System: ptr(""), Output: 8},
}

var fixtureWant = []req{{"Be brief.", "What is Go?", -1, 16}, {"", "Name a prime.", -1, 4}, {"", "Sum 2 and 3.", -1, 8}}

func ptr[T any](v T) *T { return &v }

// writeParquet writes rows with parquet-go, in row groups of two rows.
func writeParquet[T any](t testing.TB, path string, rows []T) {
	t.Helper()
	writeBytes(t, path, parquetBytes(t, rows))
}

func parquetBytes[T any](t testing.TB, rows []T) []byte {
	t.Helper()
	var b bytes.Buffer
	w := parquet.NewGenericWriter[T](&b, parquet.MaxRowsPerRowGroup(2))
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// recordOf builds rows as an Arrow record batch.
func recordOf(t testing.TB, rows []pqRow) arrow.RecordBatch {
	t.Helper()
	turn := arrow.StructOf(arrow.Field{Name: "from", Type: arrow.BinaryTypes.String}, arrow.Field{Name: "value", Type: arrow.BinaryTypes.String})
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "question", Type: arrow.BinaryTypes.LargeString},
		{Name: "system", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "output_tokens_count", Type: arrow.PrimitiveTypes.Int32},
		{Name: "conversations", Type: arrow.ListOf(turn)},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for _, r := range rows {
		b.Field(0).(*array.Int64Builder).Append(r.ID)
		b.Field(1).(*array.LargeStringBuilder).Append(r.Question)
		if r.System == nil {
			b.Field(2).AppendNull()
		} else {
			b.Field(2).(*array.StringBuilder).Append(*r.System)
		}
		b.Field(3).(*array.Int32Builder).Append(int32(r.Output))
		lb := b.Field(4).(*array.ListBuilder)
		lb.Append(true)
		sb := lb.ValueBuilder().(*array.StructBuilder)
		for _, tu := range r.Turns {
			sb.Append(true)
			sb.FieldBuilder(0).(*array.StringBuilder).Append(tu.From)
			sb.FieldBuilder(1).(*array.StringBuilder).Append(tu.Value)
		}
	}
	return b.NewRecordBatch()
}

// writeArrow writes the fixture as an Arrow IPC file (stream=false) or
// stream, in two record batches.
func writeArrow(t testing.TB, path string, stream bool) {
	t.Helper()
	writeBytes(t, path, arrowBytes(t, stream))
}

func arrowBytes(t testing.TB, stream bool) []byte {
	t.Helper()
	return arrowBytesOf(t, fixtureRows, stream)
}

func arrowBytesOf(t testing.TB, rows []pqRow, stream bool) []byte {
	t.Helper()
	rec := recordOf(t, rows)
	defer rec.Release()
	var b bytes.Buffer
	var w interface {
		Write(arrow.RecordBatch) error
		Close() error
	}
	if stream {
		w = ipc.NewWriter(&b, ipc.WithSchema(rec.Schema()))
	} else {
		fw, err := ipc.NewFileWriter(&b, ipc.WithSchema(rec.Schema()))
		if err != nil {
			t.Fatal(err)
		}
		w = fw
	}
	half := int64(len(rows) / 2)
	for _, part := range []arrow.RecordBatch{rec.NewSlice(0, half), rec.NewSlice(half, int64(len(rows)))} {
		if err := w.Write(part); err != nil {
			t.Fatal(err)
		}
		part.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestColumnarFiles(t *testing.T) {
	dir := t.TempDir()
	files := map[string]func(string){
		"prompts.parquet":   func(p string) { writeParquet(t, p, fixtureRows) },
		"prompts.arrow":     func(p string) { writeArrow(t, p, false) },
		"prompts.feather":   func(p string) { writeArrow(t, p, false) },
		"cache-train.arrow": func(p string) { writeArrow(t, p, true) },
	}
	for name, write := range files {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, name)
			write(p)
			d, err := Open(p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := summary(requests(t, d.Source)); !reflect.DeepEqual(got, fixtureWant) {
				t.Fatalf("requests %+v, want %+v", got, fixtureWant)
			}
			want := map[string]string{roleText: "question", rolePrefix: "system", roleOutputCount: "output_tokens_count"}
			if !reflect.DeepEqual(d.Description.Columns, want) {
				t.Fatalf("columns %v, want %v", d.Description.Columns, want)
			}
			// The list of turns maps too: the conversation's first user turn
			// is the prompt.
			d, err = Open(p, Options{ColumnMapper: `{"text_column":"conversations"}`, Tokenizer: builtin(t, "o200k_base")})
			if err != nil {
				t.Fatal(err)
			}
			rs := requests(t, d.Source)
			if len(rs) != 1 || rs[0].Messages[0].Content != "hi" || rs[0].MaxTokens != 2 || d.Description.Skipped != 2 {
				t.Fatalf("conversations: %+v, skipped %d", summary(rs), d.Description.Skipped)
			}
			if rs[0].PromptTokens != 1 {
				t.Fatalf("prompt tokens %d, want 1", rs[0].PromptTokens)
			}
		})
	}
}

func TestColumnarTrace(t *testing.T) {
	type traceRec struct {
		TS  float64 `parquet:"timestamp"`
		In  int32   `parquet:"input_length"`
		Out int32   `parquet:"output_length"`
	}
	p := filepath.Join(t.TempDir(), "trace.parquet")
	writeParquet(t, p, []traceRec{{1500, 30, 5}, {1000, 20, 4}, {1250, 10, 3}})
	d, err := Open(p, Options{Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	rs := requests(t, d.Source)
	var in []int
	for _, r := range rs {
		in = append(in, r.TargetPromptTokens)
	}
	if !reflect.DeepEqual(in, []int{20, 10, 30}) || d.Schedule[1] != 250e6 || d.Schedule[2] != 500e6 {
		t.Fatalf("lengths %v, schedule %v", in, d.Schedule)
	}
}

func TestColumnarErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.parquet")
	writeParquet(t, good, fixtureRows)
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	type badRow struct {
		Prompt string `parquet:"prompt"`
		Output string `parquet:"output_tokens_count"`
	}
	badCount := filepath.Join(dir, "count.parquet")
	writeParquet(t, badCount, []badRow{{"a", "3"}, {"b", "many"}})
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		path, want string
	}{
		{write("cut.parquet", data[:len(data)/2]), "cut.parquet: not a readable Parquet file"},
		{write("junk.parquet", []byte("PAR1 not really")), "junk.parquet: not a readable Parquet file"},
		{write("junk.arrow", []byte("ARROW1\x00\x00junk")), "junk.arrow: not a readable Arrow file"},
		{write("old.feather", []byte("FEA1xxxxxxxx")), "old.feather: a Feather v1 file"},
		{badCount, `count.parquet row 2: column "output_tokens_count": want a positive integer`},
		{good + "", ""},
	} {
		_, err := Open(c.path, Options{Trace: strings.HasPrefix(filepath.Base(c.path), "trace")})
		oneLine(t, err)
		if c.want == "" {
			if err != nil {
				t.Fatalf("%s: %v", c.path, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: error %v, want %q", c.path, err, c.want)
		}
	}
	// A trace's bad value names the row and column.
	_, err = Open(good, Options{Trace: true, ColumnMapper: `{"timestamp_column":"question","prompt_tokens_count_column":"id","output_tokens_count_column":"output_tokens_count"}`})
	if err == nil || !strings.Contains(err.Error(), `good.parquet row 1: "question" must be a number`) {
		t.Fatalf("trace error %v", err)
	}
}

// writeBytes writes b at path, making its folders.
func writeBytes(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestColumnarDamage opens every truncation of the Parquet and Arrow
// fixtures, and every one-byte corruption of the Parquet one: each must load
// or fail with one line naming the file, never panic or hang. (Corrupt Arrow
// metadata is not tried: arrow-go reads its flatbuffers unverified, and a
// flipped vector length can ask for gigabytes.)
func TestColumnarDamage(t *testing.T) {
	for _, c := range []struct {
		format string
		data   []byte
		flips  bool
	}{
		{formatParquet, parquetBytes(t, fixtureRows), true},
		{formatArrow, arrowBytes(t, false), false},
		{formatArrow, arrowBytes(t, true), false},
	} {
		try := func(b []byte) {
			_, err := openFileData("f."+c.format, "", fileData{data: b, format: c.format}, nil, Options{})
			oneLine(t, err)
			if err != nil && !strings.HasPrefix(err.Error(), "f."+c.format) {
				t.Fatalf("error %q does not name the file", err)
			}
		}
		for n := range len(c.data) {
			try(c.data[:n])
		}
		for i := range len(c.data) * btoi(c.flips) {
			b := bytes.Clone(c.data)
			b[i] ^= 0xff
			try(b)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
