package dataset

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/tokenize"
)

// Options configures Open.
type Options struct {
	// Tokenizer builds exact synthetic prompts and counts file prompts. Nil:
	// synthetic prompts are approximate (common words) and file prompts
	// have unknown token counts (PromptTokens -1).
	Tokenizer *tokenize.Tokenizer
	// Seed makes synthetic data, shuffling and sampling reproducible.
	Seed uint64
	// Salt, when not 0, changes the text of every synthetic (and trace)
	// prompt and shared prefix, not its length: the same Seed with
	// another Salt sends prompts of the same token counts that share no
	// cache prefix with the unsalted (or differently salted) run's
	// (--prompt-salt). Prefixes shared within the run stay shared.
	Salt uint64
	// Samples limits the requests: the first Samples rows of a file or
	// trace (after shuffling), or a synthetic source that ends after
	// Samples requests. 0 means all rows, or no end.
	Samples int
	// Shuffle shuffles the rows of a data file with Seed.
	Shuffle bool
	// ColumnMapper is a --data-column-mapper value (see ParseColumnMapper);
	// empty means GuideLLM's default column names.
	ColumnMapper string
	// Trace reads a file given by path as a replay trace (timestamp,
	// input_length, output_length, and hash_ids when present), for
	// --rate-type replay. kind=trace_synthetic and kind=mooncake imply it.
	Trace bool
	// TimeScale multiplies the trace's time offsets (0 means 1): 0.5
	// replays twice as fast.
	TimeScale float64
	// TraceStart and TraceEnd replay a window of a trace (AIPerf's
	// --fixed-schedule-start-offset/-end-offset): only the rows whose
	// timestamp, as a time in the trace's unit, lies in [TraceStart,
	// TraceEnd] (TraceEnd 0: no end), sent at their time after
	// TraceStart; with TraceStart 0 the first row kept starts the replay.
	TraceStart, TraceEnd time.Duration
	// PromptOverhead is what the server adds to each prompt (a chat
	// template's tokens, see --chat-template-overhead): exact synthetic
	// prompts are built that much shorter, so that the server bills the
	// requested count (at least one token of content is kept). Other data,
	// and synthetic data without a tokenizer, ignore it.
	PromptOverhead int
	// Session shapes the conversations of a file (think time, tools,
	// turns=N to cap the turns; turns=1 keeps only the first user turn),
	// as the session keys beside path= do (see session.go); AIPerf's
	// --conversation-turn-delay-mean/-stddev map to Delay.
	Session SessionSpec
	// Pooling reads AIPerf's texts records ({"texts": […]}, texts.go) as
	// one pooling request each, for the endpoint's inputs: PoolingInputs
	// (embeddings) or PoolingDocuments (rankings), reqtype.Type.Batch.
	// "" reads them as prompts; other data ignores it.
	Pooling string `json:",omitempty"`
}

// Dataset is an opened --data value.
type Dataset struct {
	// Source hands out the requests. Finite sources (files, traces, a
	// Samples limit) also implement Len() int; synthetic sources without a
	// limit never end.
	Source loadgen.Source
	// Schedule holds a trace's send offsets (relative to the first request,
	// time-scaled), for loadgen.Strategy{Kind: Replay, Schedule: …}; nil
	// for other data.
	Schedule    []time.Duration
	Description Description

	synth   *Synthetic
	limit   int
	columns []Column // a file's or directory's columns, for Inspect
}

// Round returns the source for benchmark r of a sweep. Synthetic prompts get
// markers of their own in every round, so a benchmark never hits the cache
// entries of an earlier one; files and traces replay the same requests.
func (d *Dataset) Round(r int) loadgen.Source {
	if d.synth == nil || r <= 0 {
		return d.Source
	}
	if d.synth.spec.Session.Turns > 0 {
		return d.synth.sessionsOf(uint32(r), d.limit)
	}
	src := d.synth.Round(uint32(r))
	if d.limit > 0 {
		return limited{src, d.limit}
	}
	return src
}

// warmupRound marks the synthetic prompts of a warmup phase: a round no
// benchmark reaches (the probe's is MaxUint32).
const warmupRound = math.MaxUint32 - 1

