package mcptest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// Environment variables read by the stdio server.
const (
	// EnvServe makes ServeIfRequested run the server ("1").
	EnvServe = "CORDIS_MCPTEST"
	// EnvMode selects a behaviour: "" (normal), "silent" (reads, never
	// answers; exits at end of input), "exit" (writes to stderr and exits 2
	// at once) or "noisy" (normal, but each answer follows lines that are
	// not MCP messages: not JSON, JSON that is no JSON-RPC message, and an
	// answer to a request never made), "elicit" (normal, plus the tools
	// ask, ask_url, ask_bad and caps: ask sends elicitation/create and
	// returns the answer, ask_url does so in URL mode and, once accepted,
	// notifies its completion (and that of an id never asked), ask_bad
	// sends a malformed one, caps returns the client's initialize
	// capabilities), "big" (normal, plus the tool big, which returns
	// blocks text blocks of bytes bytes each, ending in BigEnd).
	EnvMode = "CORDIS_MCPTEST_MODE"
	// EnvPIDFile names a file the server appends its pid to (and the pid
	// of its child, with EnvChild).
	EnvPIDFile = "CORDIS_MCPTEST_PIDFILE"
	// EnvChild=1 starts a long sleep in the server's process group.
	EnvChild = "CORDIS_MCPTEST_CHILD"
	// EnvCallLog names a file the server appends each tools/call name to.
	EnvCallLog = "CORDIS_MCPTEST_CALLLOG"
)

// Env returns the environment entries that make a re-executed test binary
// the stdio server in mode. (A race-enabled binary would otherwise sleep a
// second before it exits.)
func Env(mode string) []string {
	return []string{EnvServe + "=1", EnvMode + "=" + mode, "GORACE=atexit_sleep_ms=0"}
}

// ServeIfRequested runs the stdio server on stdin/stdout and exits when
// EnvServe is set; otherwise it returns at once.
func ServeIfRequested() {
	if os.Getenv(EnvServe) != "1" {
		return
	}
	os.Exit(Serve(os.Stdin, os.Stdout, os.Stderr))
}

// Serve runs the stdio server until its input ends and returns an exit
// code.
func Serve(in io.Reader, out, errOut io.Writer) int {
	if path := os.Getenv(EnvPIDFile); path != "" {
		appendLine(path, strconv.Itoa(os.Getpid()))
		if os.Getenv(EnvChild) == "1" {
			child := exec.Command("sleep", "1000")
			if err := child.Start(); err == nil {
				appendLine(path, strconv.Itoa(child.Process.Pid))
			}
		}
	}
	switch os.Getenv(EnvMode) {
	case "exit":
		fmt.Fprintln(errOut, "mcptest: missing credentials, giving up")
		return 2
	case "silent":
		io.Copy(io.Discard, in)
		return 0
	}
	mode := os.Getenv(EnvMode)
	s := &stdioServer{out: out, errOut: errOut, noisy: mode == "noisy", elicit: mode == "elicit", big: mode == "big", pending: map[string]chan message{}}
	return s.run(in)
}

func appendLine(path, line string) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}

type stdioServer struct {
	out    io.Writer
	errOut io.Writer
	noisy  bool
	elicit bool
	big    bool
	wmu    sync.Mutex

	mu      sync.Mutex
	extra   bool // add_tool was called
	caps    json.RawMessage
	nextID  int
	pending map[string]chan message // requests of the server, by id
}

type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

func (s *stdioServer) run(in io.Reader) int {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var m message
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			fmt.Fprintf(s.errOut, "mcptest: bad line: %v\n", err)
			continue
		}
		if m.Method == "" && len(m.ID) > 0 {
			s.mu.Lock()
			ch := s.pending[string(m.ID)]
			delete(s.pending, string(m.ID))
			s.mu.Unlock()
			if ch != nil {
				ch <- m
			}
			continue
		}
		if m.Method == "" || len(m.ID) == 0 {
			continue // a notification
		}
		if m.Method == "tools/call" {
			go s.call(m) // calls may hang; the others go on
			continue
		}
		s.handle(m)
	}
	return 0
}

func (s *stdioServer) write(v any) {
	b, _ := json.Marshal(v)
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.out.Write(append(b, '\n'))
}

