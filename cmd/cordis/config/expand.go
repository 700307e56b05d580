package config

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// expandTree puts the shielded references back into the tree's scalars and
// expands those in values, in place. Expanding parsed nodes rather than the
// file's text means an expanded value, whatever it contains (": ", newlines,
// quotes), stays one scalar and can never add keys or entries. Mapping keys
// are restored but not expanded.
func (l *loader) expandTree(n *yaml.Node, file string, sh *shield) error {
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, child := range n.Content {
			if err := l.expandTree(child, file, sh); err != nil {
				return err
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if key := n.Content[i]; key.Kind == yaml.ScalarNode {
				key.Value = sh.restore(key.Value)
			}
			if err := l.expandTree(n.Content[i+1], file, sh); err != nil {
				return err
			}
		}
	case yaml.ScalarNode:
		n.Value = sh.restore(n.Value)
		return l.expandScalar(n, file)
	}
	// An alias is skipped: its target is expanded where it is defined, and
	// expanding twice would undo a $$ escape.
	return nil
}

// shield holds the ${...} references that shieldReferences took out of a
// file's text.
type shield struct {
	prefix string // starts every placeholder; absent from the original text
	refs   []string
}

// shieldReferences replaces each ${...} that closes on its own line with a
// placeholder of letters, digits and "_", because braces are YAML flow
// indicators: without this, `config: {fixture: ${X}}` would not parse. The
// reference text is restored verbatim after parsing, so YAML escapes inside
// a reference are not interpreted. Line numbers are unchanged.
func shieldReferences(data []byte) ([]byte, *shield) {
	sh := &shield{prefix: "cordisref"}
	for bytes.Contains(data, []byte(sh.prefix)) {
		sh.prefix += "x"
	}
	if !bytes.Contains(data, []byte("${")) {
		return data, sh
	}
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); {
		switch {
		case bytes.HasPrefix(data[i:], []byte("$$")):
			out = append(out, "$$"...)
			i += 2
		case bytes.HasPrefix(data[i:], []byte("${")):
			end := referenceEnd(data, i)
			if end < 0 {
				out = append(out, data[i])
				i++
				continue
			}
			out = append(out, sh.prefix+strconv.Itoa(len(sh.refs))+"_"...)
			sh.refs = append(sh.refs, string(data[i:end]))
			i = end
		default:
			out = append(out, data[i])
			i++
		}
	}
	return out, sh
}

// referenceEnd returns the index just past the '}' closing the reference at
// data[start], matching nested references as expand does. It returns -1 if
// the line ends first, or at a quote: a reference does not need one, so the
// quote more likely ends a YAML string around an unclosed reference, which
// is better left for YAML and expand to report.
func referenceEnd(data []byte, start int) int {
	depth := 0
	for i := start; i < len(data); {
		switch {
		case data[i] == '\n' || data[i] == '\r' || data[i] == '"' || data[i] == '\'':
			return -1
		case bytes.HasPrefix(data[i:], []byte("$$")):
			i += 2
		case bytes.HasPrefix(data[i:], []byte("${")):
			depth++
			i += 2
		case data[i] == '}':
			depth--
			i++
			if depth == 0 {
				return i
			}
		default:
			i++
		}
	}
	return -1
}

// restore replaces placeholders in s with the references they stand for.
func (sh *shield) restore(s string) string {
	if len(sh.refs) == 0 || !strings.Contains(s, sh.prefix) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, sh.prefix)
		if i < 0 {
			break
		}
		b.WriteString(s[:i])
		rest := s[i+len(sh.prefix):]
		digits := 0
		for digits < len(rest) && '0' <= rest[digits] && rest[digits] <= '9' {
			digits++
		}
		n, err := strconv.Atoi(rest[:digits])
		if err != nil || n >= len(sh.refs) || !strings.HasPrefix(rest[digits:], "_") {
			// Not a placeholder after all (YAML escapes can spell anything).
			b.WriteString(sh.prefix)
			s = rest
			continue
		}
		b.WriteString(sh.refs[n])
		s = rest[digits+1:]
	}
	b.WriteString(s)
	return b.String()
}

