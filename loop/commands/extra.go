package commands

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// With returns a set that also holds extra commands (a session's MCP
// prompts), or s itself when there are none; s is not changed. An extra
// command never takes a name or alias another command already has: it is
// skipped with a warning.
func (s *Set) With(extra []Command) *Set {
	if len(extra) == 0 {
		return s
	}
	out := &Set{
		commands:  slices.Clone(s.commands),
		byName:    maps.Clone(s.byName),
		Warnings:  slices.Clip(s.Warnings),
		Errors:    s.Errors,
		Skills:    s.Skills,
		Agents:    s.Agents,
		signature: s.signature,
	}
	for _, c := range extra {
		sp := c.spec()
		if owner, taken := out.byName[sp.Name]; taken {
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s: /%s is already taken by /%s; ignored", sourceLabel(sp), sp.Name, owner.spec().Name))
			continue
		}
		out.byName[sp.Name] = c
		out.commands = append(out.commands, c)
	}
	slices.SortStableFunc(out.commands, func(a, b Command) int { return strings.Compare(a.spec().Name, b.spec().Name) })
	return out
}
