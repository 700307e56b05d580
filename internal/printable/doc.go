// Package printable escapes text before a person is shown it, so that what
// they see is what is there. Text a model or a project wrote can carry
// characters a terminal or an editor acts on or hides instead of showing:
// control characters (ANSI escape sequences among them), bidirectional
// overrides and isolates that reorder what follows (`invoice<U+202E>fdp.exe`
// reads as `invoicexe.pdf`), zero-width and other invisible format
// characters, Unicode tag characters (invisible ASCII). Each one is
// replaced by a visible escape, so the user sees that something was there.
//
// The escapes are those of a Go quoted string: \n \r \t \a \b \f \v, \xNN
// for another ASCII control and for a byte that is not UTF-8, \uNNNN for a
// character of the Basic Multilingual Plane and \UNNNNNNNN beyond it (ESC is
// \x1b, RIGHT-TO-LEFT OVERRIDE \u202e). Nothing else changes: letters of any
// script (Arabic and Hebrew included: only the invisible controls are
// escaped), combining marks, emoji (a zero-width joiner between two emoji
// is kept), variation selectors. A backslash is not escaped: a literal
// `\u202e` in the text is visible as it is, which is all that matters here.
//
// Text keeps newlines, tabs and CRLF line ends, for fields shown as several
// lines; Line escapes them too, for a title or a label.
//
// The package is stateless: every function is safe for concurrent use.
package printable
