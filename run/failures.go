package run

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/loadgen"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
)

// DefaultMaxConnectFailures is how many requests in a row may fail to
// reach the server before the run stops sending to it (--max-connect-failures).
const DefaultMaxConnectFailures = 50

// NoSuccessError is returned by Run, after every output was written, when
// a benchmark had failed requests and no successful one in its window
// (requests the run only cut off at its end do not count), or stopped because
// the server went away, unless Config.AllowAllErrors: such a run measured
// no working server. Lines say which benchmark and why, with a hint.
type NoSuccessError struct{ Lines []string }

func (e *NoSuccessError) Error() string { return strings.Join(e.Lines, "\n") }

// noSuccess diagnoses the benchmarks that measured no working server;
// nil when every benchmark had a successful request.
func (s *state) noSuccess(rep *report.Report) error {
	if s.cfg.AllowAllErrors {
		return nil
	}
	var lines []string
	for i, b := range rep.Benchmarks {
		name := fmt.Sprintf("benchmark %d (%s)", i, b.Label())
		if g := b.Extras; g != nil && g.StopReason == string(loadgen.StopServerGone) {
			lines = append(lines, fmt.Sprintf("%s: the server went away (%d requests in a row could not reach %s); no more requests were sent to it",
				name, s.cfg.Plan.Constraints.MaxConnectFailures, s.requestURL()))
			continue
		}
		// Requests the run cut off at the benchmark's end are no failure
		// of the server's: a benchmark too short to finish one is not
		// diagnosed (the console shows it).
		t := b.Metrics.RequestTotals
		if t == nil || t.Errored == 0 || t.Successful > 0 {
			continue
		}
		lines = append(lines, name+": "+s.whyFailed(b, int64(t.Total)))
	}
	if len(lines) == 0 {
		return nil
	}
	return &NoSuccessError{Lines: lines}
}

// requestURL is where the requests went (the first target's), without
// credentials.
func (s *state) requestURL() string {
	return s.client.PublicURL() + s.requestPath()
}

// requestPath is the path the requests were sent to under the target:
// --request-path when given, else the request type's.
func (s *state) requestPath() string {
	if p := s.client.Config().Path; p != "" {
		return p
	}
	return string(s.client.Config().Endpoint)
}

// whyFailed says how a benchmark's requests failed, most common error
// first, with a hint at the likely cause.
func (s *state) whyFailed(b *report.Benchmark, total int64) string {
	rows := b.ErrorRows()
	if len(rows) == 0 {
		return fmt.Sprintf("no successful request: %d of %d failed", b.Metrics.RequestTotals.Errored, total)
	}
	top := rows[0]
	what := "failed with a " + top.Class + " error at" // goodput's error classes
	n, code := top.Count, 0
	if top.Class == string(record.ErrHTTPStatus) {
		code, n = topStatus(b.Extras.Errors.ByHTTPStatus)
		what = "got HTTP " + strconv.Itoa(code) + " from"
	}
	var msg string
	if n == total {
		msg = fmt.Sprintf("every request %s %s", what, s.requestURL())
	} else {
		msg = fmt.Sprintf("no successful request: %d of %d %s %s", n, total, what, s.requestURL())
	}
	if top.Message != "" {
		msg += fmt.Sprintf(" (%q)", top.Message)
	}
	if h := s.hint(top.Class, code); h != "" {
		msg += ": " + h
	}
	return msg
}

// topStatus is the most common HTTP status and its count.
func topStatus(by map[string]report.Int) (code int, n int64) {
	keys := make([]string, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if c, err := strconv.Atoi(k); err == nil && int64(by[k]) > n {
			code, n = c, int64(by[k])
		}
	}
	return code, n
}

// hint is the likely cause of a benchmark's failures; "" when there is
// none to give.
func (s *state) hint(class string, code int) string {
	endpoint := s.requestPath()
	switch record.ErrorClass(class) {
	case record.ErrHTTPStatus:
		// A target's path prefix is meant when --request-path is given.
		if u, err := url.Parse(s.client.PublicURL()); err == nil && (code == 404 || code == 405) && strings.Trim(u.Path, "/") != "" && s.client.Config().Path == "" {
			base := *u
			base.Path, base.RawPath = "", ""
			return fmt.Sprintf("give the base URL (%s): goodput appends %s", base.String(), endpoint)
		}
		switch code {
		case 404:
			return fmt.Sprintf("the server has no %s: check the request type, or that the URL is the server's base URL", endpoint)
		case 405, 501:
			return fmt.Sprintf("the server does not implement %s: check the request type", endpoint)
		case 401, 403:
			return "check the API key (--api-key or $OPENAI_API_KEY)"
		case 400, 422:
			return "the server refused the requests: check the model name and the request options"
		case 429, 503:
			return "the server refused the load: lower it, or wait until the server is ready"
		}
	case record.ErrConnect:
		return "is the server running and reachable at that address?"
	case record.ErrTimeout, record.ErrStall:
		return "the server did not answer in time: lower the load, or raise the request or stall timeout"
	}
	return ""
}
