//go:build linux && (amd64 || arm64)

package loadgen

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

// cmsg builds one control message as the kernel lays it out on 64-bit
// Linux: len, level, type, data padded to 8 bytes.
func cmsg(level, typ int32, data []byte) []byte {
	b := make([]byte, cmsgHdrLen, cmsgHdrLen+len(data)+8)
	binary.NativeEndian.PutUint64(b[0:8], uint64(cmsgHdrLen+len(data)))
	binary.NativeEndian.PutUint32(b[8:12], uint32(level))
	binary.NativeEndian.PutUint32(b[12:16], uint32(typ))
	b = append(b, data...)
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	return b
}

func timespec(sec, nsec int64) []byte {
	b := make([]byte, 16)
	binary.NativeEndian.PutUint64(b[0:8], uint64(sec))
	binary.NativeEndian.PutUint64(b[8:16], uint64(nsec))
	return b
}

func TestRxTimestampParsesControlMessages(t *testing.T) {
	ts := cmsg(syscall.SOL_SOCKET, syscall.SCM_TIMESTAMPNS, timespec(1_765_000_000, 123_456_789))
	other := cmsg(syscall.SOL_IP, 8, []byte{1, 2, 3, 4}) // IP_PKTINFO-like, 4 bytes: padded
	short := cmsg(syscall.SOL_SOCKET, syscall.SCM_TIMESTAMPNS, []byte{1, 2, 3, 4, 5, 6, 7, 8})
	bogus := append([]byte(nil), ts...)
	binary.NativeEndian.PutUint64(bogus[0:8], 4) // a length shorter than the header
	for _, c := range []struct {
		name string
		in   []byte
		want int64
	}{
		{"none", nil, 0},
		{"timestamp", ts, 1_765_000_000_123_456_789},
		{"after another message", append(append([]byte(nil), other...), ts...), 1_765_000_000_123_456_789},
		{"data too short for a timespec", short, 0},
		{"length below the header", bogus, 0},
		{"truncated buffer", ts[:20], 0},
		{"length past the buffer", append(cmsg(syscall.SOL_SOCKET, 99, make([]byte, 8))[:16], 0), 0},
		{"seconds past int64 nanoseconds", cmsg(syscall.SOL_SOCKET, syscall.SCM_TIMESTAMPNS, timespec(1<<40, 0)), 0},
		{"nanoseconds out of range", cmsg(syscall.SOL_SOCKET, syscall.SCM_TIMESTAMPNS, timespec(1, 1e9)), 0},
		{"zero time", cmsg(syscall.SOL_SOCKET, syscall.SCM_TIMESTAMPNS, timespec(0, 0)), 0},
	} {
		if got := rxTimestamp(c.in); got != c.want {
			t.Errorf("%s: got %d, want %d", c.name, got, c.want)
		}
	}
}

