package mcptest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPServer is an in-process MCP server, built on the official SDK, that
// serves the tool "greet" (not read-only) and the prompt "hello", over
// streamable HTTP at URL (answers as event streams) and JSONURL (answers
// as JSON bodies), and over SSE at SSEURL. It records the Authorization
// header of every request.
type HTTPServer struct {
	URL     string
	JSONURL string
	SSEURL  string

	srv *httptest.Server

	mu    sync.Mutex
	auth  []string
	calls []string
}

// GreetInput is the input of the tool greet.
type GreetInput struct {
	Name string `json:"name" jsonschema:"who to greet"`
}

// NewHTTPServer starts the server; Close stops it.
func NewHTTPServer() *HTTPServer {
	h := &HTTPServer{}
	server := sdk.NewServer(&sdk.Implementation{Name: "mcptest-http", Version: "1"}, nil)
	sdk.AddTool(server, &sdk.Tool{Name: "greet", Description: "Greets someone."},
		func(ctx context.Context, req *sdk.CallToolRequest, in GreetInput) (*sdk.CallToolResult, any, error) {
			h.mu.Lock()
			h.calls = append(h.calls, "greet")
			h.mu.Unlock()
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hello, " + in.Name}}}, nil, nil
		})
	server.AddPrompt(&sdk.Prompt{Name: "hello", Description: "Say hello", Arguments: []*sdk.PromptArgument{{Name: "who", Required: true}}},
		func(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "Say hello to " + req.Params.Arguments["who"] + "."}}}}, nil
		})
	getServer := func(*http.Request) *sdk.Server { return server }
	mux := http.NewServeMux()
	mux.Handle("/mcp", sdk.NewStreamableHTTPHandler(getServer, nil))
	mux.Handle("/mcp-json", sdk.NewStreamableHTTPHandler(getServer, &sdk.StreamableHTTPOptions{JSONResponse: true}))
	mux.Handle("/sse", sdk.NewSSEHandler(getServer, nil))
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.auth = append(h.auth, r.Header.Get("Authorization"))
		h.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	h.URL = h.srv.URL + "/mcp"
	h.JSONURL = h.srv.URL + "/mcp-json"
	h.SSEURL = h.srv.URL + "/sse"
	return h
}

// Authorizations returns the Authorization header of every request so far.
func (h *HTTPServer) Authorizations() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.auth...)
}

// Calls returns the names of the tools called so far.
func (h *HTTPServer) Calls() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.calls...)
}

// Close stops the server, closing its connections.
func (h *HTTPServer) Close() {
	h.srv.CloseClientConnections()
	h.srv.Close()
}
