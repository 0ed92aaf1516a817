package run

import (
	"runtime/debug"
	"strings"
	"testing"
)

// TestFitHeap: plans of many streams run the collector at GOGC=50 and
// say so, unless GOGC is set; the previous setting comes back after.
func TestFitHeap(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	unset := func(string) string { return "" }
	set := func(k string) string {
		if k == "GOGC" {
			return "200"
		}
		return ""
	}
	cases := []struct {
		streams int
		getenv  func(string) string
		want    int
	}{
		{100, unset, 100},
		{999, unset, 100},
		{1000, unset, 50},
		{50000, unset, 50},
		{50000, set, 100},
	}
	for _, c := range cases {
		msg, restore := fitHeap(c.streams, c.getenv)
		got := debug.SetGCPercent(-1)
		debug.SetGCPercent(got)
		if got != c.want {
			t.Errorf("%d streams: GOGC %d, want %d", c.streams, got, c.want)
		}
		if (c.want == 50) != strings.Contains(msg, "GOGC=50") {
			t.Errorf("%d streams: message %q", c.streams, msg)
		}
		restore()
		if now := debug.SetGCPercent(100); now != 100 {
			t.Errorf("%d streams: GOGC %d after restore, want 100", c.streams, now)
		}
	}
}
