package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// The JSON Lines layout of a record. Every line is one JSON object; the keys
// below are stable (readers in other tools depend on them). Timestamps are
// integer Unix nanoseconds; chunk arrival times are delta-encoded to keep
// lines short: chunk_deltas_ns[0] is ChunkTimes[0]-Dispatched and each later
// element the gap to the previous chunk (EmitTimes likewise).
//
//	{"id":7,"benchmark":0,"status":"successful","http_status":200,
//	 "intended_ns":…,"dispatched_ns":…,…,"end_ns":…,
//	 "chunk_deltas_ns":[…],"chunk_tokens":[…],"prompt_tokens":256,…}

// Encoder writes records as JSON Lines without reflection. It writes
// whole lines only: when the writer fails (a full disk), the file is cut
// back to its last whole line (when the writer can Truncate, as an
// *os.File can), nothing more is written, and the records from the
// failure on are counted as lost (Lost) instead of ending the run.
type Encoder struct {
	w       io.Writer
	buf     []byte // whole lines not yet written
	pending int    // records in buf
	written int64  // bytes of whole lines the writer took
	records int    // records written
	lost    int    // records not written since err
	err     error  // the first write error
}

// encoderBuffer is how many bytes of lines the encoder gathers before it
// writes them.
const encoderBuffer = 256 << 10

// NewEncoder returns an encoder writing to w through a buffer; call Flush
// when done.
func NewEncoder(w io.Writer) *Encoder {
	return &Encoder{w: w, buf: make([]byte, 0, encoderBuffer+4096)}
}

// Encode appends one record line. After a write error it only counts the
// record as lost and returns that error.
func (e *Encoder) Encode(r *Record) error {
	if e.err != nil {
		e.lost++
		return e.err
	}
	e.buf = AppendJSON(e.buf, r)
	e.buf = append(e.buf, '\n')
	e.pending++
	if len(e.buf) >= encoderBuffer {
		return e.Flush()
	}
	return nil
}

// Flush writes buffered lines to the underlying writer. On its first
// error it cuts the writer back to the last whole line and counts the
// lines it could not write as lost; it then returns that error forever.
func (e *Encoder) Flush() error {
	if e.err != nil || len(e.buf) == 0 {
		return e.err
	}
	n, err := e.w.Write(e.buf)
	if err == nil && n < len(e.buf) {
		err = io.ErrShortWrite
	}
	if err == nil {
		e.written += int64(n)
		e.records += e.pending
		e.buf, e.pending = e.buf[:0], 0
		return nil
	}
	n = min(max(n, 0), len(e.buf))
	whole := bytes.LastIndexByte(e.buf[:n], '\n') + 1
	kept := bytes.Count(e.buf[:whole], []byte{'\n'})
	e.written += int64(whole)
	e.records += kept
	e.lost += e.pending - kept
	e.err = fmt.Errorf("writing records: %w", err)
	if n > whole {
		if cerr := e.cut(); cerr != nil {
			e.err = fmt.Errorf("writing records: %w (and the last line is cut: %v)", err, cerr)
		}
	}
	e.buf, e.pending = e.buf[:0], 0
	return e.err
}

// cut truncates the writer to its whole lines and moves its offset there.
func (e *Encoder) cut() error {
	t, ok := e.w.(interface{ Truncate(size int64) error })
	if !ok {
		return errors.New("the writer cannot be truncated")
	}
	if err := t.Truncate(e.written); err != nil {
		return err
	}
	if s, ok := e.w.(io.Seeker); ok {
		if _, err := s.Seek(e.written, io.SeekStart); err != nil {
			return err
		}
	}
	return nil
}

// Loss says what a write error lost: the records written (whole lines),
// the records not written from the first failure on, and that failure
// (nil, with lost 0, when every record was written).
func (e *Encoder) Loss() (written, lost int, err error) {
	return e.records, e.lost, e.err
}

