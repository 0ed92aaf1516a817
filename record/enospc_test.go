package record

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/goodput-dev/goodput/internal/fulldisk"
)

// TestEncoderDiskFull: a disk that fills in the middle of a line leaves a
// file of whole lines (every one a valid record), and the encoder counts
// every record it could not write, the ones encoded after the failure
// included.
func TestEncoderDiskFull(t *testing.T) {
	r := sampleRecord()
	r.ID = 1000 // every ID below has four digits: lines of one length
	line := int64(len(AppendJSON(nil, r)) + 1)
	const total = 2000 // ~1 MB of lines: the encoder writes several buffers
	for _, room := range []int64{0, line / 2, 3 * line, 300*line + line/3, encoderBuffer + 7} {
		path := filepath.Join(t.TempDir(), "requests.jsonl")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		enc := NewEncoder(&fulldisk.File{File: f, Limit: room})
		var first error
		for i := range total {
			r.ID = uint64(1000 + i)
			if err := enc.Encode(r); err != nil && first == nil {
				first = err
			}
		}
		if err := enc.Flush(); first == nil {
			first = err
		}
		if !errors.Is(first, syscall.ENOSPC) {
			t.Fatalf("room %d: error %v, want ENOSPC", room, first)
		}
		f.Close()
		written, lost, err := enc.Loss()
		wantWritten := int(room / line)
		if written != wantWritten || lost != total-wantWritten || !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("room %d: Loss() = %d, %d, %v; want %d written, %d lost, ENOSPC", room, written, lost, err, wantWritten, total-wantWritten)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(data)) != int64(wantWritten)*line || (len(data) > 0 && data[len(data)-1] != '\n') {
			t.Fatalf("room %d: file of %d bytes, want %d whole lines of %d", room, len(data), wantWritten, line)
		}
		dec := NewDecoder(bytes.NewReader(data), path)
		n := 0
		for {
			var got Record
			err := dec.Decode(&got)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("room %d: %v", room, err)
			}
			if got.ID != uint64(1000+n) {
				t.Fatalf("room %d: line %d holds record %d", room, n, got.ID)
			}
			n++
		}
		if n != wantWritten {
			t.Errorf("room %d: %d records read back, want %d", room, n, wantWritten)
		}
	}
}

// TestEncoderWholeFile: with room to spare nothing is lost.
func TestEncoderWholeFile(t *testing.T) {
	var buf bytes.Buffer
	enc := NewEncoder(&buf)
	for i := range 3 {
		r := sampleRecord()
		r.ID = uint64(i)
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	if w, l, err := enc.Loss(); w != 3 || l != 0 || err != nil {
		t.Fatalf("Loss() = %d, %d, %v; want 3, 0, nil", w, l, err)
	}
}
