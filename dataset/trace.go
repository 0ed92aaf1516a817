package dataset

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/loadgen"
)

// traceColumns names a trace's columns. The defaults are GuideLLM's
// trace_synthetic ones (also Mooncake's and AIPerf's).
type traceColumns struct {
	Timestamp string // default "timestamp"
	Input     string // default "input_length"
	Output    string // default "output_length"
	HashIDs   string // default "hash_ids"
}

func (c *traceColumns) setDefaults() {
	if c.Timestamp == "" {
		c.Timestamp = "timestamp"
	}
	if c.Input == "" {
		c.Input = "input_length"
	}
	if c.Output == "" {
		c.Output = "output_length"
	}
	if c.HashIDs == "" {
		c.HashIDs = "hash_ids"
	}
}

// traceLayout is a published trace's documented columns.
type traceLayout struct {
	name string
	cols traceColumns
	unit string // of numeric timestamps; date-time timestamps are read as such
	// skipZero leaves out rows with 0 request or response tokens (failed
	// requests, in BurstGPT), counting them, instead of refusing them.
	skipZero bool
}

// traceLayouts are recognised by their columns when a trace has none of the
// default names and none were given.
var traceLayouts = []traceLayout{
	// BurstGPT (github.com/HPMLL/BurstGPT): seconds from the trace's start.
	{name: "burstgpt", cols: traceColumns{Timestamp: "Timestamp", Input: "Request tokens", Output: "Response tokens"}, unit: "s", skipZero: true},
	// Azure LLM inference traces 2023 and 2024 (AzurePublicDataset):
	// date-times, 2023-11-16 18:15:46.6805900 and 2024-05-10 00:00:00.009930+00:00.
	{name: "azure", cols: traceColumns{Timestamp: "TIMESTAMP", Input: "ContextTokens", Output: "GeneratedTokens"}, unit: "s"},
	weka,
}

// weka is GuideLLM's weka trace kind: its default column names, t in
// seconds as GuideLLM reads every trace (its max_wait is "in original trace
// seconds"), unless timestamp_unit says otherwise.
var weka = traceLayout{name: "weka", cols: traceColumns{Timestamp: "t", Input: "in", Output: "out"}, unit: "s"}

// detectLayout returns the layout whose columns t has, when t lacks the
// default trace columns.
func detectLayout(t *table, cols traceColumns) (traceLayout, bool) {
	var def traceColumns
	def.setDefaults()
	def.HashIDs = cols.HashIDs
	if cols != def {
		return traceLayout{}, false
	}
	if _, ok := t.index[def.Timestamp]; ok {
		return traceLayout{}, false
	}
	for _, l := range traceLayouts {
		_, a := t.index[l.cols.Timestamp]
		_, b := t.index[l.cols.Input]
		_, c := t.index[l.cols.Output]
		if a && b && c {
			l.cols.HashIDs = cols.HashIDs
			return l, true
		}
	}
	return traceLayout{}, false
}

// Timestamp units.
var timeUnits = map[string]time.Duration{"s": time.Second, "ms": time.Millisecond, "us": time.Microsecond}

// DefaultBlockSize is the number of tokens a Mooncake hash id stands for
// (Mooncake's paper, GuideLLM's and AIPerf's default).
const DefaultBlockSize = 512

// traceRow is one trace record.
type traceRow struct {
	line    int
	ts      float64
	in, out int
	hashIDs []uint64
}

// Trace is a finite source replaying a trace file: request i has a synthetic
// prompt of exactly input_length tokens (with a tokenizer; approximately
// without) and max_tokens = output_length, in timestamp order. With hash ids
// (Mooncake), the prompt is made of one block of BlockSize tokens per id, the
// last one cut to fit, so requests sharing ids share those prompt blocks, as
// in the traced workload; otherwise every prompt opens with a marker unique
// to its request.
type Trace struct {
	rows      []traceRow
	gen       *textGen
	exact     bool
	blockSize int // 0: no hash ids
	seed      uint64
}

// Len returns the number of requests.
func (t *Trace) Len() int { return len(t.rows) }

