package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cordis-agent/cordis/loop/tools"
)

// Tool is an MCP server's tool as a cordis tool. It goes through the same
// seams, permissions and hooks as the built-in tools.
type Tool struct {
	s      *server
	name   string
	remote *sdk.Tool
	schema json.RawMessage
}

var _ tools.Tool = (*Tool)(nil)

func newTool(s *server, name string, remote *sdk.Tool) *Tool {
	return &Tool{s: s, name: name, remote: remote, schema: inputSchema(remote.InputSchema)}
}

// inputSchema passes the server's schema through (keys sorted); the APIs
// need an object schema, so a missing one becomes the empty object schema
// and a missing type is set to object.
func inputSchema(schema any) json.RawMessage {
	m, ok := schema.(map[string]any)
	if !ok || m == nil {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	if _, has := m["type"]; !has {
		m = maps.Clone(m)
		m["type"] = "object"
	}
	b, err := json.Marshal(m)
	if err != nil {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return b
}

// Name is mcp__<server>__<tool>, normalized, unique and at most 64 bytes.
func (t *Tool) Name() string { return t.name }

// Server is the name of the server as the editor configured it.
func (t *Tool) Server() string { return t.s.spec.Name }

// RemoteName is the tool's name on its server.
func (t *Tool) RemoteName() string { return t.remote.Name }

func (t *Tool) Description() string {
	if d := strings.TrimSpace(t.remote.Description); d != "" {
		return d
	}
	return fmt.Sprintf("%s (a tool of the MCP server %s)", t.title(), t.s.spec.Name)
}

func (t *Tool) Schema() json.RawMessage { return t.schema }

// ReadOnly is false for every MCP tool, whatever its readOnlyHint. The
// MCP specification says annotations are hints that clients must not rely
// on for approval decisions unless the server is trusted, and a server
// (or whatever feeds it, a web page, an issue) can claim anything; what a
// server is for is the editor's choice, not a vouching for each tool. So,
// as in Claude Code, a call asks in the default mode unless a rule or an
// "Always allow" of the user's covers it; and in plan mode, where only
// read-only tools run, an MCP tool is not refused (a read-only lookup is
// often what planning needs) but asked about every time: the loop
// (loop/permission.go) runs it only when the user allows that call, so
// nothing runs in plan mode on the server's word alone.
func (t *Tool) ReadOnly() bool { return false }

// Kind is read for tools whose readOnlyHint is set (fetch when they also
// reach an open world) and other for the rest. It only picks the editor's
// icon; approval never depends on it.
func (t *Tool) Kind() tools.Kind {
	a := t.remote.Annotations
	switch {
	case a == nil || !a.ReadOnlyHint:
		return tools.KindOther
	case a.OpenWorldHint != nil && *a.OpenWorldHint:
		return tools.KindFetch
	}
	return tools.KindRead
}

func (t *Tool) title() string {
	switch {
	case t.remote.Title != "":
		return t.remote.Title
	case t.remote.Annotations != nil && t.remote.Annotations.Title != "":
		return t.remote.Annotations.Title
	}
	return t.remote.Name
}

// Describe titles the call "<server>: <tool title> (k=v, ...)".
func (t *Tool) Describe(_ *tools.Env, input json.RawMessage) tools.Description {
	title := t.s.spec.Name + ": " + t.title()
	if sum := argSummary(input, 80); sum != "" {
		title += " (" + sum + ")"
	}
	if t.remote.Annotations != nil && !t.remote.Annotations.ReadOnlyHint &&
		t.remote.Annotations.DestructiveHint != nil && *t.remote.Annotations.DestructiveHint {
		title += " [destructive]"
	}
	return tools.Description{Title: title}
}

// argSummary lists the top-level arguments in key order, values as JSON,
// cut to about n characters.
func argSummary(input json.RawMessage, n int) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(input, &m) != nil || len(m) == 0 {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		v := string(m[k])
		if r := []rune(v); len(r) > 40 {
			v = string(r[:40]) + "…"
		}
		b.WriteString(k + "=" + v)
		if b.Len() > n {
			return string([]rune(b.String())[:n]) + "…"
		}
	}
	return b.String()
}

// Run calls the tool on its server, with the call timeout; cancelling ctx
// cancels the call on the server. Failures are error results.
func (t *Tool) Run(ctx context.Context, _ *tools.Env, input json.RawMessage) tools.Result {
	s := t.s
	cs, err := s.session()
	if err != nil {
		return tools.Errorf("The MCP server %q is not running: %v. Its tools are unavailable for the rest of this session.", s.spec.Name, err)
	}
	args := bytes.TrimSpace(input)
	if len(args) == 0 || bytes.Equal(args, []byte("null")) {
		args = json.RawMessage("{}")
	}
	timeout := s.callTimeout()
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	defer s.track(cctx)()
	res, err := cs.CallTool(cctx, &sdk.CallToolParams{Name: t.remote.Name, Arguments: json.RawMessage(args)})
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return tools.Errorf("The call to %s was cancelled.", t.name)
		case errors.Is(cctx.Err(), context.DeadlineExceeded):
			return tools.Errorf("The MCP server %q did not answer %s within %s; the call was abandoned.", s.spec.Name, t.remote.Name, timeout)
		}
		if gone := s.brokenConnection(err); gone != nil {
			return tools.Errorf("The MCP server %q %v while running %s. Its tools are unavailable for the rest of this session.", s.spec.Name, gone, t.remote.Name)
		}
		return tools.Errorf("The MCP server %q failed to run %s: %v", s.spec.Name, t.remote.Name, err)
	}
	return capResult(t.name, resultOf(res.Content, res.StructuredContent, res.IsError), s.m.opts.MaxOutputTokens)
}

