//go:build unix

package sessionlog

import (
	"os"

	"golang.org/x/sys/unix"
)

// unlinked reports whether f's file has no directory entry left.
func unlinked(f *os.File) bool {
	var st unix.Stat_t
	return unix.Fstat(int(f.Fd()), &st) == nil && st.Nlink == 0
}
