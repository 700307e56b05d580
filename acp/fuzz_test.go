package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// fuzzSeeds are JSON-RPC lines an editor (or a broken one) might send.
var fuzzSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}` + "\n",
	`{"jsonrpc":"2.0","id":"a","method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}` + "\r\n",
	`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}` + "\n",
	"garbage {\n\n   \n",
	`[{"jsonrpc":"2.0","id":1,"method":"x"}]` + "\n",
	`{"jsonrpc":"2.0","id":7,"method":5}` + "\n",
	`{"jsonrpc":"2.0","id":{"a":1},"method":"session/list"}` + "\n",
	`{"jsonrpc":"2.0","method":5}` + "\n",
	`{"jsonrpc":"2.0","id":null,"result":{}}` + "\n",
	`{"jsonrpc":"2.0","id":"x","result":{}}`, // no final newline
	"\"just a string\"\nnull\n42\ntrue\n",
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\\ud800\"}\n",
	"\xff\xfe\x00\n{}\n",
	strings.Repeat("[", 200) + strings.Repeat("]", 200) + "\n",
	`{"jsonrpc":"2.0","id":1.5,"method":"session/list","params":null}` + "\n",
	`{"jsonrpc":"2.0","id":-0,"method":"session/list","params":[]}` + "\n",
}

// FuzzLineStream feeds arbitrary bytes to the JSON-RPC line reader. It must
// never panic or loop; every object it hands on is valid JSON; every line
// it answers itself gets a JSON-RPC error object (-32700 or -32600) with id
// null or the id of the offending object; reading ends with io.EOF.
func FuzzLineStream(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		s := newLineStream(bytes.NewReader(data), &out, nil, slog.New(slog.DiscardHandler))
		lines := bytes.Count(data, []byte("\n")) + 1
		read := 0
		for {
			var v json.RawMessage
			err := s.ReadObject(&v)
			if err != nil {
				if !errors.Is(err, io.EOF) {
					t.Fatalf("ReadObject: %v, want io.EOF", err)
				}
				break
			}
			if !json.Valid(v) {
				t.Fatalf("ReadObject handed on invalid JSON %q", v)
			}
			read++
			if read > lines {
				t.Fatalf("%d objects read from %d lines", read, lines)
			}
		}
		answered := 0
		sc := bufio.NewScanner(&out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			answered++
			checkErrorReply(t, sc.Bytes())
		}
		if read+answered > lines {
			t.Fatalf("%d objects read and %d lines answered from %d lines", read, answered, lines)
		}
	})
}

func checkErrorReply(t *testing.T, line []byte) {
	t.Helper()
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("reply %q is not JSON: %v", line, err)
	}
	if m.JSONRPC != "2.0" || m.Error == nil || len(m.ID) == 0 {
		t.Fatalf("reply %q is not a JSON-RPC error", line)
	}
	if m.Error.Code != CodeParseError && m.Error.Code != CodeInvalidRequest {
		t.Fatalf("reply %q: code %d", line, m.Error.Code)
	}
	if m.Error.Code == CodeParseError && string(m.ID) != "null" {
		t.Fatalf("parse error %q answered with id %s, want null", line, m.ID)
	}
	if m.Error.Message == "" {
		t.Fatalf("reply %q has no message", line)
	}
}

// nopAgent answers every method; its sessions never exist.
type nopAgent struct{}

func (nopAgent) Initialize(context.Context, *InitializeRequest) (*InitializeResponse, error) {
	return &InitializeResponse{ProtocolVersion: ProtocolVersion, AuthMethods: []AuthMethod{}}, nil
}
func (nopAgent) Authenticate(context.Context, *AuthenticateRequest) error { return nil }
func (nopAgent) NewSession(context.Context, *NewSessionRequest) (*NewSessionResponse, error) {
	return &NewSessionResponse{SessionID: "s1"}, nil
}
func (nopAgent) LoadSession(_ context.Context, r *LoadSessionRequest) (*LoadSessionResponse, error) {
	return nil, SessionNotFound(r.SessionID)
}
func (nopAgent) ListSessions(context.Context, *ListSessionsRequest) (*ListSessionsResponse, error) {
	return &ListSessionsResponse{Sessions: []SessionInfo{}}, nil
}
func (nopAgent) CloseSession(context.Context, *CloseSessionRequest) error     { return nil }
func (nopAgent) SetSessionMode(context.Context, *SetSessionModeRequest) error { return nil }
func (nopAgent) SetSessionConfigOption(_ context.Context, r *SetSessionConfigOptionRequest) (*SetSessionConfigOptionResponse, error) {
	return nil, SessionNotFound(r.SessionID)
}
func (nopAgent) SessionOpened(context.Context, string) {}
func (nopAgent) Prompt(_ context.Context, r *PromptRequest) (*PromptResponse, error) {
	return &PromptResponse{StopReason: StopEndTurn}, nil
}
func (nopAgent) Shutdown(context.Context) {}

// FuzzServe runs the whole server (line reader, jsonrpc2, dispatch and
// params decoding) on arbitrary input: it must return once the input ends,
// and write nothing but JSON-RPC 2.0 objects.
func FuzzServe(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}
{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"hi"}]}}
{"jsonrpc":"2.0","id":3,"method":"session/set_config_option","params":{"sessionId":"s1","configId":"mode","value":{}}}
{"jsonrpc":"2.0","id":4,"method":"session/new","params":{"cwd":5}}
{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":2}}
`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var out syncBuffer
		done := make(chan error, 1)
		go func() {
			done <- Serve(context.Background(), bytes.NewReader(data), &out, func(*Client) Agent { return nopAgent{} }, Options{ShutdownGrace: time.Second})
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("Serve: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Serve did not return after the input ended")
		}
		sc := bufio.NewScanner(bytes.NewReader(out.Bytes()))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil || string(m["jsonrpc"]) != `"2.0"` {
				t.Fatalf("Serve wrote %q, not a JSON-RPC 2.0 object", sc.Bytes())
			}
		}
	})
}

// syncBuffer is a bytes.Buffer safe for the server's concurrent writers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.buf.Bytes()...)
}
