package cli

import (
	"reflect"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/scorecard/measure"
)

// TestServerMetricsReplicas: --server-metrics takes one URL per replica,
// comma-separated or repeated; a word among URLs is a one-line error.
func TestServerMetricsReplicas(t *testing.T) {
	c, err := parseScorecardFlags(t, "--server-metrics", "http://a:8000/metrics, http://b:8000/metrics", "--server-metrics", "http://c:8000/metrics")
	if err != nil {
		t.Fatal(err)
	}
	if c.ServerMetrics != measure.ServerMetricsOn || c.ServerMetricsURL != "http://a:8000/metrics" ||
		!reflect.DeepEqual(c.ServerMetricsURLs, []string{"http://b:8000/metrics", "http://c:8000/metrics"}) {
		t.Errorf("config %q %q %q", c.ServerMetrics, c.ServerMetricsURL, c.ServerMetricsURLs)
	}
	if c, err = parseScorecardFlags(t, "--server-metrics", "off"); err != nil || c.ServerMetrics != measure.ServerMetricsOff || len(c.ServerMetricsURLs) != 0 {
		t.Errorf("off: %v %+v", err, c)
	}
	if _, err = parseScorecardFlags(t, "--server-metrics", "http://a:8000/metrics,on"); err == nil || !strings.Contains(err.Error(), `--server-metrics "on": want auto, on, off, http(s) URLs`) {
		t.Errorf("mixed: %v", err)
	}
}
