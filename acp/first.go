package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strconv"

	"github.com/sourcegraph/jsonrpc2"
)

// The editor waits for the answer to its first message, initialize,
// before it shows the agent, and on a cold process most of that wait is
// first-time work: starting goroutines and threads, and encoding/json
// reflecting on the message types (about a third of a millisecond, as
// much as everything else cordis does before it answers; BENCHMARKS.md).
// So the first line is read and answered here, before the connection
// starts, and an initialize request in the plain shape editors send is
// decoded from JSON tokens, without reflection. Anything else takes the
// general path; both give the same result (FuzzFirstInitialize) and the
// same bytes (TestFirstRequestAnswersLikeTheConnection).

// answerFirst answers the editor's first message, when it is an
// initialize request, before the connection exists. Any other first line,
// and whatever reading it met, is left for the connection, which handles
// it as it handles every line.
func (s *Server) answerFirst(ctx context.Context) {
	stop := context.AfterFunc(ctx, func() { s.stream.Close() })
	line, oversized, err := s.stream.readLine()
	stop()
	if oversized {
		s.stream.unread(line, oversized, err)
		return
	}
	if id, p, ok := plainInitialize(line); ok {
		s.leaveForConnection(err)
		s.respond(ctx, nil, id, MethodInitialize, func() (any, error) { return s.initialize(ctx, p) })
		return
	}
	req, ok := initializeRequest(line)
	if !ok {
		s.stream.unread(line, oversized, err)
		return
	}
	s.leaveForConnection(err)
	s.answer(ctx, nil, req)
}

// leaveForConnection hands a read error met with the first line (EOF
// after a line without a newline) to the connection.
func (s *Server) leaveForConnection(err error) {
	if err != nil {
		s.stream.unread(nil, false, err)
	}
}

// initializeRequest decodes line when it is an initialize request that
// jsonrpc2 would take as it is; anything else is left to jsonrpc2.
func initializeRequest(line []byte) (*jsonrpc2.Request, bool) {
	var m struct {
		ID     json.RawMessage  `json:"id"`
		Method string           `json:"method"`
		Params *json.RawMessage `json:"params"`
		Result json.RawMessage  `json:"result"`
		Error  json.RawMessage  `json:"error"`
		Meta   json.RawMessage  `json:"meta"`
	}
	if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &m) != nil {
		return nil, false
	}
	if m.Method != MethodInitialize || m.Result != nil || m.Error != nil || m.Meta != nil || len(m.ID) == 0 || string(m.ID) == "null" {
		return nil, false
	}
	req := &jsonrpc2.Request{Method: m.Method, Params: m.Params}
	if err := req.ID.UnmarshalJSON(m.ID); err != nil || req.ID.Num > math.MaxInt64 {
		return nil, false // the connection reads numeric ids as int64
	}
	return req, true
}

// plainInitialize decodes line when it is an initialize request in the
// plain shape: every key spelled exactly and given once, every value of
// its field's type (no nulls), an id that is a string or a non-negative
// int64, and no members the types do not have, except inside _meta. For
// such a line the connection (jsonrpc2, then decodeParams) decodes the
// same id and params; for any other it reports false.
func plainInitialize(line []byte) (jsonrpc2.ID, *InitializeRequest, bool) {
	t := newTokenReader(line)
	var (
		id                     jsonrpc2.ID
		p                      InitializeRequest
		hasID, hasMethod, hasP bool
		hasVersion             bool
	)
	t.object(func(key string) {
		switch key {
		case "jsonrpc":
			if v := t.str(); v != "2.0" {
				t.fail()
			}
		case "id":
			id, hasID = t.id(), true
		case "method":
			hasMethod = t.str() == MethodInitialize
		case "params":
			hasP = true
			t.object(func(key string) {
				switch key {
				case "protocolVersion":
					p.ProtocolVersion, hasVersion = t.int(), true
				case "clientCapabilities":
					t.clientCapabilities(&p.ClientCapabilities)
				case "clientInfo":
					p.ClientInfo = t.implementation()
				case "_meta":
					p.Meta = t.meta()
				default:
					t.fail()
				}
			})
		default:
			t.fail()
		}
	})
	if !t.end() || !hasID || !hasMethod || !hasP || !hasVersion {
		return jsonrpc2.ID{}, nil, false
	}
	return id, &p, true
}

