package cli

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/dataset"
)

// conversationFlags registers AIPerf's conversation flags (synthetic
// sessions: turns=N and the think time between turns).
func conversationFlags(po *profileOptions, fs *pflag.FlagSet) {
	for _, n := range conversationNumFlags {
		fs.IntVar(&po.conversations, n, 0, "conversations per benchmark, each sent once (the synthetic data's sessions; aliases --num-conversations, --num-sessions)")
	}
	for _, n := range turnFlags {
		fs.IntVar(&po.turns, n, 1, "turns of each synthetic conversation, the history sent with each turn (synthetic turns=N; alias --session-turns-mean)")
	}
	for _, n := range turnStddevFlags {
		fs.IntVar(&po.turnsStddev, n, 0, "standard deviation of the turns per synthetic conversation: each draws its count from a normal distribution, at least 1 (synthetic turns_stdev)")
	}
	for _, n := range turnDelayFlags {
		fs.Float64Var(&po.turnDelay, n, 0, "think time in milliseconds before each later turn (synthetic delay, in seconds; for --input-file, the turns without a delay of their own)")
	}
	for _, n := range turnDelayStddevFlags {
		fs.Float64Var(&po.turnDelayStddev, n, 0, "standard deviation of the think time in milliseconds (synthetic delay_stdev)")
	}
	for _, n := range turnDelayRatioFlags {
		fs.Float64Var(&po.turnDelayRatio, n, 1, "multiplies the think time of --conversation-turn-delay-mean and -stddev (0: no think time)")
	}
	fs.StringVar(&po.sessionHeader, "session-header", "", "send each conversation's stable id in this header (e.g. x-session-id), for session-affinity routers (benchmark's --session-header)")
	fs.IntVar(&po.userContext, "user-context-prompt-length", 0, "tokens of a context prompt per dataset entry, sent as its system message (synthetic prefix_count=--num-dataset-entries, prefix_tokens=N)")
}

var (
	conversationNumFlags = []string{"conversation-num", "num-conversations", "num-sessions"}
	turnFlags            = []string{"conversation-turn-mean", "session-turns-mean"}
	turnStddevFlags      = []string{"conversation-turn-stddev", "session-turns-stddev"}
	turnDelayFlags       = []string{"conversation-turn-delay-mean", "session-turn-delay-mean"}
	turnDelayStddevFlags = []string{"conversation-turn-delay-stddev", "session-turn-delay-stddev"}
	turnDelayRatioFlags  = []string{"conversation-turn-delay-ratio", "session-delay-ratio"}
)

// conversations reads AIPerf's conversation flags: synthetic sessions
// into spec (nil for an --input-file, whose records are the
// conversations: then only the think time of turns without a delay of
// their own applies, in po.fileSession).
func (po *profileOptions) conversation(fs *pflag.FlagSet, spec *dataset.Spec) error {
	given := func(names []string) bool { return fs != nil && changedAlias(fs, names) != "" }
	delayGiven := given(turnDelayFlags) || given(turnDelayStddevFlags) || given(turnDelayRatioFlags)
	switch {
	case po.conversations < 0:
		return Usagef("--%s %d: want a number of conversations ≥ 1", usedAlias(fs, conversationNumFlags), po.conversations)
	case po.turns < 1 || po.turns > 1024:
		return Usagef("--%s %d: want 1 to 1024 turns", usedAlias(fs, turnFlags), po.turns)
	case po.turnsStddev < 0:
		return Usagef("--%s %d: want a turn count ≥ 0", usedAlias(fs, turnStddevFlags), po.turnsStddev)
	case po.turnsStddev > 0 && po.turns < 2:
		return Usagef("--%s %d: varies the turns of conversations: give --conversation-turn-mean ≥ 2", usedAlias(fs, turnStddevFlags), po.turnsStddev)
	}
	for _, d := range []struct {
		flags []string
		v     float64
	}{{turnDelayFlags, po.turnDelay}, {turnDelayStddevFlags, po.turnDelayStddev}, {turnDelayRatioFlags, po.turnDelayRatio}} {
		if d.v < 0 || math.IsNaN(d.v) || math.IsInf(d.v, 0) || d.v*max(1, po.turnDelayRatio) > 86_400_000 {
			return Usagef("--%s %v: want a number ≥ 0 (think times in milliseconds, at most a day)", usedAlias(fs, d.flags), d.v)
		}
	}
	delay := dataset.DelayDist{Mean: po.turnDelay * po.turnDelayRatio / 1000, Stdev: po.turnDelayStddev * po.turnDelayRatio / 1000}
	if spec == nil {
		switch {
		case po.conversations > 0 || po.turns > 1 || po.userContext > 0:
			n := usedAlias(fs, conversationNumFlags)
			if po.turns > 1 {
				n = usedAlias(fs, turnFlags)
			} else if po.userContext > 0 {
				n = "user-context-prompt-length"
			}
			return Usagef("--%s: shapes synthetic conversations; an --input-file's records are its conversations", n)
		case delayGiven && slices.Contains(aiperfTraceTypes, po.datasetType):
			return Usagef("--conversation-turn-delay-mean: a trace's turns are due at its timestamps")
		case delayGiven && po.turnDelayRatio != 1:
			return Usagef("--conversation-turn-delay-ratio %v: not supported with --input-file: goodput does not scale the file's own delays", po.turnDelayRatio)
		}
		po.fileSession.Delay = delay
		return nil
	}
	if delayGiven && po.turns < 2 && delay.Set() {
		return Usagef("--%s: think time is between turns: give --conversation-turn-mean ≥ 2", usedAlias(fs, turnDelayFlags))
	}
	if po.turns > 1 {
		spec.Session.Turns, spec.Session.TurnsStdev, spec.Session.Delay = po.turns, po.turnsStddev, delay
	}
	if po.userContext != 0 {
		switch {
		case po.userContext < 0:
			return Usagef("--user-context-prompt-length %d: want a token count ≥ 1", po.userContext)
		case po.numEntries == 0:
			return Usagef("--user-context-prompt-length needs --num-dataset-entries (one context prompt per entry, as in AIPerf)")
		case spec.PrefixCount > 0:
			return Usagef("--user-context-prompt-length and --shared-system-prompt-length/--prefix-prompt-length: give one (goodput sends one system prefix per request)")
		}
		spec.PrefixCount, spec.PrefixTokens = po.numEntries, po.userContext
	}
	return nil
}

