package loadgen

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Model selection strategies (AIPerf's --model-selection-strategy, plus
// weighted): which of several models a request is sent to.
const (
	ModelRoundRobin = "round_robin" // request i goes to model i mod n
	ModelRandom     = "random"      // uniformly at random (seeded by the request id)
	ModelWeighted   = "weighted"    // at random in proportion to the weights
)

// ParseModels reads a --model value: one model, or a comma list whose
// entries may carry a weight after a colon ("a:0.6,b:0.4"). Weights are
// all given or none; they need not add up to 1. weights is nil when none
// is given.
func ParseModels(s string) (models []string, weights []float64, err error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil, nil
	}
	seen := map[string]bool{}
	given := 0
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		// A model id may hold a colon (ollama's "llama3:8b"): only a
		// number after the last colon is a weight.
		name, w := part, 0.0
		if i := strings.LastIndexByte(part, ':'); i >= 0 {
			if x, err := strconv.ParseFloat(part[i+1:], 64); err == nil {
				if !(x > 0) || math.IsInf(x, 0) {
					return nil, nil, fmt.Errorf("model %q: weight %s: want a number > 0, like a:0.6,b:0.4", part, part[i+1:])
				}
				name, w = part[:i], x
				given++
			}
		}
		if name == "" {
			return nil, nil, fmt.Errorf("model %q: empty name, want a comma list like a,b or a:0.6,b:0.4", part)
		}
		if seen[name] {
			return nil, nil, fmt.Errorf("model %q: listed twice", name)
		}
		seen[name] = true
		models = append(models, name)
		weights = append(weights, w)
	}
	switch given {
	case 0:
		weights = nil
	case len(models):
	default:
		return nil, nil, fmt.Errorf("model %q: give a weight to every model or to none, like a:0.6,b:0.4", s)
	}
	return models, weights, nil
}

// picker chooses a request's model.
type picker struct {
	names    []string
	json     [][]byte  // each name as a JSON string
	cum      []float64 // cumulative weights, normalized to end at 1 (random, weighted)
	strategy string
	seed     uint64
}

// newPicker validates the models, weights and strategy of cfg.
func newPicker(cfg *ClientConfig) (*picker, error) {
	names := cfg.Models
	if len(names) == 0 {
		names = []string{cfg.Model}
	}
	p := &picker{names: names, strategy: cfg.ModelSelection, seed: cfg.ModelSeed}
	if p.strategy == "" {
		p.strategy = ModelRoundRobin
		if cfg.ModelWeights != nil {
			p.strategy = ModelWeighted
		}
	}
	switch p.strategy {
	case ModelRoundRobin, ModelRandom:
		if cfg.ModelWeights != nil {
			return nil, fmt.Errorf("model selection %s: model weights are only for %s", p.strategy, ModelWeighted)
		}
	case ModelWeighted:
		if len(cfg.ModelWeights) != len(names) {
			return nil, fmt.Errorf("model selection %s: give each model a weight, like a:0.6,b:0.4", ModelWeighted)
		}
	default:
		return nil, fmt.Errorf("model selection %q: want %s, %s or %s", p.strategy, ModelRoundRobin, ModelRandom, ModelWeighted)
	}
	total := 0.0
	for i := range names {
		w := 1.0
		if cfg.ModelWeights != nil {
			w = cfg.ModelWeights[i]
		}
		total += w
		p.cum = append(p.cum, total)
	}
	for i := range p.cum {
		p.cum[i] /= total
	}
	p.cum[len(p.cum)-1] = 1
	for _, n := range names {
		p.json = append(p.json, appendJSONStr(nil, n))
	}
	return p, nil
}

// pick returns the index of request id's model: a function of the id
// (and the seed) only, so a run's assignment is reproducible.
func (p *picker) pick(id uint64) int {
	if len(p.names) == 1 {
		return 0
	}
	if p.strategy == ModelRoundRobin {
		return int(id % uint64(len(p.names)))
	}
	u := float64(mix64(id^mix64(p.seed^0x6d6f64656c73))>>11) / (1 << 53)
	for i, c := range p.cum {
		if u < c {
			return i
		}
	}
	return len(p.names) - 1
}

// mix64 is splitmix64's finalizer.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// SentModels returns the models requests are sent to (one unless several
// were configured).
func (c *Client) SentModels() []string { return append([]string(nil), c.models.names...) }

// servedAs is the id a server lists for a configured model name: the name
// itself or, when the server lists only name:latest (Ollama's tagged
// ids, which it resolves from the bare name), that; ok is false when it
// lists neither.
func servedAs(name string, served map[string]bool) (id string, ok bool) {
	if served[name] {
		return name, true
	}
	if !strings.Contains(name, ":") && served[name+":latest"] {
		return name + ":latest", true
	}
	return "", false
}

// renameModel sends model i's requests, and names it, by the id the
// server lists for it.
func (c *Client) renameModel(i int, id string) {
	old := c.models.names[i]
	c.models.names[i], c.models.json[i] = id, appendJSONStr(nil, id)
	if c.cfg.Model == old {
		c.cfg.Model = id
	}
	for j, m := range c.cfg.Models {
		if m == old {
			c.cfg.Models[j] = id
		}
	}
}