// DefaultMaxOutputTokens is how much of one tool result goes to the
// model when Options.MaxOutputTokens is unset: Claude Code's default for
// MCP output (its MAX_MCP_OUTPUT_TOKENS), so a server that answers
// megabytes cannot fill the context window in one call.
const DefaultMaxOutputTokens = 25000

// outputBytesPerToken estimates tokens as bytes/4, the estimate the loop
// uses for the context window (loop/compact.go): no tokenizer here.
const outputBytesPerToken = 4

// capResult cuts r's text (every content block's, joined) to maxTokens
// (DefaultMaxOutputTokens when not positive), at a character boundary,
// and says at its end what was cut and how to get less, so the model can
// ask again for a narrower answer rather than read on as if it were whole.
func capResult(name string, r tools.Result, maxTokens int) tools.Result {
	if maxTokens <= 0 {
		maxTokens = DefaultMaxOutputTokens
	}
	total := (len(r.Text) + outputBytesPerToken - 1) / outputBytesPerToken
	if total <= maxTokens { // compared in tokens: maxTokens*4 could overflow
		return r
	}
	cut := maxTokens * outputBytesPerToken
	for cut > 0 && !utf8.RuneStart(r.Text[cut]) {
		cut--
	}
	r.Text = r.Text[:cut] + fmt.Sprintf("\n\n[cordis: the output of %s was cut at %d tokens of about %d (tokens estimated as bytes/4); "+
		"ask the tool for less or narrower output: a filter, a smaller page or range, fewer fields.]", name, maxTokens, total)
	return r
}

// resultOf converts a tools/call result: text content joined, other
// content summarized, structured content as JSON when there is no text.
// Images also go to the model.
func resultOf(content []sdk.Content, structuredContent any, isError bool) tools.Result {
	var parts []string
	var images []tools.Image
	hasText := false
	for _, c := range content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
			hasText = true
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image: %s, %d bytes]", orUnknown(c.MIMEType), len(c.Data)))
			if img, ok := tools.SendableImage(c.MIMEType, base64.StdEncoding.EncodeToString(c.Data)); ok {
				images = append(images, img)
			}
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio: %s, %d bytes]", orUnknown(c.MIMEType), len(c.Data)))
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource link: %s%s]", c.URI, labelled(c.Title, c.Name)))
		case *sdk.EmbeddedResource:
			parts = append(parts, embedded(c.Resource))
		default:
			parts = append(parts, fmt.Sprintf("[%T content]", c))
		}
	}
	if !hasText {
		if s := structured(structuredContent); s != "" {
			parts = append([]string{s}, parts...)
		}
	}
	text := strings.Join(parts, "\n")
	if text == "" {
		text = "(the tool returned no content)"
	}
	return tools.Result{Text: text, IsError: isError, Images: images}
}

// structured is structured content as compact JSON, keys sorted, or ""
// when there is none.
func structured(v any) string {
	if v == nil {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

func embedded(r *sdk.ResourceContents) string {
	if r == nil {
		return "[resource]"
	}
	if r.Text != "" {
		return fmt.Sprintf("[resource: %s]\n%s", r.URI, r.Text)
	}
	return fmt.Sprintf("[resource: %s, %s, %d bytes]", r.URI, orUnknown(r.MIMEType), len(r.Blob))
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown type"
	}
	return s
}

func labelled(title, name string) string {
	for _, s := range []string{title, name} {
		if s != "" {
			return " (" + s + ")"
		}
	}
	return ""
}
