package tokenize

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
)

// ggufMagic opens every GGUF file.
const ggufMagic = "GGUF"

// GGUF value types (ggml's gguf_type).
const (
	ggufUint8 uint32 = iota
	ggufInt8
	ggufUint16
	ggufInt16
	ggufUint32
	ggufInt32
	ggufFloat32
	ggufBool
	ggufString
	ggufArray
	ggufUint64
	ggufInt64
	ggufFloat64
)

// Bounds on what the reader accepts, so that a corrupt or hostile header
// cannot make it allocate more than the file holds.
const (
	ggufMaxString = 1 << 24 // bytes in one string (chat templates are kilobytes)
	ggufMaxKV     = 1 << 16 // key/value pairs
	ggufMaxArray  = 1 << 26 // elements in one array
)

// ggufMeta is the metadata of a GGUF file: the tokenizer.* and general.*
// key/values (the others are read past), and the sha256 of the bytes read.
type ggufMeta struct {
	version uint32
	kv      map[string]any // string, bool, int64, uint64, float64, []string, []int64, []float64
	hash    string
}

// isGGUF reports whether the file at path starts with GGUF's magic.
func isGGUF(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [4]byte
	_, err = io.ReadFull(f, b[:])
	return err == nil && string(b[:]) == ggufMagic
}

// readGGUFMeta reads the header and key/values of a GGUF file (versions 2
// and 3, little-endian) and stops there: tensors are never read.
func readGGUFMeta(r io.Reader) (*ggufMeta, error) {
	h := sha256.New()
	g := &ggufReader{r: bufio.NewReaderSize(io.TeeReader(r, h), 1<<16)}
	var magic [4]byte
	if _, err := io.ReadFull(g.r, magic[:]); err != nil {
		return nil, fmt.Errorf("reading the GGUF magic: %w", eofErr(err))
	}
	if string(magic[:]) != ggufMagic {
		return nil, fmt.Errorf("not a GGUF file (starts with %q, not %q)", magic[:], ggufMagic)
	}
	m := &ggufMeta{kv: map[string]any{}}
	m.version = g.u32()
	switch {
	case g.err != nil:
		return nil, fmt.Errorf("reading the GGUF version: %w", g.err)
	case m.version == 2 || m.version == 3:
	case m.version>>16 != 0 && bits32Swap(m.version) <= 3:
		return nil, errors.New("big-endian GGUF files are not supported")
	default:
		return nil, fmt.Errorf("GGUF version %d is not supported (supported: 2, 3)", m.version)
	}
	g.u64() // tensor count: tensors are not read
	n := g.u64()
	if g.err != nil {
		return nil, fmt.Errorf("reading the GGUF header: %w", g.err)
	}
	if n > ggufMaxKV {
		return nil, fmt.Errorf("GGUF header claims %d key/values (at most %d)", n, ggufMaxKV)
	}
	for i := uint64(0); i < n; i++ {
		key := g.str()
		typ := g.u32()
		if g.err != nil {
			return nil, fmt.Errorf("GGUF key/value %d: %w", i, g.err)
		}
		keep := strings.HasPrefix(key, "tokenizer.") || strings.HasPrefix(key, "general.")
		v := g.value(typ, keep)
		if g.err != nil {
			return nil, fmt.Errorf("GGUF key %q: %w", key, g.err)
		}
		if keep {
			m.kv[key] = v
		}
	}
	m.hash = "sha256:" + hex.EncodeToString(h.Sum(nil))
	return m, nil
}

func bits32Swap(v uint32) uint32 {
	return v>>24 | v>>8&0xff00 | v<<8&0xff0000 | v<<24
}