// Request returns request i, ok=false past the end.
func (t *Trace) Request(i uint64) (*loadgen.Request, bool) {
	if i >= uint64(len(t.rows)) {
		return nil, false
	}
	row := &t.rows[i]
	var prompt string
	if t.blockSize > 0 {
		prompt = t.blocks(row)
	} else {
		off := int(mix64(t.seed^i) % uint64(t.gen.bodyUnits()-row.in+1))
		prompt = t.gen.text(i, ctxStart, row.in, off)
	}
	r := loadgen.NewRequest("", prompt, row.out)
	r.TargetPromptTokens = row.in
	if t.exact {
		r.PromptTokens = row.in
	}
	return r, true
}

// blocks builds a hash-id prompt: block j for id h is a marker for h and
// body units from an offset chosen by h, so equal ids give equal blocks and
// different ids different ones.
func (t *Trace) blocks(row *traceRow) string {
	b := make([]byte, 0, row.in*8)
	left := row.in
	for j, h := range row.hashIDs {
		n := min(left, t.blockSize)
		ctx := ctxMid
		if j == 0 {
			ctx = ctxStart
		}
		off := int(mix64(t.seed^h^0x68617368) % uint64(t.gen.bodyUnits()-t.blockSize+1))
		b = t.gen.appendUnits(b, h, ctx, n, off)
		left -= n
	}
	return string(b)
}

// mix64 is splitmix64's finalizer.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// schedule returns the send offsets: timestamps relative to t0 (the first
// row's, or a window's start), in unit, multiplied by scale.
func (t *Trace) schedule(t0 float64, unit time.Duration, scale float64) []time.Duration {
	s := make([]time.Duration, len(t.rows))
	for i, r := range t.rows {
		s[i] = time.Duration(math.Round((r.ts - t0) * float64(unit) * scale))
	}
	return s
}

// readTrace reads the trace rows of a table; hash ids are read when
// useHash is set (they are then required). Date-time timestamps are read in
// unit. With skipZero, rows with 0 tokens are left out and counted. With
// optOutput, a row without the output column gets no output limit (0).
func readTrace(t *table, cols traceColumns, useHash bool, blockSize int, unit time.Duration, skipZero, optOutput bool) (rows []traceRow, skipped int, err error) {
	for _, c := range []string{cols.Timestamp, cols.Input, cols.Output} {
		if _, ok := t.index[c]; !ok && !(optOutput && c == cols.Output) {
			return nil, 0, fmt.Errorf("%s: no %q column (columns: %s); name the columns with timestamp_column, prompt_tokens_column and output_tokens_column", t.name, c, quoteList(t.columns))
		}
	}
	rows = make([]traceRow, 0, len(t.rows))
	var epoch time.Time // the first date-time timestamp; later ones count from it
rowLoop:
	for i := range t.rows {
		tr := &t.rows[i]
		r := traceRow{line: tr.line}
		if r.ts, err = traceTimestamp(t, tr, cols.Timestamp, unit, &epoch); err != nil {
			return nil, 0, err
		}
		for _, f := range []struct {
			col string
			dst *int
		}{{cols.Input, &r.in}, {cols.Output, &r.out}} {
			c, ok := t.get(tr, f.col)
			if !ok && optOutput && f.dst == &r.out {
				continue
			}
			if !ok {
				return nil, 0, fmt.Errorf("%s: %q is missing (want a positive integer)", t.at(tr), f.col)
			}
			if skipZero {
				if n, err := cellInt(c, 0); err == nil && n == 0 {
					skipped++
					continue rowLoop
				}
			}
			if *f.dst, err = cellInt(c, 1); err != nil {
				return nil, 0, fmt.Errorf("%s: %q must be a positive integer (at most %d), got %s", t.at(tr), f.col, maxTokensPerPrompt, cellText(c))
			}
		}
		if useHash {
			if r.hashIDs, err = traceHashIDs(t, tr, cols.HashIDs); err != nil {
				return nil, 0, err
			}
			if need := (r.in + blockSize - 1) / blockSize; len(r.hashIDs) != need {
				return nil, 0, fmt.Errorf("%s: %q has %d ids but %s=%d needs %d blocks of %d tokens (hash_id_block_size)",
					t.at(tr), cols.HashIDs, len(r.hashIDs), cols.Input, r.in, need, blockSize)
			}
		}
		rows = append(rows, r)
	}
	slices.SortStableFunc(rows, func(a, b traceRow) int {
		switch {
		case a.ts < b.ts:
			return -1
		case a.ts > b.ts:
			return 1
		}
		return 0
	})
	if len(rows) == 0 {
		return nil, skipped, fmt.Errorf("%s: no usable rows (%d with 0 tokens)", t.name, skipped)
	}
	return rows, skipped, nil
}

