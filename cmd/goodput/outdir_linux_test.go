package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/goodput-dev/goodput/cli"
)

// mountTmpfs mounts a tmpfs with the given options on a new directory and
// unmounts it at cleanup; it skips the test where mounting is not
// permitted (not root, or no CAP_SYS_ADMIN in the container).
func mountTmpfs(t *testing.T, flags uintptr, data string) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", flags, data); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v): the read-only and full-disk cases need root with CAP_SYS_ADMIN", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmounting %s: %v", dir, err)
		}
	})
	return dir
}

// TestOutputDirNotWritable: a read-only output directory (a read-only
// tmpfs: the tests run as root, which ignores permission bits; chmod 0500
// when not root) fails the run before any load, naming the directory.
func TestOutputDirNotWritable(t *testing.T) {
	srv := startMockServer(t, nil)
	var dir string
	cause := "read-only file system"
	if os.Geteuid() != 0 {
		dir = t.TempDir()
		if err := os.Chmod(dir, 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Chmod(dir, 0o700) })
		cause = "permission denied"
	} else {
		dir = mountTmpfs(t, syscall.MS_RDONLY, "size=64k")
	}
	expectRefusedBeforeLoad(t, srv, cli.ExitFailure, filepath.Join(dir, "r"), cause, outdirArgs(srv.url(), "--output-dir", dir)...)
}

// TestOutputDirFull: an output directory on a full file system (a 32 KiB
// tmpfs: goodput proves the directory takes a 64 KiB file before the
// load) fails the run before any load, naming the directory.
func TestOutputDirFull(t *testing.T) {
	srv := startMockServer(t, nil)
	dir := mountTmpfs(t, 0, "size=32k")
	expectRefusedBeforeLoad(t, srv, cli.ExitFailure, filepath.Join(dir, "r"), "no space left on device", outdirArgs(srv.url(), "--output-dir", dir)...)
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Logf("left in the full output directory: %s", strings.Join(names, ", "))
	}
}
