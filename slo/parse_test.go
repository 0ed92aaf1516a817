package slo

import (
	"math"
	"strings"
	"testing"
)

func TestParseCanonical(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{DefaultSpec, "ttft_p99=500ms,itl_p95=50ms,error_rate=0.5%"},
		// Order, case, spaces and aliases are normalised.
		{" error_rate = 0.005 , ITL_P95=0.05s,ttft_p99=500 ", "ttft_p99=500ms,itl_p95=50ms,error_rate=0.5%"},
		{"latency_p99=2s,e2el_mean=1.5s", "e2e_mean=1500ms,e2e_p99=2000ms"},
		{"e2e_max=1m30s", "e2e_max=90000ms"},
		{"ttft_median=200ms,ttft_avg=100ms", "ttft_mean=100ms,ttft_p50=200ms"},
		// GuideLLM's percentile keys.
		{"ttft_p001=1,ttft_p01=2,ttft_p05=3,ttft_p999=4", "ttft_p0.1=1ms,ttft_p1=2ms,ttft_p5=3ms,ttft_p99.9=4ms"},
		{"tpot_p99.9=10ms,tpot_p0.1=1ms,tpot_p10=2ms,tpot_p25=3ms,tpot_p75=4ms,tpot_p90=5ms", "tpot_p0.1=1ms,tpot_p10=2ms,tpot_p25=3ms,tpot_p75=4ms,tpot_p90=5ms,tpot_p99.9=10ms"},
		// Units.
		{"ttft=250us", "ttft=0.25ms"},
		{"ttft=250µs,itl=1e3ns", "ttft=0.25ms,itl=0.001ms"},
		{"e2e=1.5h", "e2e=5400000ms"},
		{"e2e=24h", "e2e=86400000ms"},
		{"ttft=1ns", "ttft=0.000001ms"},
		{"ttft=2.5", "ttft=2.5ms"},
		// Fractions.
		{"error_rate=0", "error_rate=0%"},
		{"error_rate=1", "error_rate=100%"},
		{"error_rate=0.7%", "error_rate=0.7%"},
		{"error_rate=0.007", "error_rate=0.7%"},
		{"attainment=99%,ttft=500ms", "ttft=500ms,attainment=99%"},
		{"attainment=0.9", "attainment=90%"},
	}
	for _, tc := range tests {
		s, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if got := s.String(); got != tc.want {
			t.Errorf("Parse(%q).String() = %q, want %q", tc.in, got, tc.want)
		}
		back, err := Parse(s.String())
		if err != nil || back.String() != s.String() {
			t.Errorf("canonical form %q does not read back: %v %q", s, err, back)
		}
		if s.Default {
			t.Errorf("Parse(%q) is marked default", tc.in)
		}
	}
}