// Warmup returns the source of a warmup phase run before the benchmarks
// (AIPerf's): synthetic prompts get markers of their own, so the warmup
// does not fill the cache with the measured prompts, and never run out;
// files and traces send their first requests.
func (d *Dataset) Warmup() loadgen.Source {
	switch {
	case d.synth == nil:
		return d.Source
	case d.synth.spec.Session.Turns > 0:
		return d.synth.sessionsOf(warmupRound, 0)
	}
	return d.synth.Round(warmupRound)
}

// ProbeRequest is a request shaped like the exact synthetic data's first
// (its system prefix included) with a marker of its own, for probing the
// server before the run; nil when the data is not exact synthetic prompts.
func (d *Dataset) ProbeRequest() *loadgen.Request {
	if d.synth == nil || !d.synth.exact {
		return nil
	}
	return d.synth.request(math.MaxUint32, 0) // a round no benchmark reaches
}

// limited ends a source after n requests.
type limited struct {
	src loadgen.Source
	n   int
}

func (l limited) Request(i uint64) (*loadgen.Request, bool) {
	if i >= uint64(l.n) {
		return nil, false
	}
	return l.src.Request(i)
}

func (l limited) Len() int { return l.n }

// dataForms is the accepted-forms hint of --data errors.
const dataForms = "want a spec such as prompt_tokens=256,output_tokens=128, a .jsonl, .json, .csv, .txt, .parquet or .arrow file, a dataset directory, or kind=synthetic_text|json_file|csv_file|text_file|parquet_file|arrow_file|huggingface|trace_synthetic|mooncake|weka,…"

// Open opens a --data value:
//
//   - a synthetic spec: prompt_tokens=256,output_tokens=128,… or the JSON
//     object {"prompt_tokens":256,…} (see ParseSpec);
//   - a data file path: .jsonl, .json, .csv or .txt (optionally .gz),
//     .parquet, .arrow or .feather, the type taken from the extension, or
//     sniffed for JSON; with opts.Trace, a replay trace (BurstGPT and Azure
//     traces recognised by their columns);
//   - a local Hugging Face dataset directory (a hub snapshot, save_to_disk,
//     the datasets cache), or a hub id found in the local hub cache;
//   - GuideLLM's v0.7 data objects, flat or JSON: kind=synthetic_text,…;
//     kind=json_file,path=…; kind=csv_file,path=…; kind=text_file,path=…;
//     kind=parquet_file,path=…; kind=arrow_file,path=…;
//     kind=huggingface,source=DIR[,split=…][,name=…]; kind=weka,path=…;
//     kind=trace_synthetic,path=…[,timestamp_column=…,prompt_tokens_column=…,
//     output_tokens_column=…,timestamp_unit=s|ms|us]; and
//     kind=mooncake,path=…[,hash_ids_column=…,hash_id_block_size=512]
//     (the trace kinds count seconds, as GuideLLM does, unless
//     timestamp_unit says otherwise; a plain trace path counts ms).
//
// Errors are one line naming the key, file and line, or column at fault.
func Open(value string, opts Options) (*Dataset, error) {
	d, err := open(value, opts)
	return tokenizerFailed(opts.Tokenizer, d, err)
}

// tokenizerFailed puts a server tokenizer's failure first: what it counted
// after failing is not a count.
func tokenizerFailed(tok *tokenize.Tokenizer, d *Dataset, err error) (*Dataset, error) {
	if tok != nil {
		if terr := tok.Err(); terr != nil {
			return nil, terr
		}
	}
	return d, err
}

