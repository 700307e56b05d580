// Package mcp connects a cordis session to the MCP (Model Context
// Protocol) servers the editor passes in session/new or session/load, and
// makes their tools and prompts part of the session: tools as
// mcp__<server>__<tool> (a tools.Tool that goes through the same seams,
// permissions and hooks as the built-in ones), prompts as the slash
// commands /mcp__<server>__<prompt>. The protocol is spoken by the
// official Go SDK's client (github.com/modelcontextprotocol/go-sdk), one
// client and session per server; this package chooses the transports,
// keeps the servers' lists, and turns what the servers say into tools,
// commands and messages for the user.
//
//	m := mcp.Start(ctx, []mcp.Spec{
//		{Name: "github", Command: "github-mcp", Env: []string{"TOKEN=..."}, Dir: cwd},
//		{Name: "docs", Type: "http", URL: "https://example.com/mcp", Headers: hs},
//	}, mcp.Options{})
//	defer m.Close()                   // every stdio server's process group is gone after it
//	all := m.Tools(ctx)               // before each model request
//	for _, f := range m.Failures() {} // servers that did not start, once
//	gen, cmds := m.Commands(ctx)      // prompt commands; re-advertise when gen changes
//
// Transports: stdio servers run as owned process groups (package proc),
// spoken to over their pipes by a connection of this package (the SDK's
// CommandTransport cannot run an owned group, and its IOTransport ends the
// connection at the first stray line on stdout, which is dropped here):
// the environment is a small allowlist of the agent's (PATH, HOME, ...)
// plus the editor's entries, stderr is captured for error messages, and
// Close ends stdin, waits StopGrace, then signals and kills the group.
// http is the SDK's streamable HTTP transport, sse its HTTP+SSE transport
// of 2024-11-05; both get the editor's headers on every request to the
// server's origin, and sse refuses an endpoint on another origin, where
// the headers (credentials) would follow. cordis asks for protocol
// revision 2025-11-25 and accepts the older revisions the SDK supports.
// Servers may ask for the roots (Options.Roots) and ping. OAuth is not
// offered: the SDK's flows need a browser redirect or client credentials,
// neither of which an editor passes.
//
// Elicitation: with Options.Elicit set, initialize offers the elicitation
// capability as {} (form mode only, the 2025-06-18 shape, which 2025-11-25
// reads as form only); with Options.ElicitURL too, as {"form":{},"url":{}}
// (or {"url":{}} alone). A server's elicitation/create is answered by
// Elicit (form) or ElicitURL (URL mode): an error, or a context that ends
// first, answers {action:"cancel"}; a malformed request (a requestedSchema
// that is not a flat object schema of primitives, a URL-mode request
// without an elicitationId or with a URL that is not absolute http(s),
// has a user part, a control or invisible character, or is over 8 KiB) is
// refused with -32602 by the SDK or this package without asking, and so
// is a mode that was not offered, after telling Options.Unshown (the user
// learns what the server wanted). A server's
// notifications/elicitation/complete is passed to
// Options.ElicitationComplete once, for a URL elicitation the user was
// asked and did not decline; others are ignored. Without Elicit and
// ElicitURL the capability is not offered and elicitation/create is
// answered -32601, so servers fall back. A tools/call that fails with
// URLElicitationRequired (-32042) is returned as the error it is (the
// SDK's retrying middleware is not exported).
// A server's request does not say which of its calls it belongs to:
// Elicit's context is that of the call when exactly one tools/call or
// prompts/get is in progress (see ElicitFunc). Several elicitations may be
// pending at once.
//
// Failures never break the session. A server that cannot be started or
// does not finish the handshake (and the first tools/list and prompts/list)
// within HandshakeTimeout is reported by Failures and Status and offers no
// tools; the others work. A call that gets no answer within CallTimeout is
// abandoned (the server is told it was cancelled) and returns an error
// result, as does a call cancelled by the turn. A server that exits
// mid-session, or whose connection ends, turns its calls into error results
// that say how it ended. A Spec's own StartupTimeout and CallTimeout
// replace HandshakeTimeout and CallTimeout for its server, and its
// EnabledTools and DisabledTools choose which of the server's tools are
// offered (a setup's per-server options, such as Codex's).
//
// Output: the text of a tool result (every content block's, joined) is
// cut to Options.MaxOutputTokens, 25,000 by default as in Claude Code,
// counting tokens as bytes/4; the model is told where and how much was
// cut and asked for narrower calls. Images are not counted.
//
// Names: server and tool names are normalized to [A-Za-z0-9_-]; a name
// longer than 64 bytes, or one that two tools would share, is cut and given
// a suffix hashed from the server and the tool's own name, so the names do
// not depend on the order the servers answer in. Schemas are passed through
// (a missing type becomes object). readOnlyHint only picks the editor's
// icon: annotations are the server's word, so no MCP tool counts as
// read-only (see Tool.ReadOnly).
//
// list_changed: a notifications/tools/list_changed (or prompts/...) marks
// the server's list stale; the next Tools (or Commands) re-lists it,
// following nextCursor. The SDK hands notifications to a goroutine of
// their own, which may run after the caller got the answer that followed
// the notification, so the transports also mark the list as they read the
// notification (the stdio connection as it decodes it, the HTTP transports
// as the event stream's bytes go by): a notification a server sends before
// a call's result is honoured by the Tools call that follows that result
// (the model request after the tool call).
//
// Concurrency: a Manager is safe for concurrent use. Start returns once
// every server has connected or failed; Tools, Commands and Status may be
// called from any goroutine while calls run; Close waits for every server
// to stop, makes calls in progress fail, and may be called more than once.
// A nil *Manager is valid and has no servers. Tools and commands are values
// bound to their server; they stay valid (returning errors) after Close.
package mcp
