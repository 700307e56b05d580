//go:build !unix

package sessionlog

import "os"

// lockFile does nothing where flock is not available: one process per log
// is then the caller's promise.
func lockFile(*os.File) error { return nil }
