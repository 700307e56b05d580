package codexsetup

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func mustParse(t *testing.T, path, text string) Config {
	t.Helper()
	c, err := ParseConfig(path, []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestMCPServersAsCodexReadsThem(t *testing.T) {
	user := mustParse(t, "/h/.codex/config.toml", `
model = "gpt-5"

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]
env_vars = ["DOCS_TOKEN"]
startup_timeout_ms = 2500
tool_timeout_sec = 45.5
enabled_tools = ["search", "read"]
disabled_tools = ["read"]

[mcp_servers.docs.env]
LOG = "info"
MODE = "user"

[mcp_servers.figma]
url = "https://mcp.example.com/mcp"
bearer_token_env_var = "FIGMA_TOKEN"
http_headers = { "X-Region" = "eu" }
env_http_headers = { "X-Team" = "TEAM_ID" }
startup_timeout_sec = 20

[mcp_servers.off]
command = "off"
enabled = false

[projects."/work/app"]
trust_level = "trusted"

[projects."/work/other"]
trust_level = "untrusted"
`)
	project := mustParse(t, "/work/app/.codex/config.toml", `
[mcp_servers.docs]
cwd = "tools"
[mcp_servers.docs.env]
MODE = "project"
`)
	docs, err := Server("docs", user, project)
	if err != nil {
		t.Fatal(err)
	}
	want := MCPServer{Name: "docs", Command: "npx", Args: []string{"-y", "docs-mcp"}, Env: []string{"LOG=info", "MODE=project"}, EnvVars: []string{"DOCS_TOKEN"},
		Cwd: "tools", Enabled: true, StartupTimeout: 2500 * time.Millisecond, ToolTimeout: 45500 * time.Millisecond,
		EnabledTools: []string{"search", "read"}, DisabledTools: []string{"read"}}
	if diff := cmp.Diff(want, docs); diff != "" {
		t.Errorf("docs, the project's table merged over the user's (-want +got):\n%s", diff)
	}
	figma, err := Server("figma", user, project)
	if err != nil {
		t.Fatal(err)
	}
	wantFigma := MCPServer{Name: "figma", URL: "https://mcp.example.com/mcp", BearerTokenEnvVar: "FIGMA_TOKEN", Headers: []Header{{"X-Region", "eu"}},
		EnvHeaders: []Header{{"X-Team", "TEAM_ID"}}, Enabled: true, StartupTimeout: 20 * time.Second}
	if diff := cmp.Diff(wantFigma, figma); diff != "" {
		t.Errorf("figma (-want +got):\n%s", diff)
	}
	if off, err := Server("off", user); err != nil || off.Enabled {
		t.Errorf("off: enabled %v, %v", off.Enabled, err)
	}
	if !user.Trusts("/nowhere", "/work/app/") || user.Trusts("/work/other") || project.Trusts("/work/app") {
		t.Error("Trusts does not follow trust_level")
	}
	if got := user.ServerNames(); !cmp.Equal(got, []string{"docs", "figma", "off"}) {
		t.Errorf("ServerNames = %v", got)
	}
	if def := project.Definition("docs"); def != `{"cwd":"tools","env":{"MODE":"project"}}` {
		t.Errorf("Definition = %s", def)
	}
}

func TestMCPServerErrors(t *testing.T) {
	for _, tc := range []struct{ table, want string }{
		{`url = "https://x"` + "\n" + `args = ["a"]`, "args is not supported for a streamable HTTP server"},
		{`command = "x"` + "\n" + `bearer_token_env_var = "T"`, "bearer_token_env_var is not supported for a stdio server"},
		{`url = "https://x"` + "\n" + `bearer_token = "secret"`, "bearer_token (use bearer_token_env_var)"},
		{`enabled = true`, "needs a command (stdio) or a url"},
		{`command = "x"` + "\n" + `args = "a b"`, "args must be an array of strings"},
		{`command = "x"` + "\n" + `startup_timeout_sec = -1`, "startup_timeout_sec must be a positive number"},
	} {
		c := mustParse(t, "c.toml", "[mcp_servers.s]\n"+tc.table+"\n")
		if _, err := Server("s", c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.table, err, tc.want)
		}
	}
	if _, err := ParseConfig("/p/config.toml", []byte("[mcp_servers.s\n")); err == nil || !strings.Contains(err.Error(), "/p/config.toml:1:") {
		t.Errorf("bad TOML: %v", err)
	}
	c := mustParse(t, "c.toml", "mcp_servers.s = 3\n")
	if len(c.Problems) != 1 || c.Has("s") {
		t.Errorf("a server that is not a table: %v", c.Problems)
	}
}
