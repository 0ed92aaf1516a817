package run

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/goodput-dev/goodput/dataset"
	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/sweep"
)

// experiment is what defines a run's experiment, from the typed Config:
// what is sent, to whom, how fast and for how long, and how it is judged;
// not where its files go, nor secrets (API key, headers). Two invocations
// that mean the same (--rate 4,8 and --rate "4, 8"; GuideLLM's and
// AIPerf's spellings of one load) have the same experiment.
type experiment struct {
	Target, Model                        string
	Targets, Models                      []string  `json:",omitempty"`
	ModelWeights                         []float64 `json:",omitempty"`
	ModelSelection, TargetSelection      string    `json:",omitempty"`
	ModelSeed                            uint64    `json:",omitempty"`
	Endpoint                             loadgen.Endpoint
	Path                                 string `json:",omitempty"`
	BatchSize                            int    `json:",omitempty"`
	ExtraBody                            map[string]any
	ContentExtras                        string `json:",omitempty"`
	NoStream, NoStreamUsage, NoIgnoreEOS bool
	MaxTokensField                       string
	UserTimestamps                       bool
	RequestTimeout                       int64
	Plan                                 json.RawMessage
	Profile                              report.Profile
	Search                               *sweep.KneeSearch
	Constraints                          constraints
	WarmupPhase                          string           `json:",omitempty"`
	Control                              *loadgen.Control `json:",omitempty"`
	Data                                 string
	Synthetic                            *dataset.Spec
	DataOptions                          dataset.Options
	Tokenizer                            string
	SLO                                  string
	Seed                                 int64
	Overhead                             int
	OverheadAuto                         bool
}

// constraints are loadgen.Constraints without the per-benchmark watcher.
type constraints struct {
	MaxDuration, Drain                      int64
	MaxRequests, MaxErrors, ErrorRateWindow int
	MaxErrorRate                            float64
	MaxConnectFailures                      int
	OverSaturation                          *loadgen.OverSaturation
	Cancel                                  *loadgen.Cancellation
}

// experimentOf is c's experiment with model, the model the run resolved.
func experimentOf(c *Config, model string) experiment {
	cl, k := c.Client, c.Plan.Constraints
	e := experiment{
		Target: cl.Target, Targets: cl.Targets, TargetSelection: cl.TargetSelection,
		Model: model, Models: cl.Models, ModelWeights: cl.ModelWeights, ModelSelection: cl.ModelSelection, ModelSeed: cl.ModelSeed,
		Endpoint: cl.Endpoint, Path: cl.Path, BatchSize: cl.BatchSize, ExtraBody: c.ExtraBody, ContentExtras: cl.ContentExtras,
		NoStream: cl.NoStream, NoStreamUsage: cl.NoStreamUsage, NoIgnoreEOS: cl.NoIgnoreEOS,
		MaxTokensField: cl.MaxTokensField, UserTimestamps: cl.UserTimestamps, RequestTimeout: int64(cl.RequestTimeout),
		Profile: c.Plan.Profile, Search: c.Plan.Search, Control: c.Plan.Control,
		Constraints: constraints{
			MaxDuration: int64(k.MaxDuration), Drain: int64(k.Drain), MaxRequests: k.MaxRequests, MaxErrors: k.MaxErrors,
			ErrorRateWindow: k.ErrorRateWindow, MaxErrorRate: k.MaxErrorRate, MaxConnectFailures: k.MaxConnectFailures,
			OverSaturation: k.OverSaturation, Cancel: k.Cancel,
		},
		Data: c.Data.Value, Synthetic: c.Data.Synthetic, DataOptions: c.Data.Options,
		SLO: c.SLO.String(), Seed: c.Plan.Seed, Overhead: c.Tokens.Overhead, OverheadAuto: c.Tokens.OverheadAuto,
	}
	if w := c.Plan.WarmupPhase; w != nil {
		e.WarmupPhase = fmt.Sprintf("%s, drain %d", w, w.Constraints.Drain)
	}
	if t := c.Data.Options.Tokenizer; t != nil {
		e.Tokenizer = t.Name()
	}
	e.DataOptions.Tokenizer = nil
	return e
}

// ExperimentKey is the canonical JSON of c's experiment with model, the
// model the run resolved: the default run id hashes it.
func (c *Config) ExperimentKey(model string) (string, error) {
	e := experimentOf(c, model)
	var err error
	if e.Plan, err = sweep.Describe(c.Plan.Planner); err != nil {
		return "", err
	}
	b, err := json.Marshal(e)
	return string(b), err
}

// ShardHash hashes what every shard of one run must share, so that the
// merge can refuse a shard of another run or configuration: the
// experiment and the shard layout (count, start, gap, seed), not the
// shard's own index.
func (c *Config) ShardHash(model string) (string, error) {
	key, err := c.ExperimentKey(model)
	if err != nil {
		return "", err
	}
	layout := c.Plan.Shard.Plan.Config
	layout.Shard.Index, layout.Planner = 0, nil
	b, err := json.Marshal(layout)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256([]byte(key + "|" + string(b)))
	return hex.EncodeToString(h[:8]), nil
}