func (s *stdioServer) reply(id json.RawMessage, result any) {
	if s.noisy {
		s.wmu.Lock()
		io.WriteString(s.out, "mcptest: this line is not JSON\n{\"jsonrpc\":\"2.0\"}\n{\"jsonrpc\":\"2.0\",\"id\":4242,\"result\":{}}\n")
		s.wmu.Unlock()
	}
	s.write(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (s *stdioServer) replyError(id json.RawMessage, code int, msg string) {
	s.write(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
}

func (s *stdioServer) handle(m message) {
	switch m.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string          `json:"protocolVersion"`
			Capabilities    json.RawMessage `json:"capabilities"`
		}
		json.Unmarshal(m.Params, &p)
		s.mu.Lock()
		s.caps = p.Capabilities
		s.mu.Unlock()
		version := p.ProtocolVersion
		if version == "" {
			version = "2025-06-18"
		}
		s.reply(m.ID, map[string]any{
			"protocolVersion": version,
			"capabilities":    map[string]any{"tools": map[string]any{"listChanged": true}, "prompts": map[string]any{"listChanged": true}},
			"serverInfo":      map[string]any{"name": "mcptest", "version": "1"},
		})
	case "ping":
		s.reply(m.ID, map[string]any{})
	case "tools/list":
		s.reply(m.ID, map[string]any{"tools": s.toolList()})
	case "prompts/list":
		s.reply(m.ID, map[string]any{"prompts": []any{
			map[string]any{"name": "review", "description": "Review a pull request", "arguments": []any{
				map[string]any{"name": "repo", "required": true},
				map[string]any{"name": "pr", "required": true},
				map[string]any{"name": "focus"},
			}},
		}})
	case "prompts/get":
		var p struct {
			Name      string            `json:"name"`
			Arguments map[string]string `json:"arguments"`
		}
		json.Unmarshal(m.Params, &p)
		if p.Name != "review" {
			s.replyError(m.ID, -32602, "unknown prompt "+p.Name)
			return
		}
		text := fmt.Sprintf("Review pull request %s of %s.", p.Arguments["pr"], p.Arguments["repo"])
		if f := p.Arguments["focus"]; f != "" {
			text += " Focus on " + f + "."
		}
		s.reply(m.ID, map[string]any{"messages": []any{
			map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": text}},
		}})
	default:
		s.replyError(m.ID, -32601, "method not found: "+m.Method)
	}
}

func schema(props map[string]any, required ...string) map[string]any {
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

var str = map[string]any{"type": "string"}

func (s *stdioServer) toolList() []any {
	list := []any{
		map[string]any{"name": "echo", "title": "Echo", "description": "Echoes its text.", "inputSchema": schema(map[string]any{"text": map[string]any{"type": "string", "description": "What to echo"}}, "text"),
			"annotations": map[string]any{"readOnlyHint": true}},
		map[string]any{"name": "env", "description": "Reads an environment variable.", "inputSchema": schema(map[string]any{"name": str}, "name"),
			"annotations": map[string]any{"readOnlyHint": true}},
		map[string]any{"name": "write_note", "description": "Writes a note.", "inputSchema": schema(map[string]any{"note": str}, "note"),
			"annotations": map[string]any{"readOnlyHint": false, "destructiveHint": true}},
		map[string]any{"name": "mixed", "description": "Returns several kinds of content.", "inputSchema": schema(map[string]any{})},
		map[string]any{"name": "structured", "description": "Returns structured content only.", "inputSchema": schema(map[string]any{})},
		map[string]any{"name": "fail", "description": "Fails as a tool.", "inputSchema": schema(map[string]any{})},
		map[string]any{"name": "crash", "description": "Exits the server.", "inputSchema": schema(map[string]any{})},
		map[string]any{"name": "hang", "description": "Never answers.", "inputSchema": schema(map[string]any{})},
		map[string]any{"name": "add_tool", "description": "Adds the tool extra.", "inputSchema": schema(map[string]any{})},
		map[string]any{"name": "odd name/with.dots", "description": "A name that needs normalizing.", "inputSchema": map[string]any{"properties": map[string]any{}}},
	}
	if s.elicit {
		list = append(list,
			map[string]any{"name": "ask", "description": "Asks the user through elicitation/create.", "inputSchema": schema(map[string]any{"message": str})},
			map[string]any{"name": "ask_url", "description": "Asks the user to open a URL (elicitation/create in URL mode).", "inputSchema": schema(map[string]any{"url": str})},
			map[string]any{"name": "ask_bad", "description": "Sends a malformed elicitation/create.", "inputSchema": schema(map[string]any{})},
			map[string]any{"name": "caps", "description": "Returns the client's capabilities.", "inputSchema": schema(map[string]any{})})
	}
	if s.big {
		list = append(list, map[string]any{"name": "big", "description": "Returns a large text result.", "inputSchema": schema(map[string]any{"bytes": str, "blocks": str})})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.extra {
		list = append(list, map[string]any{"name": "extra", "description": "Added at run time.", "inputSchema": schema(map[string]any{})})
	}
	return list
}

func text(t string) map[string]any { return map[string]any{"type": "text", "text": t} }

func (s *stdioServer) call(m message) {
	var p struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}
	json.Unmarshal(m.Params, &p)
	if path := os.Getenv(EnvCallLog); path != "" {
		appendLine(path, p.Name)
	}
	result := func(content []any, isError bool) {
		s.reply(m.ID, map[string]any{"content": content, "isError": isError})
	}
	switch p.Name {
	case "echo":
		result([]any{text("echo: " + p.Arguments["text"])}, false)
	case "env":
		result([]any{text(os.Getenv(p.Arguments["name"]))}, false)
	case "write_note":
		result([]any{text("noted: " + p.Arguments["note"])}, false)
	case "mixed":
		result([]any{
			text("first"),
			map[string]any{"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="},
			map[string]any{"type": "resource_link", "uri": "file:///tmp/x.txt", "name": "x.txt"},
			map[string]any{"type": "resource", "resource": map[string]any{"uri": "mem://note", "mimeType": "text/plain", "text": "embedded text"}},
			text("last"),
		}, false)
	case "structured":
		s.reply(m.ID, map[string]any{"content": []any{}, "structuredContent": map[string]any{"answer": 42}})
	case "fail":
		result([]any{text("it failed")}, true)
	case "crash":
		fmt.Fprintln(s.errOut, "mcptest: crashing on purpose")
		os.Exit(3)
	case "hang":
		select {}
	case "add_tool":
		s.mu.Lock()
		s.extra = true
		s.mu.Unlock()
		// The notification goes out before the result, as a server that
		// changes its tools while handling a call would send it.
		s.write(map[string]any{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
		result([]any{text("added extra")}, false)
	case "extra":
		result([]any{text("extra ran")}, false)
	case "big":
		size, _ := strconv.Atoi(p.Arguments["bytes"])
		blocks, _ := strconv.Atoi(p.Arguments["blocks"])
		var content []any
		for range max(blocks, 1) {
			content = append(content, text(bigText(size)))
		}
		result(content, false)
	case "ask":
		msg := p.Arguments["message"]
		if msg == "" {
			msg = "Which name?"
		}
		result([]any{text(s.ask(map[string]any{"mode": "form", "message": msg, "requestedSchema": schema(map[string]any{
			"name":  map[string]any{"type": "string", "title": "Name"},
			"count": map[string]any{"type": "integer", "minimum": 1},
		}, "name")}))}, false)
	case "ask_url":
		u := p.Arguments["url"]
		if u == "" {
			u = "https://auth.example.test/connect?state=mcptest"
		}
		s.mu.Lock()
		id := fmt.Sprintf("connect-%d", s.nextID+1)
		s.mu.Unlock()
		answer := s.ask(map[string]any{"mode": "url", "message": "Connect your account", "url": u, "elicitationId": id})
		if strings.Contains(answer, `"accept"`) {
			// The user finished on the page: the completion goes out
			// before the result, and one for an id never asked, which the
			// client must ignore.
			for _, done := range []string{"never-asked", id} {
				s.write(map[string]any{"jsonrpc": "2.0", "method": "notifications/elicitation/complete", "params": map[string]any{"elicitationId": done}})
			}
		}
		result([]any{text(answer)}, false)
	case "ask_bad":
		result([]any{text(s.ask(map[string]any{"message": "Bad schema", "requestedSchema": "not an object"}))}, false)
	case "caps":
		s.mu.Lock()
		caps := string(s.caps)
		s.mu.Unlock()
		result([]any{text(caps)}, false)
	default:
		s.replyError(m.ID, -32602, "unknown tool "+p.Name)
	}
}

// ask sends elicitation/create with params, waits for the client's answer
// and describes it: "result: {...}" or "error: {...}".
func (s *stdioServer) ask(params map[string]any) string {
	s.mu.Lock()
	s.nextID++
	id := fmt.Sprintf(`"elicit-%d"`, s.nextID)
	ch := make(chan message, 1)
	s.pending[id] = ch
	s.mu.Unlock()
	s.write(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": "elicitation/create", "params": params})
	m := <-ch
	if len(m.Error) > 0 {
		return "error: " + string(m.Error)
	}
	return "result: " + string(m.Result)
}

// BigEnd ends each block of the big tool's result: a test sees whether
// the block reached the model whole.
const BigEnd = "END-OF-BIG-BLOCK"

// bigText is size bytes of lines of text (at least BigEnd), ending in
// BigEnd.
func bigText(size int) string {
	const line = "0123456789 the quick brown fox jumps over the lazy dog\n"
	n := max(size-len(BigEnd), 0)
	return strings.Repeat(line, n/len(line)+1)[:n] + BigEnd
}