func open(value string, opts Options) (*Dataset, error) {
	if opts.Samples < 0 {
		return nil, fmt.Errorf("samples=%d: want a count ≥ 0", opts.Samples)
	}
	if s := opts.TimeScale; s < 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		return nil, fmt.Errorf("time scale %v: want a positive number", s)
	}
	mapper, err := ParseColumnMapper(opts.ColumnMapper)
	if err != nil {
		return nil, fmt.Errorf("--data-column-mapper: %v", err)
	}
	v := strings.TrimSpace(value)
	if v == "" {
		return nil, fmt.Errorf("empty value: %s", dataForms)
	}
	if !strings.HasPrefix(v, "{") {
		fi, err := os.Stat(v)
		switch {
		case err == nil && !fi.IsDir():
			if opts.Trace {
				return openTrace(v, traceArgs{hash: hashAuto, blockSize: DefaultBlockSize}, mapper, opts)
			}
			return openFile(v, "", mapper, opts)
		case err == nil:
			return openDirValue(v, hfArgs{}, mapper, opts)
		case !strings.Contains(v, "="):
			if errors.Is(err, fs.ErrNotExist) {
				if hubID.MatchString(v) && formatOf(v) == "" {
					if snap := hubCache(v); snap != "" {
						return openDirValue(snap, hfArgs{}, mapper, opts)
					}
					return nil, hubError(v)
				}
				return nil, fmt.Errorf("%s: no such file, and not a data spec: %s", v, dataForms)
			}
			return nil, fmt.Errorf("%s: %v", v, errors.Unwrap(err))
		}
	}
	ps, err := parseParams(v)
	if err != nil {
		return nil, err
	}
	kind, err := ps.str("kind")
	if err != nil {
		return nil, err
	}
	switch kind {
	case "", kindSynthetic:
		if opts.Trace {
			return nil, fmt.Errorf("replay needs a trace file (timestamp, input_length, output_length), not synthetic data")
		}
		spec, err := specFromParams(ps)
		if err != nil {
			return nil, err
		}
		return openSynthetic(spec, opts)
	case kindJSON, kindCSV, kindText, kindParquet, kindArrow:
		if err := ps.check(append([]string{"kind", "path"}, sessionKeys...)); err != nil {
			return nil, fmt.Errorf("kind=%s: %v", kind, err)
		}
		if err := fileSessionKeys(kind, ps, &opts); err != nil {
			return nil, err
		}
		path, err := ps.str("path")
		if err != nil || path == "" {
			return nil, fmt.Errorf("kind=%s needs path=FILE", kind)
		}
		if opts.Trace {
			return openTrace(path, traceArgs{hash: hashAuto, blockSize: DefaultBlockSize}, mapper, opts)
		}
		return openFile(path, kind, mapper, opts)
	case kindHF, "hf":
		return openHF(ps, mapper, opts)
	case kindTrace, kindMooncake, kindWeka:
		ta, err := traceParams(kind, ps)
		if err != nil {
			return nil, err
		}
		return openTrace(ta.path, ta, nil, opts)
	}
	return nil, fmt.Errorf("kind=%s is not supported (kinds: %s)", kind, strings.Join([]string{kindSynthetic, kindJSON, kindCSV, kindText,
		kindParquet, kindArrow, kindHF, kindTrace, kindMooncake, kindWeka}, ", "))
}

// openDirValue opens a dataset directory as a data set or, for replay, a
// trace.
func openDirValue(dir string, hf hfArgs, mapper ColumnMapper, opts Options) (*Dataset, error) {
	if !opts.Trace {
		return openDir(dir, hf, nil, mapper, opts)
	}
	ta := traceArgs{hash: hashAuto, blockSize: DefaultBlockSize}
	if err := ta.applyMapper(mapper, opts); err != nil {
		return nil, err
	}
	return openDir(dir, hf, &ta, nil, opts)
}

