package claude

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/cordis-agent/cordis/bridge/internal/engine"
)

// PluginHooks is a hook file of a Claude Code plugin in effect. Its hooks
// run as the user's own (cmd/cordis lists a plugin that only a project's
// settings enable once the user trusted that), after the user's settings
// file and before the project's, with the plugin's variables substituted
// in their commands and set in their environment, as Claude Code does.
type PluginHooks struct {
	// Path is the plugin's hooks.json ({"hooks": {...}}), or with Inline
	// its manifest, whose "hooks" object holds them.
	Path   string
	Inline bool
	// Vars are NAME=value: CLAUDE_PLUGIN_ROOT and CLAUDE_PLUGIN_DATA.
	Vars []string
}

// pluginManifest is the Layer.Format of a manifest that holds hooks
// inline.
const pluginManifest = "plugin-manifest"

// pluginLayers are the plugins' hook files for a session in cwd.
func (d *dialect) pluginLayers(cwd string) []engine.Layer {
	if d.plugins == nil || cwd == "" {
		return nil
	}
	var out []engine.Layer
	for _, p := range d.plugins(cwd) {
		l := engine.Layer{Path: p.Path, Env: slices.Clip(append([]string{}, p.Vars...))}
		if p.Inline {
			l.Format = pluginManifest
		}
		out = append(out, l)
	}
	return out
}

// manifestHooks turns a plugin manifest's inline "hooks" into a hooks
// file: Claude Code accepts the hooks.json shape ({"hooks": {...}}) and
// the events object itself.
func manifestHooks(data []byte) []byte {
	var m struct {
		Hooks map[string]json.RawMessage `json:"hooks"`
	}
	if json.Unmarshal(data, &m) != nil {
		return data // the parser words the error
	}
	events := m.Hooks
	if inner, ok := events["hooks"]; ok && len(events) <= 2 {
		var nested map[string]json.RawMessage
		if json.Unmarshal(inner, &nested) == nil {
			events = nested
		}
	}
	out, _ := json.Marshal(map[string]any{"hooks": events})
	return out
}

// withPluginVars substitutes a plugin's variables (NAME=value) in the
// commands of hs (as ${NAME}; the shell expands $NAME from the
// environment), and gives each the variables for
// its environment. Without variables hs is returned as is.
func withPluginVars(hs []handler, vars []string) []handler {
	if len(vars) == 0 {
		return hs
	}
	var pairs []string
	for _, kv := range vars {
		k, v, _ := strings.Cut(kv, "=")
		pairs = append(pairs, "${"+k+"}", v)
	}
	r := strings.NewReplacer(pairs...)
	out := make([]handler, len(hs))
	for i, h := range hs {
		h.command = r.Replace(h.command)
		if h.args != nil {
			h.args = slices.Clone(h.args)
			for j := range h.args {
				h.args[j] = r.Replace(h.args[j])
			}
		}
		h.env = vars
		out[i] = h
	}
	return out
}

// withEnv is a seam call's environment plus a hook's own variables.
func withEnv(env, own []string) []string {
	if len(own) == 0 {
		return env
	}
	return slices.Concat(env, own)
}
