package cli

import (
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/dataset"
)

// GuideLLM composes a request from several --data sources, column by
// column: `--data kind=synthetic_text,prompt_tokens=200 --data
// kind=synthetic_image,resolution=720p` sends 200 tokens of text with one
// 720p image. goodput reads one source, whose synthetic spec carries the
// media itself (image_*, video_*, audio_* keys), so foldData folds
// GuideLLM's synthetic_image and synthetic_video into the text source's
// image_* and video_* keys before the flags are parsed (goodput's clips
// are Motion-JPEG, not h264: a bitrate is noted, not applied), and lets a
// source goodput cannot read (a Hub id) give its message.

// imageResolutions are GuideLLM's resolution presets (width, height).
var imageResolutions = map[string][2]int{
	"240p": {426, 240}, "360p": {640, 360}, "480p": {854, 480}, "540p": {960, 540},
	"720p": {1280, 720}, "1080p": {1920, 1080}, "1440p": {2560, 1440}, "2160p": {3840, 2160}, "4k": {3840, 2160},
}

// foldData returns args with GuideLLM's several --data folded into one.
func foldData(args []string) (folded, notes []string, err error) {
	if args, err = listData(args); err != nil {
		return nil, nil, err
	}
	type src struct {
		at    int // index of the value in args
		value string
	}
	var srcs []src
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--":
			i = len(args)
		case a == "--data" && i+1 < len(args):
			srcs = append(srcs, src{i + 1, args[i+1]})
			i++
		case strings.HasPrefix(a, "--data="):
			srcs = append(srcs, src{i, a})
		}
	}
	value := func(s src) string { return strings.TrimPrefix(s.value, "--data=") }
	if pivot, rest := turnPivot(args); pivot {
		vals := make([]string, len(srcs))
		for i := range srcs {
			vals[i] = value(srcs[i])
		}
		spec, err := pivotSources(vals)
		if err != nil || spec == "" {
			return rest, nil, err
		}
		first := true
		out := make([]string, 0, len(rest))
		for i := 0; i < len(rest); i++ {
			switch a := rest[i]; {
			case a == "--":
				out, i = append(out, rest[i:]...), len(rest)
			case a == "--data" && i+1 < len(rest):
				if first {
					out = append(out, a, spec)
				}
				first = false
				i++
			case strings.HasPrefix(a, "--data="):
				if first {
					out = append(out, "--data", spec)
				}
				first = false
			default:
				out = append(out, a)
			}
		}
		return out, nil, nil
	}
	if len(srcs) < 2 {
		return args, nil, nil
	}
	var base *src
	media := map[string]any{}
	for i := range srcs {
		v, err := parseRegistry(value(srcs[i]))
		kind := v.kind()
		switch {
		case err == nil && kind == "synthetic_image":
			if err := imageKeys(v, media); err != nil {
				return nil, nil, err
			}
		case err == nil && kind == "synthetic_video":
			note, err := videoKeys(v, media)
			if err != nil {
				return nil, nil, err
			}
			if note != "" {
				notes = append(notes, note)
			}
		case err != nil && hubID(value(srcs[i])):
			// a Hub id: the source goodput cannot read decides the message
			return keepData(args, srcs[i].at), nil, nil
		case err == nil && kind == "huggingface" && hubSource(v):
			return keepData(args, srcs[i].at), nil, nil
		default:
			base = &srcs[i] // a repeated goodput flag: the last wins
		}
	}
	if len(media) == 0 {
		return args, nil, nil
	}
	if base == nil {
		return nil, nil, Usagef("--data kind=synthetic_image or synthetic_video: give the text source too (--data kind=synthetic_text,prompt_tokens=N), which carries the image_* and video_* keys in goodput")
	}
	v, err := parseRegistry(value(*base))
	if err != nil || (v.kind() != "" && v.kind() != "synthetic_text") {
		return nil, nil, Usagef("--data kind=synthetic_image or synthetic_video: goodput's images and clips go with synthetic text: give --data kind=synthetic_text,prompt_tokens=N,image_width=W,image_height=H")
	}
	v["kind"] = "synthetic_text"
	for k, x := range media {
		if old, ok := v[k]; ok && canonicalJSON(old) != canonicalJSON(x) {
			return nil, nil, Usagef("--data: %s=%s on the text and %s on the image or video: give it once", k, shown(old), shown(x))
		}
		v[k] = x
	}
	out := keepData(args, base.at)
	for i, a := range out {
		if a == base.value && (i == 0 || out[i-1] == "--data") {
			out[i] = canonicalJSON(map[string]any(v))
			if strings.HasPrefix(a, "--data=") {
				out[i] = "--data=" + out[i]
			}
			break
		}
	}
	return out, notes, nil
}

