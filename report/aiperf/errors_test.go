package aiperf

import (
	"testing"

	"github.com/goodput-dev/goodput/record"
)

// A disconnect or stall after a 200 is counted under its type with no
// code; only an HTTP error carries its status as the code.
func TestErrorSummaryCodeOnlyForHTTPErrors(t *testing.T) {
	tally := errorTally{counts: map[errorKey]int64{}}
	for _, r := range []*record.Record{
		{Status: record.StatusErrored, ErrorClass: record.ErrDisconnect, HTTPStatus: 200, Error: "connection closed before the stream ended"},
		{Status: record.StatusErrored, ErrorClass: record.ErrStall, HTTPStatus: 200, Error: "no chunk for 2s"},
		{Status: record.StatusErrored, ErrorClass: record.ErrHTTPStatus, HTTPStatus: 503, Error: "HTTP 503: overloaded"},
	} {
		tally.add(r)
	}
	for _, e := range tally.summary() {
		switch e.Details.Type {
		case "HTTPError":
			if e.Details.Code == nil || *e.Details.Code != 503 {
				t.Errorf("HTTP error %+v: want code 503", e.Details)
			}
		default:
			if e.Details.Code != nil {
				t.Errorf("%s %+v: want no code, got %d", e.Details.Type, e.Details, *e.Details.Code)
			}
		}
	}
}
