package mock

import (
	"net/http"
	"testing"
)

// Listen serves the same server on more addresses: each answers, and
// Close stops them all.
func TestListenMoreAddresses(t *testing.T) {
	srv, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Listen("127.0.0.1:0"); err == nil {
		t.Error("Listen before Start: no error")
	}
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{"127.0.0.1:0", "127.0.0.2:0"} {
		if _, err := srv.Listen(addr); err != nil {
			t.Fatal(err)
		}
	}
	urls := srv.URLs()
	if len(urls) != 3 || urls[0] != srv.URL() {
		t.Fatalf("URLs %v; want Start's first, then two more", urls)
	}
	for _, u := range urls {
		resp, err := http.Get(u + "/v1/models")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: HTTP %d", u, resp.StatusCode)
		}
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	for _, u := range urls {
		if resp, err := http.Get(u + "/v1/models"); err == nil {
			resp.Body.Close()
			t.Errorf("%s still answers after Close", u)
		}
	}
	if _, err := srv.Listen("127.0.0.1:0"); err == nil {
		t.Error("Listen after Close: no error")
	}
}
