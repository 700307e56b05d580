// Package confine opens, reads, writes, creates and lists files only inside
// a set of allowed directories (a session's working directory and its extra
// directories), and enforces that when the file is opened, not by checking
// a path beforehand.
//
// The project folder is untrusted: a cloned repository controls every file
// in it, symlinks and FIFOs included, and a process started from it can
// swap a directory for a symlink at any moment. A path that was inside when
// it was checked can lead outside by the time it is opened. So a path is
// used in two steps:
//
//	dirs := confine.New(cwd, extra)
//	defer dirs.Close()
//	p, err := dirs.Locate("/project/docs/a.md") // which directory holds it?
//	data, err := p.ReadFile(1 << 20)             // opened through that directory
//
// Locate evaluates the symlinks of the path's existing prefix, as the
// kernel would, only to choose the allowed directory that holds the real
// file (so a link from one allowed directory into another works). The file
// is then opened relative to an open handle of that directory with
// os.Root, which resolves the path element by element and refuses any
// symlink or ".." leading outside: a link swapped in after Locate cannot
// lead out. Links that stay inside (CLAUDE.md -> AGENTS.md) are followed.
//
// Only regular files are read or written. Files are opened non-blocking
// and checked with fstat before use, so a FIFO with no writer (or a
// device) is refused with an error saying what it is instead of hanging.
// Reads take a size cap.
//
// A walk that opens many files (Grep, Glob) holds each directory open as a
// Dir (Path.OpenHandle, Dir.Sub): its entries are listed with the types
// the directory reports, without a stat each, and its files and
// subdirectories are opened by single name relative to the open handle,
// a final symlink never followed: one system call per file where a Path
// resolves every element of its path again.
//
// Concurrency: a Dirs is safe for use by any number of goroutines; it
// opens its directory handles on first use and keeps them until Close,
// and a Path is valid until the Dirs it came from is closed. A Dir is
// counted (Retain, Release) and may be shared by goroutines while held;
// its Entries are read once, by one.
package confine