// AppendJSON appends the JSON object for r (without a newline) to b.
func AppendJSON(b []byte, r *Record) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendUint(b, r.ID, 10)
	b = appendInt(b, "benchmark", int64(r.Benchmark))
	if r.Shard != 0 {
		b = appendInt(b, "shard", int64(r.Shard))
	}
	if r.Warmup {
		b = append(b, `,"warmup":true`...)
	}
	b = append(b, `,"status":"`...)
	b = append(b, r.Status.String()...)
	b = append(b, '"')
	if r.ErrorClass != ErrNone {
		b = appendStr(b, "error_class", string(r.ErrorClass))
	}
	if r.Error != "" {
		b = appendStr(b, "error", r.Error)
	}
	if r.HTTPStatus != 0 {
		b = appendInt(b, "http_status", int64(r.HTTPStatus))
	}
	if r.ResponseID != "" {
		b = appendStr(b, "response_id", r.ResponseID)
	}
	if r.FinishReason != "" {
		b = appendStr(b, "finish_reason", r.FinishReason)
	}
	for _, f := range [...]struct {
		k string
		v int64
	}{
		{"intended_ns", r.Intended}, {"dispatched_ns", r.Dispatched}, {"connected_ns", r.Connected}, {"sent_ns", r.Sent},
		{"headers_ns", r.Headers}, {"first_chunk_ns", r.FirstChunk}, {"first_token_ns", r.FirstToken},
		{"first_output_token_ns", r.FirstOutputToken}, {"last_token_ns", r.LastToken}, {"end_ns", r.End},
	} {
		if f.v != 0 {
			b = appendInt(b, f.k, f.v)
		}
	}
	if len(r.ChunkTimes) > 0 {
		b = appendDeltas(b, "chunk_deltas_ns", r.Dispatched, r.ChunkTimes)
	}
	if len(r.ChunkTokens) > 0 {
		b = append(b, `,"chunk_tokens":[`...)
		for i, n := range r.ChunkTokens {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(n), 10)
		}
		b = append(b, ']')
	}
	if len(r.EmitTimes) > 0 {
		b = appendDeltas(b, "emit_deltas_ns", r.Dispatched, r.EmitTimes)
	}
	b = appendInt(b, "iterations", int64(r.Iterations))
	if r.ConnReused {
		b = append(b, `,"conn_reused":true`...)
	}
	if r.RxKernel {
		b = appendStr(b, "rx_timestamps", "kernel")
	}
	if r.MaxReadLag != 0 {
		b = appendInt(b, "max_read_lag_ns", r.MaxReadLag)
	}
	b = appendInt(b, "prompt_tokens", int64(r.PromptTokens))
	b = appendInt(b, "output_tokens", int64(r.OutputTokens))
	if r.ReasoningTokens != 0 {
		b = appendInt(b, "reasoning_tokens", int64(r.ReasoningTokens))
	}
	b = appendInt(b, "cached_tokens", int64(r.CachedTokens))
	b = appendStr(b, "output_source", r.OutputSource.String())
	b = appendInt(b, "server_prompt_tokens", int64(r.ServerPromptTokens))
	b = appendInt(b, "server_output_tokens", int64(r.ServerOutputTokens))
	b = appendInt(b, "client_prompt_tokens", int64(r.ClientPromptTokens))
	b = appendInt(b, "client_output_tokens", int64(r.ClientOutputTokens))
	b = appendInt(b, "requested_prompt_tokens", int64(r.RequestedPromptTokens))
	b = appendInt(b, "requested_output_tokens", int64(r.RequestedOutputTokens))
	if r.Model != "" {
		b = appendStr(b, "model", r.Model)
	}
	if r.Target != "" {
		b = appendStr(b, "target", r.Target)
	}
	if r.MediaBytes != 0 {
		b = appendInt(b, "media_bytes", int64(r.MediaBytes))
	}
	if r.AudioSeconds != 0 {
		b = append(b, `,"audio_seconds":`...)
		b = strconv.AppendFloat(b, r.AudioSeconds, 'g', -1, 64)
	}
	if r.Inputs != 0 {
		b = appendInt(b, "inputs", int64(r.Inputs))
	}
	if r.Media != (Media{}) {
		b = appendMedia(b, &r.Media)
	}
	if r.OutputText != "" {
		b = appendStr(b, "output_text", r.OutputText)
	}
	if r.ReasoningText != "" {
		b = appendStr(b, "reasoning_text", r.ReasoningText)
	}
	if s := &r.Session; s.ID != "" {
		b = appendStr(b, "session_id", s.ID)
		b = appendInt(b, "turn_index", int64(s.Turn))
		b = appendInt(b, "session_turns", int64(s.Turns))
		b = appendInt(b, "history_messages", int64(s.HistoryMessages))
		b = appendInt(b, "history_tokens", int64(s.HistoryTokens))
		if s.ToolCalls != 0 {
			b = appendInt(b, "tool_calls", int64(s.ToolCalls))
		}
	}
	if t := &r.ServerTimings; t.Present {
		b = appendServerTimings(b, t)
	}
	return append(b, '}')
}

