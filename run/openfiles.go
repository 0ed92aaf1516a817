package run

import "fmt"

// filesReserve is what the process keeps open besides its connections:
// output files, telemetry scrapes, the live /metrics listener.
const filesReserve = 64

// openFilesWarning says when the open-files limit is below the
// connections a plan opens at once (sweep.MaxStreams), "" otherwise or
// when either is unknown.
func openFilesWarning(limit uint64, streams int) string {
	if limit == 0 || streams == 0 || uint64(streams)+filesReserve <= limit {
		return ""
	}
	return fmt.Sprintf("WARNING: the open-files limit is %d, below the %d connections this plan may hold at once plus about %d files of its own: connections beyond it fail (raise it: ulimit -n, or the container's nofile limit)",
		limit, streams, filesReserve)
}
