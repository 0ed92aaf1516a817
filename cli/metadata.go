package cli

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/metadata"
)

// metadataOptions are the run-metadata flags of `goodput benchmark`
// (--label is the benchmark command's own flag).
type metadataOptions struct {
	labelsFile   string
	strict       bool
	probeTimeout time.Duration
}

// metadataFlags registers the run-metadata flags.
func metadataFlags(o *metadataOptions, fs *pflag.FlagSet) {
	fs.StringVar(&o.labelsFile, "labels-file", "", `Kubernetes downward-API labels file (lines key="value"); bench/engine, bench/model, bench/hardware, bench/precision, bench/isl, bench/osl, bench/run-id, bench/tokenizer, bench/concurrency fill the run metadata, other keys become labels`)
	fs.BoolVar(&o.strict, "strict-metadata", false, "fail (exit 2) before any load is sent when a run metadata field cannot be filled")
	fs.DurationVar(&o.probeTimeout, "metadata-timeout", metadata.DefaultProbeTimeout, "time limit of the server probes for run metadata (GET /version, /v1/models, /metrics, /info, /get_server_info, all at once)")
}

// metadataLabels validates the labels file and the --label flags and
// returns them as one list, the file first (a flag overrides the file
// for the same field). Errors are usage errors naming the flag or the
// file's line.
func (o *metadataOptions) metadataLabels(flagLabels []string) ([]metadata.Label, error) {
	if o.probeTimeout <= 0 {
		return nil, Usagef("--metadata-timeout %v: want a positive duration, e.g. 3s", o.probeTimeout)
	}
	var out []metadata.Label
	if o.labelsFile != "" {
		l, err := metadata.ReadLabelsFile(o.labelsFile)
		if err != nil {
			return nil, Usagef("%v", err)
		}
		out = append(out, l...)
	}
	for _, s := range flagLabels {
		l, err := metadata.ParseLabelFlag(s)
		if err != nil {
			return nil, Usagef("%v", err)
		}
		out = append(out, l)
	}
	if err := metadata.ValidateLabels(out); err != nil {
		return nil, Usagef("%v", err)
	}
	return out, nil
}