func TestParseObjectives(t *testing.T) {
	s, err := Parse("ttft_p99=500ms,itl_p95=50,error_rate=0.5%,e2e_max=2s,tpot=30ms")
	if err != nil {
		t.Fatal(err)
	}
	want := []Objective{
		{Metric: TTFT, Stat: Percentile, Percentile: 99, Threshold: 500},
		{Metric: ITL, Stat: Percentile, Percentile: 95, Threshold: 50},
		{Metric: TPOT, Stat: Each, Threshold: 30},
		{Metric: E2E, Stat: Max, Threshold: 2000},
		{Metric: ErrorRate, Threshold: 0.005},
	}
	if len(s.Objectives) != len(want) {
		t.Fatalf("objectives %+v", s.Objectives)
	}
	for i, o := range s.Objectives {
		if o != want[i] {
			t.Errorf("objective %d = %+v, want %+v", i, o, want[i])
		}
	}
	keys := []string{"ttft_p99", "itl_p95", "tpot", "e2e_max", "error_rate"}
	for i, o := range s.Objectives {
		if o.Key() != keys[i] {
			t.Errorf("key %d = %q, want %q", i, o.Key(), keys[i])
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", `empty SLO: want key=value items separated by commas, e.g. ttft_p99=500ms,itl_p95=50ms,error_rate=0.5%`},
		{"  ", `empty SLO: want key=value items`},
		{"ttft_p99=500ms,", `SLO "ttft_p99=500ms," has an empty item: want key=value items`},
		{"ttft_p99", `SLO item "ttft_p99": want key=value, e.g. ttft_p99=500ms`},
		{"foo_p99=5ms", `SLO item "foo_p99=5ms": unknown key "foo_p99": want ttft, ttst, itl, tpot, e2e or stall with an optional _<statistic> (a percentile p<x> with 0 < x < 100 (p50, p95, p99, p99.9, p97, …), mean or max), fluidity (_min, _mean, _p<x>), deadline_misses (_mean, _max, _p<x>), error_rate or attainment`},
		{"ttft_p100=5ms", `SLO item "ttft_p100=5ms": key "ttft_p100": percentile "p100" is not available: want a percentile p<x> with 0 < x < 100`},
		{"ttft_p0=5ms", `percentile "p0" is not available`},
		{"ttft_pnan=5ms", `percentile "pnan" is not available`},
		{"ttft_pinf=5ms", `percentile "pinf" is not available`},
		{"ttft_p=5ms", `unknown statistic "p": want a percentile`},
		{"ttft_stddev=5ms", `unknown statistic "stddev": want a percentile`},
		{"ttft_p99=fast", `SLO item "ttft_p99=fast": value "fast": want a duration such as 500ms, 0.5s or 250us, or a number of milliseconds, between 1ns and 24h`},
		{"ttft_p99=", `value "": want a duration`},
		{"ttft_p99=0", `value "0": want a duration`},
		{"ttft_p99=-5ms", `value "-5ms": want a duration`},
		{"ttft_p99=0.5ns", `value "0.5ns": want a duration`},
		{"ttft_p99=25h", `value "25h": want a duration`},
		{"ttft_p99=NaN", `value "NaN": want a duration`},
		{"ttft_p99=Infms", `value "Infms": want a duration`},
		{"ttft_p99=5xs", `value "5xs": want a duration`},
		{"ttft_p99=5ms,ttft_p99=6ms", `SLO item "ttft_p99=6ms": ttft_p99 is given twice`},
		{"latency_p99=1s,e2e_p99=2s", `SLO item "e2e_p99=2s": e2e_p99 is given twice`},
		{"ttft_median=1,ttft_p50=2", `ttft_p50 is given twice`},
		{"error_rate=5", `SLO item "error_rate=5": error_rate "5": want a fraction from 0 to 1 (0.005) or a percentage (0.5%)`},
		{"error_rate=-1%", `error_rate "-1%": want a fraction`},
		{"error_rate=150%", `error_rate "150%": want a fraction`},
		{"error_rate=abc", `error_rate "abc": want a fraction`},
		{"error_rate=1,error_rate=2%", `error_rate is given twice`},
		{"attainment=0", `SLO item "attainment=0": attainment 0 judges nothing: want a share of good requests > 0, e.g. 99%`},
		{"attainment=2", `attainment "2": want a fraction`},
	}
	for _, tc := range tests {
		_, err := Parse(tc.in)
		if err == nil {
			t.Errorf("Parse(%q) succeeded, want an error containing %q", tc.in, tc.want)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) error\n  %v\nwant it to contain\n  %s", tc.in, err, tc.want)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("Parse(%q): error spans lines: %q", tc.in, err)
		}
	}
}

func TestDefault(t *testing.T) {
	d := Default()
	if !d.Default || d.String() != DefaultSpec {
		t.Fatalf("Default() = %q default=%v", d, d.Default)
	}
	if r := d.Report(); r.Spec != DefaultSpec || !r.Default {
		t.Errorf("Report() = %+v", r)
	}
}

