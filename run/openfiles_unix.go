//go:build unix

package run

import "syscall"

// openFilesLimit is the process's open-files limit (Go raises the soft
// limit to the hard one when it starts), 0 when unknown.
func openFilesLimit() uint64 {
	var r syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r) != nil {
		return 0
	}
	return r.Cur
}

// raiseOpenFiles raises the open-files limit to need when it is lower:
// beyond the hard limit too, which a process with CAP_SYS_RESOURCE (root
// in many containers) may do. It returns the limit then in force and
// why it could not raise it ("" when it did or had no need).
func raiseOpenFiles(need uint64) (uint64, string) {
	var r syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r) != nil || r.Cur >= need {
		return r.Cur, ""
	}
	want := syscall.Rlimit{Cur: need, Max: max(r.Max, need)}
	err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want)
	if err == nil {
		return need, ""
	}
	// Up to the hard limit at least.
	if r.Cur < r.Max && syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: r.Max, Max: r.Max}) == nil {
		r.Cur = r.Max
	}
	return r.Cur, err.Error()
}