// listKey finds GuideLLM's bracket notation of a list item in a
// key=value --data value (tool_call_turns[0]=0).
var listKey = regexp.MustCompile(`(^|,)[A-Za-z0-9_.-]+\[\d+\]=`)

// listData returns args with each key=value --data value that gives a
// list in GuideLLM's bracket notation as its JSON object, which the data
// reads.
func listData(args []string) ([]string, error) {
	out, cloned := args, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		at, v := -1, ""
		switch {
		case a == "--data" && i+1 < len(args):
			at, v = i+1, args[i+1]
			i++
		case strings.HasPrefix(a, "--data="):
			at, v = i, strings.TrimPrefix(a, "--data=")
		}
		if at < 0 || strings.HasPrefix(strings.TrimSpace(v), "{") || !listKey.MatchString(v) {
			continue
		}
		r, err := parseRegistry(v)
		if err != nil {
			return nil, Usagef("--data %s: %v", v, err)
		}
		if !cloned {
			out, cloned = slices.Clone(args), true
		}
		out[at] = canonicalJSON(map[string]any(r))
		if strings.HasPrefix(a, "--data=") {
			out[at] = "--data=" + out[at]
		}
	}
	return out, nil
}

// turnPivot reports whether args give GuideLLM's turn_pivot preprocessor,
// and returns args without it.
func turnPivot(args []string) (pivot bool, rest []string) {
	rest = make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return pivot, append(rest, args[i:]...)
		}
		v, ok := strings.CutPrefix(a, "--data-preprocessor=")
		if !ok && a == "--data-preprocessor" && i+1 < len(args) {
			v, ok = args[i+1], true
		}
		if r, err := parseRegistry(v); ok && err == nil && r.kind() == "turn_pivot" && len(r) == 1 {
			pivot = true
			if a == "--data-preprocessor" {
				i++
			}
			continue
		}
		rest = append(rest, a)
	}
	return pivot, rest
}

// turnLengthKeys are the keys of a synthetic source that set one turn's
// lengths under turn_pivot.
var turnLengthKeys = []string{"prompt_tokens", "prompt_tokens_stdev", "prompt_tokens_min", "prompt_tokens_max",
	"output_tokens", "output_tokens_stdev", "output_tokens_min", "output_tokens_max"}

// pivotSources applies GuideLLM's turn_pivot to the --data sources: turn
// k of each conversation is source k's row (GuideLLM transposes the
// sources' columns into turns), so N synthetic_text sources become one
// spec of N turns, each with its source's lengths (turn_lengths), under
// the first source's prefix. One source of one turn is left as it is
// (""); other sources are refused, naming goodput's form.
func pivotSources(vals []string) (string, error) {
	const form = "each --data kind=synthetic_text source is one turn (its prompt_tokens*, output_tokens*; prefix_tokens, prefix_count or prefix_buckets on the first)"
	var turns []any
	base := map[string]any{"kind": "synthetic_text"}
	for i, s := range vals {
		v, err := parseRegistry(s)
		if err != nil || (v.kind() != "" && v.kind() != "synthetic_text") {
			if len(vals) == 1 {
				return "", nil // a file's own turns: GuideLLM's pivot of one source of one turn is itself
			}
			return "", Usagef("--data-preprocessor kind=turn_pivot: --data %s: goodput pivots synthetic sources only: %s", s, form)
		}
		if _, err := dataset.ParseSpec(canonicalJSON(map[string]any(v))); err != nil {
			return "", Usagef("--data %s: %v", s, err)
		}
		turn := map[string]any{}
		for _, k := range v.keys() {
			switch {
			case k == "kind":
			case slices.Contains(turnLengthKeys, k):
				turn[k] = v[k]
			case i == 0 && (k == "prefix_tokens" || k == "prefix_count" || k == "prefix_buckets"):
				base[k] = v[k]
			case k == "turns":
				if f, ok := number(v[k]); ok && f == 1 {
					continue
				}
				if len(vals) == 1 {
					return "", Usagef("--data-preprocessor kind=turn_pivot: one source of turns=%s sends all its prompts as one request in GuideLLM; goodput sends turns as a conversation: drop turn_pivot, or give one --data source per turn", shown(v[k]))
				}
				fallthrough
			default:
				return "", Usagef("--data-preprocessor kind=turn_pivot: --data source %d: %s=%s: not supported: %s", i+1, k, shown(v[k]), form)
			}
		}
		turns = append(turns, turn)
	}
	if len(vals) == 1 {
		return "", nil // one turn: the pivot changes nothing
	}
	first := turns[0].(map[string]any)
	for _, k := range turnLengthKeys {
		if x, ok := first[k]; ok {
			base[k] = x
		}
	}
	base["turns"], base["turn_lengths"] = len(turns), turns
	return canonicalJSON(base), nil
}