// mediaFlags registers AIPerf's synthetic image, audio and video flags
// (the synthetic data's image_*, audio_* and video_* keys).
func mediaFlags(po *profileOptions, fs *pflag.FlagSet) {
	fs.Float64Var(&po.imageWidth, "image-width-mean", 0, "width in pixels of the synthetic images sent with each request (with --image-height-mean; synthetic image_width)")
	fs.Float64Var(&po.imageWidthStddev, "image-width-stddev", 0, "0 only: goodput's synthetic images all have one size")
	fs.Float64Var(&po.imageHeight, "image-height-mean", 0, "height in pixels of the synthetic images (synthetic image_height)")
	fs.Float64Var(&po.imageHeightStddev, "image-height-stddev", 0, "0 only: goodput's synthetic images all have one size")
	for _, n := range []string{"image-batch-size", "batch-size-image"} {
		fs.IntVar(&po.imageBatch, n, 1, "images per request when --image-width-mean and --image-height-mean are given; 0: none (synthetic image_count; alias --batch-size-image)")
	}
	fs.StringVar(&po.imageFormat, "image-format", "png", "png or jpeg (synthetic image_format)")
	for _, n := range []string{"audio-batch-size", "batch-size-audio"} {
		fs.IntVar(&po.audioBatch, n, 1, "audio clips per request when --audio-length-mean is given; 0: none (synthetic audio_count; alias --batch-size-audio)")
	}
	fs.Float64Var(&po.audioLength, "audio-length-mean", 0, "seconds of each synthetic audio clip, a whole number (synthetic audio_seconds)")
	fs.Float64Var(&po.audioLengthStddev, "audio-length-stddev", 0, "0 only: goodput's synthetic clips all have one length")
	fs.StringVar(&po.audioFormat, "audio-format", "wav", "wav only (16-bit PCM)")
	fs.Var(listValue{&po.audioDepths}, "audio-depths", "16 only: goodput's clips are 16-bit PCM")
	fs.Var(listValue{&po.audioRates}, "audio-sample-rates", "the clips' sample rate in kHz, one value (default 16; synthetic audio_sample_rate)")
	fs.IntVar(&po.audioChannels, "audio-num-channels", 1, "1 only: goodput's clips are mono")
	fs.IntVar(&po.videoWidth, "video-width", 0, "synthetic video in every request (with --video-height): frame width in pixels; a Motion-JPEG AVI sent as a video_url part (chat)")
	fs.IntVar(&po.videoHeight, "video-height", 0, "synthetic video frame height in pixels (with --video-width)")
	fs.IntVar(&po.videoFPS, "video-fps", 4, "synthetic video frames per second")
	fs.Float64Var(&po.videoDuration, "video-duration", 5, "synthetic video length in seconds")
	for _, n := range videoBatchFlags {
		fs.IntVar(&po.videoBatch, n, 1, "synthetic videos per request (alias --batch-size-video)")
	}
}

// mediaFlagNames are the flags mediaFlags registers, for messages.
var mediaFlagNames = []string{"image-width-mean", "image-width-stddev", "image-height-mean", "image-height-stddev", "image-batch-size", "batch-size-image",
	"image-format", "audio-batch-size", "batch-size-audio", "audio-length-mean", "audio-length-stddev", "audio-format", "audio-depths", "audio-sample-rates", "audio-num-channels"}

