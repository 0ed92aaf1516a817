//go:build !unix

package loadgen

// alive takes an idle connection as alive where its socket cannot be
// peeked at without waiting: a request that meets it closed is retried
// (h1Transport.RoundTrip).
func (pc *h1Conn) alive() bool { return true }
