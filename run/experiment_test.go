package run

import (
	"testing"
	"time"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/sweep"
)

func experimentConfig(rate float64) *Config {
	list := sweep.List{{Kind: loadgen.Constant, Rate: rate}}
	return &Config{
		Client: loadgen.ClientConfig{Target: "http://x", APIKey: "sk-secret"},
		Data:   Data{Value: "prompt_tokens=8"},
		Plan: Plan{Planner: list, Profile: report.Profile{Kind: "constant", Rate: []float64{rate}},
			Constraints: loadgen.Constraints{MaxDuration: 10 * time.Second}, Seed: 42},
		Outputs: Outputs{Dir: "a"},
	}
}

// The run id's key is the typed experiment: secrets and file places do
// not change it; the load, the wrappers around the plan and the model do.
func TestExperimentKey(t *testing.T) {
	base := experimentConfig(4)
	k, err := base.ExperimentKey("m")
	if err != nil {
		t.Fatal(err)
	}
	same := experimentConfig(4)
	same.Client.APIKey, same.Client.Headers, same.Outputs = "sk-other", map[string]string{"Authorization": "x"}, Outputs{Dir: "b", RunID: "r"}
	if k2, _ := same.ExperimentKey("m"); k2 != k {
		t.Errorf("secrets or outputs changed the key:\n%s\n%s", k, k2)
	}
	differ := map[string]*Config{"rate": experimentConfig(5)}
	c := experimentConfig(4)
	c.Plan.Planner = sweep.List{{Kind: loadgen.Constant, Rate: 4, Burstiness: 0.5}}
	differ["burstiness"] = c
	c = experimentConfig(4)
	c.Plan.Planner = sweep.Repeat(c.Plan.Planner, 3)
	differ["repeat"] = c
	c = experimentConfig(4)
	c.Plan.Planner = sweep.StopOn(c.Plan.Planner, loadgen.StopMaxErrors)
	differ["stop on"] = c
	for name, c := range differ {
		if k2, _ := c.ExperimentKey("m"); k2 == k {
			t.Errorf("%s: key unchanged: %s", name, k)
		}
	}
	if k2, _ := base.ExperimentKey("n"); k2 == k {
		t.Error("the model does not change the key")
	}
}

// Every shard of one run has the same hash; the rate changes it.
func TestShardHash(t *testing.T) {
	hash := func(c *Config, index int) string {
		t.Helper()
		sp, err := sweep.NewShardPlan(sweep.ShardConfig{Shard: sweep.Shard{Index: index, Count: 4}, Planner: c.Plan.Planner,
			Constraints: c.Plan.Constraints, StartAt: time.Date(2026, 6, 16, 12, 0, 0, 0, time.UTC).UnixNano(), Gap: 5 * time.Second, Seed: 42})
		if err != nil {
			t.Fatal(err)
		}
		c.Plan.Shard = Shard{Plan: sp, Shard: sp.Config.Shard, StartAt: sp.Config.StartAt}
		h, err := c.ShardHash("m")
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	h := hash(experimentConfig(4), 2)
	other := experimentConfig(4)
	other.Client.APIKey = "sk-other"
	if len(h) != 16 || hash(other, 0) != h {
		t.Fatalf("shards 2 and 0 of one run: %s, %s", h, hash(other, 0))
	}
	if hash(experimentConfig(5), 2) == h {
		t.Fatal("the hash must change with the rate")
	}
}
