package mcpjson

import (
	"slices"
	"strings"
	"testing"
)

// TestParse: Claude Code's server shapes, the type inferred or aliased,
// a bad entry skipped alone, and the definition kept as written.
func TestParse(t *testing.T) {
	f, err := Parse(".mcp.json", []byte(`{"mcpServers": {
	  "local": {"command": "node", "args": ["s.js"], "env": {"B": "2", "A": "1"}},
	  "remote": {"type": "streamable-http", "url": "https://h/mcp", "headers": {"Authorization": "Bearer x"}},
	  "events": {"type": "sse", "url": "https://h/sse"},
	  "sock": {"type": "ws", "url": "wss://h"},
	  "empty": {"type": "stdio"}
	}}`))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range f.Servers {
		names = append(names, s.Name+":"+s.Type)
	}
	if got := strings.Join(names, ","); got != "events:sse,local:stdio,remote:http" {
		t.Fatalf("servers = %s", got)
	}
	local := f.Servers[1]
	if !slices.Equal(local.Env, []string{"A=1", "B=2"}) || local.Definition != `{"command":"node","args":["s.js"],"env":{"B":"2","A":"1"}}` {
		t.Fatalf("local = %+v", local)
	}
	if len(f.Problems) != 2 || !strings.Contains(f.Problems[0], `"empty": a stdio server needs a "command"`) || !strings.Contains(f.Problems[1], `"sock": WebSocket servers`) {
		t.Fatalf("problems = %q", f.Problems)
	}
	if _, err := Parse(".mcp.json", []byte("{")); err == nil {
		t.Fatal("a file that is not JSON parsed")
	}
}

// TestExpand: ${VAR} and ${VAR:-default} as Claude Code expands them in
// every field that takes them; an unset variable stays and is named; a
// variable the lookup withholds (a provider key) is unset to the file.
func TestExpand(t *testing.T) {
	env := map[string]string{"TOKEN": "t0k", "DIR": "/d"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	s := Server{Name: "x", Command: "${DIR}/bin", Args: []string{"--port=${PORT:-8080}", "${ANTHROPIC_API_KEY}", "$DIR", "${bad name}"},
		Env: []string{"K=${TOKEN}"}, URL: "https://h/${TOKEN}", Headers: []Header{{"Authorization", "Bearer ${TOKEN}"}}}
	got, missing := s.Expand(lookup)
	if got.Command != "/d/bin" || !slices.Equal(got.Args, []string{"--port=8080", "${ANTHROPIC_API_KEY}", "$DIR", "${bad name}"}) ||
		got.Env[0] != "K=t0k" || got.URL != "https://h/t0k" || got.Headers[0].Value != "Bearer t0k" {
		t.Fatalf("expanded = %+v", got)
	}
	if !slices.Equal(missing, []string{"ANTHROPIC_API_KEY"}) {
		t.Fatalf("missing = %q", missing)
	}
	if s.Args[0] != "--port=${PORT:-8080}" {
		t.Fatal("Expand changed its receiver's slices")
	}
}

// TestParseUser: ~/.claude.json's top-level servers and those of the
// closest project entry.
func TestParseUser(t *testing.T) {
	data := []byte(`{"numStartups": 3, "mcpServers": {"u": {"command": "u"}},
	  "projects": {"/repo": {"mcpServers": {"l": {"command": "l"}}}, "/repo/sub": {"allowedTools": []}}}`)
	u, err := ParseUser("~/.claude.json", data, []string{"/repo/sub/dir", "/repo/sub", "/repo"})
	if err != nil {
		t.Fatal(err)
	}
	// /repo/sub has an entry without servers: it is the project's entry.
	if len(u.Servers.Servers) != 1 || u.Project != "/repo/sub" || len(u.Local.Servers) != 0 {
		t.Fatalf("user = %+v", u)
	}
	u, _ = ParseUser("~/.claude.json", data, []string{"/repo"})
	if len(u.Local.Servers) != 1 || u.Local.Servers[0].Name != "l" {
		t.Fatalf("local = %+v", u.Local)
	}
	a, err := ParseApprovals([]byte(`{"enableAllProjectMcpServers": true, "disabledMcpjsonServers": ["x"]}`))
	if err != nil || !a.All || !slices.Equal(a.Disabled, []string{"x"}) {
		t.Fatalf("approvals = %+v, %v", a, err)
	}
}