// stampedPair returns a stamping client connection and the server side of
// it, on loopback.
func stampedPair(t *testing.T) (*stampConn, *net.TCPConn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	c, err := dialStamped(context.Background(), &net.Dialer{}, "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	sc, ok := c.(*stampConn)
	if !ok {
		t.Fatalf("dialStamped returned %T, want *stampConn", c)
	}
	srv := (<-accepted).(*net.TCPConn)
	t.Cleanup(func() { sc.Close(); srv.Close() })
	// The first socket to ask for timestamps turns them on in the kernel
	// through deferred work: until it has run, segments arrive unstamped
	// (and the client falls back to the read time). Exchange bytes until
	// they carry a stamp.
	buf := make([]byte, 8)
	for i := 0; sc.lastRx() == 0; i++ {
		if i == 1000 {
			t.Fatal("no receive timestamp after 1000 segments, 1 s")
		}
		if i > 0 {
			time.Sleep(time.Millisecond) // polls the kernel's deferred work
		}
		if _, err := srv.Write([]byte("w")); err != nil {
			t.Fatal(err)
		}
		if _, err := sc.Read(buf); err != nil {
			t.Fatal(err)
		}
	}
	return sc, srv
}

// The receive timestamp is when the bytes arrived, not when they were
// read: bytes read 30 ms after the server wrote them carry the write's
// time.
func TestStampConnStampsArrivalNotRead(t *testing.T) {
	sc, srv := stampedPair(t)
	clock := NewClock()
	before := time.Now().UnixNano()
	if _, err := srv.Write([]byte("data: x\n\n")); err != nil {
		t.Fatal(err)
	}
	after := time.Now().UnixNano()
	const wait = 30 * time.Millisecond
	time.Sleep(wait) // the delay under test: a client that reads late
	buf := make([]byte, 64)
	n, err := sc.Read(buf)
	if err != nil || string(buf[:n]) != "data: x\n\n" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	rx := sc.lastRx()
	// On loopback the kernel stamps the segment while the server's write
	// runs; allow 5 ms for a softirq deferred to ksoftirqd.
	if rx < before || rx > after+int64(5*time.Millisecond) {
		t.Fatalf("receive stamp %d outside the write [%d, %d]", rx, before, after)
	}
	now, at, ok := clock.FromRealtime(rx)
	if !ok || now-at < int64(wait)-int64(5*time.Millisecond) {
		t.Fatalf("converted arrival %d, now %d (ok %v): want it at least %v before now", at, now, ok, wait)
	}
}

// A stamping connection fails exactly like net.TCPConn: EOF on a close,
// ECONNRESET on a reset, a deadline and a local close as net errors; data
// that arrives with the FIN is read before the EOF.
func TestStampConnErrorsMatchTCPConn(t *testing.T) {
	for _, c := range []struct {
		name  string
		act   func(sc *stampConn, srv *net.TCPConn)
		data  string
		check func(error) bool
	}{
		{"fin with data", func(_ *stampConn, srv *net.TCPConn) { srv.Write([]byte("last")); srv.Close() }, "last",
			func(err error) bool { return err == io.EOF }},
		{"reset", func(_ *stampConn, srv *net.TCPConn) { srv.SetLinger(0); srv.Close() }, "",
			func(err error) bool { return errors.Is(err, syscall.ECONNRESET) }},
		{"deadline", func(sc *stampConn, _ *net.TCPConn) { sc.SetReadDeadline(time.Now().Add(20 * time.Millisecond)) }, "",
			func(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }},
		{"local close", func(sc *stampConn, _ *net.TCPConn) { time.AfterFunc(20*time.Millisecond, func() { sc.Close() }) }, "",
			func(err error) bool { return errors.Is(err, net.ErrClosed) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc, srv := stampedPair(t)
			c.act(sc, srv)
			buf := make([]byte, 64)
			var got []byte
			var err error
			for err == nil {
				var n int
				n, err = sc.Read(buf)
				got = append(got, buf[:n]...)
			}
			if string(got) != c.data || !c.check(err) {
				t.Fatalf("read %q then %v (%T)", got, err, err)
			}
			var oe *net.OpError
			if err != io.EOF && (!errors.As(err, &oe) || oe.Op != "read") {
				t.Fatalf("error %v is not a read *net.OpError", err)
			}
		})
	}
}

func TestFromRealtime(t *testing.T) {
	c := NewClock()
	wall := time.Now().UnixNano()
	for _, tc := range []struct {
		name string
		rt   int64
		ok   bool
		age  time.Duration // lower bound of now − at when ok
	}{
		{"unknown", 0, false, 0},
		{"10 ms ago", wall - int64(10*time.Millisecond), true, 10 * time.Millisecond},
		{"in the future (a clock step back)", wall + int64(time.Hour), false, 0},
		{"older than maxRxAge (a clock step forward)", wall - int64(2*maxRxAge), false, 0},
	} {
		now, at, ok := c.FromRealtime(tc.rt)
		if ok != tc.ok {
			t.Errorf("%s: ok %v, want %v", tc.name, ok, tc.ok)
			continue
		}
		if !ok && at != now {
			t.Errorf("%s: at %d, want now %d", tc.name, at, now)
		}
		if ok && (now-at < int64(tc.age) || now-at > int64(tc.age+time.Second)) {
			t.Errorf("%s: age %v, want about %v", tc.name, time.Duration(now-at), tc.age)
		}
	}
}

// FuzzRxTimestamp: the control-message parser never panics or reads past
// its buffer, and finds a timestamp message wherever it sits.
func FuzzRxTimestamp(f *testing.F) {
	ts := cmsg(syscall.SOL_SOCKET, syscall.SCM_TIMESTAMPNS, timespec(1, 2))
	f.Add(ts)
	f.Add(append(cmsg(syscall.SOL_IP, 8, []byte{1, 2, 3, 4}), ts...))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = rxTimestamp(b)
		// A timestamp message after b's whole messages is found, when b
		// holds none of its own (the first one wins).
		if len(b)%8 == 0 && wellFormed(b) && !hasTimestampMsg(b) {
			if got := rxTimestamp(append(append([]byte(nil), b...), ts...)); got == 0 {
				t.Fatalf("timestamp after %x not found", b)
			}
		}
	})
}

// hasTimestampMsg says whether the well-formed b holds an SCM_TIMESTAMPNS
// message.
func hasTimestampMsg(b []byte) bool {
	for len(b) > 0 {
		n := binary.NativeEndian.Uint64(b[0:8])
		if int32(binary.NativeEndian.Uint32(b[8:12])) == syscall.SOL_SOCKET && int32(binary.NativeEndian.Uint32(b[12:16])) == syscall.SCM_TIMESTAMPNS {
			return true
		}
		b = b[(n+7)&^7:]
	}
	return false
}

// wellFormed says whether b is a sequence of complete control messages.
func wellFormed(b []byte) bool {
	for len(b) > 0 {
		if len(b) < cmsgHdrLen {
			return false
		}
		n := binary.NativeEndian.Uint64(b[0:8])
		if n < cmsgHdrLen || n > uint64(len(b)) {
			return false
		}
		adv := (n + 7) &^ 7
		if adv > uint64(len(b)) {
			return false
		}
		b = b[adv:]
	}
	return true
}
