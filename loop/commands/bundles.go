package commands

import (
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/cordis-agent/cordis/internal/setup"
)

// bundles lists the plugins in effect for cwd.
func (r *Registry) bundles(cwd string) []setup.Bundle {
	if r.sources.Bundles == nil {
		return nil
	}
	return r.sources.Bundles(cwd)
}

// bundleDirs are the bundles' folders, for the cache's signature.
func bundleDirs(bundles []setup.Bundle) []sourceDir {
	var out []sourceDir
	for _, b := range bundles {
		for _, d := range slices.Concat(b.Commands, b.Skills, b.Agents) {
			out = append(out, sourceDir{path: d, source: SourcePlugin})
		}
	}
	return out
}

// bundled is what the plugins contribute.
type bundled struct {
	commands []Command
	skills   []Skill
	agents   []AgentDef
	errors   []LoadError
}

// loadBundles loads every bundle's commands, skills and subagents, named
// "<bundle>:<name>" as Claude Code names a plugin's, with the bundle's
// variables substituted in their text. Folders are the user's (read
// without confinement).
func loadBundles(bundles []setup.Bundle) bundled {
	var out bundled
	for _, b := range bundles {
		prefix := b.Name + ":"
		vars := varReplacer(b.Vars)
		for _, dir := range b.Commands {
			cmds, errs := loadDir(sourceDir{path: dir, source: SourcePlugin}, "")
			for _, c := range cmds {
				if p, ok := c.(*Prompt); ok {
					p.Name = prefix + p.Name
					p.Template = vars.Replace(p.Template)
					p.AllowedTools = replaceAll(vars, p.AllowedTools)
				}
			}
			out.commands = append(out.commands, cmds...)
			out.errors = append(out.errors, errs...)
		}
		var dirs []sourceDir
		for _, d := range b.Skills {
			dirs = append(dirs, sourceDir{path: d, source: SourcePlugin})
		}
		skills, errs := loadSkills(dirs, "")
		out.errors = append(out.errors, errs...)
		for _, sk := range skills {
			sk.Name = prefix + sk.Name
			sk.Body = vars.Replace(sk.Body)
			sk.AllowedTools = replaceAll(vars, sk.AllowedTools)
			out.skills = append(out.skills, sk)
		}
		dirs = dirs[:0]
		for _, d := range b.Agents {
			dirs = append(dirs, sourceDir{path: d, source: SourcePlugin})
		}
		agents, errs := loadAgents(dirs, "")
		out.errors = append(out.errors, errs...)
		for _, a := range agents {
			a.Name = prefix + agentSubpath(dirs, a.Path) + a.Name
			a.Prompt = vars.Replace(a.Prompt)
			out.agents = append(out.agents, a)
		}
	}
	return out
}

// agentSubpath is the "sub:" segments of a plugin agent in a subfolder
// of its agents folder (Claude Code: subfolders add segments).
func agentSubpath(dirs []sourceDir, path string) string {
	for _, d := range dirs {
		rel, err := filepath.Rel(d.path, filepath.Dir(path))
		if err != nil || rel == "." || !filepath.IsLocal(rel) {
			continue
		}
		return strings.ReplaceAll(filepath.ToSlash(rel), "/", ":") + ":"
	}
	return ""
}

// replaceAll is list with r's substitutions made in each item (a
// plugin's allowed-tools name its scripts by ${CLAUDE_PLUGIN_ROOT}).
func replaceAll(r *strings.Replacer, list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = r.Replace(s)
	}
	return out
}

// varReplacer substitutes ${NAME} for each NAME=value of vars.
func varReplacer(vars []string) *strings.Replacer {
	var pairs []string
	for _, kv := range vars {
		k, v, _ := strings.Cut(kv, "=")
		pairs = append(pairs, "${"+k+"}", v)
	}
	return strings.NewReplacer(pairs...)
}

// mergeByName adds the items of more whose names list does not have yet,
// and sorts the result by name.
func mergeByName[T any](list, more []T, name func(T) string) []T {
	seen := map[string]bool{}
	for _, x := range list {
		seen[name(x)] = true
	}
	for _, x := range more {
		if !seen[name(x)] {
			seen[name(x)] = true
			list = append(list, x)
		}
	}
	sort.SliceStable(list, func(i, j int) bool { return name(list[i]) < name(list[j]) })
	return list
}

// BundleRoots are the folders of the plugins in effect for cwd: the loop
// adds them to a session's directories so that the model can read a
// plugin skill's scripts and references.
func (r *Registry) BundleRoots(cwd string) []string {
	var out []string
	for _, b := range r.bundles(cwd) {
		if b.Root != "" {
			out = append(out, b.Root)
		}
	}
	return out
}
