package config_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cordis-agent/cordis/cmd/cordis/config"
)

// writeFiles creates files (path relative to dir -> content) and returns dir.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const runtimeConfig = `- id: llm
  name: llm/anthropic
  config:
    model: claude-sonnet-4-5
    maxTokens: 8192
    retry: {attempts: 3, backoff: 1s}
    headers: {x-team: core, x-trace: "off"}
    stop: [END, STOP]
- id: claude-hooks
  name: bridge/claude
  config: {path: ./hooks.json}
- id: codex-hooks
  name: bridge/codex
  config: {path: ./codex-hooks.json}
`

func TestLoad(t *testing.T) {
	tests := []struct {
		name      string
		files     map[string]string
		load      string
		env       map[string]string
		want      []config.Plugin
		wantFiles []string
	}{
		{
			name: "include and patches",
			files: map[string]string{
				"cordis.yml": runtimeConfig,
				"cordis.snapshot.yml": `include: ./cordis.yml
patches:
  - {id: llm, disabled: true}
  - id: claude-hooks
    config: {events: [Stop]}
  - id: llm
    config:
      retry: {attempts: 5}
      headers: {x-trace: "on", x-run: snapshot}
      stop: [DONE]
  - insert:
      - {id: llm-replay, name: llm/replay, config: {fixture: ${CORDIS_FIXTURE}}}
    after: llm
  - insert: [{id: first, name: bridge/codex}]
    before: llm
  - insert: [{id: last, name: bridge/claude, disabled: true}]
`,
			},
			load: "cordis.snapshot.yml",
			env:  map[string]string{"CORDIS_FIXTURE": "fixtures/handshake.json"},
			want: []config.Plugin{
				{ID: "first", Name: "bridge/codex", Config: &bridgeConfig{Path: ".codex/hooks.json"}, Source: "cordis.snapshot.yml:14"},
				{ID: "llm", Name: "llm/anthropic", Disabled: true, Source: "cordis.yml:1", Config: &llmConfig{
					Model: "claude-sonnet-4-5", MaxTokens: 8192,
					Retry:   retryConfig{Attempts: 5, Backoff: time.Second},
					Headers: map[string]string{"x-team": "core", "x-trace": "on", "x-run": "snapshot"},
					Stop:    []string{"DONE"},
				}},
				{ID: "llm-replay", Name: "llm/replay", Config: &replayConfig{Fixture: "fixtures/handshake.json"}, Source: "cordis.snapshot.yml:12"},
				{ID: "claude-hooks", Name: "bridge/claude", Config: &bridgeConfig{Path: "./hooks.json", Events: []string{"Stop"}}, Source: "cordis.yml:9"},
				{ID: "codex-hooks", Name: "bridge/codex", Config: &bridgeConfig{Path: "./codex-hooks.json"}, Source: "cordis.yml:12"},
				{ID: "last", Name: "bridge/claude", Config: &bridgeConfig{Path: ".claude/settings.json"}, Disabled: true, Source: "cordis.snapshot.yml:16"},
			},
			wantFiles: []string{"cordis.snapshot.yml", "cordis.yml"},
		},
		{
			name: "nested includes resolve relative to the including file",
			files: map[string]string{
				"top.yml": `include: [conf/middle.yml, extra.yml]
plugins:
  - {id: own, name: bridge/claude}
patches:
  - {id: base, config: {model: from-top}}
`,
				"conf/middle.yml": `include: ../base.yml
plugins:
  - {id: middle, name: llm/replay}
patches:
  - {id: base, config: {maxTokens: 1}}
