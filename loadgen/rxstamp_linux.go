//go:build linux && (amd64 || arm64)

package loadgen

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// rxStampsAvailable says whether this build can read kernel receive
// timestamps.
const rxStampsAvailable = true

// stampConn is a TCP connection whose reads carry the kernel's receive
// timestamp. Reads use recvmsg(2) on the non-blocking socket through the
// runtime's poller (syscall.RawConn): a raw system call, since it never
// blocks, which spares the scheduler's bookkeeping of a blocking call on
// every streamed chunk.
type stampConn struct {
	*net.TCPConn
	rc   syscall.RawConn
	last atomic.Int64 // receive time of the last bytes read (CLOCK_REALTIME ns)

	// The read in progress: a connection has one reader at a time (the
	// HTTP transport's buffered reader), so its scratch lives here and a
	// read allocates nothing.
	p   []byte
	n   int
	err syscall.Errno
	msg syscall.Msghdr
	iov syscall.Iovec
	oob [64]byte
	fn  func(fd uintptr) bool

	// A read into a pooled buffer (readPooled): the buffer is taken
	// when the read is tried and given back when there was nothing to
	// read, so a connection waiting for bytes holds none.
	pool   *sync.Pool
	pooled *[]byte
}

// holdRxStamps opens a socket that asks for receive timestamps and keeps
// it open until the returned file is closed (or collected). The kernel
// turns timestamping on for the first socket that asks, through deferred
// work, and off again when the last one closes: without a holder, the
// first segments of a run, or of a connection opened after all others
// closed, could arrive unstamped.
func holdRxStamps() *os.File {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	if syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1) != nil {
		syscall.Close(fd)
		return nil
	}
	return os.NewFile(uintptr(fd), "rx-timestamps")
}

// dialStamped dials like d and turns on receive timestamps on the
// connection; where that fails it returns the plain connection (arrivals
// are then stamped when reads return).
func dialStamped(ctx context.Context, d *net.Dialer, network, addr string) (net.Conn, error) {
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c, nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return c, nil
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1)
	}); err != nil || serr != nil {
		return c, nil
	}
	sc := &stampConn{TCPConn: tc, rc: rc}
	sc.fn = sc.read
	return sc, nil
}

func (c *stampConn) lastRx() int64 { return c.last.Load() }

// Read reads like net.TCPConn.Read and records the receive time of the
// bytes read.
func (c *stampConn) Read(p []byte) (int, error) {
	if len(p) == 0 && c.pool == nil {
		return 0, nil
	}
	c.p, c.n, c.err = p, 0, 0
	err := c.rc.Read(c.fn)
	c.p = nil
	switch {
	case err != nil:
		// A deadline or a close: the same error net.TCPConn.Read gives.
		if oe, ok := err.(*net.OpError); ok {
			err = oe.Err
		}
		return 0, &net.OpError{Op: "read", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
	case c.err != 0:
		return 0, &net.OpError{Op: "read", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: os.NewSyscallError("read", c.err)}
	case c.n == 0:
		return 0, io.EOF
	}
	return c.n, nil
}

// readPooled reads like Read into a buffer of pool, taken only while
// the read is tried; buf is nil when n is 0.
func (c *stampConn) readPooled(pool *sync.Pool) (buf *[]byte, n int, err error) {
	c.pool = pool
	n, err = c.Read(nil)
	buf, c.pool, c.pooled = c.pooled, nil, nil
	if n == 0 && buf != nil {
		pool.Put(buf)
		buf = nil
	}
	return buf, n, err
}

// read is the RawConn callback: one recvmsg; false asks the poller to wait
// until the socket is readable.
func (c *stampConn) read(fd uintptr) bool {
	if c.pool != nil {
		c.pooled = c.pool.Get().(*[]byte)
		c.p = *c.pooled
	}
	c.iov.Base = &c.p[0]
	c.iov.SetLen(len(c.p))
	c.msg.Iov = &c.iov
	c.msg.Iovlen = 1
	c.msg.Control = &c.oob[0]
	c.msg.SetControllen(len(c.oob))
	c.msg.Flags = 0
	for {
		r, _, e := syscall.RawSyscall(syscall.SYS_RECVMSG, fd, uintptr(unsafe.Pointer(&c.msg)), 0)
		switch e {
		case 0:
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			if c.pool != nil {
				c.pool.Put(c.pooled)
				c.pooled = nil
			}
			return false
		default:
			c.err = e
			return true
		}
		c.n = int(r)
		if ts := rxTimestamp(c.oob[:c.msg.Controllen]); ts != 0 {
			c.last.Store(ts)
		}
		return true
	}
}

// cmsgHdrLen is the size of struct cmsghdr on 64-bit Linux (len, level,
// type), after which the data starts (8-byte aligned).
const cmsgHdrLen = 16

// rxTimestamp returns the SCM_TIMESTAMPNS time in a control message
// buffer (Unix ns), 0 when there is none.
func rxTimestamp(b []byte) int64 {
	for len(b) >= cmsgHdrLen {
		n := binary.NativeEndian.Uint64(b[0:8])
		level := int32(binary.NativeEndian.Uint32(b[8:12]))
		typ := int32(binary.NativeEndian.Uint32(b[12:16]))
		if n < cmsgHdrLen || n > uint64(len(b)) {
			return 0
		}
		if level == syscall.SOL_SOCKET && typ == syscall.SCM_TIMESTAMPNS && n >= cmsgHdrLen+16 {
			sec := int64(binary.NativeEndian.Uint64(b[16:24]))
			nsec := int64(binary.NativeEndian.Uint64(b[24:32]))
			if sec <= 0 || sec >= 1<<33 || nsec < 0 || nsec >= 1e9 {
				return 0 // not a time this clock can hold in Unix ns
			}
			return sec*1e9 + nsec
		}
		adv := (n + 7) &^ 7
		if adv > uint64(len(b)) {
			return 0
		}
		b = b[adv:]
	}
	return 0
}
