package mcpjson

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestPolicy(t *testing.T) {
	allowed := json.RawMessage(`[{"serverName": "github"}, {"serverCommand": ["npx", "-y", "ok-server"]}, {"serverUrl": "https://mcp.Company.com/*"}]`)
	denied := json.RawMessage(`[{"serverName": "bad"}, {"serverUrl": "https://*.untrusted.com/*"}]`)
	p, problems := ParsePolicy(allowed, denied)
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	cases := []struct {
		name    string
		command []string
		url     string
		ok      bool
	}{
		{"github", nil, "", true},                                 // by name
		{"bad", []string{"npx", "-y", "ok-server"}, "", false},    // denied by name beats the allowed command
		{"fs", []string{"npx", "-y", "ok-server"}, "", true},      // exact command
		{"fs", []string{"npx", "ok-server"}, "", false},           // not exact
		{"github", []string{"github-mcp"}, "", false},             // a stdio server must match a command entry
		{"docs", nil, "https://MCP.company.com/v1/mcp", true},     // host without case, * across '/'
		{"docs", nil, "https://mcp.company.com.evil.io/x", false}, //
		{"github", nil, "https://api.github.com/mcp", false},      // a remote server must match a URL entry
		{"x", nil, "https://a.untrusted.com/mcp", false},          // denied URL
		{"other", nil, "", false},                                 // not listed
	}
	for _, c := range cases {
		if got := p.Refuses(c.name, c.command, c.url) == ""; got != c.ok {
			t.Errorf("%s %v %s: allowed = %v, want %v", c.name, c.command, c.url, got, c.ok)
		}
	}
	// No lists: everything runs; an empty allowlist: nothing.
	if none, _ := ParsePolicy(nil, nil); none.Active() || none.Refuses("x", []string{"x"}, "") != "" {
		t.Error("an absent policy refuses")
	}
	if lock, _ := ParsePolicy(json.RawMessage(`[]`), nil); !lock.Active() || lock.Refuses("x", nil, "https://a") == "" {
		t.Error("an empty allowlist allows")
	}
	// A list that does not parse refuses everything, and says so.
	broken, problems := ParsePolicy(nil, json.RawMessage(`[{"serverName": "a", "serverUrl": "b"}]`))
	if len(problems) != 1 || !strings.Contains(problems[0], "exactly one") || broken.Refuses("z", nil, "") == "" {
		t.Errorf("a broken deny list: %q", problems)
	}
}