// openHF opens GuideLLM's kind=huggingface,source=…[,split=…][,name=…]
// [,load_kwargs={"split":…,"name":…}] from a local copy only.
func openHF(ps params, mapper ColumnMapper, opts Options) (*Dataset, error) {
	if err := ps.check(append([]string{"kind", "source", "split", "name", "load_kwargs"}, sessionKeys...)); err != nil {
		return nil, fmt.Errorf("kind=%s: %v", kindHF, err)
	}
	if err := fileSessionKeys(kindHF, ps, &opts); err != nil {
		return nil, err
	}
	var hf hfArgs
	source, err := ps.str("source")
	if err == nil {
		hf.split, err = ps.str("split")
	}
	if err == nil {
		hf.name, err = ps.str("name")
	}
	if err != nil {
		return nil, fmt.Errorf("kind=%s: %v", kindHF, err)
	}
	if source == "" {
		return nil, fmt.Errorf("kind=%s needs source=DIR (a local dataset directory or file)", kindHF)
	}
	if p, ok := ps.get("load_kwargs"); ok {
		kw, err := parseJSONParams(p.val)
		if err != nil {
			return nil, fmt.Errorf(`kind=%s: load_kwargs: want a JSON object such as {"split":"test"}`, kindHF)
		}
		if err := kw.check([]string{"split", "name"}); err != nil {
			return nil, fmt.Errorf("kind=%s: load_kwargs: %v (a local copy takes split and name)", kindHF, err)
		}
		for _, f := range []struct {
			key string
			dst *string
		}{{"split", &hf.split}, {"name", &hf.name}} {
			if v, err := kw.str(f.key); err != nil {
				return nil, fmt.Errorf("kind=%s: load_kwargs: %v", kindHF, err)
			} else if v != "" {
				*f.dst = v
			}
		}
	}
	path, dir, err := localSource(source)
	if err != nil {
		return nil, err
	}
	if dir {
		return openDirValue(path, hf, mapper, opts)
	}
	if hf.split != "" || hf.name != "" {
		return nil, fmt.Errorf("kind=%s: %s is a file: split and name apply to a dataset directory", kindHF, path)
	}
	if opts.Trace {
		return openTrace(path, traceArgs{hash: hashAuto, blockSize: DefaultBlockSize}, mapper, opts)
	}
	return openFile(path, "", mapper, opts)
}

// fileSessionKeys reads the session keys given beside a file or local
// dataset into opts.Session.
func fileSessionKeys(kind string, ps params, opts *Options) error {
	for _, p := range ps {
		if _, err := opts.Session.parseSessionParam(p); err != nil {
			return fmt.Errorf("kind=%s: %v", kind, err)
		}
	}
	if opts.Session.FirstPrompt.Set() || opts.Session.FirstOutput.Set() || opts.Session.Branches != nil || opts.Session.TurnLengths != nil {
		return fmt.Errorf("kind=%s: first_prompt_tokens, first_output_tokens and branches are synthetic keys, as is turn_lengths; a file's turns have their own prompts", kind)
	}
	if err := opts.Session.validate(); err != nil {
		return fmt.Errorf("kind=%s: %v", kind, err)
	}
	return nil
}

// Hash id handling of a trace.
const (
	hashAuto = iota // use hash ids when the column exists
	hashNo
	hashYes
)

// traceArgs are a trace's settings.
type traceArgs struct {
	path      string
	kind      string // the kind=… given; "" for a plain path
	cols      traceColumns
	hash      int
	blockSize int
	unit      string // "" means the layout's (ms, or s for BurstGPT, Azure and weka)
}

// applyMapper takes the trace columns a --data-column-mapper names and
// fills in the defaults.
func (ta *traceArgs) applyMapper(mapper ColumnMapper, opts Options) error {
	if opts.Shuffle {
		return fmt.Errorf("shuffle does not apply to a trace: its order is its timestamps")
	}
	if mapper != nil {
		for role, dst := range map[string]*string{roleTimestamp: &ta.cols.Timestamp, rolePromptCount: &ta.cols.Input, roleOutputCount: &ta.cols.Output} {
			if names := mapper[role]; len(names) > 0 {
				*dst = names[0]
			}
		}
		for role := range mapper {
			if role != roleTimestamp && role != rolePromptCount && role != roleOutputCount {
				return fmt.Errorf("--data-column-mapper: %s does not apply to a trace (roles: %s, %s, %s)", role, roleTimestamp, rolePromptCount, roleOutputCount)
			}
		}
	}
	ta.cols.setDefaults()
	return nil
}

