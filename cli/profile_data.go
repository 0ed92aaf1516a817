package cli

import (
	"slices"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/dataset"
	"github.com/goodput-dev/goodput/reqtype"
)

// dataSpec reads the sequence lengths into the synthetic data spec.
func (po *profileOptions) dataSpec(fs *pflag.FlagSet, p *draft) error {
	oslGiven := fs != nil && changedAlias(fs, oslFlags) != ""
	switch {
	case po.isl < 1:
		return Usagef("--%s %d: want a token count ≥ 1", usedAlias(fs, islFlags), po.isl)
	case po.islStddev < 0:
		return Usagef("--%s %d: want a token count ≥ 0", usedAlias(fs, islStddevFlags), po.islStddev)
	case po.osl < 0 || (oslGiven && po.osl == 0):
		return Usagef("--%s %d: want a token count ≥ 1 (leave it out to let the server decide)", usedAlias(fs, oslFlags), po.osl)
	case po.oslStddev < 0:
		return Usagef("--%s %d: want a token count ≥ 0", usedAlias(fs, oslStddevFlags), po.oslStddev)
	}
	if po.oslStddev > 0 && po.osl == 0 {
		return Usagef("--osl-stddev needs --osl")
	}
	if po.seqDist != "" && po.inputFile != "" {
		return Usagef("--sequence-distribution shapes synthetic prompts, not --input-file")
	}
	if err := po.inputData(fs); err != nil || po.inputFile != "" {
		p.Data.Value = po.inputFile
		if err == nil {
			err = po.conversation(fs, nil)
		}
		return err
	}
	spec := &dataset.Spec{Prompt: dataset.Dist{Mean: po.isl, Stdev: po.islStddev}}
	if po.osl > 0 {
		spec.Output = dataset.Dist{Mean: po.osl, Stdev: po.oslStddev}
	}
	if po.seqDist != "" {
		flag := "--" + usedAlias(fs, []string{"sequence-distribution", "seq-dist"})
		if f := changedAlias(fs, slices.Concat(islFlags, islStddevFlags, oslFlags, oslStddevFlags)); f != "" {
			return Usagef("%s and --%s: give one (the distribution sets both lengths of every request)", flag, f)
		}
		mix, err := dataset.ParseSequenceDistribution(po.seqDist)
		if err != nil {
			return Usagef("%s %s", flag, oneLineErr(err))
		}
		spec = &dataset.Spec{Mix: mix}
	}
	if err := po.prefixes(fs, spec); err != nil {
		return err
	}
	if err := po.media(fs, spec); err != nil {
		return err
	}
	if err := po.conversation(fs, spec); err != nil {
		return err
	}
	if po.numEntries < 0 {
		return Usagef("--%s %d: want a number of prompts ≥ 1", usedAlias(fs, []string{"num-dataset-entries", "num-prompts"}), po.numEntries)
	}
	spec.Samples = po.numEntries
	if err := po.video(fs, spec); err != nil {
		return err
	}
	p.Data.Synthetic = spec
	return nil
}

// profileType selects the request types goodput profile takes.
func profileType(t *reqtype.Type) bool { return t.Profile }

// endpointTypeHelp is --endpoint-type's help: AIPerf's name of each type
// profile takes, with its path.
func endpointTypeHelp() string {
	return reqtype.Names(profileType, func(t *reqtype.Type) string {
		if t.Vendor != "" {
			return t.AIPerf + " (" + t.Vendor + " " + t.Path + ")"
		}
		return t.AIPerf + " (" + t.Path + ")"
	}, "or")
}

