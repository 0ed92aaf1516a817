// Package fulldisk is a test double of a disk that fills: wrap an
// *os.File in File with the bytes the disk has room for.
package fulldisk

import (
	"io"
	"os"
	"syscall"
)

// File is a file on a disk with room for Limit bytes: a write past it
// writes what fits and fails with ENOSPC, as write(2) does.
type File struct {
	*os.File
	Limit int64
}

func (d *File) Write(p []byte) (int, error) {
	off, err := d.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, err
	}
	room := max(d.Limit-off, 0)
	if int64(len(p)) <= room {
		return d.File.Write(p)
	}
	n, err := d.File.Write(p[:room])
	if err != nil {
		return n, err
	}
	return n, &os.PathError{Op: "write", Path: d.Name(), Err: syscall.ENOSPC}
}