func traceParams(kind string, ps params) (traceArgs, error) {
	ta := traceArgs{hash: hashNo, blockSize: DefaultBlockSize, kind: kind}
	if kind == kindWeka {
		ta.cols = weka.cols
	}
	keys := []string{"kind", "path", "timestamp_column", "prompt_tokens_column", "output_tokens_column", "timestamp_unit"}
	if kind == kindMooncake {
		ta.hash = hashYes
		keys = append(keys, "hash_ids_column", "hash_id_block_size")
	}
	if err := ps.check(keys); err != nil {
		return ta, fmt.Errorf("kind=%s: %v", kind, err)
	}
	for _, f := range []struct {
		key string
		dst *string
	}{{"path", &ta.path}, {"timestamp_column", &ta.cols.Timestamp}, {"prompt_tokens_column", &ta.cols.Input},
		{"output_tokens_column", &ta.cols.Output}, {"hash_ids_column", &ta.cols.HashIDs}, {"timestamp_unit", &ta.unit}} {
		v, err := ps.str(f.key)
		if err != nil {
			return ta, fmt.Errorf("kind=%s: %v", kind, err)
		}
		if v != "" {
			*f.dst = v
		}
	}
	if ta.path == "" {
		return ta, fmt.Errorf("kind=%s needs path=FILE", kind)
	}
	if _, ok := timeUnits[ta.unit]; !ok && ta.unit != "" {
		return ta, fmt.Errorf("kind=%s: timestamp_unit=%s: want s, ms or us", kind, ta.unit)
	}
	if ta.unit == "" {
		// GuideLLM schedules start + time_scale × (timestamp − first) in
		// seconds, whatever the trace kind; a plain trace path keeps
		// Mooncake's and AIPerf's milliseconds.
		ta.unit = "s"
	}
	if p, ok := ps.get("hash_id_block_size"); ok {
		n, err := intParam(p, 1)
		if err != nil {
			return ta, fmt.Errorf("kind=%s: %v", kind, err)
		}
		ta.blockSize = n
	}
	return ta, nil
}

// OpenSynthetic opens synthetic data from a spec built in code (Open
// reads one from a --data value), checked as Open checks it.
func OpenSynthetic(spec Spec, opts Options) (*Dataset, error) {
	if opts.Samples < 0 {
		return nil, fmt.Errorf("samples=%d: want a count ≥ 0", opts.Samples)
	}
	if opts.Trace {
		return nil, fmt.Errorf("replay needs a trace file (timestamp, input_length, output_length), not synthetic data")
	}
	if err := spec.validate(); err != nil {
		return nil, err
	}
	d, err := openSynthetic(spec, opts)
	return tokenizerFailed(opts.Tokenizer, d, err)
}

func openSynthetic(spec Spec, opts Options) (*Dataset, error) {
	if opts.Shuffle {
		return nil, fmt.Errorf("shuffle applies to data files, not to synthetic data")
	}
	var s *Synthetic
	var err error
	if opts.Tokenizer != nil {
		s, err = newExactSynthetic(spec, opts.Tokenizer, opts.Seed, opts.Salt)
		if err != nil {
			return nil, err
		}
		if s, err = s.WithOverhead(opts.PromptOverhead); err != nil {
			return nil, err
		}
	} else {
		if s, err = newSynthetic(spec, approxVocab(), opts.Seed, opts.Salt); err != nil {
			return nil, err
		}
	}
	if s.media, err = spec.Media.pool(opts.Seed); err != nil {
		return nil, err
	}
	d := &Dataset{Source: s, synth: s, limit: opts.Samples}
	if opts.Samples > 0 {
		d.Source = limited{s, opts.Samples}
	}
	if spec.Session.Turns > 0 {
		d.Source = s.sessionsOf(0, opts.Samples)
	}
	desc := Description{Kind: kindSynthetic, Spec: spec.String(), Requests: opts.Samples, Seed: opts.Seed, Salt: opts.Salt,
		Samples: opts.Samples, GuideLLM: spec.guideLLM()}
	desc.setTokenizer(opts.Tokenizer, s.exact)
	desc.PromptOverhead = s.overhead
	desc.PromptTokens, desc.OutputTokens = s.stats(statsCount(opts.Samples, spec.Samples))
	if spec.Session.Turns > 0 {
		desc.Sessions, desc.Requests = opts.Samples, 0
		for i := range uint64(opts.Samples) {
			desc.Requests += s.turnsOf(i)
		}
	}
	d.Description = desc
	return d, nil
}

// statsRequests is how many requests of an unbounded synthetic source the
// description's statistics cover.
const statsRequests = 1000

func statsCount(limit, samples int) int {
	switch {
	case limit > 0:
		return limit
	case samples > 0:
		return samples
	}
	return statsRequests
}

