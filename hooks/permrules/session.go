package permrules

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cordis-agent/cordis/internal/trust"
)

// Setting is one value of a settings file, with the file it came from.
type Setting struct {
	Value string
	// From is the settings file's path.
	From string
}

// SessionSettings are the keys of the settings files that shape a
// session besides its rules: the mode it starts in, the directories its
// tools may use, and whether bypassPermissions is forbidden.
type SessionSettings struct {
	// ManagedMode, ProjectMode and UserMode are the defaultMode of the
	// policy, of the project's files (settings.local.json over
	// settings.json) and of the user's settings ("" Value: unset), in
	// cordis's mode names.
	ManagedMode, ProjectMode, UserMode Setting
	// Directories are the additionalDirectories that apply, absolute, in
	// layer order without duplicates: the policy's and the user's, and a
	// project's once trusted.
	Directories []Setting
	// BypassDisabledBy names the file that forbids bypassPermissions (the
	// policy's first); "" when none does.
	BypassDisabledBy string
	// Notices are what the user should be told: a directory that is
	// skipped or missing, a mode cordis does not have, a mistyped key.
	Notices []string
	// Sandbox is the layered `sandbox` block.
	Sandbox SandboxSettings
}

// Modes cordis has, least permissive first: a project's defaultMode may
// not be more permissive than the user's.
var modeRank = map[string]int{"plan": 0, "default": 1, "acceptEdits": 2, "bypassPermissions": 3}

// ModeName maps a defaultMode of a settings file to cordis's name:
// Claude Code's "manual" is "default"; ok is false for modes cordis does
// not have (auto, dontAsk) or that are unknown.
func ModeName(mode string) (string, bool) {
	if mode == "manual" {
		return "default", true
	}
	_, ok := modeRank[mode]
	return mode, ok
}

// SessionSettings reads the settings files for a session in cwd, over the
// policy m. home expands "~/" in directories. A project's
// additionalDirectories need the user's trust, as its allow rules do
// (t.TrustedDirectory); its defaultMode and a disableBypassPermissionsMode
// anywhere only restrict, so they need none (ResolveMode keeps a
// project's mode from being more permissive than the user's).
func (f Files) SessionSettings(cwd, home string, m Managed, t Trust) SessionSettings {
	var out SessionSettings
	var userFiles []string
	type layer struct {
		path             string
		perms            Permissions
		project, managed bool
		sandbox          *sandboxBlock
	}
	var layers []layer
	for _, src := range f.Settings {
		if src.Project {
			continue
		}
		userFiles = append(userFiles, src.Path)
		data, err := os.ReadFile(src.Path)
		if err != nil {
			continue
		}
		perms, sb := out.parse(src.Path, data)
		layers = append(layers, layer{src.Path, perms, false, false, sb})
	}
	if len(f.Sandbox.Block) > 0 {
		var b sandboxBlock
		if err := json.Unmarshal(f.Sandbox.Block, &b); err != nil {
			out.Notices = append(out.Notices, fmt.Sprintf("%s: the sandbox block is not valid (%v); cordis ignores it", f.Sandbox.From, err))
		} else {
			layers = append(layers, layer{path: f.Sandbox.From, sandbox: &b})
		}
	}
	if cwd != "" {
		for _, src := range f.Settings {
			if !src.Project {
				continue
			}
			path := src.In(cwd)
			if slices.ContainsFunc(userFiles, func(u string) bool { return trust.SamePath(path, u) }) {
				continue
			}
			data, _, err := ReadProjectFile(cwd, src.Path)
			if err != nil {
				if !errors.Is(err, fs.ErrNotExist) {
					out.Notices = append(out.Notices, fmt.Sprintf("cordis could not read %s: %v", path, err))
				}
				continue
			}
			// In the home directory the project's files are the user's.
			perms, sb := out.parse(path, data)
			layers = append(layers, layer{path, perms, !trust.SamePath(cwd, home), false, sb})
		}
	}
	if m.Active() {
		l := layer{path: strings.Join(m.Files, ", "), perms: m.Permissions, managed: true}
		for _, f := range m.Files {
			if data, err := os.ReadFile(f); err == nil {
				if doc, err := decodeObject(data); err == nil {
					if sb := parseSandbox(f, doc, &out.Notices); sb != nil {
						l.sandbox = sb
					}
				}
			}
		}
		layers = append(layers, l)
	}
	var sandboxLayers []sandboxLayer
	for _, l := range layers {
		sandboxLayers = append(sandboxLayers, sandboxLayer{path: l.path, block: l.sandbox, project: l.project, managed: l.managed})
	}
	out.Sandbox = resolveSandbox(sandboxLayers, home, cwd, &out.Notices)
	for _, l := range layers {
		managed := l.managed
		if mode := l.perms.DefaultMode; mode != "" {
			name, ok := ModeName(mode)
			switch {
			case !ok:
				out.Notices = append(out.Notices, fmt.Sprintf("cordis ignored defaultMode %q of %s: cordis has the modes default, acceptEdits, plan and bypassPermissions", mode, l.path))
			case managed:
				out.ManagedMode = Setting{name, l.path}
			case l.project:
				out.ProjectMode = Setting{name, l.path}
			default:
				out.UserMode = Setting{name, l.path}
			}
		}
		if l.perms.BypassDisabled() && (out.BypassDisabledBy == "" || managed) {
			out.BypassDisabledBy = l.path
		}
		for _, d := range l.perms.AdditionalDirectories {
			dir := expandDir(d, home, cwd)
			switch {
			case dir == "":
				out.Notices = append(out.Notices, fmt.Sprintf("cordis ignored the additional directory %q of %s: it is relative and the session has no directory", d, l.path))
				continue
			case l.project && !t.TrustedDirectory(l.path, d):
				out.Notices = append(out.Notices, fmt.Sprintf("cordis did not add the directory %s of %s: a project's additionalDirectories apply only once you trust them (review the file and run `cordis hooks trust --cwd %s`).", d, l.path, cwd))
				continue
			}
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				out.Notices = append(out.Notices, fmt.Sprintf("cordis did not add the directory %s of %s: it is not a directory", dir, l.path))
				continue
			}
			if !slices.ContainsFunc(out.Directories, func(s Setting) bool { return s.Value == dir }) {
				out.Directories = append(out.Directories, Setting{dir, l.path})
			}
		}
	}
	return out
}

