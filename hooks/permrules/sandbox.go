package permrules

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// SandboxSettings are the `sandbox` blocks of the settings files for a
// session, layered as Claude Code layers them (the policy above the
// project's local file, above the project's, above the user's; lists
// merged) with one difference: a project may make the sandbox stricter,
// never looser. A project's enabled: true turns it on, but its commands
// are then still asked about unless your own settings (or the policy)
// say autoAllowBashIfSandboxed; its enabled: false, excludedCommands,
// allowWrite, allowUnsandboxedCommands: true and Unix sockets are
// ignored with a notice.
type SandboxSettings struct {
	Enabled          bool
	EnabledFrom      string
	AutoAllow        bool
	Excluded         []string
	AllowUnsandboxed bool
	// AllowWrite, DenyWrite and DenyRead are absolute.
	AllowWrite, DenyWrite, DenyRead []string
	AllowUnixSockets                bool
	// AllowedDomains and DeniedDomains are network.allowedDomains and
	// deniedDomains (a project's allowedDomains are ignored).
	AllowedDomains, DeniedDomains []string
}

// sandboxBlock is a settings file's `sandbox` object.
type sandboxBlock struct {
	Enabled                  *bool    `json:"enabled"`
	AutoAllowBashIfSandboxed *bool    `json:"autoAllowBashIfSandboxed"`
	ExcludedCommands         []string `json:"excludedCommands"`
	AllowUnsandboxedCommands *bool    `json:"allowUnsandboxedCommands"`
	Filesystem               struct {
		AllowWrite []string `json:"allowWrite"`
		DenyWrite  []string `json:"denyWrite"`
		DenyRead   []string `json:"denyRead"`
	} `json:"filesystem"`
	Network struct {
		AllowedDomains      []string `json:"allowedDomains"`
		DeniedDomains       []string `json:"deniedDomains"`
		AllowAllUnixSockets *bool    `json:"allowAllUnixSockets"`
	} `json:"network"`
}

// sandboxLayer is one file's block, with where it stands.
type sandboxLayer struct {
	path             string
	block            *sandboxBlock
	project, managed bool
}

// parseSandbox reads a settings file's sandbox block (nil when it has
// none); a block of the wrong shape is a notice and counts as none.
func parseSandbox(path string, doc *object, notices *[]string) *sandboxBlock {
	raw := doc.get("sandbox")
	if raw == nil {
		return nil
	}
	var b sandboxBlock
	if err := json.Unmarshal(raw, &b); err != nil {
		*notices = append(*notices, fmt.Sprintf("%s: the sandbox block is not valid (%v); cordis ignores it", path, err))
		return nil
	}
	return &b
}

// resolveSandbox layers the blocks: user first, then project, then the
// policy (layers come in that order), each later scalar over earlier ones
// except where a project would loosen.
func resolveSandbox(layers []sandboxLayer, home, cwd string, notices *[]string) SandboxSettings {
	out := SandboxSettings{AutoAllow: true, AllowUnsandboxed: true}
	autoAllowSet := false // by the user or the policy
	ignored := func(l sandboxLayer, what string) {
		*notices = append(*notices, fmt.Sprintf("cordis ignored sandbox %s of %s: a project may only make the sandbox stricter (set it in your own settings)", what, l.path))
	}
	for _, l := range layers {
		b := l.block
		if b == nil {
			continue
		}
		base := filepath.Dir(l.path)
		paths := func(list []string) []string {
			var out []string
			for _, p := range list {
				if abs := sandboxPath(p, home, base, cwd); abs != "" {
					out = append(out, abs)
				}
			}
			return out
		}
		if v := b.Enabled; v != nil {
			if l.project && !*v && out.Enabled {
				ignored(l, "enabled: false")
			} else {
				out.Enabled, out.EnabledFrom = *v, l.path
			}
		}
		if v := b.AutoAllowBashIfSandboxed; v != nil {
			if l.project && *v && !out.AutoAllow {
				ignored(l, "autoAllowBashIfSandboxed: true")
			} else {
				out.AutoAllow = *v
				autoAllowSet = autoAllowSet || !l.project
			}
		}
		if v := b.AllowUnsandboxedCommands; v != nil {
			if l.project && *v && !out.AllowUnsandboxed {
				ignored(l, "allowUnsandboxedCommands: true")
			} else {
				out.AllowUnsandboxed = *v
			}
		}
		if v := b.Network.AllowAllUnixSockets; v != nil {
			if l.project && *v {
				ignored(l, "network.allowAllUnixSockets")
			} else {
				out.AllowUnixSockets = *v
			}
		}
		if l.project {
			if len(b.ExcludedCommands) > 0 {
				ignored(l, "excludedCommands")
			}
			if len(b.Filesystem.AllowWrite) > 0 {
				ignored(l, "filesystem.allowWrite")
			}
			if len(b.Network.AllowedDomains) > 0 {
				ignored(l, "network.allowedDomains")
			}
		} else {
			out.Excluded = append(out.Excluded, b.ExcludedCommands...)
			out.AllowWrite = append(out.AllowWrite, paths(b.Filesystem.AllowWrite)...)
			out.AllowedDomains = append(out.AllowedDomains, b.Network.AllowedDomains...)
		}
		out.DenyWrite = append(out.DenyWrite, paths(b.Filesystem.DenyWrite)...)
		out.DenyRead = append(out.DenyRead, paths(b.Filesystem.DenyRead)...)
		out.DeniedDomains = append(out.DeniedDomains, b.Network.DeniedDomains...)
	}
	// A project that turned the sandbox on does not also get its
	// commands run unasked: that needs your own word (or the policy's).
	if out.Enabled && !autoAllowSet && slices.ContainsFunc(layers, func(l sandboxLayer) bool {
		return l.project && l.path == out.EnabledFrom
	}) {
		out.AutoAllow = false
	}
	for _, list := range []*[]string{&out.Excluded, &out.AllowWrite, &out.DenyWrite, &out.DenyRead, &out.AllowedDomains, &out.DeniedDomains} {
		slices.Sort(*list)
		*list = slices.Compact(*list)
	}
	return out
}

// sandboxPath makes a filesystem entry absolute, with Claude Code's
// prefixes: "//x" is /x, "~/x" is under home, "/x" is under the folder of
// the settings file that says it, "./x" and "x" under the session's
// folder. "" when it cannot be resolved.
func sandboxPath(p, home, settingsDir, cwd string) string {
	switch {
	case strings.HasPrefix(p, "//"):
		return filepath.Clean(p[1:])
	case p == "~" || strings.HasPrefix(p, "~/"):
		if home == "" {
			return ""
		}
		return filepath.Join(home, strings.TrimPrefix(p, "~"))
	case strings.HasPrefix(p, "/"):
		return filepath.Join(settingsDir, p)
	case cwd == "" || p == "":
		return ""
	}
	return filepath.Join(cwd, p)
}