// stats returns the prompt and output token statistics of the first n
// requests (prompt tokens: prefix and join included); with turn_lengths,
// of the first n turns of the sessions in order.
func (s *Synthetic) stats(n int) (prompt, output TokenStats) {
	var ps, os statsAcc
	turns := len(s.spec.Session.TurnLengths)
	for i := range n {
		var d draw
		switch {
		case turns > 0:
			d = s.draw(uint64(i / turns))
			s.turnDraw(&d, uint64(i/turns), i%turns)
			if i%turns > 0 {
				d.prefix = -1 // the system prefix opens the session
			}
		case s.pool != nil:
			d = s.pool[i%len(s.pool)]
		default:
			d = s.draw(uint64(i))
		}
		pt := d.n
		if d.prefix >= 0 {
			pt += s.prefixes[d.prefix].tokens
		}
		ps.add(pt)
		if d.out >= 0 {
			os.add(d.out)
		}
	}
	return ps.stats(), os.stats()
}

func openFile(path, kind string, mapper ColumnMapper, opts Options) (*Dataset, error) {
	fd, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return openFileData(path, kind, fd, mapper, opts)
}

// openFileData builds a file dataset from the file's contents.
func openFileData(path, kind string, fd fileData, mapper ColumnMapper, opts Options) (*Dataset, error) {
	format := fd.format
	switch kind {
	case kindCSV:
		format = formatCSV
	case kindText:
		format = formatText
	case kindParquet:
		format = formatParquet
	case kindArrow:
		format = formatArrow
	case kindJSON:
		if format != formatJSONL {
			format = sniffFormat(fd.data)
		}
	default:
		if format == "" {
			format = sniffFormat(fd.data)
		}
	}
	if format == "" {
		return nil, fmt.Errorf("%s: unknown file type: name it .jsonl, .json, .csv, .txt, .parquet or .arrow, or use kind=json_file|csv_file|text_file|parquet_file|arrow_file,path=…", path)
	}
	t, err := parseTable(path, format, fd.data)
	if err != nil {
		return nil, err
	}
	return tableDataset(t, origin{path: path, format: format, sha256: fd.sha256}, mapper, opts)
}

// origin is where a table was read from, for its description.
type origin struct {
	path, format, sha256 string
	split                string // a Hugging Face directory's split; "" for a file
}

// kind is the GuideLLM data kind of the origin.
func (o origin) kind() string {
	if o.split != "" {
		return kindHF
	}
	return guideLLMFileKind(o.format)
}

// guideLLM is the GuideLLM data object of the origin.
func (o origin) guideLLM() []byte {
	if o.split != "" {
		return []byte(`{"kind":"huggingface","source":` + jsonString(o.path) + `,"load_kwargs":{"split":` + jsonString(o.split) + `}}`)
	}
	return fileObject(o.kind(), o.path)
}

// tableDataset builds a file dataset from a table.
func tableDataset(t *table, src origin, mapper ColumnMapper, opts Options) (*Dataset, error) {
	if opts.Pooling != "" && isTextsTable(t) && len(mapper) == 0 {
		return textsDataset(t, src, opts)
	}
	if (hasTurnColumns(t) && len(mapper[roleText]) == 0) || isMultiTurnTable(t) {
		read := turnRows
		if !hasTurnColumns(t) {
			read = multiTurnRows
		}
		rows, err := read(t)
		if err != nil {
			return nil, err
		}
		return sessionDataset(t, src, selectRows(rows, opts.Shuffle, opts.Seed, opts.Samples), 0, nil, opts)
	}
	mp, err := resolveMapping(t, mapper)
	if err != nil {
		return nil, err
	}
	mp.toolMessages = opts.Session.ToolMessages
	rows, skipped, err := extractRows(t, mp)
	if err != nil {
		return nil, err
	}
	rows = selectRows(rows, opts.Shuffle, opts.Seed, opts.Samples)
	if ss := opts.Session; mp.tools != "" || ss.Turns >= 2 || ss.Delay.Set() || ss.Tools > 0 || ss.ToolsJSON != nil || ss.ServerHistory || ss.clientToolsAsked() || ss.ServerToolTurns != 0 || ss.ServerToolTurnList != nil {
		return sessionDataset(t, src, rows, skipped, mp.columns(), opts)
	}
	reqs := buildRequests(rows, opts.Tokenizer)
	desc := Description{Kind: src.kind(), Path: src.path, Format: src.format, SHA256: src.sha256, Split: src.split,
		Requests: len(reqs), Skipped: skipped, Columns: mp.columns(), Seed: opts.Seed, Shuffle: opts.Shuffle, Samples: opts.Samples}
	desc.GuideLLM = src.guideLLM()
	desc.setTokenizer(opts.Tokenizer, opts.Tokenizer != nil)
	if opts.Tokenizer == nil {
		desc.Counts = countsUnknown
	}
	var ps, os statsAcc
	for _, r := range reqs {
		if r.PromptTokens >= 0 {
			ps.add(r.PromptTokens)
		} else if r.TargetPromptTokens >= 0 {
			ps.add(r.TargetPromptTokens)
		}
		if r.MaxTokens >= 0 {
			os.add(r.MaxTokens)
		}
	}
	desc.PromptTokens, desc.OutputTokens = ps.stats(), os.stats()
	return &Dataset{Source: &List{reqs: reqs}, Description: desc, columns: t.describeColumns()}, nil
}

