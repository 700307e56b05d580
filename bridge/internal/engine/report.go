package engine

import (
	"fmt"
	"log/slog"
	"slices"

	"github.com/cordis-agent/cordis/internal/trust"
)

// Problems lists what is wrong with the hook files loaded so far (in the
// order they were first loaded) and the project hooks skipped because
// they are not trusted. Missing files are not problems.
func (e *Engine[H]) Problems() []string {
	layers, files := e.files.seen()
	var out []string
	for i, f := range files {
		out = append(out, e.fileProblems(layers[i], f)...)
	}
	return out
}

// fileProblems are f's problems, its untrusted hooks when it is a project
// file, and its overlap with its sibling.
func (e *Engine[H]) fileProblems(l Layer, f *File[H]) []string {
	out := slices.Clone(f.Problems)
	if l.Project {
		for _, h := range f.All {
			if skip, skipped := e.trust.Skipped(h.Identity()); skipped {
				out = append(out, skip.Problem())
			}
		}
	}
	if w := e.overlap(l); w != "" {
		out = append(out, w)
	}
	return out
}

// Doctor checks the hook files in effect for a session in cwd, for the
// /doctor command: one "✓" line per file that loads cleanly, one "✗" line
// per problem or skipped (untrusted) project hook. Missing files, and
// optional files without hooks, are not mentioned.
func (e *Engine[H]) Doctor(cwd string) []string {
	var out []string
	title := e.info.Guard.Name
	managedOnly := e.managedOnly != nil && e.managedOnly()
	for _, l := range e.d.Layers(cwd) {
		f := e.files.load(l)
		if f == nil {
			continue
		}
		problems := e.fileProblems(l, f)
		switch {
		case managedOnly && !l.Managed && f.Declares:
			out = append(out, fmt.Sprintf("✗ %s hooks %s: skipped, your organization's managed settings allow only managed hooks (allowManagedHooksOnly)", title, l.Path))
		case len(problems) > 0:
			for _, p := range problems {
				out = append(out, fmt.Sprintf("✗ %s hooks %s", title, p))
			}
		case l.Optional && !l.Explicit && !f.Declares:
		case l.Managed:
			out = append(out, fmt.Sprintf("✓ %s hooks %s (%d hooks, managed)", title, l.Path, len(f.All)))
		default:
			out = append(out, fmt.Sprintf("✓ %s hooks %s (%d hooks)", title, l.Path, len(f.All)))
		}
	}
	return out
}

// Discover returns the project hook files of d for cwd that exist (the
// ones that need trust) with their hooks and problems: what `cordis hooks
// trust --cwd` trusts. Optional files without hooks or problems are left
// out.
func Discover[H Handler](d Dialect[H], cwd string) []trust.Discovered {
	e := New(d, Options{Logger: slog.New(slog.DiscardHandler)})
	var out []trust.Discovered
	for _, l := range d.Layers(cwd) {
		if !l.Project {
			continue
		}
		f := e.files.load(l)
		if f == nil {
			continue
		}
		problems := append(slices.Clone(f.Problems), f.Warnings...)
		if w := e.overlap(l); w != "" {
			problems = append(problems, w)
		}
		if l.Optional && !f.Declares && len(problems) == 0 {
			continue
		}
		found := trust.Discovered{Dialect: e.info.Name, Path: l.Path, Problems: problems}
		for _, h := range f.All {
			found.Hooks = append(found.Hooks, h.Identity())
		}
		out = append(out, found)
	}
	return out
}
