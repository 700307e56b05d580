package acptest

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/cordis-agent/cordis/acp"
)

// ServeFile answers fs/read_text_file and fs/write_text_file from the
// disk, as an editor without unsaved buffers would: a missing file is
// "resource not found", a write creates the file's folders.
func ServeFile(method string, params json.RawMessage) (any, error) {
	switch method {
	case acp.MethodFSReadTextFile:
		var req acp.ReadTextFileRequest
		if err := json.Unmarshal(params, &req); err != nil {
			return nil, invalidParams(err)
		}
		return readTextFile(&req)
	case acp.MethodFSWriteTextFile:
		var req acp.WriteTextFileRequest
		if err := json.Unmarshal(params, &req); err != nil {
			return nil, invalidParams(err)
		}
		if err := os.MkdirAll(filepath.Dir(req.Path), 0o755); err != nil {
			return nil, internal(err)
		}
		if err := os.WriteFile(req.Path, []byte(req.Content), 0o644); err != nil {
			return nil, internal(err)
		}
		return struct{}{}, nil
	}
	return nil, MethodNotFound(method)
}

// readTextFile reads req.Path, from 1-based line req.Line for req.Limit
// lines when those are set.
func readTextFile(req *acp.ReadTextFileRequest) (any, error) {
	data, err := os.ReadFile(req.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, &acp.Error{Code: acp.CodeResourceNotFound, Message: "Resource not found: " + req.Path}
	}
	if err != nil {
		return nil, internal(err)
	}
	content := string(data)
	if req.Line != nil || req.Limit != nil {
		lines := strings.SplitAfter(content, "\n")
		start := 0
		if req.Line != nil && *req.Line > 1 {
			start = min(*req.Line-1, len(lines))
		}
		end := len(lines)
		if req.Limit != nil && start+*req.Limit < end {
			end = start + *req.Limit
		}
		content = strings.Join(lines[start:end], "")
	}
	return acp.ReadTextFileResponse{Content: content}, nil
}

// MethodNotFound is the answer to a method the editor does not serve.
func MethodNotFound(method string) error {
	return &acp.Error{Code: acp.CodeMethodNotFound, Message: "Method not found: " + method}
}

func invalidParams(err error) error {
	return &acp.Error{Code: acp.CodeInvalidParams, Message: "Invalid params: " + err.Error()}
}

func internal(err error) error {
	return &acp.Error{Code: acp.CodeInternalError, Message: err.Error()}
}
