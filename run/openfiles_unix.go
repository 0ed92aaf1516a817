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
