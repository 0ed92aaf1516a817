package report

import (
	"reflect"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/metric"
)

// TestLatencyFields: Latency returns the distribution whose JSON key is the
// metric table's GuideLLM field, in GuideLLM's metrics and goodput's.
func TestLatencyFields(t *testing.T) {
	for _, x := range []any{&Metrics{}, &ExtraMetrics{}} {
		v := reflect.ValueOf(x).Elem()
		byTag := map[string]*StatusDistributionSummary{}
		for i := 0; i < v.NumField(); i++ {
			if p, ok := v.Field(i).Addr().Interface().(**StatusDistributionSummary); ok {
				*p = &StatusDistributionSummary{}
				byTag[strings.Split(v.Type().Field(i).Tag.Get("json"), ",")[0]] = *p
			}
		}
		for _, l := range metric.Latencies {
			var got *StatusDistributionSummary
			switch m := x.(type) {
			case *Metrics:
				got = m.Latency(l)
			case *ExtraMetrics:
				got = m.Latency(l)
			}
			if got == nil || got != byTag[l.Field] {
				t.Errorf("%T.Latency(%s) is not the field %q", x, l.Key, l.Field)
			}
		}
	}
}
