package htmlreport

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// A minimal Chrome DevTools Protocol client over a WebSocket (RFC 6455),
// standard library only: enough for the browser test to drive headless
// Chromium. Client frames are masked, server frames are not; fragmented
// messages are reassembled, pings answered.

const wsGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

// maxMessage bounds one DevTools message (a printed PDF is a few MB).
const maxMessage = 64 << 20

type wsConn struct {
	c  net.Conn
	r  *bufio.Reader
	mu sync.Mutex // serialises writes
}

// dialWS opens a WebSocket to a ws:// URL.
func dialWS(ctx context.Context, rawURL string) (*wsConn, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "ws" {
		return nil, fmt.Errorf("DevTools URL %q: want ws://host:port/path", rawURL)
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return nil, fmt.Errorf("dialing DevTools: %w", err)
	}
	keyBytes := make([]byte, 16)
	if _, err := rand.Read(keyBytes); err != nil {
		c.Close()
		return nil, err
	}
	key := base64.StdEncoding.EncodeToString(keyBytes)
	req := "GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: " + key + "\r\nSec-WebSocket-Version: 13\r\n\r\n"
	if _, err := io.WriteString(c, req); err != nil {
		c.Close()
		return nil, fmt.Errorf("WebSocket handshake: %w", err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("WebSocket handshake: %w", err)
	}
	sum := sha1.Sum([]byte(key + wsGUID))
	if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("Sec-WebSocket-Accept") != base64.StdEncoding.EncodeToString(sum[:]) {
		c.Close()
		return nil, fmt.Errorf("WebSocket handshake: status %s, accept %q", resp.Status, resp.Header.Get("Sec-WebSocket-Accept"))
	}
	return &wsConn{c: c, r: br}, nil
}

// writeFrame sends one masked frame.
func (w *wsConn) writeFrame(opcode byte, payload []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	hdr := []byte{0x80 | opcode}
	n := len(payload)
	switch {
	case n < 126:
		hdr = append(hdr, 0x80|byte(n))
	case n <= 0xffff:
		hdr = append(hdr, 0x80|126, byte(n>>8), byte(n))
	default:
		hdr = append(hdr, 0x80|127)
		hdr = binary.BigEndian.AppendUint64(hdr, uint64(n))
	}
	var mask [4]byte
	if _, err := rand.Read(mask[:]); err != nil {
		return err
	}
	hdr = append(hdr, mask[:]...)
	buf := make([]byte, len(hdr)+n)
	copy(buf, hdr)
	for i, b := range payload {
		buf[len(hdr)+i] = b ^ mask[i%4]
	}
	_, err := w.c.Write(buf)
	return err
}

// readMessage returns the next text or binary message.
func (w *wsConn) readMessage() ([]byte, error) {
	var msg []byte
	for {
		var h [2]byte
		if _, err := io.ReadFull(w.r, h[:]); err != nil {
			return nil, err
		}
		fin, opcode := h[0]&0x80 != 0, h[0]&0x0f
		masked := h[1]&0x80 != 0
		n := uint64(h[1] & 0x7f)
		switch n {
		case 126:
			var b [2]byte
			if _, err := io.ReadFull(w.r, b[:]); err != nil {
				return nil, err
			}
			n = uint64(binary.BigEndian.Uint16(b[:]))
		case 127:
			var b [8]byte
			if _, err := io.ReadFull(w.r, b[:]); err != nil {
				return nil, err
			}
			n = binary.BigEndian.Uint64(b[:])
		}
		if n > maxMessage || uint64(len(msg))+n > maxMessage {
			return nil, fmt.Errorf("WebSocket message over %d bytes", maxMessage)
		}
		var mask [4]byte
		if masked {
			if _, err := io.ReadFull(w.r, mask[:]); err != nil {
				return nil, err
			}
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(w.r, payload); err != nil {
			return nil, err
		}
		if masked {
			for i := range payload {
				payload[i] ^= mask[i%4]
			}
		}
		switch opcode {
		case 0x8: // close
			return nil, io.EOF
		case 0x9: // ping
			if err := w.writeFrame(0xA, payload); err != nil {
				return nil, err
			}
			continue
		case 0xA: // pong
			continue
		}
		msg = append(msg, payload...)
		if fin {
			return msg, nil
		}
	}
}

func (w *wsConn) Close() error { return w.c.Close() }

// cdpEvent is a DevTools event.
type cdpEvent struct {
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params"`
	SessionID string          `json:"sessionId"`
}

type cdpResponse struct {
	ID     int64           `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// cdpClient sends commands and collects every event.
type cdpClient struct {
	ws      *wsConn
	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan cdpResponse
	events  []cdpEvent
	notify  chan struct{} // signalled when an event arrives
	done    chan struct{}
	err     error
}

func newCDP(ws *wsConn) *cdpClient {
	c := &cdpClient{ws: ws, pending: map[int64]chan cdpResponse{}, notify: make(chan struct{}, 1), done: make(chan struct{})}
	go c.readLoop()
	return c
}

func (c *cdpClient) readLoop() {
	defer close(c.done)
	for {
		msg, err := c.ws.readMessage()
		if err != nil {
			c.mu.Lock()
			c.err = err
			for _, ch := range c.pending {
				close(ch)
			}
			c.pending = map[int64]chan cdpResponse{}
			c.mu.Unlock()
			return
		}
		var probe struct {
			ID *int64 `json:"id"`
		}
		if json.Unmarshal(msg, &probe) != nil {
			continue
		}
		if probe.ID != nil {
			var r cdpResponse
			if json.Unmarshal(msg, &r) == nil {
				c.mu.Lock()
				ch := c.pending[r.ID]
				delete(c.pending, r.ID)
				c.mu.Unlock()
				if ch != nil {
					ch <- r
				}
			}
			continue
		}
		var ev cdpEvent
		if json.Unmarshal(msg, &ev) == nil {
			c.mu.Lock()
			c.events = append(c.events, ev)
			c.mu.Unlock()
			select {
			case c.notify <- struct{}{}:
			default:
			}
		}
	}
}

// call sends a command (to a session when sessionID is set) and decodes
// its result into out (when not nil).
func (c *cdpClient) call(ctx context.Context, sessionID, method string, params any, out any) error {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return fmt.Errorf("%s: connection closed: %w", method, c.err)
	}
	c.nextID++
	id := c.nextID
	ch := make(chan cdpResponse, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	if params == nil {
		params = struct{}{}
	}
	req := map[string]any{"id": id, "method": method, "params": params}
	if sessionID != "" {
		req["sessionId"] = sessionID
	}
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if err := c.ws.writeFrame(0x1, b); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: connection closed", method)
		}
		if r.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, r.Error.Message, r.Error.Code)
		}
		if out != nil {
			return json.Unmarshal(r.Result, out)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// waitEvent waits for an event named method (in session sessionID) and
// returns it.
func (c *cdpClient) waitEvent(ctx context.Context, sessionID, method string) (cdpEvent, error) {
	for {
		c.mu.Lock()
		for _, ev := range c.events {
			if ev.Method == method && ev.SessionID == sessionID {
				c.mu.Unlock()
				return ev, nil
			}
		}
		err := c.err
		c.mu.Unlock()
		if err != nil {
			return cdpEvent{}, fmt.Errorf("waiting for %s: %w", method, err)
		}
		select {
		case <-c.notify:
		case <-ctx.Done():
			return cdpEvent{}, fmt.Errorf("waiting for %s: %w", method, ctx.Err())
		}
	}
}

// eventsNamed returns a copy of the events so far with one of names.
func (c *cdpClient) eventsNamed(names ...string) []cdpEvent {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []cdpEvent
	for _, ev := range c.events {
		for _, n := range names {
			if ev.Method == n {
				out = append(out, ev)
			}
		}
	}
	return out
}

// errDevTools marks a DevTools URL that never appeared.
var errDevTools = errors.New("browser printed no DevTools URL")

// devToolsURL reads Chromium's stderr until it announces its DevTools
// WebSocket URL; the rest of stderr keeps being drained into log.
func devToolsURL(stderr io.Reader, log *strings.Builder, mu *sync.Mutex) (string, error) {
	sc := bufio.NewScanner(stderr)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		mu.Lock()
		log.WriteString(line + "\n")
		mu.Unlock()
		if _, after, ok := strings.Cut(line, "DevTools listening on "); ok {
			go func() {
				for sc.Scan() {
					mu.Lock()
					log.WriteString(sc.Text() + "\n")
					mu.Unlock()
				}
			}()
			return strings.TrimSpace(after), nil
		}
	}
	return "", errDevTools
}
