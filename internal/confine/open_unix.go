//go:build unix

package confine

import "syscall"

// fileFlags are added to every open of a file: O_NONBLOCK so that opening
// a FIFO returns at once instead of waiting for the other end (the fstat
// that follows refuses it), O_NOCTTY so that a terminal device never
// becomes cordis's controlling terminal.
const fileFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY

// dirFlags open a directory to list it, and nothing else.
const dirFlags = syscall.O_DIRECTORY | syscall.O_NONBLOCK