func TestParseAIPerf(t *testing.T) {
	s, err := ParseAIPerf("time_to_first_token:500 inter_token_latency:50 request_latency:2500")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.String(); got != "ttft=500ms,itl=50ms,e2e=2500ms" {
		t.Errorf("String() = %q", got)
	}
	// 40 tokens/s per user is 25 ms per token; the stricter itl wins.
	for _, tc := range []struct{ in, want string }{
		{"output_token_throughput_per_user:40", "itl=25ms"},
		{"output_token_throughput_per_user:40 inter_token_latency:50", "itl=25ms"},
		{"inter_token_latency:10 output_token_throughput_per_user:40", "itl=10ms"},
	} {
		s, err := ParseAIPerf(tc.in)
		if err != nil || s.String() != tc.want {
			t.Errorf("ParseAIPerf(%q) = %q, %v; want %q", tc.in, s, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"ttft:500", `--goodput "ttft:500": unknown metric "ttft"`},
		{"time_to_first_token:-1", `value "-1" is not a number ≥ 0`},
		{"time_to_first_token:0", `AIPerf --goodput pair "time_to_first_token:0": want a number > 0`},
		{"request_latency:1 request_latency:1", `metric "request_latency" given twice`},
		{"time_to_second_token:30", `AIPerf --goodput pair "time_to_second_token:30": unknown key "time_to_second_token": want time_to_first_token, inter_token_latency, request_latency or output_token_throughput_per_user`},
		{"", "empty AIPerf --goodput"},
	} {
		_, err := ParseAIPerf(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseAIPerf(%q) = %v, want %q", tc.in, err, tc.want)
		}
	}
}

// FuzzParse checks that Parse never panics, that its errors are one line,
// and that the canonical form reads back to the same objectives.
func FuzzParse(f *testing.F) {
	for _, s := range []string{DefaultSpec, "ttft=1ns", "e2e_max=1m30s", "error_rate=0.7%", "attainment=99%,itl=3ns",
		"ttft_p001=1,ttft_p999=4", "latency_mean=24h", "x", "", ",", "ttft_p99=5xs", "tpot_p99.9=0x1p-2"} {
		f.Add(s)
	}
	f.Add("time_to_first_token:500 output_token_throughput_per_user:40")
	f.Fuzz(func(t *testing.T, in string) {
		// AIPerf's form reads back through the canonical form.
		for _, parse := range []func(string) (Spec, error){ParseAIPerf} {
			s, err := parse(in)
			if err != nil {
				if strings.Contains(err.Error(), "\n") {
					t.Fatalf("multi-line error for %q: %q", in, err)
				}
				continue
			}
			if back, err := Parse(s.String()); err != nil || back.String() != s.String() {
				t.Fatalf("%q: canonical %q reads back as %q, %v", in, s, back, err)
			}
		}
		s, err := Parse(in)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error for %q: %q", in, err)
			}
			return
		}
		c := s.String()
		back, err := Parse(c)
		if err != nil {
			t.Fatalf("canonical %q of %q does not parse: %v", c, in, err)
		}
		if back.String() != c || len(back.Objectives) != len(s.Objectives) {
			t.Fatalf("canonical %q reads back as %q", c, back)
		}
		for i, o := range s.Objectives {
			b := back.Objectives[i]
			if o.Metric != b.Metric || o.Stat != b.Stat || o.Percentile != b.Percentile ||
				math.Abs(o.Threshold-b.Threshold) > 1e-12*math.Max(1, o.Threshold) {
				t.Fatalf("objective %d of %q: %+v reads back as %+v", i, in, o, b)
			}
			if o.Metric.latency() && !(o.Threshold >= minLatencyMs && o.Threshold <= MaxLatencyMs) {
				t.Fatalf("latency threshold out of range: %+v", o)
			}
			if !o.Metric.latency() && !(o.Threshold >= 0 && o.Threshold <= 1) {
				t.Fatalf("fraction out of range: %+v", o)
			}
		}
	})
}
