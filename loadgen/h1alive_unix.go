//go:build unix

package loadgen

import (
	"crypto/tls"
	"syscall"
)

// alive says whether an idle connection can carry a request: a peek at
// its socket that never waits finds nothing to read. A server that closed
// the connection (or a byte it sent unasked, which a request could not be
// told from) makes it readable, and the connection is not reused. Where
// the socket cannot be reached, the connection is taken as alive.
func (pc *h1Conn) alive() bool {
	c := pc.Conn
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return true
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return true
	}
	var b [1]byte
	var perr error
	err = rc.Read(func(fd uintptr) bool {
		for {
			_, _, perr = syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
			if perr != syscall.EINTR {
				return true
			}
		}
	})
	return err == nil && perr == syscall.EAGAIN
}