func guideLLMFileKind(format string) string {
	switch format {
	case formatCSV:
		return kindCSV
	case formatText:
		return kindText
	case formatParquet:
		return kindParquet
	case formatArrow:
		return kindArrow
	}
	return kindJSON
}

func fileObject(kind, path string) []byte {
	return []byte(`{"kind":` + strconv.Quote(kind) + `,"path":` + jsonString(path) + `}`)
}

func openTrace(path string, ta traceArgs, mapper ColumnMapper, opts Options) (*Dataset, error) {
	ta.path = path
	if err := ta.applyMapper(mapper, opts); err != nil {
		return nil, err
	}
	fd, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return openTraceData(path, ta, fd, opts)
}

// openTraceData builds a trace dataset from the file's contents.
func openTraceData(path string, ta traceArgs, fd fileData, opts Options) (*Dataset, error) {
	format := fd.format
	if format == "" || format == formatText {
		format = sniffFormat(fd.data)
	}
	if format == "" {
		return nil, fmt.Errorf("%s: unknown trace file type: want JSON Lines (.jsonl), JSON, CSV, Parquet or Arrow", path)
	}
	t, err := parseTable(path, format, fd.data)
	if err != nil {
		return nil, err
	}
	return traceDataset(t, ta, origin{path: path, format: format, sha256: fd.sha256}, opts)
}

// traceDataset builds a trace dataset from a table.
func traceDataset(t *table, ta traceArgs, src origin, opts Options) (*Dataset, error) {
	useHash := ta.hash == hashYes
	if ta.hash == hashAuto {
		_, useHash = t.index[ta.cols.HashIDs]
	}
	// A published trace's columns, when the default ones are absent.
	layout, known := detectLayout(t, ta.cols)
	if known {
		ta.cols = layout.cols
		if ta.unit == "" {
			ta.unit = layout.unit
		}
	}
	if ta.unit == "" {
		ta.unit = "ms"
	}
	// AIPerf's mooncake_trace makes output_length optional (no max_tokens
	// sent); GuideLLM's trace kinds require it.
	rows, skipped, err := readTrace(t, ta.cols, useHash, ta.blockSize, timeUnits[ta.unit], layout.skipZero, ta.kind == "")
	if err != nil {
		return nil, err
	}
	origin := rows[0].ts
	if opts.TraceStart > 0 || opts.TraceEnd > 0 {
		if rows, origin, err = traceWindow(rows, timeUnits[ta.unit], opts.TraceStart, opts.TraceEnd); err != nil {
			return nil, fmt.Errorf("%s: %v", src.path, err)
		}
	}
	if opts.Samples > 0 && opts.Samples < len(rows) {
		rows = rows[:opts.Samples]
	}
	tr, err := newTrace(rows, useHash, ta.blockSize, opts)
	if err != nil {
		return nil, err
	}
	scale := opts.TimeScale
	if scale == 0 {
		scale = 1
	}
	sched := tr.schedule(origin, timeUnits[ta.unit], scale)
	kind := kindTrace
	switch {
	case useHash:
		kind = kindMooncake
	case ta.kind == kindWeka:
		kind = kindWeka
	}
	desc := Description{Kind: kind, Path: src.path, Format: src.format, SHA256: src.sha256, Split: src.split, Requests: len(rows), Skipped: skipped, Seed: opts.Seed, Salt: opts.Salt,
		Samples: opts.Samples, TimestampUnit: ta.unit, TimeScale: scale, Span: sched[len(sched)-1],
		Columns: map[string]string{roleTimestamp: ta.cols.Timestamp, rolePromptCount: ta.cols.Input, roleOutputCount: ta.cols.Output}}
	if useHash {
		desc.BlockSize = ta.blockSize
		desc.Columns["hash_ids_column"] = ta.cols.HashIDs
	}
	desc.GuideLLM = traceObject(kind, src.path, ta, useHash)
	desc.setTokenizer(opts.Tokenizer, tr.exact)
	var ps, os statsAcc
	for _, r := range rows {
		ps.add(r.in)
		os.add(r.out)
	}
	desc.PromptTokens, desc.OutputTokens = ps.stats(), os.stats()
	if col := sessionColumn(t); col != "" {
		l, starts, err := traceSessions(t, col, rows, tr, sched)
		if err != nil {
			return nil, err
		}
		desc.Sessions, desc.Columns["session_column"] = len(l.list), col
		return &Dataset{Source: l, Schedule: starts, Description: desc, columns: t.describeColumns()}, nil
	}
	return &Dataset{Source: tr, Schedule: sched, Description: desc, columns: t.describeColumns()}, nil
}