func eofErr(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// ggufReader reads little-endian GGUF values; the first error sticks and
// makes every later read return zero.
type ggufReader struct {
	r   *bufio.Reader
	err error
	buf [8]byte
}

func (g *ggufReader) fill(n int) []byte {
	if g.err != nil {
		return nil
	}
	if _, err := io.ReadFull(g.r, g.buf[:n]); err != nil {
		g.err = eofErr(err)
		return nil
	}
	return g.buf[:n]
}

func (g *ggufReader) u32() uint32 {
	if b := g.fill(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (g *ggufReader) u64() uint64 {
	if b := g.fill(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (g *ggufReader) str() string {
	n := g.u64()
	if g.err != nil {
		return ""
	}
	if n > ggufMaxString {
		g.err = fmt.Errorf("string of %d bytes (at most %d)", n, ggufMaxString)
		return ""
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(g.r, b); err != nil {
		g.err = eofErr(err)
		return ""
	}
	return string(b)
}

// scalarSize is the encoded size of a fixed-size type, 0 for the others.
func scalarSize(typ uint32) int {
	switch typ {
	case ggufUint8, ggufInt8, ggufBool:
		return 1
	case ggufUint16, ggufInt16:
		return 2
	case ggufUint32, ggufInt32, ggufFloat32:
		return 4
	case ggufUint64, ggufInt64, ggufFloat64:
		return 8
	}
	return 0
}

// scalar reads one fixed-size value as int64, uint64, float64 or bool.
func (g *ggufReader) scalar(typ uint32) any {
	b := g.fill(scalarSize(typ))
	if b == nil {
		return nil
	}
	le := binary.LittleEndian
	switch typ {
	case ggufUint8:
		return uint64(b[0])
	case ggufInt8:
		return int64(int8(b[0]))
	case ggufUint16:
		return uint64(le.Uint16(b))
	case ggufInt16:
		return int64(int16(le.Uint16(b)))
	case ggufUint32:
		return uint64(le.Uint32(b))
	case ggufInt32:
		return int64(int32(le.Uint32(b)))
	case ggufFloat32:
		return float64(math.Float32frombits(le.Uint32(b)))
	case ggufBool:
		return b[0] != 0
	case ggufUint64:
		return le.Uint64(b)
	case ggufInt64:
		return int64(le.Uint64(b))
	default: // ggufFloat64
		return math.Float64frombits(le.Uint64(b))
	}
}

// value reads a value of type typ; with keep false it is read past and nil
// returned. Arrays of strings become []string, of floats []float64, of
// integers and booleans []int64; arrays of arrays are read past only.
func (g *ggufReader) value(typ uint32, keep bool) any {
	switch {
	case typ == ggufString:
		return g.str()
	case typ == ggufArray:
		elem := g.u32()
		n := g.u64()
		if g.err != nil {
			return nil
		}
		if n > ggufMaxArray {
			g.err = fmt.Errorf("array of %d elements (at most %d)", n, ggufMaxArray)
			return nil
		}
		return g.array(elem, n, keep)
	case scalarSize(typ) > 0:
		return g.scalar(typ)
	default:
		g.err = fmt.Errorf("unknown value type %d", typ)
		return nil
	}
}

// array reads n elements of type elem. Slices grow as elements arrive, so a
// count larger than the file costs no more memory than the file.
func (g *ggufReader) array(elem uint32, n uint64, keep bool) any {
	if size := scalarSize(elem); size > 0 && !keep {
		if _, err := io.CopyN(io.Discard, g.r, int64(n)*int64(size)); err != nil {
			g.err = eofErr(err)
		}
		return nil
	}
	var strs []string
	var ints []int64
	var floats []float64
	for i := uint64(0); i < n && g.err == nil; i++ {
		switch elem {
		case ggufString:
			s := g.str()
			if keep {
				strs = append(strs, s)
			}
		case ggufArray:
			g.value(ggufArray, false)
			keep = false
		default:
			if scalarSize(elem) == 0 {
				g.err = fmt.Errorf("array of unknown value type %d", elem)
				return nil
			}
			switch v := g.scalar(elem).(type) {
			case float64:
				floats = append(floats, v)
			case int64:
				ints = append(ints, v)
			case uint64:
				ints = append(ints, int64(v))
			case bool:
				b := int64(0)
				if v {
					b = 1
				}
				ints = append(ints, b)
			}
		}
	}
	if g.err != nil || !keep {
		return nil
	}
	switch {
	case elem == ggufString:
		return nonNil(strs)
	case elem == ggufFloat32 || elem == ggufFloat64:
		return nonNil(floats)
	default:
		return nonNil(ints)
	}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Typed access to the metadata, each with an error naming the key.

func (m *ggufMeta) strVal(key string) (string, bool, error) {
	v, ok := m.kv[key]
	if !ok {
		return "", false, nil
	}
	s, isStr := v.(string)
	if !isStr {
		return "", false, fmt.Errorf("%s: expected a string, got %T", key, v)
	}
	return s, true, nil
}

func (m *ggufMeta) strings(key string) ([]string, bool, error) {
	v, ok := m.kv[key]
	if !ok {
		return nil, false, nil
	}
	s, isStrs := v.([]string)
	if !isStrs {
		return nil, false, fmt.Errorf("%s: expected an array of strings, got %T", key, v)
	}
	return s, true, nil
}

func (m *ggufMeta) intVal(key string) (int64, bool, error) {
	v, ok := m.kv[key]
	if !ok {
		return 0, false, nil
	}
	switch x := v.(type) {
	case int64:
		return x, true, nil
	case uint64:
		if x > math.MaxInt64 {
			return 0, false, fmt.Errorf("%s: %d is out of range", key, x)
		}
		return int64(x), true, nil
	}
	return 0, false, fmt.Errorf("%s: expected an integer, got %T", key, v)
}

func (m *ggufMeta) boolVal(key string) (bool, bool, error) {
	v, ok := m.kv[key]
	if !ok {
		return false, false, nil
	}
	b, isBool := v.(bool)
	if !isBool {
		return false, false, fmt.Errorf("%s: expected a bool, got %T", key, v)
	}
	return b, true, nil
}

func (m *ggufMeta) ints(key string) ([]int64, bool, error) {
	v, ok := m.kv[key]
	if !ok {
		return nil, false, nil
	}
	s, isInts := v.([]int64)
	if !isInts {
		return nil, false, fmt.Errorf("%s: expected an array of integers, got %T", key, v)
	}
	return s, true, nil
}

func (m *ggufMeta) floats(key string) ([]float64, bool, error) {
	v, ok := m.kv[key]
	if !ok {
		return nil, false, nil
	}
	s, isFloats := v.([]float64)
	if !isFloats {
		return nil, false, fmt.Errorf("%s: expected an array of floats, got %T", key, v)
	}
	return s, true, nil
}