// parse reads a settings file's permissions and sandbox block for
// SessionSettings; a mistyped key is a notice and costs that key only.
func (s *SessionSettings) parse(path string, data []byte) (Permissions, *sandboxBlock) {
	doc, err := decodeObject(data)
	if err != nil {
		return Permissions{}, nil
	}
	sb := parseSandbox(path, doc, &s.Notices)
	raw := doc.get("permissions")
	if raw == nil {
		return Permissions{}, sb
	}
	perms, problems := decodePermissions(raw)
	for _, p := range problems {
		s.Notices = append(s.Notices, fmt.Sprintf("%s: %s; cordis ignores that key", path, p))
	}
	return perms, sb
}

// expandDir makes a settings directory absolute: "~/x" under home, a
// relative one under cwd ("" when it cannot be).
func expandDir(d, home, cwd string) string {
	switch {
	case d == "~" || strings.HasPrefix(d, "~/"):
		if home == "" {
			return ""
		}
		return filepath.Join(home, strings.TrimPrefix(d, "~"))
	case filepath.IsAbs(d):
		return filepath.Clean(d)
	case cwd == "":
		return ""
	}
	return filepath.Join(cwd, d)
}

// ResolveMode is the mode a session starts in, and where it came from:
// the policy's defaultMode over everything; then configured (cordis.yml's
// agent.defaultMode, cordis's command line); then the project's
// defaultMode when it is no more permissive than the user's (settings or
// "default"); then the user's settings. bypassPermissions gives way to
// "default" when it is forbidden. "" configured means cordis.yml sets
// none; the result is never "".
func ResolveMode(configured string, s SessionSettings) (mode, from string, notices []string) {
	base := Setting{"default", ""}
	if s.UserMode.Value != "" {
		base = s.UserMode
	}
	switch {
	case s.ManagedMode.Value != "":
		mode, from = s.ManagedMode.Value, s.ManagedMode.From
	case configured != "":
		mode, from = configured, "cordis.yml (agent.defaultMode)"
	case s.ProjectMode.Value != "" && modeRank[s.ProjectMode.Value] <= modeRank[base.Value]:
		mode, from = s.ProjectMode.Value, s.ProjectMode.From
	default:
		if s.ProjectMode.Value != "" {
			notices = append(notices, fmt.Sprintf("cordis ignored defaultMode %s of %s: a project's mode may not be more permissive than yours (%s)", s.ProjectMode.Value, s.ProjectMode.From, base.Value))
		}
		mode, from = base.Value, base.From
	}
	if mode == "bypassPermissions" && s.BypassDisabledBy != "" {
		notices = append(notices, fmt.Sprintf("cordis starts this session in default mode: bypassPermissions is disabled by %s", s.BypassDisabledBy))
		mode, from = "default", s.BypassDisabledBy
	}
	return mode, from, notices
}

// ListedRule is one permission rule as `cordis config show` and /doctor
// list it: its kind (allow, ask, deny), text, the file it came from, and
// whether it applies (Skipped says why not).
type ListedRule struct {
	Kind, Text, From string
	Skipped          string
}

// ListRules lists the rules of the policy m and of the settings files for
// a session in cwd, policy first, each with its file and whether it
// applies (as the permission-rules hook applies them).
func (f Files) ListRules(cwd, home string, m Managed, t Trust) []ListedRule {
	var out []ListedRule
	add := func(from string, p Permissions, project, ignored bool) {
		for _, l := range []struct {
			kind  string
			rules []string
		}{{"deny", p.Deny}, {"ask", p.Ask}, {"allow", p.Allow}} {
			for _, r := range l.rules {
				lr := ListedRule{Kind: l.kind, Text: r, From: from}
				switch {
				case ignored:
					lr.Skipped = "managed settings allow only their own rules"
				case project && l.kind == "allow" && !t.Trusted(from, r):
					lr.Skipped = "a project's allow rule, not trusted"
				}
				if _, err := Parse(r, cwd); err != nil {
					lr.Skipped = err.Error()
				}
				out = append(out, lr)
			}
		}
	}
	if m.Active() {
		add(strings.Join(m.Files, ", "), m.Permissions, false, false)
	}
	var userFiles []string
	for _, src := range f.Settings {
		if src.Project {
			continue
		}
		userFiles = append(userFiles, src.Path)
		if data, err := os.ReadFile(src.Path); err == nil {
			perms, _ := ParsePermissions(data)
			add(src.Path, perms, false, m.RulesOnly)
		}
	}
	if cwd == "" {
		return out
	}
	for _, src := range f.Settings {
		path := src.In(cwd)
		if !src.Project || slices.ContainsFunc(userFiles, func(u string) bool { return trust.SamePath(path, u) }) {
			continue
		}
		if data, _, err := ReadProjectFile(cwd, src.Path); err == nil {
			perms, _ := ParsePermissions(data)
			add(path, perms, !trust.SamePath(cwd, home), m.RulesOnly)
		}
	}
	return out
}