// pooling reads the inputs per embeddings or rankings request (AIPerf's
// --batch-size and --rankings-passages-mean: benchmark's --batch-size) and
// the rankings lengths (the synthetic prompt length: goodput draws a
// rankings query and its passages from the same synthetic prompts).
func (po *profileOptions) pooling(fs *pflag.FlagSet, p *draft) error {
	ep, _ := p.Client.Endpoint.Type()
	rerank := ep.Batch == "documents"
	changed := func(n string) bool { return fs != nil && fs.Changed(n) }
	batch := usedAlias(fs, batchFlags)
	switch {
	case po.batchSize < 1:
		return Usagef("--%s %d: want a number of inputs ≥ 1", batch, po.batchSize)
	case po.batchSize > 1 && ep.Batch == "":
		return Usagef("--%s %d: applies to --endpoint-type %s (not %s)", batch, po.batchSize,
			reqtype.Names(func(t *reqtype.Type) bool { return t.Profile && t.Batch != "" }, func(t *reqtype.Type) string { return t.AIPerf }, "and"), po.endpointType)
	}
	n := po.batchSize
	for _, f := range []string{"rankings-passages-mean", "rankings-passages-stddev", "rankings-passages-prompt-token-mean",
		"rankings-passages-prompt-token-stddev", "rankings-query-prompt-token-mean", "rankings-query-prompt-token-stddev"} {
		if changed(f) && !rerank {
			return Usagef("--%s: applies to --endpoint-type %s", f,
				reqtype.Names(func(t *reqtype.Type) bool { return t.Profile && t.Batch == "documents" }, func(t *reqtype.Type) string { return t.AIPerf }, "and"))
		}
	}
	if changed("rankings-passages-mean") {
		switch {
		case po.passages < 1:
			return Usagef("--rankings-passages-mean %d: want a number of passages ≥ 1", po.passages)
		case changedAlias(fs, batchFlags) != "" && po.batchSize != po.passages:
			return Usagef("--%s %d and --rankings-passages-mean %d: give one number of passages", batch, po.batchSize, po.passages)
		}
		n = po.passages
	}
	if po.passagesStddev != 0 {
		return Usagef("--rankings-passages-stddev %d: not supported: every rankings request of goodput has --rankings-passages-mean passages (give 0)", po.passagesStddev)
	}
	if changed("rankings-passages-prompt-token-mean") || changed("rankings-passages-prompt-token-stddev") ||
		changed("rankings-query-prompt-token-mean") || changed("rankings-query-prompt-token-stddev") {
		switch {
		case po.passageTokens < 1 || po.passageStddev < 0:
			return Usagef("--rankings-passages-prompt-token-mean %d, -stddev %d: want a token count ≥ 1 and a deviation ≥ 0", po.passageTokens, po.passageStddev)
		case po.queryTokens != po.passageTokens || po.queryStddev != po.passageStddev:
			return Usagef("--rankings-query-prompt-token-mean %d (stddev %d) and --rankings-passages-prompt-token-mean %d (stddev %d): goodput draws the query and the passages from the same synthetic prompts: give them the same length",
				po.queryTokens, po.queryStddev, po.passageTokens, po.passageStddev)
		case p.Data.Synthetic == nil:
			return Usagef("--rankings-passages-prompt-token-mean: shapes synthetic prompts, not --input-file")
		case changedAlias(fs, islFlags) != "" && (po.isl != po.passageTokens || po.islStddev != po.passageStddev):
			return Usagef("--%s %d and --rankings-passages-prompt-token-mean %d: give one prompt length", usedAlias(fs, islFlags), po.isl, po.passageTokens)
		}
		p.Data.Synthetic.Prompt = dataset.Dist{Mean: po.passageTokens, Stdev: po.passageStddev}
	}
	p.Client.BatchSize = n
	return nil
}

// videoBatchFlags are AIPerf's spellings of the videos per request.
var videoBatchFlags = []string{"video-batch-size", "batch-size-video"}

// videoFlags are the flags that shape the synthetic video.
var videoFlags = append([]string{"video-width", "video-height", "video-fps", "video-duration"}, videoBatchFlags...)

// video reads AIPerf's --video-* flags into the synthetic spec's video
// (dataset.MediaSpec's video_* keys): as in AIPerf, a video is sent only
// when both its width and height are given.
func (po *profileOptions) video(fs *pflag.FlagSet, spec *dataset.Spec) error {
	if po.videoWidth == 0 && po.videoHeight == 0 {
		if fs != nil {
			if n := changedAlias(fs, videoFlags); n != "" {
				return Usagef("--%s needs --video-width and --video-height (AIPerf sends no video without them)", n)
			}
		}
		return nil
	}
	if po.videoWidth <= 0 || po.videoHeight <= 0 {
		return Usagef("--video-width %d --video-height %d: give both, in pixels", po.videoWidth, po.videoHeight)
	}
	if po.videoBatch < 1 || po.videoFPS < 1 || !(po.videoDuration > 0) {
		return Usagef("--%s %d, --video-fps %d, --video-duration %g: want at least 1 video, 1 frame a second and a length above 0",
			usedAlias(fs, videoBatchFlags), po.videoBatch, po.videoFPS, po.videoDuration)
	}
	spec.Media.VideoWidth, spec.Media.VideoHeight, spec.Media.VideoFPS = po.videoWidth, po.videoHeight, po.videoFPS
	spec.Media.VideoSeconds, spec.Media.VideoCount = po.videoDuration, po.videoBatch
	// The spec's own checks (sizes, frame counts), with its keys' names.
	if _, err := dataset.ParseSpec(spec.String()); err != nil {
		return Usagef("--video-*: %v", err)
	}
	return nil
}

// prefixes reads AIPerf's prefix prompts into the synthetic spec's shared
// system prefixes: a pool of --prefix-prompt-pool-size prefixes of
// --prefix-prompt-length tokens, or one --shared-system-prompt-length
// system prompt. (AIPerf puts a pool prefix at the start of the user
// prompt and picks one at random; goodput sends it as the system message
// and uses prefix i mod N: the same shared tokens for the server's cache.)
func (po *profileOptions) prefixes(fs *pflag.FlagSet, spec *dataset.Spec) error {
	pool, length := usedAlias(fs, prefixPoolFlags), usedAlias(fs, prefixLengthFlags)
	switch {
	case po.prefixPool < 0:
		return Usagef("--%s %d: want a number of prefixes ≥ 0", pool, po.prefixPool)
	case po.prefixLength < 0:
		return Usagef("--%s %d: want a token count ≥ 0", length, po.prefixLength)
	case po.sharedSystemPrompt < 0:
		return Usagef("--shared-system-prompt-length %d: want a token count ≥ 1", po.sharedSystemPrompt)
	case po.sharedSystemPrompt > 0 && (po.prefixPool > 0 || po.prefixLength > 0):
		return Usagef("--shared-system-prompt-length and --%s/--%s are mutually exclusive (as in AIPerf)", pool, length)
	case po.prefixPool > 0 && po.prefixLength == 0:
		return Usagef("--%s %d needs --%s (tokens of each prefix)", pool, po.prefixPool, length)
	case po.sharedSystemPrompt > 0:
		spec.PrefixCount, spec.PrefixTokens = 1, po.sharedSystemPrompt
	case po.prefixPool > 0:
		spec.PrefixCount, spec.PrefixTokens = po.prefixPool, po.prefixLength
	}
	return nil
}