func (l *loader) expandScalar(n *yaml.Node, file string) error {
	if !strings.Contains(n.Value, "$") {
		return nil
	}
	value, unset, err := expand(n.Value, l.getenv)
	if err != nil {
		return &Error{File: file, Line: n.Line, Msg: err.Error()}
	}
	for _, name := range unset {
		l.warn(file, n.Line, fmt.Sprintf("${%s} is unset or empty; expanded to \"\"", name))
	}
	n.Value = value
	retag(n)
	return nil
}

// retag gives an expanded plain scalar the type its new text would have had
// if written out (so `maxTokens: ${MAX}` can be an int), while quoted and
// explicitly tagged scalars keep theirs. An empty result stays a string rather
// than becoming null, so ${UNSET} means "" as documented.
func retag(n *yaml.Node) {
	if n.Style&yaml.TaggedStyle != 0 {
		return
	}
	quoted := yaml.SingleQuotedStyle | yaml.DoubleQuotedStyle | yaml.LiteralStyle | yaml.FoldedStyle
	if n.Style&quoted != 0 || n.Value == "" {
		n.Tag = "!!str"
		return
	}
	n.Tag = ""
	n.Tag = n.ShortTag()
}

// expand replaces ${NAME} and ${NAME:-default} in s and turns $$ into $.
// Any other $ is literal, so values like "^a$" need no escaping. unset lists
// the variables referenced without a default that expanded to "".
func expand(s string, getenv func(string) string) (value string, unset []string, err error) {
	x := expansion{src: s, getenv: getenv}
	var b strings.Builder
	if _, err := x.run(&b, 0, false); err != nil {
		return "", nil, err
	}
	return b.String(), x.unset, nil
}

type expansion struct {
	src    string
	getenv func(string) string
	unset  []string
}

// run copies src[i:] into b with references expanded. Inside a default
// (inDefault) it stops before the '}' that closes the enclosing reference
// and returns its index.
func (x *expansion) run(b *strings.Builder, i int, inDefault bool) (int, error) {
	s := x.src
	for i < len(s) {
		switch {
		case s[i] == '}' && inDefault:
			return i, nil
		case s[i] != '$':
			b.WriteByte(s[i])
			i++
		case strings.HasPrefix(s[i:], "$$"):
			b.WriteByte('$')
			i += 2
		case strings.HasPrefix(s[i:], "${"):
			next, err := x.reference(b, i)
			if err != nil {
				return 0, err
			}
			i = next
		default:
			b.WriteByte('$')
			i++
		}
	}
	if inDefault {
		return 0, errUnterminated
	}
	return i, nil
}

var errUnterminated = fmt.Errorf(`unterminated "${" in value (write $$ for a literal $)`)

// reference expands the reference starting at src[start] ("${") and returns
// the index just past it.
func (x *expansion) reference(b *strings.Builder, start int) (int, error) {
	s := x.src
	nameStart := start + 2
	nameEnd := nameStart
	for nameEnd < len(s) && isNameByte(s[nameEnd], nameEnd == nameStart) {
		nameEnd++
	}
	name := s[nameStart:nameEnd]
	rest := s[nameEnd:]
	switch {
	case name != "" && strings.HasPrefix(rest, "}"):
		value := x.getenv(name)
		if value == "" {
			x.unset = append(x.unset, name)
		}
		b.WriteString(value)
		return nameEnd + 1, nil
	case name != "" && strings.HasPrefix(rest, ":-"):
		// The default is expanded on its own so that variables inside it are
		// reported as unset only when the default is actually used.
		inner := expansion{src: s, getenv: x.getenv}
		var fallback strings.Builder
		end, err := inner.run(&fallback, nameEnd+2, true)
		if err != nil {
			return 0, err
		}
		if value := x.getenv(name); value != "" {
			b.WriteString(value)
		} else {
			b.WriteString(fallback.String())
			x.unset = append(x.unset, inner.unset...)
		}
		return end + 1, nil
	case !strings.Contains(rest, "}"):
		return 0, errUnterminated
	default:
		bad := s[start:]
		if end := strings.IndexByte(bad, '}'); end >= 0 && end < 40 {
			bad = bad[:end+1]
		} else if len(bad) > 40 {
			bad = bad[:40] + "..."
		}
		return 0, fmt.Errorf("invalid variable reference %q: want ${NAME} or ${NAME:-default} (write $$ for a literal $)", bad)
	}
}

func isNameByte(c byte, first bool) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || !first && '0' <= c && c <= '9'
}
