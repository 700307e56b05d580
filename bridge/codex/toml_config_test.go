package codex

import (
	"strings"
	"testing"
	"time"
)

// The [hooks] table is read with github.com/pelletier/go-toml/v2; these
// tests check what cordis relies on: a realistic config.toml decodes
// whole (its other settings are ignored, Codex's own trust records in
// [hooks.state] are not events), and a broken one is reported at a line
// and column inside the document.

// codexConfig is a hand-written fixture in the shape of a real
// ~/.codex/config.toml (keys from Codex's configuration reference; the
// [hooks.state."<source>:<event>:<group>:<index>"] entries are the trust
// records Codex writes itself). It is not copied from anyone's file.
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

func TestTOMLCodexConfig(t *testing.T) {
	f := parseTOMLFile("/home/dev/.codex/config.toml", []byte(codexConfig))
	if len(f.problems) != 0 || !f.declared {
		t.Fatalf("problems %q, declared %v", f.problems, f.declared)
	}
	want := []string{
		`PreToolUse[0][0] matcher="^Bash$" command="python3 ~/.codex/hooks/check.py" timeout=30s status="Checking the command"`,
		`Stop[0][0] matcher="" command="sh -c 'test -f DONE || echo \"{\\\"decision\\\":\\\"block\\\"}\"'\n" timeout=10m0s status=""`,
	}
	got := describeFile(f)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("handlers\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if f.handlers[evPreToolUse][0].timeout != 30*time.Second {
		t.Errorf("timeout %s", f.handlers[evPreToolUse][0].timeout)
	}
}

// TestTOMLErrorsAreLocated: a document that does not decode is reported
// once, with no hooks, at the line and column where it breaks.
func TestTOMLErrorsAreLocated(t *testing.T) {
	for doc, want := range map[string]string{
		"[hooks]\nStop = [\n":                                "2:9: array is incomplete",
		"model = \"gpt-5\"\n\n[x]\nmodel = \"gpt-5-mini\n":   "4:20: basic strings cannot have new lines",
		"[[hooks.Stop]]\nmatcher = \"a\"\nmatcher = \"b\"\n": "3:1: key matcher is already defined",
		"a = 1 b = 2\n": "1:7: expected newline",
	} {
		f := parseTOMLFile("/p/config.toml", []byte(doc))
		if len(f.problems) != 1 || !strings.HasPrefix(f.problems[0], "/p/config.toml:"+want) || len(f.all) != 0 || f.declared {
			t.Errorf("%q: problems %q (%d hooks), want one starting with %q", doc, f.problems, len(f.all), want)
		}
	}
}
