package accum

import (
	"testing"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
)

// Each error class names its most common message, made one line and
// counted over the window's requests, the same below and beyond the
// exact cap; a run without failures has no messages (the JSON key is
// left out).
func TestErrorMessages(t *testing.T) {
	const base, ms = int64(1_700_000_000e9), int64(1e6)
	for _, exactCap := range []int{1000, 3} {
		a, err := New(Config{Start: base, Seed: 1, ExactCap: exactCap})
		if err != nil {
			t.Fatal(err)
		}
		add := func(i int, status record.Status, class record.ErrorClass, msg string) {
			r := record.New()
			r.ID, r.Status = uint64(i+1), status
			r.Intended, r.Dispatched, r.End = base+int64(i)*ms, base+int64(i)*ms, base+int64(i)*ms+5*ms
			r.ErrorClass, r.Error = class, msg
			if class == record.ErrHTTPStatus {
				r.HTTPStatus = 404
			}
			a.Add(r)
		}
		// http_status: 3 × "HTTP 404: not found" (one spread over lines),
		// 1 × another; connect: 2 × one message; 1 success.
		add(0, record.StatusErrored, record.ErrHTTPStatus, "HTTP 404: not found")
		add(1, record.StatusErrored, record.ErrHTTPStatus, "HTTP 404:\n  not   found")
		add(2, record.StatusErrored, record.ErrHTTPStatus, "HTTP 404: no route")
		add(3, record.StatusErrored, record.ErrHTTPStatus, "HTTP 404: not found")
		add(4, record.StatusErrored, record.ErrConnect, "connection refused")
		add(5, record.StatusErrored, record.ErrConnect, "connection refused")
		b := a.Finish(BenchmarkInfo{RunID: "e", Start: base})
		got := b.Extras.Errors.Messages
		want := map[string]report.ErrorMessage{
			"http_status": {Message: "HTTP 404: not found", Count: 3},
			"connect":     {Message: "connection refused", Count: 2},
		}
		if len(got) != len(want) || got["http_status"] != want["http_status"] || got["connect"] != want["connect"] {
			t.Errorf("exact cap %d: messages %v, want %v", exactCap, got, want)
		}
	}
	a, _ := New(Config{Start: base, Seed: 1})
	r := record.New()
	r.ID, r.Status, r.Intended, r.Dispatched, r.End = 1, record.StatusSuccessful, base, base, base+ms
	a.Add(r)
	if m := a.Finish(BenchmarkInfo{RunID: "ok", Start: base}).Extras.Errors.Messages; m != nil {
		t.Errorf("no failure, messages %v", m)
	}
}

func TestOneLineMessage(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"a\n b\t c", 10, "a b c"},
		{"abcdef", 4, "abcd…"},
		{"ééé", 3, "é…"}, // not inside a rune
	} {
		if got := OneLineMessage(c.in, c.n); got != c.want {
			t.Errorf("OneLineMessage(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
