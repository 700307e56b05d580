package commands

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// snippetShapes are templates whose shell snippet places arguments bare,
// in single and in double quotes, glued to text, by index and by name,
// in each of the three snippet forms; want is the words the shell must
// see, from the invocation's argument words.
var snippetShapes = []struct {
	tmpl string
	want func(a Arguments) []string
}{
	{"!{printf %s $ARGUMENTS}", func(a Arguments) []string { return append([]string{"printf", "%s"}, a.Words...) }},
	{"!{printf %s \"$ARGUMENTS\"}", func(a Arguments) []string { return []string{"printf", "%s", a.Raw} }},
	{"!{printf %s '$ARGUMENTS'}", func(a Arguments) []string { return []string{"printf", "%s", a.Raw} }},
	{"!{printf %s $0 $1}", func(a Arguments) []string { return []string{"printf", "%s", word(a, 0), word(a, 1)} }},
	{"!`printf %s x$ARGUMENTS[1]y \"$0\"`", func(a Arguments) []string { return []string{"printf", "%s", "x" + word(a, 1) + "y", word(a, 0)} }},
	{"```!\nprintf %s $name \"pre $ARGUMENTS post\"\n```", func(a Arguments) []string { return []string{"printf", "%s", word(a, 0), "pre " + a.Raw + " post"} }},
	{"!{printf %s \"a'$1'b\" 'c\"$0\"d'}", func(a Arguments) []string {
		return []string{"printf", "%s", "a'" + word(a, 1) + "'b", "c\"" + word(a, 0) + "\"d"}
	}},
	{"!{printf %s $ARGUMENTS$ARGUMENTS}", func(a Arguments) []string {
		// The last word of the first and the first of the second touch.
		if len(a.Words) == 0 {
			return []string{"printf", "%s"}
		}
		w := append([]string{"printf", "%s"}, a.Words[:len(a.Words)-1]...)
		w = append(w, a.Words[len(a.Words)-1]+a.Words[0])
		return append(w, a.Words[1:]...)
	}},
}

func word(a Arguments, i int) string {
	if i < len(a.Words) {
		return a.Words[i]
	}
	return ""
}