// keepData drops every --data of args but the one whose value is at index
// keep.
func keepData(args []string, keep int) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--":
			return append(out, args[i:]...)
		case a == "--data" && i+1 < len(args):
			if i+1 == keep {
				out = append(out, a, args[i+1])
			}
			i++
		case strings.HasPrefix(a, "--data="):
			if i == keep {
				out = append(out, a)
			}
		default:
			out = append(out, a)
		}
	}
	return out
}

// hubID reports whether s names a Hugging Face dataset (org/name) and no
// local path.
func hubID(s string) bool {
	if strings.ContainsAny(s, "={ ") || strings.Count(s, "/") != 1 || strings.HasPrefix(s, ".") || strings.HasPrefix(s, "/") {
		return false
	}
	_, err := os.Stat(s)
	return err != nil
}

func hubSource(v regValue) bool {
	s, _ := v["source"].(string)
	return hubID(s)
}

// mediaCount reads a synthetic_image or synthetic_video key that is a
// whole number ≥ 1.
func mediaCount(v regValue, key string) (int, error) {
	f, ok := number(v[key])
	if !ok || f < 1 || f != math.Trunc(f) {
		return 0, Usagef("--data kind=%s,%s=%s: want a whole number ≥ 1", v.kind(), key, shown(v[key]))
	}
	return int(f), nil
}

// mediaResolution reads a resolution preset (720p) as width and height.
func mediaResolution(v regValue) ([2]int, error) {
	s, _ := v["resolution"].(string)
	p, ok := imageResolutions[strings.ToLower(s)]
	if !ok {
		return p, Usagef("--data kind=%s,resolution=%s: want 240p, 360p, 480p, 540p, 720p, 1080p, 1440p, 2160p or 4k", v.kind(), shown(v["resolution"]))
	}
	return p, nil
}

// imageKeys turns GuideLLM's synthetic_image keys into goodput's image_*
// keys of the text source (GuideLLM's defaults: JPEG, one image).
func imageKeys(v regValue, out map[string]any) error {
	w, h := -1, -1
	count := func(key string) (int, error) { return mediaCount(v, key) }
	var aspect float64
	if s, ok := v["aspect_ratio"].(string); ok {
		a, b, _ := strings.Cut(strings.ReplaceAll(s, "/", ":"), ":")
		x, err1 := strconv.ParseFloat(a, 64)
		y, err2 := strconv.ParseFloat(b, 64)
		if err1 != nil || err2 != nil || x <= 0 || y <= 0 {
			return Usagef("--data kind=synthetic_image,aspect_ratio=%s: want W:H, e.g. 16:9", s)
		}
		aspect = x / y
	}
	out["image_format"], out["image_count"] = "jpeg", 1
	for _, k := range v.keys() {
		var err error
		switch k {
		case "kind":
		case "width":
			w, err = count(k)
		case "height":
			h, err = count(k)
		case "resolution":
			p, err := mediaResolution(v)
			if err != nil {
				return err
			}
			if _, given := v["height"]; !given {
				h = p[1]
			}
			if _, given := v["width"]; !given && aspect == 0 {
				w = p[0]
			}
		case "aspect_ratio":
		case "format":
			s, _ := v[k].(string)
			if s != "jpeg" && s != "png" {
				return Usagef("--data kind=synthetic_image,format=%s: want jpeg or png", shown(v[k]))
			}
			out["image_format"] = s
		case "images_per_request":
			out["image_count"], err = count(k)
		case "output_tokens", "output_tokens_stdev", "output_tokens_min", "output_tokens_max":
			out[k] = v[k]
		default:
			return Usagef("--data kind=synthetic_image,%s=…: not supported: goodput's images take width, height, resolution, aspect_ratio, format, images_per_request (image_width, image_height, image_format, image_count on the text source)", k)
		}
		if err != nil {
			return err
		}
	}
	switch {
	case aspect > 0 && w < 0 && h > 0:
		w = int(math.Round(float64(h) * aspect))
	case aspect > 0 && h < 0 && w > 0:
		h = int(math.Round(float64(w) / aspect))
	}
	if w < 0 || h < 0 {
		return Usagef("--data kind=synthetic_image: give width and height, or resolution (e.g. resolution=720p)")
	}
	out["image_width"], out["image_height"] = w-w%2, h-h%2 // even, as GuideLLM makes them
	return nil
}

