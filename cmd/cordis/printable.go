package main

import (
	"io"

	"github.com/cordis-agent/cordis/internal/printable"
)

// printableWriter is the output of the review commands (`cordis trust`,
// `cordis hooks`, `cordis config show`), which print what a repository
// wrote — hook commands, rules, server names — for the user to judge in
// a terminal. Each Write is escaped by printable.Text, so a repository
// cannot make the terminal show something other than what would run
// (cursor moves and line erases, hidden text, hyperlinks, right-to-left
// overrides). Every Write must be whole text: a character split across
// two Writes would be escaped as two bytes.
type printableWriter struct{ w io.Writer }

func (p printableWriter) Write(b []byte) (int, error) {
	if _, err := io.WriteString(p.w, printable.Text(string(b))); err != nil {
		return 0, err
	}
	return len(b), nil
}
