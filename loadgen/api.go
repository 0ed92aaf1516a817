package loadgen

import (
	"context"
	"net/http"

	"github.com/goodput-dev/goodput/reqtype"
	"github.com/goodput-dev/goodput/sse"
)

// api is what the client does for one request type (a reqtype.API): its
// body, and how its response is decoded. Each API's file registers it.
type api struct {
	// body renders a request's whole body, model the model's JSON string.
	body func(c *Client, b []byte, req *Request, model []byte) []byte
	// decode reads one stream event, decodeAll a non-streamed body (types
	// that stream).
	decode, decodeAll func([]byte, *sse.Chunk) error
	// read reads the one JSON body of a type that never streams.
	read func(c *Client, ctx context.Context, resp *http.Response, st *streamState, wd *watchdog, req *Request)
	// contentType is the request's Content-Type (default application/json).
	contentType string
	// auth sets the API key's header (default Authorization: Bearer).
	auth func(h http.Header, key string)
}

// apis are the registered APIs.
var apis = map[reqtype.API]*api{}

// register makes a the client's code for id; called once per API from a
// package-level var.
func register(id reqtype.API, a *api) bool {
	if apis[id] != nil {
		panic("loadgen: API registered twice")
	}
	apis[id] = a
	return true
}

// Type returns e's row of the request-type table ("" is EndpointChat).
func (e Endpoint) Type() (*reqtype.Type, bool) {
	if e == "" {
		e = EndpointChat
	}
	return reqtype.ByPath(string(e))
}

// Pooling reports whether e is a pooling endpoint (no stream, no output).
func (e Endpoint) Pooling() bool {
	t, ok := e.Type()
	return ok && t.Pooling()
}

// Streams reports whether a request to e streams when noStream is not
// set.
func (e Endpoint) Streams() bool {
	t, ok := e.Type()
	return ok && t.Stream
}
