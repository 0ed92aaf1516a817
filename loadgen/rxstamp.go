package loadgen

import (
	"net"
	"time"
)

// Arrival timestamps.
//
// A response byte "arrives" when the kernel receives it, not when the
// client's goroutine next runs: between the two lie the client's own
// wake-up, scheduling and parsing delays, which are not the server's
// latency. On Linux the client asks the kernel for the receive time of
// the bytes each read returns (SO_TIMESTAMPNS: the time the last segment
// of the read was received), converts it to the run's monotonic clock and
// uses it for the response headers, every chunk and the end of the stream.
// Elsewhere, over HTTP/2 (one connection carries many streams, read by
// another goroutine) and with ClientConfig.UserTimestamps, the arrival is
// the time the read returned, as in other load generators. Each record
// says which it carries (record.Record.RxKernel).

// rxStamper is a connection that knows the kernel's receive time of the
// last bytes it read.
type rxStamper interface {
	// lastRx returns the CLOCK_REALTIME Unix nanoseconds at which the
	// kernel received the last bytes read, 0 when unknown.
	lastRx() int64
}

// maxRxAge bounds how old a receive timestamp may be when converted: an
// older one is taken to be a wall-clock step between the kernel's stamp
// and the conversion, and the read time is used instead. A client so
// overloaded that bytes wait a second in its socket is flagged saturated
// anyway.
const maxRxAge = time.Second

// rxOf returns the stamping connection beneath c (through TLS), or nil.
func rxOf(c net.Conn) rxStamper {
	if tc, ok := c.(interface{ NetConn() net.Conn }); ok {
		c = tc.NetConn()
	}
	s, _ := c.(rxStamper)
	return s
}

// arrival returns when the bytes just read arrived, on the run clock: the
// kernel's receive timestamp when rx gives one (kernel true, lag how long
// the client took to read them), else now. The result is never before
// floor (an earlier event of the same request): a receive timestamp cannot
// precede the request, but a clock conversion could by nanoseconds.
func (c *Client) arrival(rx rxStamper, floor int64) (at, lag int64, kernel bool) {
	if rx == nil {
		return max(c.clock.Now(), floor), 0, false
	}
	now, k, ok := c.clock.FromRealtime(rx.lastRx())
	return max(k, floor), now - k, ok
}
