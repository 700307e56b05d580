package claude

import (
	"slices"
	"testing"

	"github.com/cordis-agent/cordis/bridge/internal/engine"
)

// TestPluginHookFiles: a plugin's hooks, in hooks.json or inline in its
// manifest (either shape), get the plugin's variables substituted in
// their commands (shell and exec form) and set in their environment; a
// plugin file cannot turn the session's hooks off.
func TestPluginHookFiles(t *testing.T) {
	vars := []string{"CLAUDE_PLUGIN_ROOT=/p/root", "CLAUDE_PLUGIN_DATA=/p/data"}
	d := &dialect{}
	for name, data := range map[string]string{
		"hooks.json":      `{"disableAllHooks": true, "hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "\"${CLAUDE_PLUGIN_ROOT}/g.sh\" ${CLAUDE_PLUGIN_DATA}"}]}]}}`,
		"manifest":        `{"name": "x", "hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "\"${CLAUDE_PLUGIN_ROOT}/g.sh\" ${CLAUDE_PLUGIN_DATA}"}]}]}}`,
		"manifest-nested": `{"name": "x", "hooks": {"description": "d", "hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "\"${CLAUDE_PLUGIN_ROOT}/g.sh\" ${CLAUDE_PLUGIN_DATA}"}]}]}}}`,
	} {
		l := engine.Layer{Path: "/p/root/" + name, Env: vars}
		if name != "hooks.json" {
			l.Format = pluginManifest
		}
		f := d.Parse(l, []byte(data))
		hs := f.ByEvent["PreToolUse"]
		if len(f.Problems) > 0 || len(hs) != 1 || f.DisableAll != nil {
			t.Fatalf("%s: %+v", name, f)
		}
		if hs[0].command != `"/p/root/g.sh" /p/data` || !slices.Equal(hs[0].env, vars) {
			t.Errorf("%s: command %q env %q", name, hs[0].command, hs[0].env)
		}
	}
	f := d.Parse(engine.Layer{Path: "/p/root/hooks.json", Env: vars},
		[]byte(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/bin/stop", "args": ["--data=${CLAUDE_PLUGIN_DATA}"]}]}]}}`))
	if h := f.ByEvent["Stop"][0]; h.command != "/p/root/bin/stop" || h.args[0] != "--data=/p/data" {
		t.Errorf("exec form: %q %q", h.command, h.args)
	}
}
