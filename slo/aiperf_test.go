package slo

import (
	"slices"
	"strings"
	"testing"
)

func TestParseAIPerfGoodput(t *testing.T) {
	got, err := ParseAIPerfGoodput("  time_to_first_token:500   inter_token_latency:50 output_token_throughput_per_user:12.5 ")
	if err != nil {
		t.Fatal(err)
	}
	want := []AIPerfThreshold{{Tag: "time_to_first_token", Threshold: 500}, {Tag: "inter_token_latency", Threshold: 50}, {Tag: "output_token_throughput_per_user", Threshold: 12.5}}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v", got)
	}
	if FormatAIPerfGoodput(got) != "time_to_first_token:500 inter_token_latency:50 output_token_throughput_per_user:12.5" {
		t.Fatalf("format %q", FormatAIPerfGoodput(got))
	}
	if s, err := ParseAIPerfGoodput(""); err != nil || s != nil {
		t.Fatalf("empty: %v %v", s, err)
	}
	for _, bad := range []struct{ in, want string }{
		{"ttft:500", `unknown metric "ttft"`},
		{"time_to_first_token=500", "want space-separated metric:value pairs"},
		{"time_to_first_token:", "want space-separated"},
		{"time_to_first_token:abc", `value "abc" is not a number`},
		{"time_to_first_token:-1", "not a number ≥ 0"},
		{"time_to_first_token:NaN", "not a number"},
		{"time_to_first_token:1 time_to_first_token:2", "given twice"},
		{"inter_chunk_latency:5", "unknown metric"},
	} {
		_, err := ParseAIPerfGoodput(bad.in)
		if err == nil || !strings.Contains(err.Error(), bad.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want %q", bad.in, err, bad.want)
		}
	}
}

// FuzzParseAIPerfGoodput: the --goodput parser never panics, errors are
// one line, and what it accepts formats to a value it parses the same.
func FuzzParseAIPerfGoodput(f *testing.F) {
	for _, s := range []string{"", "time_to_first_token:500 inter_token_latency:50", "request_latency:1e3",
		"output_token_throughput_per_user:0.5", "ttft:1", "a:b:c", "time_to_first_token:1e400", " : "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		slos, err := ParseAIPerfGoodput(s)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		again, err := ParseAIPerfGoodput(FormatAIPerfGoodput(slos))
		if err != nil || len(again) != len(slos) {
			t.Fatalf("%q → %q: %v", s, FormatAIPerfGoodput(slos), err)
		}
		for i := range slos {
			if again[i] != slos[i] {
				t.Fatalf("%v became %v", slos[i], again[i])
			}
		}
	})
}

// A repeated --goodput adds its pairs; a metric given in two of them is
// an error, as within one.
func TestParseAIPerfGoodputRepeated(t *testing.T) {
	got, err := ParseAIPerfGoodput("time_to_first_token:500", " inter_token_latency:50 request_latency:2000")
	if err != nil || FormatAIPerfGoodput(got) != "time_to_first_token:500 inter_token_latency:50 request_latency:2000" {
		t.Fatalf("ParseAIPerfGoodput = %v, %v", got, err)
	}
	if _, err := ParseAIPerfGoodput("time_to_first_token:500", "time_to_first_token:400"); err == nil || err.Error() != `--goodput: metric "time_to_first_token" given twice` {
		t.Errorf("twice across values: %v", err)
	}
}