// media reads AIPerf's image and audio flags into the synthetic spec.
// AIPerf draws sizes and lengths from a normal distribution; goodput's
// synthetic media have one size and length, so a nonzero stddev is
// refused, as are the encodings goodput does not write (mp3, other bit
// depths, stereo, several sample rates).
func (po *profileOptions) media(fs *pflag.FlagSet, spec *dataset.Spec) error {
	changed := func(n string) bool { return fs != nil && fs.Changed(n) }
	whole := func(flag string, v float64, limit int) (int, error) {
		if v < 0 || v != math.Trunc(v) || v > float64(limit) {
			return 0, Usagef("--%s %v: want a whole number from 0 to %d", flag, v, limit)
		}
		return int(v), nil
	}
	for _, sd := range []struct {
		flag, why string
		v         float64
	}{{"image-width-stddev", "images all have one size", po.imageWidthStddev}, {"image-height-stddev", "images all have one size", po.imageHeightStddev},
		{"audio-length-stddev", "clips all have one length", po.audioLengthStddev}} {
		if sd.v != 0 {
			return Usagef("--%s %v: not supported: goodput's synthetic %s (give 0)", sd.flag, sd.v, sd.why)
		}
	}
	w, err := whole("image-width-mean", po.imageWidth, 8192)
	if err != nil {
		return err
	}
	h, err := whole("image-height-mean", po.imageHeight, 8192)
	if err != nil {
		return err
	}
	switch {
	case (w > 0) != (h > 0):
		return Usagef("--image-width-mean and --image-height-mean: give both, e.g. 512 and 512")
	case po.imageBatch < 0 || po.imageBatch > 16:
		return Usagef("--image-batch-size %d: want 0 to 16 images per request", po.imageBatch)
	case po.imageFormat != "png" && po.imageFormat != "jpeg":
		return Usagef("--image-format %s: want png or jpeg (goodput's synthetic images have one format)", po.imageFormat)
	case w == 0 && (changed("image-format") || changed("image-batch-size") || changed("batch-size-image")) && po.imageBatch > 0:
		return Usagef("--image-batch-size and --image-format need --image-width-mean and --image-height-mean")
	case w > 0 && po.imageBatch > 0:
		spec.Media.ImageWidth, spec.Media.ImageHeight, spec.Media.ImageCount = w, h, po.imageBatch
		if po.imageFormat != "png" {
			spec.Media.ImageFormat = po.imageFormat
		}
	}
	secs, err := whole("audio-length-mean", po.audioLength, 3600)
	if err != nil {
		return Usagef("--audio-length-mean %v: want whole seconds from 0 to 3600 (goodput's synthetic clips last whole seconds)", po.audioLength)
	}
	rate := 0
	switch {
	case len(po.audioRates) > 1:
		return Usagef("--audio-sample-rates %s: not supported: goodput's synthetic clips have one sample rate (give one value in kHz)", strings.Join(po.audioRates, " "))
	case len(po.audioRates) == 1:
		khz, err := strconv.ParseFloat(po.audioRates[0], 64)
		hz := khz * 1000
		if err != nil || hz != math.Trunc(hz) || hz < 1000 || hz > 192000 {
			return Usagef("--audio-sample-rates %s: want one rate in kHz from 1 to 192, e.g. 16 or 44.1", po.audioRates[0])
		}
		rate = int(hz)
	}
	switch {
	case po.audioFormat != "wav":
		return Usagef("--audio-format %s: not supported: goodput's synthetic clips are WAV (wav)", po.audioFormat)
	case len(po.audioDepths) > 0 && (len(po.audioDepths) > 1 || po.audioDepths[0] != "16"):
		return Usagef("--audio-depths %s: not supported: goodput's synthetic clips are 16-bit PCM (16)", strings.Join(po.audioDepths, " "))
	case po.audioChannels != 1:
		return Usagef("--audio-num-channels %d: not supported: goodput's synthetic clips are mono (1)", po.audioChannels)
	case po.audioBatch < 0 || po.audioBatch > 16:
		return Usagef("--audio-batch-size %d: want 0 to 16 clips per request", po.audioBatch)
	case secs == 0 && (rate > 0 || changed("audio-batch-size") || changed("batch-size-audio")) && po.audioBatch > 0:
		return Usagef("--audio-batch-size and --audio-sample-rates need --audio-length-mean (seconds)")
	case secs > 0 && po.audioBatch > 0:
		spec.Media.AudioSeconds, spec.Media.AudioCount, spec.Media.AudioSampleRate = secs, po.audioBatch, rate
	}
	return nil
}

var batchFlags = []string{"prompt-batch-size", "batch-size-text", "batch-size"}

var prefixPoolFlags = []string{"prefix-prompt-pool-size", "prompt-prefix-pool-size", "num-prefix-prompts"}

var prefixLengthFlags = []string{"prefix-prompt-length", "prompt-prefix-length"}
