package run

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/goodput-dev/goodput/report"
)

// recordsFile is the per-request records file: written by the encoder,
// which cuts it back to its whole lines after a failed write.
type recordsFile interface {
	io.Writer
	io.Seeker
	Truncate(size int64) error
	Sync() error
	Close() error
}

// createRecords creates the records file (a test puts a full disk here).
var createRecords = func(path string) (recordsFile, error) { return os.Create(path) }

// OutputsLostError is returned by Run, after the console summary, when
// what the run measured could not all be written (a full disk): records
// lost from the records file, or output files not written. Lines say
// which, one each.
type OutputsLostError struct{ Lines []string }

func (e *OutputsLostError) Error() string { return strings.Join(e.Lines, "\n") }

// diskFull says whether err is the disk (or the quota) running out of
// room: the outputs that follow are still tried, the console last.
func diskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// recordsLoss adds to the report what the records file lost to a failed
// write, as a note and in goodput.lost; it returns the line for
// OutputsLostError, "" when nothing was lost.
func (s *state) recordsLoss(rep *report.Report) string {
	if s.enc == nil {
		return ""
	}
	written, lost, err := s.enc.Loss()
	if err == nil {
		return ""
	}
	msg := fmt.Sprintf("%s: %d records lost from the first failed write on (%v); the file holds the %d before it, in whole lines, and the report's figures count every request",
		s.files.jsonl, lost, err, written)
	rep.Run.Lost = append(rep.Run.Lost, report.LostOutput{File: s.files.jsonl, RecordsWritten: written, RecordsLost: lost, Error: err.Error()})
	rep.Run.Notes = append(rep.Run.Notes, msg)
	return msg
}
