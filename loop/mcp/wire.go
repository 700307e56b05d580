package mcp

import (
	"encoding/json"
	"strconv"
)

// The MCP messages cordis sends and reads: only the fields it uses.
// Unknown fields are ignored, so newer servers' additions do no harm.

// message is one JSON-RPC 2.0 message, in either direction: a request
// (Method and ID), a notification (Method, no ID) or an answer (ID and
// Result or Error).
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// hasID reports whether the message carries an id; "id": null does not
// count (a request with it is taken as a notification).
func (m *message) hasID() bool { return len(m.ID) > 0 && string(m.ID) != "null" }

// encode fills in the version and params (when not nil) and marshals m.
func encode(m message, params any) ([]byte, error) {
	m.JSONRPC = "2.0"
	if params != nil {
		p, err := json.Marshal(params)
		if err != nil {
			return nil, err
		}
		m.Params = p
	}
	return json.Marshal(m)
}

func idJSON(id int64) json.RawMessage { return strconv.AppendInt(nil, id, 10) }

// rpcError is a JSON-RPC error answer. The server sent it, so the server
// is alive.
type rpcError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return e.Message }

const (
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
)

type implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

type initializeParams struct {
	ProtocolVersion string         `json:"protocolVersion"`
	Capabilities    clientCaps     `json:"capabilities"`
	ClientInfo      implementation `json:"clientInfo"`
}

// clientCaps offers roots; their list never changes during a session, so
// listChanged is not claimed. Elicitation, when offered, is the empty
// object: form mode only, in the shape of 2025-06-18 that 2025-11-25 reads
// as form only too ({"form":{}} would be refused by strict 2025-06-18
// servers, and the version is not known before the answer).
type clientCaps struct {
	Roots       struct{}  `json:"roots"`
	Elicitation *struct{} `json:"elicitation,omitempty"`
}

// elicitParams are the params of elicitation/create. Mode is "form" or
// absent (form) in form mode; URL mode is not offered.
type elicitParams struct {
	Mode            string          `json:"mode"`
	Message         *string         `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema"`
}

// elicitResult is the answer to elicitation/create.
type elicitResult struct {
	Action  string          `json:"action"`
	Content json.RawMessage `json:"content,omitempty"`
}

type initializeResult struct {
	ProtocolVersion string `json:"protocolVersion"`
	// Capabilities is nil when the server sent none; then its tools are
	// listed anyway, and prompts are not.
	Capabilities *struct {
		Tools   *struct{} `json:"tools"`
		Prompts *struct{} `json:"prompts"`
	} `json:"capabilities"`
}

type root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

type rootsResult struct {
	Roots []root `json:"roots"`
}

type cancelledParams struct {
	RequestID int64  `json:"requestId"`
	Reason    string `json:"reason,omitempty"`
}

type listParams struct {
	Cursor string `json:"cursor,omitempty"`
}

// listPage is a page of tools/list or prompts/list.
type listPage struct {
	Tools      []*remoteTool   `json:"tools"`
	Prompts    []*remotePrompt `json:"prompts"`
	NextCursor string          `json:"nextCursor"`
}

// remoteTool is a tool as its server lists it.
type remoteTool struct {
	Name        string           `json:"name"`
	Title       string           `json:"title"`
	Description string           `json:"description"`
	InputSchema json.RawMessage  `json:"inputSchema"`
	Annotations *toolAnnotations `json:"annotations"`
}

type toolAnnotations struct {
	Title           string `json:"title"`
	ReadOnlyHint    bool   `json:"readOnlyHint"`
	DestructiveHint *bool  `json:"destructiveHint"`
	OpenWorldHint   *bool  `json:"openWorldHint"`
}

type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type callResult struct {
	Content           []content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

// content is one content item, a union told apart by Type: text, image
// and audio (Data, base64), resource_link (URI, Name, Title) and resource
// (an embedded Resource).
type content struct {
	Type     string            `json:"type"`
	Text     string            `json:"text"`
	Data     string            `json:"data"`
	MIMEType string            `json:"mimeType"`
	URI      string            `json:"uri"`
	Name     string            `json:"name"`
	Title    string            `json:"title"`
	Resource *resourceContents `json:"resource"`
}

// resourceContents is an embedded resource: Text, or Blob (base64).
type resourceContents struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType"`
	Text     string `json:"text"`
	Blob     string `json:"blob"`
}

// remotePrompt is a prompt as its server lists it.
type remotePrompt struct {
	Name        string            `json:"name"`
	Title       string            `json:"title"`
	Description string            `json:"description"`
	Arguments   []*PromptArgument `json:"arguments"`
}

// PromptArgument is an argument an MCP prompt declares.
type PromptArgument struct {
	Name     string `json:"name"`
	Required bool   `json:"required"`
}

type getPromptParams struct {
	Name      string            `json:"name"`
	Arguments map[string]string `json:"arguments,omitempty"`
}

type promptResult struct {
	Messages []*promptMessage `json:"messages"`
}

type promptMessage struct {
	Role    string   `json:"role"`
	Content *content `json:"content"`
}
