package run

import (
	"testing"
	"time"

	"github.com/goodput-dev/goodput/sweep"
)

// A shard's run directory names the shard; its run id is the same in
// every pod: the explicit one, else the shared start and the hash.
func TestShardRunIDAndSuffix(t *testing.T) {
	if got := shardSuffix(sweep.Shard{Index: 2, Count: 4}); got != "-shard-2-of-4" {
		t.Errorf("suffix %q", got)
	}
	start := time.Date(2026, 6, 16, 12, 0, 0, 0, time.UTC).UnixNano()
	h := "0123456789abcdef"
	if id := shardRunID("", start, h); id != "20260616T120000-012345" {
		t.Errorf("run id %q", id)
	}
	if id := shardRunID("mine", start, h); id != "mine" {
		t.Errorf("explicit run id %q", id)
	}
}
