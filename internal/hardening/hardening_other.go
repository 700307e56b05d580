//go:build !linux

package hardening

// Apply does nothing where /proc and prctl do not exist.
func Apply(names ...string) error { return nil }

// Dumpable is always true where it cannot be changed.
func Dumpable() bool { return true }

// ChildrenCanPtrace is unknown here; it says true.
func ChildrenCanPtrace() bool { return true }

// Start runs start.
func Start(start func() error) error { return start() }