func cellText(c cell) string {
	if c.isJSON() {
		return abbrev(c.raw)
	}
	return strconv.Quote(c.str)
}

// traceTimestamp reads a timestamp: a number, or a date-time (Azure's
// 2023-11-16 18:15:46.6805900, with an optional zone, or RFC 3339) read in
// unit from *epoch, the first date-time (set when zero), so that offsets
// keep their nanoseconds.
func traceTimestamp(t *table, tr *tableRow, col string, unit time.Duration, epoch *time.Time) (float64, error) {
	c, ok := t.get(tr, col)
	if !ok {
		return 0, fmt.Errorf("%s: %q is missing (want a number)", t.at(tr), col)
	}
	s := c.str
	if c.isJSON() {
		s = string(c.raw)
		var str string
		if json.Unmarshal(c.raw, &str) == nil {
			s = str
		}
	}
	s = strings.TrimSpace(s)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		for _, layout := range dateTimeLayouts {
			if tm, err2 := time.Parse(layout, s); err2 == nil {
				if epoch.IsZero() {
					*epoch = tm
				}
				d := tm.Sub(*epoch) // saturates beyond ±292 years
				if d == math.MaxInt64 || d == math.MinInt64 || d > math.MaxInt64/2 || d < math.MinInt64/2 {
					return 0, fmt.Errorf("%s: %q: %s is more than 146 years from the first row's time", t.at(tr), col, s)
				}
				v, err = float64(d)/float64(unit), nil
				break
			}
		}
	}
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e15 {
		return 0, fmt.Errorf("%s: %q must be a number or a date-time such as 2023-11-16 18:15:46.68, got %s", t.at(tr), col, cellText(c))
	}
	return v, nil
}

// dateTimeLayouts are the date-times a trace timestamp may be.
var dateTimeLayouts = []string{"2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999", time.RFC3339Nano, "2006-01-02T15:04:05.999999999"}

func traceHashIDs(t *table, tr *tableRow, col string) ([]uint64, error) {
	c, ok := t.get(tr, col)
	if !ok {
		return nil, fmt.Errorf("%s: %q is missing (want a list of non-negative integers)", t.at(tr), col)
	}
	var ids []uint64
	if !c.isJSON() || json.Unmarshal(c.raw, &ids) != nil {
		return nil, fmt.Errorf("%s: %q must be a list of non-negative integers, got %s", t.at(tr), col, cellText(c))
	}
	return ids, nil
}

// traceWindow keeps the rows (sorted by timestamp) whose time lies in
// [start, end] (end 0: no end) and returns the time, in unit, offsets then
// count from: start, or the first row's when start is 0.
func traceWindow(rows []traceRow, unit time.Duration, start, end time.Duration) ([]traceRow, float64, error) {
	lo, hi := float64(start)/float64(unit), math.Inf(1)
	if end > 0 {
		hi = float64(end) / float64(unit)
	}
	if end > 0 && end < start {
		return nil, 0, fmt.Errorf("window end %v is before its start %v", end, start)
	}
	i := sort.Search(len(rows), func(i int) bool { return rows[i].ts >= lo })
	j := sort.Search(len(rows), func(i int) bool { return rows[i].ts > hi })
	if i >= j {
		return nil, 0, fmt.Errorf("no row of %d has a timestamp in the window [%v, %v] (timestamps %v to %v)", len(rows), start, window(end),
			time.Duration(rows[0].ts*float64(unit)), time.Duration(rows[len(rows)-1].ts*float64(unit)))
	}
	origin := rows[i].ts
	if start > 0 {
		origin = lo
	}
	return rows[i:j], origin, nil
}

// window shows a window's end (0: none).
func window(end time.Duration) string {
	if end == 0 {
		return "end"
	}
	return end.String()
}
