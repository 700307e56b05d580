package config_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cordis-agent/cordis/cmd/cordis/config"
)

// envOf returns a getenv over a fixed map, so tests never see the real
// environment.
func envOf(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

func TestParse(t *testing.T) {
	tests := []struct {
		name         string
		yaml         string
		env          map[string]string
		want         []config.Plugin
		wantWarnings []string
	}{
		{
			name: "plain list keeps order and defaults",
			yaml: `
- id: llm
  name: llm/anthropic
  config: {model: claude-opus-4-1, stop: [END]}
- id: claude-hooks
  name: bridge/claude
- id: codex-hooks
  name: bridge/codex
  config: {path: ./codex-hooks.json}
  disabled: true
`,
			want: []config.Plugin{
				{ID: "llm", Name: "llm/anthropic", Config: &llmConfig{Model: "claude-opus-4-1", MaxTokens: 4096, Stop: []string{"END"}}, Source: "cordis.yml:2"},
				{ID: "claude-hooks", Name: "bridge/claude", Config: &bridgeConfig{Path: ".claude/settings.json"}, Source: "cordis.yml:5"},
				{ID: "codex-hooks", Name: "bridge/codex", Config: &bridgeConfig{Path: "./codex-hooks.json"}, Disabled: true, Source: "cordis.yml:7"},
			},
		},
		{
			name: "variables, defaults and escapes",
			yaml: `
- id: llm
  name: ${PROVIDER:-llm/anthropic}
  config:
    model: ${MODEL}
    maxTokens: ${MAX_TOKENS:-8192}
    retry: {attempts: 2, backoff: ${BACKOFF:-${FALLBACK_BACKOFF:-250ms}}}
    headers:
      cost: "$$5 for $HOME"
      pattern: ^a$
      quoted: "${MAX_TOKENS:-8192}"
      ${NOT_EXPANDED}: key
- id: replay
  name: llm/replay
  config: {fixture: "${FIXTURES}/${SCENARIO}.json"}
`,
			env: map[string]string{"MODEL": "claude-haiku-4-5", "FIXTURES": "/fx"},
			want: []config.Plugin{
				{ID: "llm", Name: "llm/anthropic", Config: &llmConfig{
					Model: "claude-haiku-4-5", MaxTokens: 8192,
					Retry:   retryConfig{Attempts: 2, Backoff: 250 * time.Millisecond},
					Headers: map[string]string{"cost": "$5 for $HOME", "pattern": "^a$", "quoted": "8192", "${NOT_EXPANDED}": "key"},
				}, Source: "cordis.yml:2"},
				{ID: "replay", Name: "llm/replay", Config: &replayConfig{Fixture: "/fx/.json"}, Source: "cordis.yml:13"},
			},
			wantWarnings: []string{`cordis.yml:15: ${SCENARIO} is unset or empty; expanded to ""`},
		},
		{
			name: "expanded values cannot inject structure",
			yaml: `
- id: llm
  name: llm/anthropic
  config: {model: ${EVIL}, headers: {a: ${EVIL_FLOW}, b: "${EVIL}"}}
- id: hooks
  name: bridge/claude
  config:
    path: ${EVIL}
`,
			env: map[string]string{
				"EVIL":      "x\n- id: evil\n  name: bridge/codex\n  config: {path: \"/etc\"}",
				"EVIL_FLOW": "v}, model: hijacked, stop: [\"'",
			},
			want: []config.Plugin{
				{ID: "llm", Name: "llm/anthropic", Config: &llmConfig{
					Model: "x\n- id: evil\n  name: bridge/codex\n  config: {path: \"/etc\"}", MaxTokens: 4096,
					Headers: map[string]string{"a": "v}, model: hijacked, stop: [\"'", "b": "x\n- id: evil\n  name: bridge/codex\n  config: {path: \"/etc\"}"},
				}, Source: "cordis.yml:2"},
				{ID: "hooks", Name: "bridge/claude", Config: &bridgeConfig{Path: "x\n- id: evil\n  name: bridge/codex\n  config: {path: \"/etc\"}"}, Source: "cordis.yml:5"},
			},
		},
		{
			name: "unset variable without default is empty, with a warning per use",
			yaml: `
- id: replay
  name: llm/replay
  config: {fixture: ${CORDIS_FIXTURE}}
- id: llm
  name: llm/anthropic
  config: {model: "${CORDIS_MODEL}"}
`,
			want: []config.Plugin{
				{ID: "replay", Name: "llm/replay", Config: &replayConfig{}, Source: "cordis.yml:2"},
				{ID: "llm", Name: "llm/anthropic", Config: &llmConfig{MaxTokens: 4096}, Source: "cordis.yml:5"},
			},
			wantWarnings: []string{
				`cordis.yml:4: ${CORDIS_FIXTURE} is unset or empty; expanded to ""`,
				`cordis.yml:7: ${CORDIS_MODEL} is unset or empty; expanded to ""`,
			},
		},
		{
			name: "a used default reports its own unset variables",
			yaml: `
- {id: replay, name: llm/replay, config: {fixture: "${A:-${B}}"}}
- {id: replay2, name: llm/replay, config: {fixture: "${C:-${D}}"}}
`,
			env: map[string]string{"C": "c"},
			want: []config.Plugin{
				{ID: "replay", Name: "llm/replay", Config: &replayConfig{}, Source: "cordis.yml:2"},
				{ID: "replay2", Name: "llm/replay", Config: &replayConfig{Fixture: "c"}, Source: "cordis.yml:3"},
			},
			wantWarnings: []string{`cordis.yml:2: ${B} is unset or empty; expanded to ""`},
		},
		{
			name: "references inside flow collections",
			yaml: `
- {id: llm, name: llm/anthropic, config: {model: ${MODEL:-a: b, c}, maxTokens: ${N:-1}, headers: {${KEY}: ${V:-x}}}}
`,
			want: []config.Plugin{
				{ID: "llm", Name: "llm/anthropic", Config: &llmConfig{
					Model: "a: b, c", MaxTokens: 1, Headers: map[string]string{"${KEY}": "x"},
				}, Source: "cordis.yml:2"},
			},
		},
		{
			name: "anchors and merge keys in configs",
			yaml: `
- id: claude-hooks
  name: bridge/claude
  config: &hooks {path: ./hooks.json, events: [PreToolUse]}
- id: codex-hooks
  name: bridge/codex
  config:
    <<: *hooks
    path: ./codex.json
`,
			want: []config.Plugin{
				{ID: "claude-hooks", Name: "bridge/claude", Config: &bridgeConfig{Path: "./hooks.json", Events: []string{"PreToolUse"}}, Source: "cordis.yml:2"},
				{ID: "codex-hooks", Name: "bridge/codex", Config: &bridgeConfig{Path: "./codex.json", Events: []string{"PreToolUse"}}, Source: "cordis.yml:5"},
			},
		},
		{
			name: "plugins and patches without include",
			yaml: `
plugins:
  - {id: llm, name: llm/anthropic}
  - {id: hooks, name: bridge/claude}
patches:
  - {id: llm, name: llm/replay, config: {fixture: f.json}}
  - {id: hooks, disabled: true}
  - insert: [{id: first, name: bridge/codex}]
    before: llm
`,
			want: []config.Plugin{
				{ID: "first", Name: "bridge/codex", Config: &bridgeConfig{Path: ".codex/hooks.json"}, Source: "cordis.yml:8"},
				{ID: "llm", Name: "llm/replay", Config: &replayConfig{Fixture: "f.json"}, Source: "cordis.yml:3"},
				{ID: "hooks", Name: "bridge/claude", Config: &bridgeConfig{Path: ".claude/settings.json"}, Disabled: true, Source: "cordis.yml:4"},
			},
		},
		{
			name:         "empty file",
			yaml:         "# nothing yet\n",
			wantWarnings: []string{"cordis.yml: file holds no plugin entries"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := config.Parse([]byte(tt.yaml), "cordis.yml", testRegistry(), envOf(tt.env))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if diff := cmp.Diff(tt.want, cfg.Plugins, ignoreKeys); diff != "" {
				t.Errorf("Plugins (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantWarnings, cfg.Warnings); diff != "" {
				t.Errorf("Warnings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEnabledSkipsDisabled(t *testing.T) {
	cfg, err := config.Parse([]byte(`
- {id: a, name: bridge/claude, disabled: true}
- {id: b, name: bridge/codex, disabled: false}
`), "cordis.yml", testRegistry(), envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range cfg.Enabled() {
		ids = append(ids, p.ID)
	}
	if diff := cmp.Diff([]string{"b"}, ids); diff != "" {
		t.Errorf("Enabled ids (-want +got):\n%s", diff)
	}
	if len(cfg.Plugins) != 2 {
		t.Errorf("Plugins holds %d entries, want both, disabled one flagged", len(cfg.Plugins))
	}
}

func TestParseErrors(t *testing.T) {
	const entries = "bridge/claude, bridge/codex, llm/anthropic, llm/replay"
	const llmFields = "headers, maxTokens, model, retry, stop"
	tests := []struct {
		name    string
		source  string // default cordis.yml
		yaml    string
		env     map[string]string
		wantErr string
	}{
		{
			name:    "unknown plugin with suggestion",
			yaml:    "- id: llm\n  name: llm/antropic\n",
			wantErr: `cordis.yml:2: entry "llm": unknown plugin "llm/antropic" (did you mean "llm/anthropic"? valid: ` + entries + `)`,
		},
		{
			name:    "unknown plugin far from any name",
			yaml:    "- {id: x, name: mcp/github}\n",
			wantErr: `cordis.yml:1: entry "x": unknown plugin "mcp/github" (valid: ` + entries + `)`,
		},
		{
			name:    "unknown plugin in embedded default",
			source:  config.EmbeddedSource,
			yaml:    "- {id: x, name: llm/openai}\n",
			wantErr: `<embedded default>:1: entry "x": unknown plugin "llm/openai" (valid: ` + entries + `)`,
		},
		{
			name:    "unknown field names the valid fields",
			yaml:    "- id: llm\n  name: llm/anthropic\n  config:\n    model: m\n    modle: x\n",
			wantErr: `cordis.yml:5: entry "llm" (llm/anthropic): unknown field "modle" (did you mean "model"? valid: ` + llmFields + `)`,
		},
		{
			name:    "unknown field without a near miss",
			yaml:    "- {id: llm, name: llm/anthropic, config: {temperature: 0}}\n",
			wantErr: `cordis.yml:1: entry "llm" (llm/anthropic): unknown field "temperature" (valid: ` + llmFields + `)`,
		},
		{
			name:    "unknown nested field",
			yaml:    "- id: llm\n  name: llm/anthropic\n  config:\n    retry:\n      attemps: 3\n",
			wantErr: `cordis.yml:5: entry "llm" (llm/anthropic): unknown field "retry.attemps" (did you mean "attempts"? valid: attempts, backoff)`,
		},
		{
			name:    "unknown field through a merge key",
			yaml:    "- {id: a, name: bridge/claude, config: &c {pth: x}}\n- {id: b, name: bridge/codex, config: {<<: *c}}\n",
			wantErr: `cordis.yml:1: entry "a" (bridge/claude): unknown field "pth" (did you mean "path"? valid: events, path)`,
		},
		{
			name:    "wrong type",
			yaml:    "- id: llm\n  name: llm/anthropic\n  config:\n    maxTokens: lots\n",
			wantErr: "cordis.yml:4: entry \"llm\" (llm/anthropic): cannot unmarshal !!str `lots` into int",
		},
		{
			name:    "variable expanding to the wrong type",
			yaml:    "- {id: llm, name: llm/anthropic, config: {maxTokens: \"${MAX}\"}}\n",
			env:     map[string]string{"MAX": "9"},
			wantErr: "cordis.yml:1: entry \"llm\" (llm/anthropic): cannot unmarshal !!str `9` into int",
		},
		{
			name:    "duplicate id",
			yaml:    "- {id: llm, name: llm/anthropic}\n- {id: hooks, name: bridge/claude}\n- {id: llm, name: llm/replay}\n",
			wantErr: `cordis.yml:3: entry "llm": duplicate id; first defined at cordis.yml:1`,
		},
		{
			name:    "missing id",
			yaml:    "- name: llm/anthropic\n",
			wantErr: `cordis.yml:1: entry has no "id"`,
		},
		{
			name:    "missing name",
			yaml:    "- id: llm\n  config: {}\n",
			wantErr: `cordis.yml:1: entry "llm": has no "name"`,
		},
		{
			name:    "empty id",
			yaml:    "- {id: \"\", name: llm/anthropic}\n",
			wantErr: `cordis.yml:1: id must be a non-empty string; got the string ""`,
		},
		{
			name:    "unknown entry key",
			yaml:    "- id: llm\n  name: llm/anthropic\n  disable: true\n",
			wantErr: `cordis.yml:3: entry "llm": unknown entry key "disable" (did you mean "disabled"? valid: config, disabled, id, name)`,
		},
		{
			name:    "repeated entry key",
			yaml:    "- id: llm\n  name: llm/anthropic\n  name: llm/replay\n",
			wantErr: `cordis.yml:3: entry "llm": key "name" repeated (first at line 2)`,
		},
		{
			name:    "disabled must be a bool",
			yaml:    "- {id: llm, name: llm/anthropic, disabled: yes}\n",
			wantErr: `cordis.yml:1: entry "llm": disabled must be true or false; got the string "yes"`,
		},
		{
			name:    "config must be a mapping",
			yaml:    "- id: llm\n  name: llm/anthropic\n  config: [model]\n",
			wantErr: `cordis.yml:3: entry "llm": config must be a mapping; got a list`,
		},
		{
			name:    "entry must be a mapping",
			yaml:    "- llm/anthropic\n",
			wantErr: `cordis.yml:1: an entry must be a mapping with id and name; got the string "llm/anthropic"`,
		},
		{
			name:    "unknown top-level key",
			yaml:    "plugins: []\npatch: []\n",
			wantErr: `cordis.yml:2: unknown top-level key "patch" (did you mean "patches"? valid: include, patches, plugins)`,
		},
		{
			name:    "forgotten list dash",
			yaml:    "id: llm\nname: llm/anthropic\n",
			wantErr: `cordis.yml:1: found key "id" at the top level: a list of plugin entries starts each entry with "- "`,
		},
		{
			name:    "scalar document",
			yaml:    "llm/anthropic\n",
			wantErr: `cordis.yml:1: want a list of plugin entries, or a mapping of include, plugins and patches; got the string "llm/anthropic"`,
		},
		{
			name:    "malformed YAML",
			yaml:    "- id: llm\n  name: llm/anthropic\n  config: {model: x\n- id: hooks\n",
			wantErr: `cordis.yml:3: did not find expected ',' or '}'`,
		},
		{
			name:    "tab indentation",
			yaml:    "- id: llm\n\tname: llm/anthropic\n",
			wantErr: `cordis.yml:2: found a tab character that violates indentation`,
		},
		{
			name:    "second document",
			yaml:    "- {id: llm, name: llm/anthropic}\n---\n- {id: b, name: bridge/claude}\n",
			wantErr: `cordis.yml:2: a config file holds one YAML document; found a second`,
		},
		{
			name:    "invalid variable reference",
			yaml:    "- {id: llm, name: llm/anthropic, config: {model: \"${FOO BAR}\"}}\n",
			wantErr: `cordis.yml:1: invalid variable reference "${FOO BAR}": want ${NAME} or ${NAME:-default} (write $$ for a literal $)`,
		},
		{
			name:    "unterminated variable reference",
			yaml:    "- id: llm\n  name: llm/anthropic\n  config: {model: \"${MODEL:-x\"}\n",
			wantErr: `cordis.yml:3: unterminated "${" in value (write $$ for a literal $)`,
		},
		{
			name:    "newline in a name stays on one line",
			yaml:    "- {id: llm, name: \"llm/anthropic\\nname: x\"}\n",
			wantErr: `cordis.yml:1: entry "llm": unknown plugin "llm/anthropic\nname: x" (valid: ` + entries + `)`,
		},
		{
			name:    "include needs Load",
			source:  config.EmbeddedSource,
			yaml:    "include: ./cordis.yml\n",
			wantErr: `<embedded default>:1: include is only possible in a file read with Load`,
		},
		{
			name:    "patch for unknown id",
			yaml:    "plugins:\n  - {id: llm, name: llm/anthropic}\n  - {id: claude-hooks, name: bridge/claude}\npatches:\n  - {id: lm, disabled: true}\n",
			wantErr: `cordis.yml:5: patch for unknown id "lm" (did you mean "llm"? known: claude-hooks, llm)`,
		},
		{
			name:    "insert before unknown id",
			yaml:    "plugins: [{id: llm, name: llm/anthropic}]\npatches:\n  - insert: [{id: r, name: llm/replay}]\n    before: hooks\n",
			wantErr: `cordis.yml:3: insert before unknown id "hooks" (known: llm)`,
		},
		{
			name:    "inserted id already present",
			yaml:    "plugins: [{id: llm, name: llm/anthropic}]\npatches:\n  - insert: [{id: llm, name: llm/replay}]\n",
			wantErr: `cordis.yml:3: entry "llm": duplicate id; first defined at cordis.yml:1`,
		},
		{
			name:    "patch both changes and inserts",
			yaml:    "plugins: [{id: llm, name: llm/anthropic}]\npatches:\n  - id: llm\n    insert: [{id: r, name: llm/replay}]\n",
			wantErr: `cordis.yml:3: a patch either changes an entry (id) or inserts entries (insert), not both; "id" belongs to changing`,
		},
		{
			name:    "patch inserts before and after",
			yaml:    "plugins: [{id: llm, name: llm/anthropic}]\npatches:\n  - {insert: [{id: r, name: llm/replay}], before: llm, after: llm}\n",
			wantErr: `cordis.yml:3: a patch can insert before or after an entry, not both`,
		},
		{
			name:    "patch changes nothing",
			yaml:    "plugins: [{id: llm, name: llm/anthropic}]\npatches:\n  - {id: llm}\n",
			wantErr: `cordis.yml:3: patch for "llm" changes nothing; set name, config or disabled`,
		},
		{
			name:    "patch positions without inserting",
			yaml:    "plugins: [{id: llm, name: llm/anthropic}]\npatches:\n  - {id: llm, disabled: true, after: llm}\n",
			wantErr: `cordis.yml:3: after positions inserted entries; it has no meaning in a patch that changes an entry`,
		},
		{
			name:    "unknown patch key",
			yaml:    "plugins: [{id: llm, name: llm/anthropic}]\npatches:\n  - {id: llm, disabeld: true}\n",
			wantErr: `cordis.yml:3: unknown patch key "disabeld" (did you mean "disabled"? valid: after, before, config, disabled, id, insert, name)`,
		},
		{
			name:    "patch without id or insert",
			yaml:    "plugins: [{id: llm, name: llm/anthropic}]\npatches:\n  - {disabled: true}\n",
			wantErr: `cordis.yml:3: a patch needs id (to change that entry) or insert (to add entries)`,
		},
		{
			name:    "patched config field checked against the plugin",
			yaml:    "plugins: [{id: llm, name: llm/anthropic}]\npatches:\n  - id: llm\n    config: {retry: {backof: 1s}}\n",
			wantErr: `cordis.yml:4: entry "llm" (llm/anthropic): unknown field "retry.backof" (did you mean "backoff"? valid: attempts, backoff)`,
		},
		{
			name:    "renamed entry checked against its new plugin",
			yaml:    "plugins: [{id: llm, name: llm/anthropic}]\npatches:\n  - {id: llm, name: llm/replay, config: {model: x}}\n",
			wantErr: `cordis.yml:3: entry "llm" (llm/replay): unknown field "model" (valid: fixture)`,
		},
		{
			name:    "renamed to unknown plugin points at the patch",
			yaml:    "plugins: [{id: llm, name: llm/anthropic}]\npatches:\n  - {id: llm, name: llm/replya}\n",
			wantErr: `cordis.yml:3: entry "llm": unknown plugin "llm/replya" (did you mean "llm/replay"? valid: ` + entries + `)`,
		},
		{
			name:    "plugins must be a list",
			yaml:    "plugins: {id: llm}\n",
			wantErr: `cordis.yml:1: plugins must be a list of entries; got a mapping`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			source := tt.source
			if source == "" {
				source = "cordis.yml"
			}
			cfg, err := config.Parse([]byte(tt.yaml), source, testRegistry(), envOf(tt.env))
			if err == nil {
				t.Fatalf("Parse succeeded with %d plugins, want error %q", len(cfg.Plugins), tt.wantErr)
			}
			var cerr *config.Error
			if !errors.As(err, &cerr) {
				t.Fatalf("Parse error is %T, want *config.Error", err)
			}
			if got := err.Error(); got != tt.wantErr {
				t.Errorf("Parse error:\n got: %s\nwant: %s", got, tt.wantErr)
			}
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Errorf("error spans lines: %q", err.Error())
			}
		})
	}
}

func TestErrorFields(t *testing.T) {
	_, err := config.Parse([]byte("- id: llm\n  name: llm/anthropic\n  config: {modle: x}\n"), "cordis.yml", testRegistry(), envOf(nil))
	var cerr *config.Error
	if !errors.As(err, &cerr) {
		t.Fatalf("error %v is not a *config.Error", err)
	}
	want := config.Error{File: "cordis.yml", Line: 3, EntryID: "llm", Plugin: "llm/anthropic",
		Msg: `unknown field "modle" (did you mean "model"? valid: headers, maxTokens, model, retry, stop)`}
	if diff := cmp.Diff(want, *cerr, cmp.AllowUnexported(config.Error{})); diff != "" {
		t.Errorf("Error fields (-want +got):\n%s", diff)
	}
}

// ignoreKeys leaves Plugin.Keys to TestPluginKeys.
var ignoreKeys = cmpopts.IgnoreFields(config.Plugin{}, "Keys")

// Keys lists the leaf settings an entry wrote, through nested mappings and
// merge keys, and nothing for an entry without config.
func TestPluginKeys(t *testing.T) {
	cfg, err := config.Parse([]byte(`- id: llm
  name: llm/anthropic
  config:
    <<: {model: a}
    maxTokens: 5
- id: x
  name: llm/anthropic
`), "cordis.yml", testRegistry(), envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"model", "maxTokens"}, cfg.Plugins[0].Keys); diff != "" {
		t.Errorf("Keys (-want +got):\n%s", diff)
	}
	if cfg.Plugins[1].Keys != nil {
		t.Errorf("no config: Keys = %v", cfg.Plugins[1].Keys)
	}
}
