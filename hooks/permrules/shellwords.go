package permrules

import (
	"strings"
)

// shellWord is one word of a simple command after quote removal.
type shellWord struct {
	text string
	// glob is set when the word has an unquoted *, ? or [ (the shell
	// expands it against the file system).
	glob bool
	// pattern is text with every quoted byte escaped by a backslash:
	// what bash matches file names against (a quoted * is a plain
	// star, not a wildcard).
	pattern string
	// tilde is set when the word starts with an unquoted ~ (the shell
	// expands it to a home directory).
	tilde bool
	// plain is set when no part of the word was quoted or escaped (an
	// env assignment's name must be plain to be one).
	plain bool
}

// redirection is one redirection of a simple command: its operator
// without the file descriptor number (">", ">>", "<", ">&", "&>", "<<<",
// ...) and its target word.
type redirection struct {
	op     string
	target shellWord
}

// simpleCommand is what the shell runs between two control operators.
type simpleCommand struct {
	words  []shellWord
	redirs []redirection
}

// parseShell cuts a command line into simple commands the way bash reads
// it: quotes, backslashes, comments, control operators (; & && | || |&
// newline ( )) and redirections. It recognizes only what can be checked
// statically and reports ok false for anything else: command or process
// substitution, parameter and arithmetic expansion, brace expansion,
// here-documents, $'...' quoting and unterminated quotes. A false ok is
// never a reason to allow anything.
func parseShell(line string) (cmds []simpleCommand, ok bool) {
	if strings.IndexByte(line, 0) >= 0 {
		return nil, false // no shell reads past a NUL: what runs is not what was checked
	}
	var (
		cur    simpleCommand
		word   strings.Builder
		pat    strings.Builder
		w      shellWord
		inWord bool
		// pendingRedir is a redirection operator waiting for its target.
		pendingRedir string
	)
	startWord := func() {
		if !inWord {
			inWord, w = true, shellWord{plain: true}
			word.Reset()
			pat.Reset()
		}
	}
	// quoted adds quoted text to the word, every byte escaped in its
	// pattern (as bash does: a quoted ! or - is no bracket syntax) but
	// /, which still separates directories (*'/' lists them).
	quoted := func(s string) {
		w.plain = false
		word.WriteString(s)
		for i := 0; i < len(s); i++ {
			if s[i] != '/' {
				pat.WriteByte('\\')
			}
			pat.WriteByte(s[i])
		}
	}
	endWord := func() bool {
		if !inWord {
			return true
		}
		inWord = false
		w.text, w.pattern = word.String(), pat.String()
		if pendingRedir != "" {
			cur.redirs = append(cur.redirs, redirection{op: pendingRedir, target: w})
			pendingRedir = ""
			return true
		}
		cur.words = append(cur.words, w)
		return true
	}
	endCommand := func() bool {
		endWord()
		if pendingRedir != "" {
			return false // a redirection without a target
		}
		if len(cur.words) > 0 || len(cur.redirs) > 0 {
			cmds = append(cmds, cur)
		}
		cur = simpleCommand{}
		return true
	}
	// redirect starts a redirection; a word of digits just before it
	// (2>, 1>&2) is its file descriptor, not a word.
	redirect := func(op string) bool {
		if inWord && w.plain && isDigits(word.String()) {
			inWord = false
		} else {
			endWord()
		}
		if pendingRedir != "" {
			return false
		}
		pendingRedir = op
		return true
	}

	for i := 0; i < len(line); i++ {
		c := line[i]
		next := byte(0)
		if i+1 < len(line) {
			next = line[i+1]
		}
		switch {
		case c == ' ' || c == '\t':
			endWord()
		case c == '\n':
			if !endCommand() {
				return nil, false
			}
		case c == '#' && !inWord:
			for i < len(line) && line[i] != '\n' {
				i++
			}
			i-- // the newline ends the command
		case c == '\'':
			startWord()
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, false
			}
			quoted(line[i+1 : i+1+end])
			i += 1 + end
		case c == '"':
			startWord()
			var dq strings.Builder
			j, ok := readDoubleQuoted(line, i+1, &dq)
			if !ok {
				return nil, false
			}
			quoted(dq.String())
			i = j
		case c == '\\':
			if next == 0 {
				return nil, false
			}
			i++
			if next == '\n' {
				continue // a line continuation
			}
			startWord()
			quoted(line[i : i+1])
		case c == '$':
			if next != 0 && next != ' ' && next != '\t' && next != '\n' && next != ';' && next != '&' && next != '|' && next != ')' {
				return nil, false // an expansion, or $'...' / $"..."
			}
			startWord()
			word.WriteByte(c)
			pat.WriteByte(c)
		case c == '`':
			return nil, false // command substitution
		case c == '{':
			// Brace expansion ({a,b}, {1..3}) makes several words of
			// one; a brace without a comma or .. inside (git's @{u})
			// is kept as it is.
			end := strings.IndexAny(line[i+1:], "} \t\n;&|<>()'\"\\{$`")
			if end < 0 || line[i+1+end] != '}' {
				return nil, false
			}
			inner := line[i+1 : i+1+end]
			if strings.Contains(inner, ",") || strings.Contains(inner, "..") {
				return nil, false
			}
			// bash reads the } of a pair without a comma as text and
			// looks on for another: ""{},-delete} is the two words }
			// and -delete, {0},} is 0}, and ""{}";",-delete} is };
			// and -delete. A pair is kept only when no } follows in
			// the word, quoted or not (git's @{u}..HEAD).
			if strings.Contains(restOfWord(line, i+2+end), "}") {
				return nil, false
			}
			startWord()
			// The braces stay as text; a wildcard inside is still one.
			w.glob = w.glob || strings.ContainsAny(inner, "*?[")
			word.WriteString(line[i : i+2+end])
			pat.WriteString(line[i : i+2+end])
			i += 1 + end
		case c == ';' || c == '(' || c == ')':
			if c == '(' && inWord {
				return nil, false // x(...) is extglob's !(a|b) or a function
			}
			if !endCommand() {
				return nil, false
			}
		case c == '|':
			if next == '|' || next == '&' {
				i++
			}
			if !endCommand() {
				return nil, false
			}
		case c == '&':
			switch next {
			case '&':
				i++
			case '>':
				op := "&>"
				i++
				if i+1 < len(line) && line[i+1] == '>' {
					op, i = "&>>", i+1
				}
				if !redirect(op) {
					return nil, false
				}
				continue
			}
			if !endCommand() {
				return nil, false
			}
		case c == '>' || c == '<':
			if next == '(' {
				return nil, false // process substitution
			}
			op := string(c)
			for i+1 < len(line) && strings.IndexByte("<>&|", line[i+1]) >= 0 && len(op) < 3 {
				op += string(line[i+1])
				i++
			}
			if strings.HasPrefix(op, "<<") && op != "<<<" {
				return nil, false // a here-document
			}
			if !redirect(op) {
				return nil, false
			}
		default:
			if !inWord && c == '~' {
				startWord()
				w.tilde = true
			}
			startWord()
			if c == '*' || c == '?' || c == '[' {
				w.glob = true
			}
			word.WriteByte(c)
			pat.WriteByte(c)
		}
	}
	if !endCommand() {
		return nil, false
	}
	return cmds, true
}

