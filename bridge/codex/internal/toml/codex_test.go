package toml

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// codexConfig is a hand-written fixture in the shape of a real
// ~/.codex/config.toml (keys from Codex's configuration reference; the
// [hooks.state."<source>:<event>:<group>:<index>"] entries are the trust
// records Codex writes itself). It is not copied from anyone's file.
const codexConfig = `# Codex configuration
model = "gpt-5-codex"
model_provider = "openai"
model_reasoning_effort = "high"
approval_policy = "on-request"
sandbox_mode = "workspace-write"
notify = ["python3", "/home/dev/.codex/notify.py"]
project_doc_max_bytes = 32_768
developer_instructions = """
Prefer small commits.
Run the tests \
before "finishing"."""

[features]
hooks = true
web_search_request = false

[sandbox_workspace_write]
network_access = false
writable_roots = [
  "/tmp",             # scratch space
  '/home/dev/.cache',
]

[shell_environment_policy]
inherit = "core"
exclude = ["AWS_*", "AZURE_*"]
set = { CI = "1", PAGER = "cat" }

[profiles.fast]
model = "gpt-5-mini"
model_reasoning_effort = "low"

[profiles."deep review"]
model = "gpt-5-codex"
approval_policy = "untrusted"

[mcp_servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]
env = { GITHUB_PERSONAL_ACCESS_TOKEN = "ghp_example", "LOG.LEVEL" = 'warn' }
startup_timeout_sec = 20.5
enabled_tools = []

[mcp_servers.docs]
url = "https://docs.example.com/mcp"
bearer_token_env_var = "DOCS_TOKEN"
tool_timeout_sec = 60

[model_providers.local]
name = "Local"
base_url = "http://localhost:11434/v1"
http_headers = { "X-Team" = "platform" }
request_max_retries = 4

[projects."/home/dev/src/cordis"]
trust_level = "trusted"

[notice]
hide_full_access_warning = true
model_migration_seen_at = 2026-05-29T10:00:00-07:00

[[hooks.PreToolUse]]
matcher = "^Bash$"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "python3 ~/.codex/hooks/check.py"
timeout = 30
statusMessage = "Checking the command"

[[hooks.Stop]]
[[hooks.Stop.hooks]]
type = "command"
command = '''
sh -c 'test -f DONE || echo "{\"decision\":\"block\"}"'
'''

[hooks.state."/home/dev/.codex/config.toml:pre_tool_use:0:0"]
trusted_hash = "sha256:0f1e2d3c"

[hooks.state."/home/dev/.codex/hooks.json:stop:0:0"]
enabled = false
`

func TestDecodeCodexConfig(t *testing.T) {
	got, err := Decode([]byte(codexConfig))
	if err != nil {
		t.Fatal(err)
	}
	want := m{
		"model":                  "gpt-5-codex",
		"model_provider":         "openai",
		"model_reasoning_effort": "high",
		"approval_policy":        "on-request",
		"sandbox_mode":           "workspace-write",
		"notify":                 a{"python3", "/home/dev/.codex/notify.py"},
		"project_doc_max_bytes":  int64(32768),
		"developer_instructions": "Prefer small commits.\nRun the tests before \"finishing\".",
		"features":               m{"hooks": true, "web_search_request": false},
		"sandbox_workspace_write": m{
			"network_access": false,
			"writable_roots": a{"/tmp", "/home/dev/.cache"},
		},
		"shell_environment_policy": m{
			"inherit": "core",
			"exclude": a{"AWS_*", "AZURE_*"},
			"set":     m{"CI": "1", "PAGER": "cat"},
		},
		"profiles": m{
			"fast":        m{"model": "gpt-5-mini", "model_reasoning_effort": "low"},
			"deep review": m{"model": "gpt-5-codex", "approval_policy": "untrusted"},
		},
		"mcp_servers": m{
			"github": m{
				"command":             "npx",
				"args":                a{"-y", "@modelcontextprotocol/server-github"},
				"env":                 m{"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_example", "LOG.LEVEL": "warn"},
				"startup_timeout_sec": 20.5,
				"enabled_tools":       a{},
			},
			"docs": m{"url": "https://docs.example.com/mcp", "bearer_token_env_var": "DOCS_TOKEN", "tool_timeout_sec": int64(60)},
		},
		"model_providers": m{"local": m{
			"name": "Local", "base_url": "http://localhost:11434/v1",
			"http_headers": m{"X-Team": "platform"}, "request_max_retries": int64(4),
		}},
		"projects": m{"/home/dev/src/cordis": m{"trust_level": "trusted"}},
		"notice": m{
			"hide_full_access_warning": true,
			"model_migration_seen_at":  time.Date(2026, 5, 29, 17, 0, 0, 0, time.UTC),
		},
		"hooks": m{
			"PreToolUse": a{m{
				"matcher": "^Bash$",
				"hooks": a{m{
					"type": "command", "command": "python3 ~/.codex/hooks/check.py",
					"timeout": int64(30), "statusMessage": "Checking the command",
				}},
			}},
			"Stop": a{m{"hooks": a{m{
				"type": "command", "command": "sh -c 'test -f DONE || echo \"{\\\"decision\\\":\\\"block\\\"}\"'\n",
			}}}},
			"state": m{
				"/home/dev/.codex/config.toml:pre_tool_use:0:0": m{"trusted_hash": "sha256:0f1e2d3c"},
				"/home/dev/.codex/hooks.json:stop:0:0":          m{"enabled": false},
			},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
