//go:build !unix

package confine

// Elsewhere there are no such flags; the fstat after the open still
// refuses anything but a regular file.
const (
	fileFlags = 0
	dirFlags  = 0
)