`,
				"base.yml":  "- {id: base, name: llm/anthropic, config: {model: from-base, maxTokens: 2}}\n",
				"extra.yml": "- {id: extra, name: bridge/codex}\n",
			},
			load: "top.yml",
			want: []config.Plugin{
				{ID: "base", Name: "llm/anthropic", Config: &llmConfig{Model: "from-top", MaxTokens: 1}, Source: "base.yml:1"},
				{ID: "middle", Name: "llm/replay", Config: &replayConfig{}, Source: "conf/middle.yml:3"},
				{ID: "extra", Name: "bridge/codex", Config: &bridgeConfig{Path: ".codex/hooks.json"}, Source: "extra.yml:1"},
				{ID: "own", Name: "bridge/claude", Config: &bridgeConfig{Path: ".claude/settings.json"}, Source: "top.yml:3"},
			},
			wantFiles: []string{"top.yml", "conf/middle.yml", "base.yml", "extra.yml"},
		},
		{
			name: "a file may be included twice when ids do not clash",
			files: map[string]string{
				"a.yml":      "include: [empty.yml, empty.yml]\nplugins: [{id: a, name: bridge/claude}]\n",
				"empty.yml":  "[]\n",
				"unused.yml": "not yaml: [",
			},
			load: "a.yml",
			want: []config.Plugin{
				{ID: "a", Name: "bridge/claude", Config: &bridgeConfig{Path: ".claude/settings.json"}, Source: "a.yml:2"},
			},
			wantFiles: []string{"a.yml", "empty.yml", "empty.yml"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(writeFiles(t, tt.files))
			cfg, err := config.Load(tt.load, testRegistry(), envOf(tt.env))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if diff := cmp.Diff(tt.want, cfg.Plugins, ignoreKeys); diff != "" {
				t.Errorf("Plugins (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantFiles, cfg.Files); diff != "" {
				t.Errorf("Files (-want +got):\n%s", diff)
			}
			if len(cfg.Warnings) != 0 {
				t.Errorf("Warnings = %q, want none", cfg.Warnings)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name        string
		files       map[string]string
		load        string
		wantErr     string
		wantNotExst bool
	}{
		{
			name: "include cycle names the chain",
			files: map[string]string{
				"a.yml":     "include: b.yml\n",
				"b.yml":     "plugins: []\ninclude: sub/c.yml\n",
				"sub/c.yml": "include: ../a.yml\n",
			},
			load:    "a.yml",
			wantErr: `sub/c.yml:1: include cycle: a.yml -> b.yml -> sub/c.yml -> a.yml`,
		},
		{
			name:    "file including itself",
			files:   map[string]string{"a.yml": "plugins: []\ninclude: [./a.yml]\n"},
			load:    "a.yml",
			wantErr: `a.yml:2: include cycle: a.yml -> a.yml`,
		},
		{
			name:        "missing include",
			files:       map[string]string{"a.yml": "include: missing.yml\n"},
			load:        "a.yml",
			wantErr:     `a.yml:1: include "missing.yml": file does not exist`,
			wantNotExst: true,
		},
		{
			name:        "missing file",
			load:        "nope.yml",
			wantErr:     `nope.yml: file does not exist`,
			wantNotExst: true,
		},
		{
			name:    "directory",
			files:   map[string]string{"dir/x.yml": "[]"},
			load:    "dir",
			wantErr: `dir: not a regular file (directory)`,
		},
		{
			name: "patch for an id the include does not define",
			files: map[string]string{
				"cordis.yml":          runtimeConfig,
				"cordis.snapshot.yml": "include: ./cordis.yml\npatches:\n  - {id: llm, disabled: true}\n  - {id: claude, disabled: true}\n",
			},
			load:    "cordis.snapshot.yml",
			wantErr: `cordis.snapshot.yml:4: patch for unknown id "claude" (known: claude-hooks, codex-hooks, llm)`,
		},
		{
			name: "bad field in a patch is reported in the patch's file",
			files: map[string]string{
				"cordis.yml":          runtimeConfig,
				"cordis.snapshot.yml": "include: ./cordis.yml\npatches:\n  - id: llm\n    config:\n      modle: x\n",
			},
			load:    "cordis.snapshot.yml",
			wantErr: `cordis.snapshot.yml:5: entry "llm" (llm/anthropic): unknown field "modle" (did you mean "model"? valid: headers, maxTokens, model, retry, stop)`,
		},
		{
			name: "bad type in a patch is reported in the patch's file",
			files: map[string]string{
				"cordis.yml":          runtimeConfig,
				"cordis.snapshot.yml": "include: ./cordis.yml\npatches:\n  - id: llm\n    config:\n      maxTokens: many\n",
			},
			load:    "cordis.snapshot.yml",
			wantErr: "cordis.snapshot.yml:5: entry \"llm\" (llm/anthropic): cannot unmarshal !!str `many` into int",
		},
		{
			name: "bad field in an included file is reported there",
			files: map[string]string{
				"cordis.yml":          "- {id: llm, name: llm/anthropic, config: {modle: x}}\n",
				"cordis.snapshot.yml": "include: ./cordis.yml\npatches:\n  - {id: llm, config: {model: y}}\n",
			},
			load:    "cordis.snapshot.yml",
			wantErr: `cordis.yml:1: entry "llm" (llm/anthropic): unknown field "modle" (did you mean "model"? valid: headers, maxTokens, model, retry, stop)`,
		},
		{
			name: "own plugin clashing with an included id",
			files: map[string]string{
				"cordis.yml":          runtimeConfig,
				"cordis.snapshot.yml": "include: ./cordis.yml\nplugins:\n  - {id: llm, name: llm/replay}\n",
			},
			load:    "cordis.snapshot.yml",
			wantErr: `cordis.snapshot.yml:3: entry "llm": duplicate id; first defined at cordis.yml:1`,
		},
		{
			name: "two includes defining the same id",
			files: map[string]string{
				"a.yml": "include: [b.yml, b.yml]\n",
				"b.yml": "- {id: x, name: bridge/claude}\n",
			},
			load:    "a.yml",
			wantErr: `b.yml:1: entry "x": duplicate id; first defined at b.yml:1`,
		},
		{
			name:    "malformed included file",
			files:   map[string]string{"a.yml": "include: b.yml\n", "b.yml": "- id: x\n  name: [\n"},
			load:    "a.yml",
			wantErr: `b.yml:3: did not find expected node content`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(writeFiles(t, tt.files))
			_, err := config.Load(tt.load, testRegistry(), envOf(nil))
			if err == nil {
				t.Fatalf("Load succeeded, want error %q", tt.wantErr)
			}
			if got := err.Error(); got != tt.wantErr {
				t.Errorf("Load error:\n got: %s\nwant: %s", got, tt.wantErr)
			}
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Errorf("error spans lines: %q", err.Error())
			}
			if got := errors.Is(err, fs.ErrNotExist); got != tt.wantNotExst {
				t.Errorf("errors.Is(err, fs.ErrNotExist) = %v, want %v", got, tt.wantNotExst)
			}
		})
	}
}

func TestLocate(t *testing.T) {
	tests := []struct {
		name        string
		flag        string
		env         map[string]string
		cwdFile     bool // cwd/cordis.yml exists
		userFile    bool // userConfigDir/cordis/cordis.yml exists
		noUserDir   bool
		wantRel     string // path relative to the test's root dir; "" means not found
		wantAbsPath string // exact path, for absolute inputs
	}{
		{name: "flag wins", flag: "custom.yml", env: map[string]string{"CORDIS_CONFIG": "env.yml"}, cwdFile: true, userFile: true, wantRel: "work/custom.yml"},
		{name: "flag that does not exist is still returned", flag: "missing.yml", wantRel: "work/missing.yml"},
		{name: "absolute flag", flag: "/etc/cordis.yml", wantAbsPath: "/etc/cordis.yml"},
		{name: "environment before files", env: map[string]string{"CORDIS_CONFIG": "env.yml"}, cwdFile: true, userFile: true, wantRel: "work/env.yml"},
		{name: "a project file in cwd is not the user's config", cwdFile: true, userFile: true, wantRel: "user/cordis/cordis.yml"},
		{name: "a project file alone is not found", cwdFile: true, wantRel: ""},
		{name: "user dir", userFile: true, wantRel: "user/cordis/cordis.yml"},
		{name: "nothing", wantRel: ""},
		{name: "no user dir", noUserDir: true, wantRel: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"work/.keep": "", "user/.keep": ""}
			if tt.cwdFile {
				files["work/cordis.yml"] = "[]"
			}
			if tt.userFile {
				files["user/cordis/cordis.yml"] = "[]"
			}
			root := writeFiles(t, files)
			userDir := filepath.Join(root, "user")
			if tt.noUserDir {
				userDir = ""
			}
			path, found := config.Locate(tt.flag, envOf(tt.env), filepath.Join(root, "work"), userDir)
			want := tt.wantAbsPath
			if tt.wantRel != "" {
				want = filepath.Join(root, tt.wantRel)
			}
			if path != want || found != (want != "") {
				t.Errorf("Locate = (%q, %v), want (%q, %v)", path, found, want, want != "")
			}
		})
	}
}
