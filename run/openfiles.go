package run

import "fmt"

// filesReserve is what the process keeps open besides its connections:
// output files, telemetry scrapes, the live /metrics listener.
const filesReserve = 64

// openFilesWarning says when the open-files limit is below the
// connections a plan opens at once (sweep.MaxStreams), "" otherwise or
// when either is unknown; why is what refused raising it.
func openFilesWarning(limit uint64, streams int, why string) string {
	if limit == 0 || streams == 0 || uint64(streams)+filesReserve <= limit {
		return ""
	}
	if why != "" {
		why = "; goodput could not raise it (" + why + ")"
	}
	return fmt.Sprintf("WARNING: the open-files limit is %d, below the %d connections this plan may hold at once plus about %d files of its own%s: connections beyond it fail (raise it: ulimit -n, the container's nofile limit, or run with CAP_SYS_RESOURCE)",
		limit, streams, filesReserve, why)
}

// fitOpenFiles raises the open-files limit to what streams connections
// need and returns what to tell the user: that it raised it, or a
// warning when it could not.
func fitOpenFiles(streams int) string {
	if streams == 0 {
		return ""
	}
	before := openFilesLimit()
	need := uint64(streams) + filesReserve
	limit, why := raiseOpenFiles(need)
	if w := openFilesWarning(limit, streams, why); w != "" {
		return w
	}
	if before != 0 && limit > before {
		return fmt.Sprintf("raised the open-files limit from %d to %d for the %d connections this plan may hold at once", before, limit, streams)
	}
	return ""
}