// appendMedia writes the media figures that are known, with GuideLLM's
// input_metrics names.
func appendMedia(b []byte, m *Media) []byte {
	for _, f := range [...]struct {
		k string
		v int
	}{{"image_count", m.ImageCount}, {"image_pixels", m.ImagePixels}, {"image_bytes", m.ImageBytes},
		{"audio_samples", m.AudioSamples}, {"audio_bytes", m.AudioBytes}, {"video_frames", m.VideoFrames}, {"video_bytes", m.VideoBytes}} {
		if f.v != 0 {
			b = appendInt(b, f.k, int64(f.v))
		}
	}
	if m.VideoSeconds != 0 {
		b = append(b, `,"video_seconds":`...)
		b = strconv.AppendFloat(b, m.VideoSeconds, 'g', -1, 64)
	}
	return b
}

// appendServerTimings writes "server_timings" with the figures known.
func appendServerTimings(b []byte, t *ServerTimings) []byte {
	b = append(b, `,"server_timings":{`...)
	n := len(b)
	for _, f := range [...]struct {
		k string
		v int64
	}{{"prompt_n", int64(t.PromptTokens)}, {"cache_n", int64(t.CachedTokens)}, {"predicted_n", int64(t.PredictedTokens)},
		{"prompt_ns", t.PromptNS}, {"predicted_ns", t.PredictedNS}} {
		if f.v >= 0 {
			b = appendInt(b, f.k, f.v)
		}
	}
	if len(b) > n {
		b = append(b[:n], b[n+1:]...) // the first member's comma
	}
	return append(b, '}')
}

func appendInt(b []byte, k string, v int64) []byte {
	b = append(b, ',', '"')
	b = append(b, k...)
	b = append(b, '"', ':')
	return strconv.AppendInt(b, v, 10)
}

func appendStr(b []byte, k, v string) []byte {
	b = append(b, ',', '"')
	b = append(b, k...)
	b = append(b, '"', ':')
	return AppendJSONString(b, v)
}