// FuzzSnippetArguments expands templates whose shell snippets use the
// arguments in every quoting context with arbitrary argument text ($(…),
// backticks, quotes, ';', newlines): the command offered for approval,
// read by a strict shell-word reader of the test's own that refuses any
// expansion or operator, is exactly the template's words with the
// argument words in their places. Argument text never becomes shell
// syntax.
func FuzzSnippetArguments(f *testing.F) {
	for _, args := range []string{"", "a b", `$(touch pwned)`, "`id`", `it's "quoted"`, "a; rm -rf ~", "x\ny", `\"; echo $HOME \`, "'", `"`, "a\tb  c ", "${PATH}", "$1 $ARGUMENTS", "*"} {
		for i := range snippetShapes {
			f.Add(args, uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, args string, shape uint8) {
		if strings.IndexByte(args, 0) >= 0 {
			return // no shell takes a NUL in its command
		}
		s := snippetShapes[int(shape)%len(snippetShapes)]
		var offered []string
		e := &Expander{
			ArgNames: []string{"name"},
			Approve: func(_ context.Context, cmds []string) ([]string, error) {
				offered = cmds
				return nil, ErrShellDenied
			},
			Shell: func(context.Context, string) (string, error) {
				t.Fatal("the shell ran without approval")
				return "", nil
			},
		}
		if _, err := e.Expand(context.Background(), s.tmpl, args); !errors.Is(err, ErrShellDenied) {
			t.Fatalf("Expand(%q, %q) = %v, want the denial", s.tmpl, args, err)
		}
		if len(offered) != 1 {
			t.Fatalf("Expand(%q, %q) offered %q, want one command", s.tmpl, args, offered)
		}
		got, err := strictShellWords(offered[0])
		if err != nil {
			t.Fatalf("Expand(%q, %q) offered %q: %v", s.tmpl, args, offered[0], err)
		}
		if want := s.want(NewArguments(args, []string{"name"})); !slices.Equal(got, want) {
			t.Fatalf("Expand(%q, %q) offered %q, which the shell reads as %q, want %q", s.tmpl, args, offered[0], got, want)
		}
	})
}

// strictShellWords reads a command as sh reads its words, and fails on
// anything that is not a plain word: an unquoted operator, glob, tilde,
// comment or $, and a $ or backtick inside double quotes.
func strictShellWords(cmd string) ([]string, error) {
	var words []string
	var cur strings.Builder
	in := false
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				words, in = append(words, cur.String()), false
				cur.Reset()
			}
		case c == '\'':
			j := strings.IndexByte(cmd[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated single quote")
			}
			cur.WriteString(cmd[i+1 : i+1+j])
			i += j + 1
			in = true
		case c == '"':
			for i++; ; i++ {
				if i >= len(cmd) {
					return nil, errors.New("unterminated double quote")
				}
				d := cmd[i]
				if d == '"' {
					break
				}
				if d == '$' || d == '`' {
					return nil, errors.New("an expansion inside double quotes")
				}
				if d == '\\' && i+1 < len(cmd) && strings.IndexByte("$`\"\\\n", cmd[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(cmd[i])
			}
			in = true
		case c == '\\':
			if i+1 >= len(cmd) {
				return nil, errors.New("a trailing backslash")
			}
			i++
			cur.WriteByte(cmd[i])
			in = true
		case strings.IndexByte(";&|<>()$`*?[{}~#!=", c) >= 0:
			return nil, errors.New("shell syntax " + string(c) + " outside quotes")
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}

// FuzzFrontmatter reads arbitrary Markdown files' headers, strict YAML
// or Claude Code's lenient reading: no panic; the body is the file's
// end; a file without a header is all body; and the lenient rebuild is
// valid YAML whose keys are the header's "key:" lines, each once, first
// wins, in order, a value that is not YAML on its own kept as the text
// written.
func FuzzFrontmatter(f *testing.F) {
	for _, s := range []string{
		"---\ndescription: Run it: now\nallowed-tools: [\"Bash(git status:*)\", \"Read\"]\n---\nBody\n",
		"---\nname: tidy\ndescription: Use this when: <example>user: \"x\"</example>\nmodel: inherit\ntools: [\"Read\"]\n---\n\nYou tidy.\n",
		"---\n: : :\n---\nx", "---\nno end", "plain text", "---\r\na: b\r\n---\r\nbody", "---\na: 1\na: 2\nb: [x\n---\n",
		"---\ndescription: |\n  folded\n  text\n---\n", "---\nk: 'unterminated\n---\n", "---\nk: &a x\nj: *a\n---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		norm := strings.ReplaceAll(string(data), "\r\n", "\n")
		var fm frontmatter
		body, err := splitFrontmatter(data, &fm)
		if err == nil && !strings.HasSuffix(norm, body) {
			t.Fatalf("body %q is not the end of the file %q", body, norm)
		}
		if !strings.HasPrefix(norm, "---\n") && (err != nil || body != norm) {
			t.Fatalf("a file without a header: body %q, %v", body, err)
		}
		fixed, err := lenientFrontmatter(data)
		if err != nil {
			return // yaml.v3 refuses to write some texts (invalid UTF-8); splitFrontmatter then reports the strict error
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(fixed, &doc); err != nil {
			t.Fatalf("lenient rebuild of %q is not YAML: %v\n%s", data, err, fixed)
		}
		var keys []string
		texts := map[string]string{}
		var last string
		for _, line := range strings.Split(string(data), "\n") {
			if k, ok := headerKey(line); ok {
				last = k
				if _, seen := texts[k]; !seen {
					keys = append(keys, k)
					_, v, _ := strings.Cut(line, ":")
					texts[k] = v
				} else {
					last = "" // a later copy is dropped with its lines
				}
				continue
			}
			if last != "" {
				texts[last] += "\n" + line
			}
		}
		var got []string
		if len(doc.Content) == 1 {
			m := doc.Content[0]
			for i := 0; i+1 < len(m.Content); i += 2 {
				got = append(got, m.Content[i].Value)
				v, text := m.Content[i+1], strings.TrimSpace(texts[m.Content[i].Value])
				var typed yaml.Node
				if yaml.Unmarshal([]byte(text), &typed) != nil && v.Kind == yaml.ScalarNode && v.Value != text {
					t.Fatalf("%q: the value %q is not YAML, so it must stay as written, got %q", m.Content[i].Value, text, v.Value)
				}
			}
		}
		if !slices.Equal(got, keys) {
			t.Fatalf("lenient rebuild of %q has keys %q, want %q", data, got, keys)
		}
		if hasNoFields(data) != (len(keys) == 0) {
			t.Fatalf("hasNoFields(%q) = %v with keys %q", data, hasNoFields(data), keys)
		}
	})
}

// headerKey reads a "key:" line (the key a letter or '_', then letters,
// digits, '_' and '-'; after the colon a blank or the end).
func headerKey(line string) (string, bool) {
	k, rest, ok := strings.Cut(line, ":")
	if !ok || k == "" || rest != "" && strings.IndexByte(" \t\r\f", rest[0]) < 0 {
		return "", false
	}
	for i, c := range []byte(k) {
		letter := c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || !(c == '-' || '0' <= c && c <= '9')) {
			return "", false
		}
	}
	return k, true
}

// FuzzExpandSavedPrompt fills arbitrary saved prompts with arbitrary
// arguments as Codex does, and compares with a reading of its own: no
// panic; argument text is never read again for placeholders; named
// placeholders take KEY=value words and all are required; and quoting
// the argument words again gives the same words back.
func FuzzExpandSavedPrompt(f *testing.F) {
	for _, s := range [][2]string{
		{"Review $1 then $2; all: $ARGUMENTS", "a.go 'b c.go'"},
		{"Fix $FILE on $BRANCH, cost $$5 and $$NAME", `FILE=x.go BRANCH="main dev"`},
		{"Only $FILE", "FILE=$BRANCH BRANCH=x"},
		{"$1$1 $9 $0 $ARGUMENTS $ARGUMENTSX", `$1 \"x\" 'it''s'`},
		{"$$$A $A", "A=1"},
		{"no placeholders", "extra"},
		{"$X", "X"},
		{"$X", "=v"},
		{"$A $ARGUMENTS", "A=1 ARGUMENTS=2"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, body, args string) {
		words := shellWords(args)
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = shellQuote(w)
		}
		if again := shellWords(strings.Join(quoted, " ")); !slices.Equal(again, words) && !(len(again) == 0 && len(words) == 0) {
			t.Fatalf("shellWords(%q) = %q, but quoted again they read %q", args, words, again)
		}
		got, err := ExpandSavedPrompt(body, args)
		want, wantErr := savedPromptOracle(body, words)
		if (err != nil) != wantErr {
			t.Fatalf("ExpandSavedPrompt(%q, %q) error %v, want error %v", body, args, err, wantErr)
		}
		if err == nil && got != want {
			t.Fatalf("ExpandSavedPrompt(%q, %q) = %q, want %q", body, args, got, want)
		}
	})
}

// savedPromptOracle expands body in one left-to-right pass over the
// body alone (so argument text is never scanned).
func savedPromptOracle(body string, words []string) (string, bool) {
	isUpper := func(c byte) bool { return 'A' <= c && c <= 'Z' }
	nameAt := func(i int) string { // the name of "$NAME" at body[i]
		j := i + 2
		for j < len(body) && (isUpper(body[j]) || '0' <= body[j] && body[j] <= '9' || body[j] == '_') {
			j++
		}
		return body[i+1 : j]
	}
	var names []string
	for i := 0; i+1 < len(body); i++ {
		if body[i] == '$' && isUpper(body[i+1]) {
			n := nameAt(i)
			if (i == 0 || body[i-1] != '$') && n != "ARGUMENTS" && !slices.Contains(names, n) {
				names = append(names, n)
			}
			i += len(n)
		}
	}
	var b strings.Builder
	if len(names) == 0 {
		for i := 0; i < len(body); i++ {
			switch {
			case strings.HasPrefix(body[i:], "$$"):
				b.WriteString("$$")
				i++
			case body[i] == '$' && i+1 < len(body) && '1' <= body[i+1] && body[i+1] <= '9':
				if n := int(body[i+1] - '1'); n < len(words) {
					b.WriteString(words[n])
				}
				i++
			case strings.HasPrefix(body[i:], "$ARGUMENTS"):
				b.WriteString(strings.Join(words, " "))
				i += len("$ARGUMENTS") - 1
			default:
				b.WriteByte(body[i])
			}
		}
		return b.String(), false
	}
	values := map[string]string{}
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" {
			return "", true
		}
		values[k] = v
	}
	for _, n := range names {
		if _, ok := values[n]; !ok {
			return "", true
		}
	}
	for i := 0; i < len(body); i++ {
		if body[i] == '$' && i+1 < len(body) && isUpper(body[i+1]) {
			n := nameAt(i)
			if v, ok := values[n]; ok && (i == 0 || body[i-1] != '$') && n != "ARGUMENTS" {
				b.WriteString(v)
			} else {
				b.WriteString("$" + n)
			}
			i += len(n)
			continue
		}
		b.WriteByte(body[i])
	}
	return b.String(), false
}
