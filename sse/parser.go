package sse

import (
	"bytes"
	"errors"
)

// DefaultMaxEventBytes is the default limit on one event's data and on one
// line of the stream (see MaxEventBytes).
const DefaultMaxEventBytes = 8 << 20

// ErrEventTooLarge is returned by Feed and Finish when one line of the stream,
// or the data of one event, exceeds the parser's limit. It is sticky: the
// parser returns it until Reset.
var ErrEventTooLarge = errors.New("sse: event exceeds the size limit (a line or the data of one event is larger than MaxEventBytes)")

// shrinkAbove is the buffer capacity above which Reset drops a buffer instead
// of keeping it for reuse, so that one huge event does not pin memory for the
// life of a pooled parser.
const shrinkAbove = 64 << 10

// bom is the UTF-8 encoding of U+FEFF BYTE ORDER MARK.
const bom = "\xEF\xBB\xBF"

// Event is one dispatched server-sent event.
type Event struct {
	// Type is the value of the last "event" field of the event; "" when the
	// event had none (the WHATWG default type "message").
	Type string
	// Data is the values of the event's "data" lines joined with "\n". It
	// aliases a buffer of the parser and is valid only during the callback.
	Data []byte
	// ID is the value of the last "id" field seen in this event ("" when
	// none). An "id" value that contains NUL is ignored, as the spec says.
	ID string
	// Retry is the value of the last "retry" field of the event in
	// milliseconds, or -1 when the event had none. A retry value that is
	// empty, contains anything but ASCII digits, or overflows int64 is
	// ignored.
	Retry int64
}

// Option configures a Parser.
type Option func(*parserConfig)

type parserConfig struct {
	maxEventBytes int
}

// MaxEventBytes sets the largest accepted line and the largest accepted data
// of one event, in bytes (default DefaultMaxEventBytes). Beyond it Feed
// returns ErrEventTooLarge, so a server that streams without ever sending a
// line break or a blank line cannot make the parser's memory grow without
// bound. n <= 0 selects the default.
func MaxEventBytes(n int) Option {
	return func(c *parserConfig) {
		if n <= 0 {
			n = DefaultMaxEventBytes
		}
		c.maxEventBytes = n
	}
}

// Parser is an incremental text/event-stream parser following the WHATWG
// "server-sent events" interpretation rules, with one deliberate deviation:
// Finish dispatches a final event that was not followed by a blank line.
//
// Feed accepts the stream split at any byte boundary. In steady state it does
// not allocate: buffers are reused from event to event, and the Type and ID
// strings are cached while they repeat from one event to the next (the
// OpenAI-compatible servers send neither). A Parser is not safe for
// concurrent use.
type Parser struct {
	max int

	line []byte // a line whose terminator has not arrived yet

	data    []byte // data buffer, without the trailing LF the spec adds
	hasData bool   // at least one data line in the current event
	evType  []byte // event type buffer
	id      []byte
	hasID   bool
	retry   int64

	skipLF  bool // the previous byte was a CR that ended a line
	bomDone bool // the stream start has been checked for a BOM
	bomN    int  // bytes of the BOM matched so far

	err error // sticky ErrEventTooLarge

	ev        Event
	typeCache string
	idCache   string
}

// NewParser returns a parser ready for the start of a stream.
func NewParser(opts ...Option) *Parser {
	cfg := parserConfig{maxEventBytes: DefaultMaxEventBytes}
	for _, o := range opts {
		o(&cfg)
	}
	p := &Parser{max: cfg.maxEventBytes}
	p.Reset()
	return p
}

// Reset makes the parser ready for a new stream, discarding any partial line
// or event. It keeps buffers for reuse unless they grew beyond 64 KiB.
func (p *Parser) Reset() {
	p.line = shrink(p.line)
	p.data = shrink(p.data)
	p.evType = shrink(p.evType)
	p.id = shrink(p.id)
	p.hasData, p.hasID = false, false
	p.retry = -1
	p.skipLF = false
	p.bomDone, p.bomN = false, 0
	p.err = nil
	p.ev = Event{}
}

func shrink(b []byte) []byte {
	if cap(b) > shrinkAbove {
		return nil
	}
	return b[:0]
}

// Feed consumes the next bytes of the stream, which may be split at any byte
// boundary (inside a line, between a CR and its LF, inside a UTF-8 sequence).
// It calls emit for every event completed by a blank line; the *Event and
// its Data are valid only during that call. If emit returns an
// error, Feed stops at once and returns it; the rest of b is not consumed and
// the parser must be Reset before it is fed again. Feed does not retain b.
func (p *Parser) Feed(b []byte, emit func(*Event) error) error {
	if p.err != nil {
		return p.err
	}
	if !p.bomDone {
		for len(b) > 0 && !p.bomDone {
			if b[0] == bom[p.bomN] {
				p.bomN++
				b = b[1:]
				if p.bomN == len(bom) {
					p.bomDone = true
				}
				continue
			}
			p.bomDone = true
			// A BOM prefix followed by something else is content. Its bytes
			// are neither CR nor LF, so they start the first line.
			p.line = append(p.line, bom[:p.bomN]...)
		}
	}
	return p.feed(b, emit)
}

