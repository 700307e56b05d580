package snapshots

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
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

// mcpTestServerName is the binary's file name next to cordis.
const mcpTestServerName = "mcptestserver"

// BuildMCPTestServer builds MCPTestServerPkg of the repository at repo into
// dir and returns the binary's path.
func BuildMCPTestServer(repo, dir string) (string, error) {
	out := filepath.Join(dir, mcpTestServerName)
	cmd := exec.Command("go", "build", "-o", out, MCPTestServerPkg)
	cmd.Dir = repo
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building %s: %v\n%s", MCPTestServerPkg, err, stderr.String())
	}
	return out, nil
}

// findMCPTestServer returns the test MCP server for a run: the one in
// opts, the one next to the cordis binary, or one built into root/bin.
func findMCPTestServer(opts Options, root string) (string, error) {
	if opts.MCPTestServer != "" {
		return opts.MCPTestServer, nil
	}
	if opts.Binary != "" {
		next := filepath.Join(filepath.Dir(opts.Binary), mcpTestServerName)
		if info, err := os.Stat(next); err == nil && info.Mode().IsRegular() {
			return next, nil
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
	}
	bin := filepath.Join(root, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return "", err
	}
	return BuildMCPTestServer(opts.Repo, bin)
}

// usesMCPTestServer reports whether any mcpServers entry names the test
// MCP server.
func (m *Manifest) usesMCPTestServer() bool {
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
	for _, st := range m.Steps {
		if st.NewSession != nil && uses(st.NewSession.MCPServers) || st.LoadSession != nil && uses(st.LoadSession.MCPServers) ||
			st.ResumeSession != nil && uses(st.ResumeSession.MCPServers) {
			return true
		}
	}
	return false
}
