package codexsetup

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// FuzzParseConfig reads arbitrary config.toml files and compares what
// cordis takes from them with the file read as Codex reads it (serde:
// keys exact, unknown keys ignored): servers come only from the exact
// [mcp_servers] table and trust only from [projects."<path>"]
// trust_level = "trusted"; a server cordis would start has exactly the
// command, args, env, url and headers of the keys of those names (a key
// differing only in case is refused, never read in their place); its
// timeouts are positive and at most a week; its definition is JSON
// (but for NaN and infinities, which JSON lacks) and stable. No panic
// on any input.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{
		"[mcp_servers.docs]\ncommand = \"npx\"\nargs = [\"-y\", \"docs-mcp\"]\nenv_vars = [\"T\"]\nstartup_timeout_ms = 2500\ntool_timeout_sec = 45.5\n[mcp_servers.docs.env]\nLOG = \"info\"\n",
		"[mcp_servers.figma]\nurl = \"https://h/mcp\"\nbearer_token_env_var = \"T\"\nhttp_headers = { \"X-Region\" = \"eu\" }\nenv_http_headers = { \"X-Team\" = \"TEAM\" }\n",
		"[projects.\"/work/app\"]\ntrust_level = \"trusted\"\n",
		"[mcp_servers.s]\nCommand = \"sh\"\n", "[mcp_servers.s]\ncommand = \"npx\"\nARGS = [\"evil\"]\n",
		"[MCP_SERVERS.s]\ncommand = \"sh\"\n", "[Projects.\"/work/app\"]\ntrust_level = \"trusted\"\n",
		"[projects.\"/work/app\"]\nTRUST_LEVEL = \"trusted\"\n", "mcp_servers.s = 3\n", "[mcp_servers.s]\ncommand = \"x\"\nstartup_timeout_sec = nan\n",
		"[mcp_servers.s]\ncommand = \"x\"\nstartup_timeout_sec = 1e300\n", "[mcp_servers.s]\nenabled = 2020-01-01T00:00:00Z\n", "[mcp_servers.s\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig("config.toml", data)
		if err != nil {
			return
		}
		var doc map[string]any
		if err := toml.Unmarshal(data, &doc); err != nil {
			t.Fatalf("ParseConfig read %q, which is not TOML: %v", data, err)
		}
		exact, _ := doc["mcp_servers"].(map[string]any)
		for _, name := range c.ServerNames() {
			table, ok := exact[name].(map[string]any)
			if !ok {
				t.Fatalf("server %q is not in the exact [mcp_servers] of %q", name, data)
			}
			def := c.Definition(name)
			if def == "" || def != c.Definition(name) || !json.Valid([]byte(def)) && !strings.Contains(def, "NaN") && !strings.Contains(def, "Inf") {
				t.Fatalf("server %q: definition %q is not JSON (nor a table with NaN or infinity), or not stable", name, def)
			}
			s, err := Server(name, c)
			if err != nil {
				continue
			}
			checkAsCodexReads(t, s, table)
		}
		projects, _ := doc["projects"].(map[string]any)
		for _, p := range append(slices.Collect(maps.Keys(projects)), "/work/app", "/") {
			if !c.Trusts(p) {
				continue
			}
			said := false // an exact [projects."<p>"] with trust_level = "trusted"
			for q, v := range projects {
				e, _ := v.(map[string]any)
				said = said || filepath.Clean(q) == filepath.Clean(p) && e["trust_level"] == "trusted"
			}
			if !said {
				t.Fatalf("%q trusted by %q", p, data)
			}
		}
	})
}

// checkAsCodexReads compares a server with its table read with exact
// keys.
func checkAsCodexReads(t *testing.T, s MCPServer, table map[string]any) {
	t.Helper()
	known := []string{"command", "args", "env", "env_vars", "cwd", "http_headers", "env_http_headers", "url", "bearer_token", "bearer_token_env_var",
		"startup_timeout_sec", "startup_timeout_ms", "tool_timeout_sec", "enabled", "required", "enabled_tools", "disabled_tools", "oauth_resource"}
	for k := range table {
		for _, field := range known {
			if k != field && strings.EqualFold(k, field) {
				t.Fatalf("server %q started with the key %q beside %q: %v", s.Name, k, field, table)
			}
		}
	}
	str := func(k string) string { v, _ := table[k].(string); return v }
	list := func(k string) []string {
		var out []string
		if a, ok := table[k].([]any); ok {
			for _, x := range a {
				out = append(out, fmt.Sprint(x))
			}
		}
		return out
	}
	pairs := func(k string) []string {
		obj, _ := table[k].(map[string]any)
		var out []string
		for _, name := range slices.Sorted(maps.Keys(obj)) {
			out = append(out, name+"="+fmt.Sprint(obj[name]))
		}
		return out
	}
	headers := func(hs []Header) []string {
		var out []string
		for _, h := range hs {
			out = append(out, h.Name+"="+h.Value)
		}
		sort.Strings(out)
		return out
	}
	if s.Command != str("command") || s.URL != str("url") || s.Cwd != str("cwd") || s.BearerTokenEnvVar != str("bearer_token_env_var") {
		t.Fatalf("server %q: %+v, but its table is %v", s.Name, s, table)
	}
	if !slices.Equal(s.Args, list("args")) || !slices.Equal(s.EnvVars, list("env_vars")) || !slices.Equal(s.Env, pairs("env")) ||
		!slices.Equal(headers(s.Headers), pairs("http_headers")) || !slices.Equal(headers(s.EnvHeaders), pairs("env_http_headers")) {
		t.Fatalf("server %q: %+v, but its table is %v", s.Name, s, table)
	}
	if enabled, ok := table["enabled"].(bool); ok && s.Enabled != enabled || !ok && !s.Enabled {
		t.Fatalf("server %q: enabled %v, its table says %v", s.Name, s.Enabled, table["enabled"])
	}
	for _, d := range []time.Duration{s.StartupTimeout, s.ToolTimeout} {
		if d < 0 || d > 7*24*time.Hour {
			t.Fatalf("server %q: timeout %v", s.Name, d)
		}
	}
}
