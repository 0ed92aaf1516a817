package mock

import (
	"net/http"
	"sync"

	"github.com/goodput-dev/goodput/reqtype"
)

// handlers serve the request types' APIs (reqtype.All), each registered
// by the file that serves it.
var handlers = map[reqtype.API]func(*Server, http.ResponseWriter, *http.Request){}

// serves registers h as the handler of id; called once per API from a
// package-level var.
func serves(id reqtype.API, h func(*Server, http.ResponseWriter, *http.Request)) bool {
	if handlers[id] != nil {
		panic("mock: API served twice")
	}
	handlers[id] = h
	return true
}

// servedPaths maps every POST path the mock serves to its handler: each
// request type's path and its further mock paths.
var servedPaths = sync.OnceValue(func() map[string]func(*Server, http.ResponseWriter, *http.Request) {
	m := map[string]func(*Server, http.ResponseWriter, *http.Request){}
	for i := range reqtype.All {
		t := &reqtype.All[i]
		if h := handlers[t.API]; h != nil {
			for _, p := range append([]string{t.Path}, t.MockPaths...) {
				m[p] = h
			}
		}
	}
	return m
})
