package metric

import (
	"reflect"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/report"
)

// fieldsByTag fills every distribution field of x (a pointer to a struct)
// and indexes them by their JSON key.
func fieldsByTag(x any) map[string]*report.StatusDistributionSummary {
	v := reflect.ValueOf(x).Elem()
	byTag := map[string]*report.StatusDistributionSummary{}
	for i := 0; i < v.NumField(); i++ {
		if p, ok := v.Field(i).Addr().Interface().(**report.StatusDistributionSummary); ok {
			*p = &report.StatusDistributionSummary{}
			byTag[strings.Split(v.Type().Field(i).Tag.Get("json"), ",")[0]] = *p
		}
	}
	return byTag
}

// TestReportFields: a row's Guide and Extra point at the distribution whose
// JSON key is its Field, in GuideLLM's metrics and goodput's extras.
func TestReportFields(t *testing.T) {
	var m report.Metrics
	var x report.ExtraMetrics
	guide, extra := fieldsByTag(&m), fieldsByTag(&x)
	for _, l := range All {
		if l.Guide != nil && (l.Of(&m) == nil || l.Of(&m) != guide[l.Field]) {
			t.Errorf("%s: Guide is not the metrics' field %q", l.Label, l.Field)
		}
		if l.Extra != nil && (l.OfExtra(&x) == nil || l.OfExtra(&x) != extra[l.Field]) {
			t.Errorf("%s: Extra is not the extras' field %q", l.Label, l.Field)
		}
		if l.Extra == nil && l.Guide == nil && !l.Stream {
			t.Errorf("%s: no place in the report", l.Label)
		}
	}
	for _, l := range Latencies {
		if l.Guide == nil || l.Extra == nil {
			t.Errorf("%s: a core latency without both distributions", l.Key)
		}
	}
}
