package compare

import (
	"strings"
	"testing"
)

func TestParseLimit(t *testing.T) {
	t.Parallel()
	all := []LimitKind{LimitPercent, LimitPoints, LimitDuration}
	tests := []struct {
		in      string
		accept  []LimitKind
		want    Limit
		wantErr string
	}{
		{"5%", all, Limit{LimitPercent, 5}, ""},
		{" 12.5% ", all, Limit{LimitPercent, 12.5}, ""},
		{".5%", all, Limit{LimitPercent, 0.5}, ""},
		{"0%", all, Limit{LimitPercent, 0}, ""},
		{"0.5pp", all, Limit{LimitPoints, 0.5}, ""},
		{"20ms", all, Limit{LimitDuration, 20}, ""},
		{"0.5s", all, Limit{LimitDuration, 500}, ""},
		{"500us", all, Limit{LimitDuration, 0.5}, ""},
		{"off", all, Limit{}, ""},
		{"NONE", all, Limit{}, ""},
		{"5", []LimitKind{LimitPercent}, Limit{}, `"5": a bare number is ambiguous; want a percentage like 5% or off`},
		{"5%", []LimitKind{LimitPoints}, Limit{}, `"5%": want percentage points like 0.5pp or off`},
		{"20ms", []LimitKind{LimitPercent}, Limit{}, `"20ms": want a percentage like 5% or off`},
		{"5pp", []LimitKind{LimitPercent, LimitDuration}, Limit{}, `want a percentage like 5%, a duration like 20ms or off`},
		{"-5%", all, Limit{}, "not a number"},
		{"1e3%", all, Limit{}, "unknown unit"},
		{"NaN%", all, Limit{}, "not a number"},
		{"1.2.3%", all, Limit{}, "not a number"},
		{"5 %", all, Limit{LimitPercent, 5}, ""},
		{"5kg", all, Limit{}, `unknown unit "kg"`},
		{"101pp", all, Limit{}, "too large"},
		{"2000000%", all, Limit{}, "too large"},
		{"", all, Limit{}, "not a number"},
	}
	for _, tt := range tests {
		got, err := ParseLimit(tt.in, tt.accept...)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseLimit(%q) err = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseLimit(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

func TestDefaultLimits(t *testing.T) {
	t.Parallel()
	d := DefaultLimits()
	want := map[string]string{
		MetricGoodput: "5%", MetricThroughput: "5%", MetricTTFTP50: "10%", MetricTTFTP90: "10%", MetricTTFTP99: "10%", MetricITLP50: "10%",
		MetricITLP95: "10%", MetricLatencyP99: "off", MetricErrorRate: "0.5pp", MetricKnee: "10%",
		MetricSessionGoodput: "5pp", MetricLaterTurnTTFT: "10%", MetricCacheHitRate: "5pp",
	}
	if len(d) != len(want) {
		t.Fatalf("%d defaults, want %d", len(d), len(want))
	}
	for k, v := range want {
		if d[k].String() != v {
			t.Errorf("%s default %s, want %s", k, d[k], v)
		}
	}
}

func FuzzParseLimit(f *testing.F) {
	for _, s := range []string{"5%", "0.5pp", "20ms", "0.5s", "500us", "off", "5", "-1%", "1e9%", "..%", "µs"} {
		f.Add(s)
	}
	all := []LimitKind{LimitPercent, LimitPoints, LimitDuration}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLimit(s, all...)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error for %q", s)
			}
			return
		}
		if l.Num < 0 || l.Num > maxLimitNum || l.Num != l.Num {
			t.Fatalf("%q gave %+v", s, l)
		}
		// What String writes, ParseLimit reads back to the same limit.
		again, err := ParseLimit(l.String(), all...)
		if err != nil || again != l {
			t.Fatalf("%q → %+v → %q → %+v, %v", s, l, l.String(), again, err)
		}
	})
}
