package loadgen

import (
	"fmt"
	"net/http"
	"sync/atomic"

	"github.com/goodput-dev/goodput/internal/redact"
)

// Target selection strategies: which of several servers (replicas
// without a load balancer) a request goes to.
const (
	TargetRoundRobin    = "round_robin"     // request i goes to target i mod n
	TargetLeastInFlight = "least_in_flight" // the target with the fewest requests in flight
)

// target is one server requests go to.
type target struct {
	base, url, public string
	inflight          atomic.Int64
	http              *http.Client // goodput's own or net/http (ownClient)
	client            string       // HTTPClientGoodput or HTTPClientNet
	// direct, when set, sends requests without http.Client, whose
	// redirect handling is not wanted (3xx responses are errors).
	direct http.RoundTripper
}

// do sends req to the target.
func (t *target) do(req *http.Request) (*http.Response, error) {
	if t.direct != nil {
		return t.direct.RoundTrip(req)
	}
	return t.http.Do(req)
}

// newTargets normalizes cfg's targets (Targets, else Target) and joins
// each to path.
func newTargets(cfg *ClientConfig, path string) ([]*target, error) {
	list := cfg.Targets
	if len(list) == 0 {
		list = []string{cfg.Target}
	}
	switch cfg.TargetSelection {
	case "", TargetRoundRobin, TargetLeastInFlight:
	default:
		return nil, fmt.Errorf("target selection %q: want %s or %s", cfg.TargetSelection, TargetRoundRobin, TargetLeastInFlight)
	}
	seen := map[string]bool{}
	out := make([]*target, 0, len(list))
	for _, t := range list {
		base, err := NormalizeTarget(t)
		if err != nil {
			return nil, err
		}
		if seen[base] {
			return nil, fmt.Errorf("target %s: listed twice", redact.URL(base))
		}
		seen[base] = true
		out = append(out, &target{base: base, url: base + path, public: redact.URL(base), client: HTTPClientNet})
	}
	return out, nil
}

// pickTarget returns the target of request id: round robin by id, or the
// one with the fewest requests in flight (ties go round robin).
func (c *Client) pickTarget(id uint64) *target {
	n := uint64(len(c.targets))
	if n == 1 {
		return c.targets[0]
	}
	start := id % n
	if c.cfg.TargetSelection != TargetLeastInFlight {
		return c.targets[start]
	}
	best := c.targets[start]
	for k := uint64(1); k < n; k++ {
		if t := c.targets[(start+k)%n]; t.inflight.Load() < best.inflight.Load() {
			best = t
		}
	}
	return best
}

// BaseURLs returns every target's normalized base URL (credentials
// included: for probes, never for logs), in the order given.
func (c *Client) BaseURLs() []string {
	out := make([]string, len(c.targets))
	for i, t := range c.targets {
		out[i] = t.base
	}
	return out
}

// PublicURLs returns every target's public URL (credentials removed), in
// the order given.
func (c *Client) PublicURLs() []string {
	out := make([]string, len(c.targets))
	for i, t := range c.targets {
		out[i] = t.public
	}
	return out
}
