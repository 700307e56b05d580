package permrules

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cordis-agent/cordis/internal/trust"
	"gopkg.in/yaml.v3"
)

// A command's or skill's `allowed-tools` frontmatter pre-approves rules for
// the turn that uses it. In a project file those are allow rules written by
// the repository, so each needs the user's trust like a project settings
// allow rule: it is kept under the source "<file>#allowed-tools".
const frontmatterEvent = "allowed-tools"

func frontmatterEntry(file, rule string) trust.Hook {
	return trust.Hook{Dialect: trustDialect, Source: file + "#" + frontmatterEvent, Event: frontmatterEvent, Type: "rule", Command: rule}
}

// TrustedFrontmatter reports whether the user vouched for rule in the
// allowed-tools of the project command or skill file at path.
func (t Trust) TrustedFrontmatter(path, rule string) bool {
	return t.Store != nil && t.Store.Trusted(frontmatterEntry(path, rule))
}

// SplitRules splits an allowed-tools (or tools) string into rules, at
// commas and blanks outside parentheses: "Bash(git add:*), Read Grep".
func SplitRules(s string) []string {
	var out []string
	depth, start := 0, 0
	flush := func(end int) {
		if r := strings.TrimSpace(s[start:end]); r != "" {
			out = append(out, r)
		}
	}
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',', ' ', '\t', '\n':
			if depth == 0 {
				flush(i)
				start = i + 1
			}
		}
	}
	flush(len(s))
	return out
}

// frontmatterRules reads the allowed-tools of a Markdown file's YAML
// header (a string or a list); nil when it has none.
func frontmatterRules(data []byte) ([]string, error) {
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	rest, ok := bytes.CutPrefix(data, []byte("---\n"))
	if !ok {
		return nil, nil
	}
	head, _, _ := bytes.Cut(rest, []byte("\n---"))
	var fm struct {
		AllowedTools any `yaml:"allowed-tools"`
	}
	if err := yaml.Unmarshal(head, &fm); err != nil {
		return nil, err
	}
	switch v := fm.AllowedTools.(type) {
	case string:
		return SplitRules(v), nil
	case []any:
		var out []string
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, strings.TrimSpace(s))
			}
		}
		return out, nil
	}
	return nil, nil
}

// discoverFrontmatter lists the allowed-tools of dir's project commands
// (f.Commands) and skills (<f.Skills>/*/SKILL.md) as entries `cordis hooks trust` trusts and `cordis hooks list` shows.
// Files are read through dir (a link out of the project is a problem, not
// followed).
func (f Files) discoverFrontmatter(dir string) []trust.Discovered {
	var files []string
	for _, src := range f.Commands {
		if !src.Project {
			continue
		}
		filepath.WalkDir(src.In(dir), func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() && strings.HasSuffix(p, ".md") {
				files = append(files, p)
			}
			return nil
		})
	}
	for _, src := range f.Skills {
		if src.Project {
			skills, _ := filepath.Glob(filepath.Join(src.In(dir), "*", "SKILL.md"))
			files = append(files, skills...)
		}
	}
	var out []trust.Discovered
	for _, p := range files {
		rel, _ := filepath.Rel(dir, p)
		d := trust.Discovered{Dialect: trustDialect, Path: p + "#" + frontmatterEvent}
		data, _, err := ReadProjectFile(dir, rel)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		rules, perr := frontmatterRules(data)
		switch {
		case err != nil:
			d.Problems = append(d.Problems, err.Error())
		case perr != nil:
			d.Problems = append(d.Problems, "frontmatter: "+perr.Error())
		}
		for _, r := range rules {
			if _, err := Parse(r, dir); err != nil {
				d.Problems = append(d.Problems, err.Error())
				continue
			}
			d.Hooks = append(d.Hooks, frontmatterEntry(p, r))
		}
		if len(d.Hooks) > 0 || len(d.Problems) > 0 {
			out = append(out, d)
		}
	}
	return out
}