// readDoubleQuoted copies the text of a double-quoted string starting at
// line[i] (after the opening quote) into word and returns the index of
// the closing quote; ok is false for an expansion inside it or a missing
// closing quote.
func readDoubleQuoted(line string, i int, word *strings.Builder) (int, bool) {
	for ; i < len(line); i++ {
		switch c := line[i]; c {
		case '"':
			return i, true
		case '\\':
			if i+1 < len(line) && strings.IndexByte("$`\"\\\n", line[i+1]) >= 0 {
				i++
				if line[i] != '\n' {
					word.WriteByte(line[i])
				}
				continue
			}
			word.WriteByte(c)
		case '`':
			return 0, false
		case '$':
			if i+1 < len(line) && line[i+1] != '"' && line[i+1] != ' ' && line[i+1] != '\t' {
				return 0, false
			}
			word.WriteByte(c)
		default:
			word.WriteByte(c)
		}
	}
	return 0, false
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// restOfWord is line from start to the end of the shell word it is in:
// up to the first blank or ;&|<>() outside quotes, a backslash taking the
// next byte along. An unterminated quote runs to the end of the line.
func restOfWord(line string, start int) string {
	for i := start; i < len(line); i++ {
		switch line[i] {
		case ' ', '\t', '\n', ';', '&', '|', '<', '>', '(', ')':
			return line[start:i]
		case '\\':
			i++
		case '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return line[start:]
			}
			i += 1 + end
		case '"':
			for i++; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' {
					i++
				}
			}
		}
	}
	return line[start:]
}
