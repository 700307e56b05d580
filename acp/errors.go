package acp

import "fmt"

// JSON-RPC and ACP error codes.
const (
	CodeParseError       = -32700
	CodeInvalidRequest   = -32600
	CodeMethodNotFound   = -32601
	CodeInvalidParams    = -32602
	CodeInternalError    = -32603
	CodeAuthRequired     = -32000
	CodeResourceNotFound = -32002
	CodeRequestCancelled = -32800
)

// Error is a JSON-RPC error an Agent method returns to choose the code the
// client sees. Any other error is answered as an internal error.
type Error struct {
	Code    int64
	Message string
	Data    any
}

func (e *Error) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

// InvalidParams reports bad request parameters; the message should name
// the field.
func InvalidParams(format string, args ...any) *Error {
	return &Error{Code: CodeInvalidParams, Message: "invalid params: " + fmt.Sprintf(format, args...)}
}

// InvalidRequest reports a request that is not acceptable now.
func InvalidRequest(format string, args ...any) *Error {
	return &Error{Code: CodeInvalidRequest, Message: fmt.Sprintf(format, args...)}
}

// SessionNotFound is the -32002 answer for an unknown session id.
func SessionNotFound(id string) *Error {
	return &Error{Code: CodeResourceNotFound, Message: fmt.Sprintf("session %q not found", id), Data: map[string]string{"uri": id}}
}

// AuthRequired is the -32000 answer when credentials are missing.
func AuthRequired(message string) *Error {
	return &Error{Code: CodeAuthRequired, Message: message}
}

// InternalError wraps an unexpected failure.
func InternalError(format string, args ...any) *Error {
	return &Error{Code: CodeInternalError, Message: fmt.Sprintf(format, args...)}
}