func appendDeltas(b []byte, k string, base int64, ts []int64) []byte {
	b = append(b, ',', '"')
	b = append(b, k...)
	b = append(b, `":[`...)
	prev := base
	for i, t := range ts {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, t-prev, 10)
		prev = t
	}
	return append(b, ']')
}

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s as a JSON string literal, escaping as
// encoding/json does (HTML-safe characters are left alone); invalid UTF-8
// becomes U+FFFD.
func AppendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// jsonRecord mirrors the line layout for decoding.
type jsonRecord struct {
	ID                    *uint64 `json:"id"`
	Benchmark             int     `json:"benchmark"`
	Shard                 int     `json:"shard"`
	Warmup                bool    `json:"warmup"`
	Status                string  `json:"status"`
	ErrorClass            string  `json:"error_class"`
	Error                 string  `json:"error"`
	HTTPStatus            int     `json:"http_status"`
	ResponseID            string  `json:"response_id"`
	FinishReason          string  `json:"finish_reason"`
	Intended              int64   `json:"intended_ns"`
	Dispatched            int64   `json:"dispatched_ns"`
	Connected             int64   `json:"connected_ns"`
	Sent                  int64   `json:"sent_ns"`
	Headers               int64   `json:"headers_ns"`
	FirstChunk            int64   `json:"first_chunk_ns"`
	FirstToken            int64   `json:"first_token_ns"`
	FirstOutputToken      int64   `json:"first_output_token_ns"`
	LastToken             int64   `json:"last_token_ns"`
	End                   int64   `json:"end_ns"`
	ChunkDeltas           []int64 `json:"chunk_deltas_ns"`
	ChunkTokens           []int32 `json:"chunk_tokens"`
	EmitDeltas            []int64 `json:"emit_deltas_ns"`
	Iterations            int     `json:"iterations"`
	ConnReused            bool    `json:"conn_reused"`
	RxTimestamps          string  `json:"rx_timestamps"`
	MaxReadLag            int64   `json:"max_read_lag_ns"`
	PromptTokens          int     `json:"prompt_tokens"`
	OutputTokens          int     `json:"output_tokens"`
	ReasoningTokens       int     `json:"reasoning_tokens"`
	CachedTokens          *int    `json:"cached_tokens"`
	OutputSource          string  `json:"output_source"`
	ServerPromptTokens    *int    `json:"server_prompt_tokens"`
	ServerOutputTokens    *int    `json:"server_output_tokens"`
	ClientPromptTokens    *int    `json:"client_prompt_tokens"`
	ClientOutputTokens    *int    `json:"client_output_tokens"`
	RequestedPromptTokens *int    `json:"requested_prompt_tokens"`
	RequestedOutputTokens *int    `json:"requested_output_tokens"`
	Model                 string  `json:"model"`
	Target                string  `json:"target"`
	MediaBytes            int     `json:"media_bytes"`
	AudioSeconds          float64 `json:"audio_seconds"`
	Inputs                int     `json:"inputs"`
	ImageCount            int     `json:"image_count"`
	ImagePixels           int     `json:"image_pixels"`
	ImageBytes            int     `json:"image_bytes"`
	AudioSamples          int     `json:"audio_samples"`
	AudioBytes            int     `json:"audio_bytes"`
	VideoFrames           int     `json:"video_frames"`
	VideoBytes            int     `json:"video_bytes"`
	VideoSeconds          float64 `json:"video_seconds"`
	OutputText            string  `json:"output_text"`
	ReasoningText         string  `json:"reasoning_text"`
	SessionID             string  `json:"session_id"`
	TurnIndex             int     `json:"turn_index"`
	SessionTurns          int     `json:"session_turns"`
	HistoryMessages       int     `json:"history_messages"`
	HistoryTokens         *int    `json:"history_tokens"`
	ToolCalls             int     `json:"tool_calls"`
	ServerTimings         *struct {
		PromptN     *int   `json:"prompt_n"`
		CacheN      *int   `json:"cache_n"`
		PredictedN  *int   `json:"predicted_n"`
		PromptNS    *int64 `json:"prompt_ns"`
		PredictedNS *int64 `json:"predicted_ns"`
	} `json:"server_timings"`
}

// Decoder reads records written by Encoder.
type Decoder struct {
	s    *bufio.Scanner
	name string
	line int
	full *Record // DecodeSpan's record for lines it decodes whole
}

// NewDecoder reads JSON Lines records from r; name labels errors (a path).
func NewDecoder(r io.Reader, name string) *Decoder {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 0, 64<<10), 64<<20)
	return &Decoder{s: s, name: name}
}

// Decode reads the next record into r. It returns io.EOF at the end; other
// errors name the file and line.
func (d *Decoder) Decode(r *Record) error {
	line, err := d.next()
	if err != nil {
		return err
	}
	if err := UnmarshalLine(line, r); err != nil {
		return fmt.Errorf("%s:%d: %w", d.name, d.line, err)
	}
	return nil
}

// next is the next line that is not blank, or io.EOF.
func (d *Decoder) next() ([]byte, error) {
	for d.s.Scan() {
		d.line++
		line := d.s.Bytes()
		if len(line) == 0 || (len(line) == 1 && line[0] == '\r') {
			continue
		}
		return line, nil
	}
	if err := d.s.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", d.name, d.line+1, err)
	}
	return nil, io.EOF
}

