//go:build !unix

package run

// openFilesLimit is unknown off Unix.
func openFilesLimit() uint64 { return 0 }
