package loadgen

import (
	"context"
	"net"
	"net/http"
	"testing"
)

// New connections take ClientConfig.LocalAddrs in turn as their source
// address; a bad address is refused.
func TestLocalAddrsSpreadConnections(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for _, ts := range []bool{false, true} {
		c, err := NewClient(ClientConfig{Target: "http://" + ln.Addr().String(), LocalAddrs: []string{"127.0.0.2", "127.0.0.3"}, UserTimestamps: ts}, NewClock())
		if err != nil {
			t.Fatal(err)
		}
		dial := c.http.Transport.(*http.Transport).DialContext
		for _, want := range []string{"127.0.0.2", "127.0.0.3", "127.0.0.2"} {
			conn, err := dial(context.Background(), "tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			srv, err := ln.Accept()
			if err != nil {
				t.Fatal(err)
			}
			if got := srv.RemoteAddr().(*net.TCPAddr).IP.String(); got != want {
				t.Errorf("user timestamps %v: connection from %s, want %s", ts, got, want)
			}
			conn.Close()
			srv.Close()
		}
	}
	if _, err := NewClient(ClientConfig{Target: "http://127.0.0.1:1", LocalAddrs: []string{"localhost"}}, NewClock()); err == nil {
		t.Error("a host name as local address: no error")
	}
}