// UnmarshalLine decodes one JSON Lines record into r.
func UnmarshalLine(line []byte, r *Record) error {
	var j jsonRecord
	if err := json.Unmarshal(line, &j); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fmt.Errorf("invalid JSON at byte %d: %v", se.Offset, err)
		}
		return fmt.Errorf("invalid record: %v", err)
	}
	if j.ID == nil {
		return errors.New(`invalid record: missing key "id"`)
	}
	st, ok := ParseStatus(j.Status)
	if !ok {
		return fmt.Errorf(`invalid record: key "status" is %q, want successful, errored or incomplete`, j.Status)
	}
	r.Reset()
	r.ID, r.Benchmark, r.Shard, r.Status, r.Warmup = *j.ID, j.Benchmark, j.Shard, st, j.Warmup
	r.ErrorClass, r.Error, r.HTTPStatus = ErrorClass(j.ErrorClass), j.Error, j.HTTPStatus
	r.ResponseID, r.FinishReason = j.ResponseID, j.FinishReason
	r.Intended, r.Dispatched, r.Sent, r.Headers = j.Intended, j.Dispatched, j.Sent, j.Headers
	r.FirstChunk, r.FirstToken, r.FirstOutputToken = j.FirstChunk, j.FirstToken, j.FirstOutputToken
	r.LastToken, r.End = j.LastToken, j.End
	r.Connected, r.ConnReused = j.Connected, j.ConnReused
	r.ChunkTimes = undelta(r.ChunkTimes, r.Dispatched, j.ChunkDeltas)
	r.ChunkTokens = append(r.ChunkTokens, j.ChunkTokens...)
	r.EmitTimes = undelta(r.EmitTimes, r.Dispatched, j.EmitDeltas)
	r.Iterations, r.PromptTokens, r.OutputTokens = j.Iterations, j.PromptTokens, j.OutputTokens
	r.ReasoningTokens = j.ReasoningTokens
	switch j.RxTimestamps {
	case "", "user":
	case "kernel":
		r.RxKernel = true
	default:
		return fmt.Errorf(`invalid record: key "rx_timestamps" is %q, want kernel or user`, j.RxTimestamps)
	}
	r.MaxReadLag = j.MaxReadLag
	r.OutputSource = ParseTokenSource(j.OutputSource)
	setOpt(&r.CachedTokens, j.CachedTokens)
	setOpt(&r.ServerPromptTokens, j.ServerPromptTokens)
	setOpt(&r.ServerOutputTokens, j.ServerOutputTokens)
	setOpt(&r.ClientPromptTokens, j.ClientPromptTokens)
	setOpt(&r.ClientOutputTokens, j.ClientOutputTokens)
	setOpt(&r.RequestedPromptTokens, j.RequestedPromptTokens)
	setOpt(&r.RequestedOutputTokens, j.RequestedOutputTokens)
	r.Model, r.Target, r.Inputs, r.MediaBytes, r.AudioSeconds = j.Model, j.Target, j.Inputs, j.MediaBytes, j.AudioSeconds
	r.Media = Media{ImageCount: j.ImageCount, ImagePixels: j.ImagePixels, ImageBytes: j.ImageBytes, AudioSamples: j.AudioSamples, AudioBytes: j.AudioBytes,
		VideoFrames: j.VideoFrames, VideoBytes: j.VideoBytes, VideoSeconds: j.VideoSeconds}
	r.OutputText, r.ReasoningText = j.OutputText, j.ReasoningText
	if j.SessionID != "" {
		r.Session = Session{ID: j.SessionID, Turn: j.TurnIndex, Turns: j.SessionTurns, HistoryMessages: j.HistoryMessages, HistoryTokens: -1, ToolCalls: j.ToolCalls}
		setOpt(&r.Session.HistoryTokens, j.HistoryTokens)
	}
	if t := j.ServerTimings; t != nil {
		r.ServerTimings = UnknownServerTimings()
		st := &r.ServerTimings
		setOpt(&st.PromptTokens, t.PromptN)
		setOpt(&st.CachedTokens, t.CacheN)
		setOpt(&st.PredictedTokens, t.PredictedN)
		if t.PromptNS != nil {
			st.PromptNS = *t.PromptNS
		}
		if t.PredictedNS != nil {
			st.PredictedNS = *t.PredictedNS
		}
	}
	return nil
}

func setOpt(dst *int, v *int) {
	if v != nil {
		*dst = *v
	}
}

func undelta(dst []int64, base int64, deltas []int64) []int64 {
	t := base
	for _, d := range deltas {
		t += d
		dst = append(dst, t)
	}
	return dst
}
