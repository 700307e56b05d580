package snapshots

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// MCPTestServerPkg is the test MCP server that scenarios may pass to
// cordis in mcpServers: the stdio server of loop/mcp/mcptest as a program.
const MCPTestServerPkg = "./loop/mcp/mcptest/mcptestserver"

// MCPTestServerPlaceholder stands for the built MCPTestServerPkg in a
// manifest's mcpServers (and for its path in the expected files).
const MCPTestServerPlaceholder = "{{mcptestserver}}"

// BuildMCPTestServer builds MCPTestServerPkg of the repository at repo into
// dir and returns the binary's path.
func BuildMCPTestServer(repo, dir string) (string, error) {
	out := filepath.Join(dir, "mcptestserver")
	cmd := exec.Command("go", "build", "-o", out, MCPTestServerPkg)
	cmd.Dir = repo
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building %s: %v\n%s", MCPTestServerPkg, err, stderr.String())
	}
	return out, nil
}

// mcpTestServer returns the test MCP server a run passes for
// MCPTestServerPlaceholder: the one the caller built. Run never builds it:
// the caller (TestMain, the replay tool) does, once.
func mcpTestServer(sc *Scenario, opts Options) (string, error) {
	if opts.MCPTestServer == "" {
		return "", fmt.Errorf("scenario %s passes the editor's test MCP server (%s): Options.MCPTestServer must name it, built with BuildMCPTestServer", sc.Name, MCPTestServerPlaceholder)
	}
	return opts.MCPTestServer, nil
}

// UsesMCPTestServer reports whether any mcpServers entry or env value
// names the test MCP server.
func (m *Manifest) UsesMCPTestServer() bool {
	uses := func(servers []MCPServer) bool {
		for _, sv := range servers {
			fields := append([]string{sv.Command, sv.URL}, sv.Args...)
			for _, nv := range append(append([]NameValue(nil), sv.Env...), sv.Headers...) {
				fields = append(fields, nv.Value)
			}
			for _, f := range fields {
				if strings.Contains(f, MCPTestServerPlaceholder) {
					return true
				}
			}
		}
		return false
	}
	for _, v := range m.Env {
		if strings.Contains(v, MCPTestServerPlaceholder) {
			return true
		}
	}
	for _, st := range m.Steps {
		if st.NewSession != nil && uses(st.NewSession.MCPServers) || st.LoadSession != nil && uses(st.LoadSession.MCPServers) ||
			st.ResumeSession != nil && uses(st.ResumeSession.MCPServers) {
			return true
		}
	}
	return false
}