// videoKeys turns GuideLLM's synthetic_video keys into goodput's video_*
// keys of the text source: the same frame size, count and rate, one clip
// a request. goodput's clips are Motion-JPEG AVI where GuideLLM's are h264
// mp4 (servers decode both into the same frames); a bitrate has no
// equivalent, which the note says.
func videoKeys(v regValue, out map[string]any) (note string, err error) {
	count := func(key string) (int, error) { return mediaCount(v, key) }
	w, h, frames, fps := -1, -1, 0, 0
	for _, k := range v.keys() {
		switch k {
		case "kind":
		case "width":
			w, err = count(k)
		case "height":
			h, err = count(k)
		case "resolution":
			p, err := mediaResolution(v)
			if err != nil {
				return "", err
			}
			if _, given := v["width"]; !given {
				w = p[0]
			}
			if _, given := v["height"]; !given {
				h = p[1]
			}
		case "frames":
			frames, err = count(k)
		case "fps":
			fps, err = count(k)
		case "video_bitrate":
			note = fmt.Sprintf("--data kind=synthetic_video,video_bitrate=%s: not applied: goodput's clips are Motion-JPEG AVI (each frame a JPEG), not GuideLLM's h264 mp4, so a bitrate has no equivalent; the frames, their size and rate are GuideLLM's", shown(v[k]))
		case "output_tokens", "output_tokens_stdev", "output_tokens_min", "output_tokens_max":
			out[k] = v[k]
		default:
			return "", Usagef("--data kind=synthetic_video,%s=…: not supported: goodput's clips take width, height, resolution, frames, fps and video_bitrate (noted, not applied)", k)
		}
		if err != nil {
			return "", err
		}
	}
	switch {
	case w < 0 || h < 0:
		return "", Usagef("--data kind=synthetic_video: give width and height, or resolution (e.g. resolution=480p)")
	case frames == 0 || fps == 0:
		return "", Usagef("--data kind=synthetic_video: give frames and fps (the clip lasts frames ÷ fps seconds)")
	}
	out["video_width"], out["video_height"] = w-w%2, h-h%2
	out["video_fps"], out["video_seconds"], out["video_count"] = fps, float64(frames)/float64(fps), 1
	return note, nil
}

// dataKey adds a session key to --data, for what GuideLLM takes on
// another option and goodput on the data (the backend's
// tool_call_missing_behavior, the tool-calling preprocessor and
// finalizer mode). A bare path becomes GuideLLM's local source form.
func (a *v07Applier) dataKey(key, val string) error {
	where := fmt.Sprintf("--%s %s=%s", a.opt, a.key, val)
	if a.key == "" {
		where = fmt.Sprintf("--%s kind=%s", a.opt, a.kind)
	}
	if d := strings.TrimSpace(a.o.data); d != "" && !strings.ContainsAny(d, "={") {
		// a path: GuideLLM's local source, which takes the key beside it
		a.o.data = "kind=huggingface,source=" + d
	}
	v, err := parseRegistry(a.o.data)
	if err != nil {
		return Usagef("%s: goodput takes it on the data: give --data kind=…,%s=%s", where, key, val)
	}
	if old, ok := v[key]; ok {
		if s, _ := text(old); s != val {
			return Usagef("%s and --data %s=%s: give it once", where, key, shown(old))
		}
		return nil
	}
	if strings.HasPrefix(strings.TrimSpace(a.o.data), "{") {
		v[key] = val
		a.o.data = canonicalJSON(map[string]any(v))
	} else {
		a.o.data += "," + key + "=" + val
	}
	return nil
}