// tokenReader reads one JSON value token by token. The first token that
// does not fit the plain shape marks it failed; later calls then return
// zero values, so decoders read straight through and check ok at the end.
type tokenReader struct {
	dec    *json.Decoder
	failed bool
}

func newTokenReader(data []byte) *tokenReader {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // numbers are parsed here, as encoding/json would into the field's type
	return &tokenReader{dec: dec}
}

func (t *tokenReader) fail() { t.failed = true }

func (t *tokenReader) next() json.Token {
	if t.failed {
		return nil
	}
	tok, err := t.dec.Token()
	if err != nil {
		t.fail()
		return nil
	}
	return tok
}

// end reports whether the value was read in full, with nothing after it.
func (t *tokenReader) end() bool {
	if t.failed {
		return false
	}
	_, err := t.dec.Token()
	return errors.Is(err, io.EOF)
}

// object reads an object, calling member for each key; member must read
// the value. A repeated key fails: encoding/json merges repeats into a
// struct, which the plain shape leaves to it.
func (t *tokenReader) object(member func(key string)) {
	if d, ok := t.next().(json.Delim); !ok || d != '{' {
		t.fail()
		return
	}
	var seen []string
	for !t.failed && t.dec.More() {
		key, ok := t.next().(string)
		if !ok {
			t.fail()
			return
		}
		for _, k := range seen {
			if k == key {
				t.fail()
				return
			}
		}
		seen = append(seen, key)
		member(key)
	}
	if d, ok := t.next().(json.Delim); !ok || d != '}' {
		t.fail()
	}
}

func (t *tokenReader) str() string {
	s, ok := t.next().(string)
	if !ok {
		t.fail()
	}
	return s
}

func (t *tokenReader) bool() bool {
	b, ok := t.next().(bool)
	if !ok {
		t.fail()
	}
	return b
}

// int reads an integer that fits an int, written without a fraction or
// exponent (encoding/json refuses those for an int field).
func (t *tokenReader) int() int {
	n, ok := t.next().(json.Number)
	if !ok {
		t.fail()
		return 0
	}
	v, err := strconv.ParseInt(string(n), 10, strconv.IntSize)
	if err != nil {
		t.fail()
	}
	return int(v)
}

// id reads a JSON-RPC id as the connection decodes it: a string, or an
// integer that fits an int64 (a negative one fails here).
func (t *tokenReader) id() jsonrpc2.ID {
	switch v := t.next().(type) {
	case string:
		return jsonrpc2.ID{Str: v, IsString: true}
	case json.Number:
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil || n < 0 {
			t.fail()
		}
		return jsonrpc2.ID{Num: uint64(n)}
	}
	t.fail()
	return jsonrpc2.ID{}
}

func (t *tokenReader) clientCapabilities(c *ClientCapabilities) {
	t.object(func(key string) {
		switch key {
		case "fs":
			t.object(func(key string) {
				switch key {
				case "readTextFile":
					c.FS.ReadTextFile = t.bool()
				case "writeTextFile":
					c.FS.WriteTextFile = t.bool()
				default:
					t.fail()
				}
			})
		case "terminal":
			c.Terminal = t.bool()
		case "_meta":
			c.Meta = t.meta()
		default:
			t.fail()
		}
	})
}

func (t *tokenReader) implementation() *Implementation {
	var im Implementation
	t.object(func(key string) {
		switch key {
		case "name":
			im.Name = t.str()
		case "title":
			im.Title = t.str()
		case "version":
			im.Version = t.str()
		default:
			t.fail()
		}
	})
	return &im
}