func (p *Parser) feed(b []byte, emit func(*Event) error) error {
	if p.skipLF && len(b) > 0 {
		p.skipLF = false
		if b[0] == '\n' {
			b = b[1:]
		}
	}
	// lf is the position of the next LF in b: -1 when there is none, -2
	// when not searched yet. Remembering it keeps a long read of CR-only
	// lines linear.
	lf := -2
	for len(b) > 0 {
		end, next := -1, 0
		if lf == -2 {
			lf = bytes.IndexByte(b, '\n')
		}
		scan := b
		if lf >= 0 {
			scan = b[:lf]
		}
		if cr := bytes.IndexByte(scan, '\r'); cr >= 0 {
			end, next = cr, cr+1
			if next < len(b) {
				if b[next] == '\n' {
					next++
				}
			} else {
				p.skipLF = true
			}
		} else if lf >= 0 {
			end, next = lf, lf+1
		}
		if end < 0 {
			if len(p.line)+len(b) > p.max {
				return p.fail()
			}
			p.line = append(p.line, b...)
			return nil
		}
		line := b[:end]
		if len(p.line) > 0 {
			if len(p.line)+end > p.max {
				return p.fail()
			}
			p.line = append(p.line, line...)
			line = p.line
		} else if end > p.max {
			return p.fail()
		}
		b = b[next:]
		if lf >= next {
			lf -= next
		} else if lf >= 0 {
			lf = -2
		}
		err := p.processLine(line, emit)
		p.line = p.line[:0]
		if err != nil {
			return err
		}
	}
	return nil
}

func (p *Parser) fail() error {
	p.err = ErrEventTooLarge
	return p.err
}

// processLine applies one line (without its terminator) to the parser state.
func (p *Parser) processLine(line []byte, emit func(*Event) error) error {
	if len(line) == 0 {
		return p.dispatch(emit)
	}
	if line[0] == ':' {
		return nil // comment
	}
	field, value := line, line[len(line):]
	if c := bytes.IndexByte(line, ':'); c >= 0 {
		field, value = line[:c], line[c+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(field) {
	case "data":
		n := len(p.data) + len(value)
		if p.hasData {
			n++
		}
		if n > p.max {
			return p.fail()
		}
		if p.hasData {
			p.data = append(p.data, '\n')
		}
		p.data = append(p.data, value...)
		p.hasData = true
	case "event":
		p.evType = append(p.evType[:0], value...)
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			p.id = append(p.id[:0], value...)
			p.hasID = true
		}
	case "retry":
		if n, ok := parseDigits(value); ok {
			p.retry = n
		}
	}
	return nil
}

// parseDigits parses a non-empty string of ASCII digits as a non-negative
// int64; ok is false for anything else, including overflow.
func parseDigits(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := int64(c - '0')
		if n > (1<<63-1-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

// dispatch ends the current event: it is emitted when it has data, and the
// per-event buffers are cleared either way.
func (p *Parser) dispatch(emit func(*Event) error) error {
	if !p.hasData {
		p.clearEvent()
		return nil
	}
	p.ev.Type = cachedString(&p.typeCache, p.evType)
	p.ev.ID = ""
	if p.hasID {
		p.ev.ID = cachedString(&p.idCache, p.id)
	}
	p.ev.Retry = p.retry
	p.ev.Data = p.data
	err := emit(&p.ev)
	p.ev.Data = nil
	p.clearEvent()
	return err
}

func (p *Parser) clearEvent() {
	p.data = p.data[:0]
	p.hasData = false
	p.evType = p.evType[:0]
	p.id = p.id[:0]
	p.hasID = false
	p.retry = -1
}

// cachedString returns b as a string, reusing *cache when it holds the same
// text so that a repeating value costs no allocation.
func cachedString(cache *string, b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if string(b) != *cache {
		*cache = string(b)
	}
	return *cache
}

// Finish ends the stream. A last line without a terminator is processed, and
// an event that was not followed by a blank line is dispatched: the WHATWG
// rules discard it, but servers do end streams that way and the data is
// real. The parser is then Reset, whatever the outcome. It returns emit's
// error, or ErrEventTooLarge if the parser had failed.
func (p *Parser) Finish(emit func(*Event) error) error {
	defer p.Reset()
	if p.err != nil {
		return p.err
	}
	if !p.bomDone && p.bomN > 0 {
		// The stream was a strict prefix of the BOM: content after all.
		p.line = append(p.line, bom[:p.bomN]...)
	}
	if len(p.line) > 0 {
		if err := p.processLine(p.line, emit); err != nil {
			return err
		}
	}
	return p.dispatch(emit)
}
