//go:build !unix

package run

// openFilesLimit is unknown off Unix.
func openFilesLimit() uint64 { return 0 }

// raiseOpenFiles cannot raise the limit off Unix.
func raiseOpenFiles(uint64) (uint64, string) { return 0, "" }