// meta reads a _meta object as encoding/json decodes one into a Meta.
func (t *tokenReader) meta() Meta {
	m, ok := t.value(t.next()).(map[string]any)
	if !ok {
		t.fail()
	}
	return m
}

// value builds the value that starts with tok as encoding/json decodes it
// into an any: objects, arrays, strings, float64, bools and nil, the last
// of repeated keys winning.
func (t *tokenReader) value(tok json.Token) any {
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '{':
			m := map[string]any{}
			for !t.failed && t.dec.More() {
				key, ok := t.next().(string)
				if !ok {
					t.fail()
					return nil
				}
				m[key] = t.value(t.next())
			}
			t.next() // '}'
			return m
		case '[':
			a := []any{}
			for !t.failed && t.dec.More() {
				a = append(a, t.value(t.next()))
			}
			t.next() // ']'
			return a
		}
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			t.fail()
		}
		return f
	case string, bool, nil:
		return v
	}
	t.fail()
	return nil
}

// MarshalJSON writes what encoding/json writes for the response, without
// reflection when every string in it is printable ASCII that needs no
// escaping (TestInitializeResponseJSON); it is the first answer an editor
// waits for (see the top of this file).
func (r InitializeResponse) MarshalJSON() ([]byte, error) {
	if b, ok := r.appendPlain(make([]byte, 0, 512)); ok {
		return b, nil
	}
	type reflected InitializeResponse
	return json.Marshal(reflected(r))
}

func (InitializeResponse) compactJSON() {}

func (r InitializeResponse) appendPlain(b []byte) ([]byte, bool) {
	plain := true
	str := func(s string) {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
				plain = false
			}
		}
		b = append(b, '"')
		b = append(b, s...)
		b = append(b, '"')
	}
	boolean := func(key string, v bool, more bool) {
		b = append(b, '"')
		b = append(b, key...)
		b = append(b, `":`...)
		b = strconv.AppendBool(b, v)
		if more {
			b = append(b, ',')
		}
	}
	supported := func(key string, v *Supported) {
		if v == nil {
			return
		}
		if b[len(b)-1] != '{' {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, key...)
		b = append(b, `":{}`...)
	}
	c := r.AgentCapabilities
	b = append(b, `{"protocolVersion":`...)
	b = strconv.AppendInt(b, int64(r.ProtocolVersion), 10)
	b = append(b, `,"agentCapabilities":{`...)
	boolean("loadSession", c.LoadSession, true)
	b = append(b, `"promptCapabilities":{`...)
	boolean("image", c.PromptCapabilities.Image, true)
	boolean("audio", c.PromptCapabilities.Audio, true)
	boolean("embeddedContext", c.PromptCapabilities.EmbeddedContext, false)
	b = append(b, `},"mcpCapabilities":{`...)
	boolean("http", c.MCPCapabilities.HTTP, true)
	boolean("sse", c.MCPCapabilities.SSE, false)
	b = append(b, `},"sessionCapabilities":{`...)
	sc := c.SessionCapabilities
	supported("list", sc.List)
	supported("close", sc.Close)
	supported("resume", sc.Resume)
	supported("delete", sc.Delete)
	supported("additionalDirectories", sc.AdditionalDirectories)
	b = append(b, `}},"authMethods":`...)
	if r.AuthMethods == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, m := range r.AuthMethods {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"id":`...)
			str(m.ID)
			b = append(b, `,"name":`...)
			str(m.Name)
			if m.Description != "" {
				b = append(b, `,"description":`...)
				str(m.Description)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if a := r.AgentInfo; a != nil {
		b = append(b, `,"agentInfo":{"name":`...)
		str(a.Name)
		if a.Title != "" {
			b = append(b, `,"title":`...)
			str(a.Title)
		}
		b = append(b, `,"version":`...)
		str(a.Version)
		b = append(b, '}')
	}
	b = append(b, '}')
	return b, plain
}
