package loadgen

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/mock"
	"github.com/goodput-dev/goodput/record"
)

func TestParseModels(t *testing.T) {
	for _, tc := range []struct {
		in      string
		models  []string
		weights []float64
		err     string
	}{
		{in: "a", models: []string{"a"}},
		{in: "a, b,c", models: []string{"a", "b", "c"}},
		{in: "a:0.6,b:0.4", models: []string{"a", "b"}, weights: []float64{0.6, 0.4}},
		{in: "llama3:8b,qwen:7b", models: []string{"llama3:8b", "qwen:7b"}}, // ollama's tags are names
		{in: "llama3:8b:2,qwen:1", models: []string{"llama3:8b", "qwen"}, weights: []float64{2, 1}},
		{in: "a:0.6,b", err: "give a weight to every model or to none"},
		{in: "a:0,b:1", err: "want a number > 0"},
		{in: "a,,b", err: "empty name"},
		{in: "a,a", err: "listed twice"},
	} {
		m, w, err := ParseModels(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(m, tc.models) || !slices.Equal(w, tc.weights) {
			t.Errorf("%q: %v %v %v", tc.in, m, w, err)
		}
	}
}

// Round robin gives request i model i mod n; random and weighted draw
// reproducibly in proportion to the weights.
func TestModelSelection(t *testing.T) {
	for _, tc := range []struct {
		strategy string
		weights  []float64
		want     []float64
	}{
		{ModelRoundRobin, nil, []float64{1. / 3, 1. / 3, 1. / 3}},
		{ModelRandom, nil, []float64{1. / 3, 1. / 3, 1. / 3}},
		{ModelWeighted, []float64{6, 3, 1}, []float64{0.6, 0.3, 0.1}},
	} {
		p, err := newPicker(&ClientConfig{Models: []string{"a", "b", "c"}, ModelWeights: tc.weights, ModelSelection: tc.strategy, ModelSeed: 7})
		if err != nil {
			t.Fatal(err)
		}
		const n = 30000
		var got [3]int
		for i := uint64(0); i < n; i++ {
			k := p.pick(i)
			if k != p.pick(i) {
				t.Fatal("pick is not reproducible")
			}
			if tc.strategy == ModelRoundRobin && k != int(i%3) {
				t.Fatalf("round robin: request %d got model %d", i, k)
			}
			got[k]++
		}
		for i, w := range tc.want {
			if share := float64(got[i]) / n; math.Abs(share-w) > 0.015 {
				t.Errorf("%s: model %d share %.3f, want %.3f", tc.strategy, i, share, w)
			}
		}
	}
	if _, err := newPicker(&ClientConfig{Models: []string{"a", "b"}, ModelWeights: []float64{1, 2}, ModelSelection: ModelRandom}); err == nil {
		t.Error("weights with random accepted")
	}
}

// With several models each request names its model in its body and its
// record, and Ready refuses a model the server does not list.
func TestSeveralModelsAgainstMock(t *testing.T) {
	srv := startMock(t, func(c *mock.Config) { c.LoRAModules = []mock.LoRAModule{{Name: "sql", Path: "/l/sql"}} })
	base := srv.Config().Model
	c, err := NewClient(ClientConfig{Target: srv.URL(), Models: []string{base, "sql"}}, NewClock())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	for i := uint64(0); i < 4; i++ {
		rec := record.New()
		rec.ID = i
		c.Do(context.Background(), NewRequest("", "hi", 2), rec, newConn())
		if want := []string{base, "sql"}[i%2]; rec.Status != record.StatusSuccessful || rec.Model != want {
			t.Fatalf("request %d: model %q, want %q (%s %s)", i, rec.Model, want, rec.Status, rec.Error)
		}
	}
	bad, err := NewClient(ClientConfig{Target: srv.URL(), Models: []string{base, "nope"}}, NewClock())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bad.Ready(context.Background()); err == nil || !strings.Contains(err.Error(), `model "nope" is not served`) {
		t.Fatalf("Ready: %v", err)
	}
	one, _ := NewClient(ClientConfig{Target: srv.URL(), Model: base}, NewClock())
	rec := record.New()
	one.Do(context.Background(), NewRequest("", "hi", 2), rec, newConn())
	if rec.Model != "" {
		t.Fatalf("one model recorded %q", rec.Model)
	}
}

// Round robin spreads requests over the targets by id; least in flight
// sends each to the target with the fewest in flight.
func TestTargetSelection(t *testing.T) {
	c, err := NewClient(ClientConfig{Targets: []string{"http://a:1", "http://b:1/v1", "http://c:1"}, Model: "m"}, NewClock())
	if err != nil {
		t.Fatal(err)
	}
	for i := uint64(0); i < 6; i++ {
		if got, want := c.pickTarget(i).public, []string{"http://a:1", "http://b:1", "http://c:1"}[i%3]; got != want {
			t.Fatalf("request %d: %s, want %s", i, got, want)
		}
	}
	c.cfg.TargetSelection = TargetLeastInFlight
	c.targets[0].inflight.Store(2)
	c.targets[1].inflight.Store(1)
	c.targets[2].inflight.Store(3)
	if got := c.pickTarget(0).public; got != "http://b:1" {
		t.Fatalf("least in flight picked %s", got)
	}
	for _, bad := range []ClientConfig{
		{Targets: []string{"http://a:1", "http://a:1/"}, Model: "m"},
		{Targets: []string{"http://a:1", "b:1"}, Model: "m"},
		{Targets: []string{"http://a:1", "http://b:1"}, TargetSelection: "fastest", Model: "m"},
	} {
		if _, err := NewClient(bad, NewClock()); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
