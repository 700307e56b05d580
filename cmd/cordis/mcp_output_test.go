package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/loop/mcp/mcptest"
)

// bigServer is the MCP server "big": mcptest's stdio server with its tool
// big, which answers as many bytes of text as it is asked for.
func bigServer(t *testing.T) acp.MCPServer {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	srv := acp.MCPServer{Name: "big", Command: exe, Args: []string{}}
	for _, kv := range mcptest.Env("big") {
		name, value, _ := strings.Cut(kv, "=")
		srv.Env = append(srv.Env, acp.EnvVariable{Name: name, Value: value})
	}
	return srv
}

// Issue 27, finding 9: an MCP tool result is cut before it reaches the
// model, at 25,000 tokens (bytes/4) by default as in Claude Code, or at
// MAX_MCP_OUTPUT_TOKENS from cordis's environment; the cap counts every
// text block of the result together, and the model is told what was cut
// and how to get less. An 8 MiB result used to go to the model whole.
func TestMCPToolOutputIsCapped(t *testing.T) {
	for _, tc := range []struct {
		name, env, input string
		limit            int // tokens
		cut              bool
		stderr           string
	}{
		{name: "one 8 MiB block", input: `{"bytes":"8388608"}`, limit: 25000, cut: true},
		{name: "three blocks, each under the cap", input: `{"bytes":"40000","blocks":"3"}`, limit: 25000, cut: true},
		{name: "under the cap", input: `{"bytes":"90000"}`, limit: 25000},
		{name: "MAX_MCP_OUTPUT_TOKENS", env: "1000", input: `{"bytes":"90000"}`, limit: 1000, cut: true},
		{name: "an invalid MAX_MCP_OUTPUT_TOKENS", env: "lots", input: `{"bytes":"8388608"}`, limit: 25000, cut: true, stderr: "is not a positive whole number of tokens; MCP tool results are cut at the default 25000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testCtx(t)
			model := newFakeModel(t, toolReply("toolu_big", "mcp__big__big", tc.input), textReply("Done."))
			var env []string
			if tc.env != "" {
				env = append(env, "MAX_MCP_OUTPUT_TOKENS="+tc.env)
			}
			p := startProc(t, model.srv.URL, procOpts{config: bypassConfig(""), env: env})
			p.e.Initialize(ctx, acp.ClientCapabilities{})
			sid := newSessionWith(t, p.e, p.work, bigServer(t))
			if stop, err := p.e.Prompt(ctx, sid, "fetch it"); err != nil || stop != acp.StopEndTurn {
				t.Fatalf("prompt = %q, %v", stop, err)
			}
			reqs := model.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model requests, want 2", len(reqs))
			}
			result, isError := toolResultIn(t, reqs[1], "toolu_big")
			if isError {
				t.Fatalf("the tool result is an error: %.300s", result)
			}
			note := fmt.Sprintf("the output of mcp__big__big was cut at %d tokens of about", tc.limit)
			body, _, _ := strings.Cut(result, "\n\n[cordis:")
			switch {
			case !tc.cut && (result != body || strings.Count(result, mcptest.BigEnd) != 1):
				t.Errorf("a result under the cap was changed: %d bytes, ends %q", len(result), result[max(0, len(result)-80):])
			case tc.cut && !strings.Contains(result, note):
				t.Errorf("the model was not told of the cut (%q): %d bytes, ends %q", note, len(result), result[max(0, len(result)-300):])
			case tc.cut && (len(body) > tc.limit*4 || len(body) < tc.limit*4-4):
				t.Errorf("the result's text is %d bytes, want the cap's %d", len(body), tc.limit*4)
			case tc.cut && !strings.Contains(result, "ask the tool for less or narrower output"):
				t.Errorf("the model was not told how to get less: %q", result[len(body):])
			}
			if errs := p.stderr.String(); tc.stderr != "" && (!strings.Contains(errs, tc.stderr) || !strings.Contains(errs, "MAX_MCP_OUTPUT_TOKENS=")) {
				t.Errorf("stderr does not say %q", tc.stderr)
			}
		})
	}
}