// aiperfTraceTypes are the --custom-dataset-type values read as traces.
var aiperfTraceTypes = []string{"mooncake_trace", "burst_gpt_trace"}

// inputData checks --input-file and the flags that go with it.
func (po *profileOptions) inputData(fs *pflag.FlagSet) error {
	switch po.datasetType {
	case "", "single_turn", "multi_turn", "mooncake_trace", "burst_gpt_trace":
	case "random_pool":
		return Usagef("--custom-dataset-type random_pool: a directory of prompt pools is not supported (single_turn or multi_turn JSON Lines)")
	case "dag_jsonl":
		return Usagef("--custom-dataset-type dag_jsonl: AIPerf's DAG conversations (sub-agents as graph nodes) are not supported: multi_turn records, or goodput benchmark's synthetic branches")
	case "bailian_trace", "baseten_trace", "weka_trace":
		return Usagef("--custom-dataset-type %s: not supported (traces: mooncake_trace, burst_gpt_trace)", po.datasetType)
	default:
		return Usagef("--custom-dataset-type %q: goodput profile reads single_turn, multi_turn, mooncake_trace and burst_gpt_trace", po.datasetType)
	}
	trace := slices.Contains(aiperfTraceTypes, po.datasetType)
	switch {
	case po.datasetType != "" && po.inputFile == "":
		return Usagef("--custom-dataset-type needs --input-file")
	case po.fixedSchedule && po.noFixedSchedule:
		return Usagef("--fixed-schedule and --no-fixed-schedule are mutually exclusive")
	case po.fixedSchedule && !trace:
		return Usagef("--fixed-schedule needs a timestamped trace: --input-file FILE --custom-dataset-type mooncake_trace or burst_gpt_trace")
	case po.autoOffset && (!trace || po.noFixedSchedule):
		return Usagef("--fixed-schedule-auto-offset applies to a replayed trace (--custom-dataset-type mooncake_trace or burst_gpt_trace)")
	case po.scheduleStart < 0 || po.scheduleEnd < 0:
		return Usagef("--fixed-schedule-start-offset and --fixed-schedule-end-offset: want milliseconds ≥ 0")
	case (po.scheduleStart > 0 || po.scheduleEnd > 0) && (!trace || po.noFixedSchedule):
		return Usagef("--fixed-schedule-start-offset and --fixed-schedule-end-offset apply to a replayed trace (--custom-dataset-type mooncake_trace or burst_gpt_trace)")
	case po.scheduleEnd > 0 && po.scheduleEnd < po.scheduleStart:
		return Usagef("--fixed-schedule-end-offset %d is before --fixed-schedule-start-offset %d", po.scheduleEnd, po.scheduleStart)
	case po.noFixedSchedule && !trace:
		return Usagef("--no-fixed-schedule applies to a trace (--custom-dataset-type mooncake_trace or burst_gpt_trace)")
	case po.sampling != "sequential" && po.sampling != "shuffle" && po.sampling != "random":
		return Usagef("--dataset-sampling-strategy %q: want sequential or shuffle", po.sampling)
	case po.sampling == "random":
		return Usagef("--dataset-sampling-strategy random: sampling with replacement is not supported (sequential or shuffle)")
	case po.sampling == "shuffle" && po.inputFile == "":
		return Usagef("--dataset-sampling-strategy shuffle: needs --input-file (synthetic prompts are random already)")
	case po.sampling == "shuffle" && trace && !po.noFixedSchedule:
		return Usagef("--dataset-sampling-strategy shuffle: a replayed trace keeps its order (add --no-fixed-schedule)")
	}
	if po.inputFile == "" {
		return nil
	}
	if fs != nil {
		for _, group := range [][]string{islFlags, islStddevFlags, oslFlags, oslStddevFlags, prefixPoolFlags, prefixLengthFlags,
			{"shared-system-prompt-length"}, {"num-dataset-entries", "num-prompts"}, mediaFlagNames, videoFlags} {
			if n := changedAlias(fs, group); n != "" {
				return Usagef("--%s: shapes synthetic prompts, not --input-file", n)
			}
		}
	}
	return nil
}

// replay reports whether the run replays a trace on its timestamps:
// AIPerf's fixed schedule, the default for timestamped traces.
func (po *profileOptions) replay() bool {
	return slices.Contains(aiperfTraceTypes, po.datasetType) && !po.noFixedSchedule
}
