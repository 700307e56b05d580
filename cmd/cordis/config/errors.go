package config

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Error is a configuration problem, located as precisely as the input allows.
// Load and Parse return only *Error values, so a caller can use File and Line
// directly or print Error(), which is always a single line.
type Error struct {
	File    string // as named by the caller or by an include; EmbeddedSource for embedded bytes
	Line    int    // 1-based; 0 when no line applies (a file that cannot be read)
	EntryID string // the entry concerned, if any
	Plugin  string // that entry's plugin name, once it is known to be registered
	Msg     string

	cause error // kept for errors.Is, e.g. fs.ErrNotExist from a missing file
}

// Error formats the problem as `file:line: entry "id" (plugin): message`,
// leaving out the parts that are empty.
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			b.WriteString(":" + strconv.Itoa(e.Line))
		}
		b.WriteString(": ")
	}
	if e.EntryID != "" {
		fmt.Fprintf(&b, "entry %q", e.EntryID)
		if e.Plugin != "" {
			fmt.Fprintf(&b, " (%s)", e.Plugin)
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return singleLine(b.String())
}

// Unwrap returns the underlying cause, such as an fs error.
func (e *Error) Unwrap() error { return e.cause }

// singleLine escapes line breaks: messages quote user text with %q, but file
// names and parser messages are not under our control, and callers rely on
// one error being one line.
var lineBreaks = strings.NewReplacer("\r", `\r`, "\n", `\n`)

func singleLine(s string) string { return lineBreaks.Replace(s) }

// yamlError turns a yaml.v3 parse or decode error into an *Error, lifting the
// "line N:" that yaml.v3 embeds in its messages into Line.
func yamlError(err error, file string, fallbackLine int) *Error {
	msg := err.Error()
	var typeErr *yaml.TypeError
	if errors.As(err, &typeErr) && len(typeErr.Errors) > 0 {
		msg = typeErr.Errors[0]
		if more := len(typeErr.Errors) - 1; more > 0 {
			msg += fmt.Sprintf(" (and %d more)", more)
		}
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	line := fallbackLine
	if n, rest, ok := cutLinePrefix(msg); ok {
		line, msg = n, rest
		if parserProblems[msg] {
			line++
		}
	}
	return &Error{File: file, Line: line, Msg: msg}
}

// parserProblems are the messages of yaml.v3's parser (as opposed to its
// scanner), for which v3.0.1 reports a 0-based line.
var parserProblems = map[string]bool{
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected '-' indicator":    true,
	"did not find expected <document start>": true,
	"did not find expected <stream-start>":   true,
	"did not find expected key":              true,
	"did not find expected node content":     true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

// describeReadError words a file error without repeating the path, which the
// *Error already carries.
func describeReadError(err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		return "file does not exist"
	}
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		return pathErr.Err.Error()
	}
	return err.Error()
}

// cutLinePrefix splits yaml.v3's "line N: " off msg.
func cutLinePrefix(msg string) (line int, rest string, ok bool) {
	after, found := strings.CutPrefix(msg, "line ")
	if !found {
		return 0, msg, false
	}
	num, rest, found := strings.Cut(after, ": ")
	n, err := strconv.Atoi(num)
	if !found || err != nil || n < 0 || strings.HasPrefix(num, "+") {
		return 0, msg, false
	}
	return n, rest, true
}