// newTrace prepares the prompt generator for rows and, in exact mode,
// re-encodes the first, last and longest prompts.
func newTrace(rows []traceRow, useHash bool, blockSize int, opts Options) (*Trace, error) {
	v := approxVocab()
	if opts.Tokenizer != nil {
		var err error
		if v, err = newExactVocab(opts.Tokenizer, false); err != nil {
			return nil, err
		}
	}
	longest, li := 0, 0
	for i, r := range rows {
		if r.in > longest {
			longest, li = r.in, i
		}
	}
	need := longest
	if useHash {
		need = blockSize
	}
	tr := &Trace{rows: rows, exact: opts.Tokenizer != nil, seed: opts.Seed, gen: newTextGen(v, need+bodySpread, opts.Seed)}
	tr.gen.salt = opts.Salt
	if useHash {
		tr.blockSize = blockSize
	}
	if err := tr.gen.verifyBody(); err != nil {
		return nil, err
	}
	for _, i := range []int{0, len(rows) - 1, li} {
		if err := tr.Check(uint64(i)); err != nil {
			return nil, err
		}
	}
	return tr, nil
}

// Check re-encodes request i and compares its count with input_length
// (exact mode; approximate traces always pass).
func (t *Trace) Check(i uint64) error {
	if !t.exact {
		return nil
	}
	r, ok := t.Request(i)
	if !ok {
		return fmt.Errorf("trace request %d: out of range", i)
	}
	tok := t.gen.v.tok
	if got := tok.Count(r.Text()); got != r.PromptTokens {
		return fmt.Errorf("tokenizer %s: trace request %d (line %d) encodes to %d tokens, not %d", tok.Name(), i, t.rows[i].line, got, r.PromptTokens)
	}
	return nil
}

func traceObject(kind, path string, ta traceArgs, useHash bool) []byte {
	s := `{"kind":` + strconv.Quote(kind) + `,"path":` + jsonString(path) +
		`,"timestamp_column":` + jsonString(ta.cols.Timestamp) +
		`,"prompt_tokens_column":` + jsonString(ta.cols.Input) +
		`,"output_tokens_column":` + jsonString(ta.cols.Output)
	if useHash {
		s += `,"hash_ids_column":` + jsonString(ta.cols.HashIDs) + `,"hash_id_block_size":` + strconv.Itoa(ta.blockSize)
	}
	if ta.unit != "s" {
		// GuideLLM reads timestamps in seconds; say when these are not.
		s += `,"timestamp_unit":` + strconv.Quote(ta.unit)
	}
	return []byte(s + "}")
}
