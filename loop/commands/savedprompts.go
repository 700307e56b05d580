package commands

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Saved prompts are Codex's custom prompts: <folder>/<name>.md (directly
// in the folder), offered as /prompts:<name>, whose text, its optional
// frontmatter (description, argument-hint) removed, is sent as the
// user's message with Codex's placeholders filled in:
//
//   - a prompt with named placeholders ($NAME: an upper-case letter, then
//     upper-case letters, digits and '_'; $ARGUMENTS is not one) takes
//     KEY=value arguments (quote a value with blanks), every name is
//     required, and $1..$9 and $ARGUMENTS stay as written;
//   - otherwise $1..$9 are the positional arguments (missing ones are
//     empty) and $ARGUMENTS all of them joined by a blank.
//
// "$$" is kept as written (so $$NAME is no placeholder), and nothing else
// is expanded: unlike a command file, no !`shell` and no @file.

// savedPromptPrefix names the saved prompts' commands, as Codex does.
const savedPromptPrefix = "prompts:"

// savedPromptName matches a named placeholder.
var savedPromptName = regexp.MustCompile(`\$[A-Z][A-Z0-9_]*`)

// savedPromptFrontmatter is the header Codex reads.
type savedPromptFrontmatter struct {
	Description  string    `yaml:"description"`
	ArgumentHint yaml.Node `yaml:"argument-hint"`
}

// loadSavedPrompts reads the saved-prompt folders, the first folder
// winning a name.
func loadSavedPrompts(dirs []sourceDir, cwd string) ([]Command, []LoadError) {
	var out []Command
	var errs []LoadError
	seen := map[string]bool{}
	for _, d := range dirs {
		errs = append(errs, walkMarkdown(d.path, d.source == SourceProject, d.confinedTo(cwd), func(p, rel string, read func() ([]byte, error)) error {
			stem := strings.TrimSuffix(rel, ".md")
			if strings.ContainsRune(stem, filepath.Separator) || seen[stem] {
				return nil // Codex reads the folder itself, not below
			}
			name := savedPromptPrefix + stem
			if !validName(name) {
				return fmt.Errorf("saved prompt name %q may only use letters, digits, '_' and '-'", stem)
			}
			data, err := read()
			if err != nil {
				return err
			}
			var fm savedPromptFrontmatter
			body, err := splitFrontmatter(data, &fm)
			if err != nil {
				return err
			}
			seen[stem] = true
			out = append(out, savedPrompt(name, p, d.source, fm, body))
			return nil
		})...)
	}
	return out, errs
}

// savedPrompt is the command of one saved prompt.
func savedPrompt(name, path string, source Source, fm savedPromptFrontmatter, body string) *Local {
	desc := fm.Description
	if desc == "" {
		desc = firstLine(body)
	}
	if desc == "" {
		desc = "send saved prompt"
	}
	hint := hintText(&fm.ArgumentHint)
	if names := savedPromptNames(body); hint == "" && len(names) > 0 {
		hint = strings.Join(names, "=… ") + "=…"
	}
	return &Local{
		Spec: Spec{Name: name, Description: desc, ArgumentHint: hint, Source: source, Path: path},
		Run: func(_ context.Context, inv *Invocation) Intent {
			text, err := ExpandSavedPrompt(body, inv.Args)
			if err != nil {
				return ShowError{Message: fmt.Sprintf("/%s: %v", name, err)}
			}
			return SubmitPrompt{Text: text}
		},
	}
}

// savedPromptNames are the named placeholders of a saved prompt, without
// their '$', in order of first use.
func savedPromptNames(body string) []string {
	var names []string
	for _, loc := range savedPromptName.FindAllStringIndex(body, -1) {
		if loc[0] > 0 && body[loc[0]-1] == '$' {
			continue
		}
		n := body[loc[0]+1 : loc[1]]
		if n != "ARGUMENTS" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

// ExpandSavedPrompt fills a saved prompt's placeholders with args, as
// Codex does (see the package's saved prompts). An argument that is not
// KEY=value, or a named placeholder without a value, is an error that
// says how to write them.
func ExpandSavedPrompt(body, args string) (string, error) {
	words := shellWords(args)
	names := savedPromptNames(body)
	if len(names) == 0 {
		return expandPositional(body, words), nil
	}
	values := map[string]string{}
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		switch {
		case !ok:
			return "", fmt.Errorf("expected KEY=value but found %q (wrap a value with blanks in double quotes)", w)
		case k == "":
			return "", fmt.Errorf("expected a name before '=' in %q", w)
		}
		values[k] = v
	}
	var missing []string
	for _, n := range names {
		if _, ok := values[n]; !ok {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("missing required arguments: %s. Give them as KEY=value (quote values with blanks)", strings.Join(missing, ", "))
	}
	var b strings.Builder
	last := 0
	for _, loc := range savedPromptName.FindAllStringIndex(body, -1) {
		if loc[0] > 0 && body[loc[0]-1] == '$' {
			continue
		}
		name := body[loc[0]+1 : loc[1]]
		v, ok := values[name]
		if !ok || name == "ARGUMENTS" {
			continue // $ARGUMENTS stays, even when an argument is named so
		}
		b.WriteString(body[last:loc[0]])
		b.WriteString(v)
		last = loc[1]
	}
	b.WriteString(body[last:])
	return b.String(), nil
}

// expandPositional fills $1..$9 and $ARGUMENTS.
func expandPositional(body string, words []string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(body, '$')
		if i < 0 {
			b.WriteString(body)
			return b.String()
		}
		b.WriteString(body[:i])
		rest := body[i:]
		switch {
		case strings.HasPrefix(rest, "$$"):
			b.WriteString("$$")
			body = rest[2:]
		case len(rest) >= 2 && '1' <= rest[1] && rest[1] <= '9':
			if n := int(rest[1] - '1'); n < len(words) {
				b.WriteString(words[n])
			}
			body = rest[2:]
		case strings.HasPrefix(rest, "$ARGUMENTS"):
			b.WriteString(strings.Join(words, " "))
			body = rest[len("$ARGUMENTS"):]
		default:
			b.WriteByte('$')
			body = rest[1:]
		}
	}
}

// shellWords splits arguments as a POSIX shell splits words (Codex's
// saved prompts): splitWords with a backslash taking the next character
// literally outside single quotes.
func shellWords(s string) []string { return splitWords(s, true) }
