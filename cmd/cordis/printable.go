package main

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// printableWriter is the output of the review commands (`cordis trust`,
// `cordis hooks`, `cordis config show`), which print what a repository
// wrote — hook commands, rules, server names — for the user to judge in
// a terminal. Each Write is escaped by printable, so a repository cannot
// make the terminal show something other than what would run (cursor
// moves and line erases, hidden text, hyperlinks, right-to-left
// overrides). Every Write must be whole text: a character split across
// two Writes would be escaped as two bytes.
type printableWriter struct{ w io.Writer }

func (p printableWriter) Write(b []byte) (int, error) {
	if _, err := io.WriteString(p.w, printable(string(b))); err != nil {
		return 0, err
	}
	return len(b), nil
}

// printable escapes what a terminal would act on or hide rather than
// show: C0 and C1 controls but newline and tab, DEL, invisible format
// characters (bidi controls, zero-width characters) as \xNN or \uNNNN,
// and a byte that is not UTF-8 (a terminal may read it as a C1 control)
// as \xNN.
func printable(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return r == utf8.RuneError || terminalActs(r) })
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for s = s[i:]; s != ""; {
		r, size := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[0])
		case terminalActs(r) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case terminalActs(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[:size])
		}
		s = s[size:]
	}
	return b.String()
}

func terminalActs(r rune) bool {
	return r != '\n' && r != '\t' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r))
}
