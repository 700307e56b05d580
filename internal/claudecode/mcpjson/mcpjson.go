package mcpjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Server is one MCP server definition.
type Server struct {
	Name string
	// Type is "stdio", "http" or "sse" (Claude Code's "streamable-http"
	// is read as "http").
	Type string
	// Command, Args and Env (NAME=value, sorted by name) start a stdio
	// server.
	Command string
	Args    []string
	Env     []string
	// URL and Headers (sorted by name) reach an http or sse server.
	URL     string
	Headers []Header
	// Definition is the entry as written, compacted: the identity under
	// which a user's approval of it is recorded (an edit of any field
	// makes it a new definition).
	Definition string
}

// Header is one HTTP header of an http or sse server.
type Header struct{ Name, Value string }

// File is a parsed set of servers.
type File struct {
	// Servers are sorted by name.
	Servers []Server
	// Problems are entries skipped, each naming where and which server.
	Problems []string
}

// Parse reads a file in the .mcp.json shape, {"mcpServers": {...}}. A
// file that is not a JSON object is an error; a bad entry is a problem
// and skipped; an empty file has no servers.
func Parse(where string, data []byte) (File, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return File{}, nil
	}
	// Keys are read exactly, as Claude Code (JavaScript) reads them: Go's
	// struct decoding would also take "MCPServers", which Claude Code
	// ignores.
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return File{}, fmt.Errorf("%s: not valid JSON: %v", where, err)
	}
	return ParseServers(where, top["mcpServers"])
}

// ParseServers reads the value of an mcpServers key: an object of
// servers by name (null or absent: none).
func ParseServers(where string, raw json.RawMessage) (File, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return File{}, nil
	}
	var byName map[string]json.RawMessage
	if err := json.Unmarshal(raw, &byName); err != nil {
		return File{}, fmt.Errorf("%s: \"mcpServers\" must be an object of servers by name", where)
	}
	var f File
	for name, entry := range byName {
		s, err := parseServer(name, entry)
		if err != nil {
			f.Problems = append(f.Problems, fmt.Sprintf("%s: MCP server %q: %v; skipped", where, name, err))
			continue
		}
		f.Servers = append(f.Servers, s)
	}
	sort.Slice(f.Servers, func(i, j int) bool { return f.Servers[i].Name < f.Servers[j].Name })
	sort.Strings(f.Problems)
	return f, nil
}

func parseServer(name string, raw json.RawMessage) (Server, error) {
	var e struct {
		Type    string            `json:"type"`
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		return Server{}, fmt.Errorf("not a server definition: %v", err)
	}
	if err := checkKeys(raw); err != nil {
		return Server{}, err
	}
	if strings.TrimSpace(name) == "" {
		return Server{}, fmt.Errorf("a server needs a name")
	}
	var def bytes.Buffer
	json.Compact(&def, raw)
	s := Server{Name: name, Type: e.Type, Command: e.Command, Args: e.Args, URL: e.URL, Definition: def.String()}
	if s.Type == "" {
		s.Type = "stdio"
		if e.Command == "" && e.URL != "" {
			s.Type = "http"
		}
	}
	switch s.Type {
	case "stdio":
		if strings.TrimSpace(e.Command) == "" {
			return Server{}, fmt.Errorf("a stdio server needs a \"command\"")
		}
	case "http", "streamable-http", "sse":
		if s.Type == "streamable-http" {
			s.Type = "http"
		}
		if strings.TrimSpace(e.URL) == "" {
			return Server{}, fmt.Errorf("an %s server needs a \"url\"", s.Type)
		}
	case "ws":
		return Server{}, fmt.Errorf("WebSocket servers (type ws) are not supported by cordis")
	default:
		return Server{}, fmt.Errorf("unknown type %q (valid: stdio, http, sse)", s.Type)
	}
	for _, k := range sortedKeys(e.Env) {
		s.Env = append(s.Env, k+"="+e.Env[k])
	}
	for _, k := range sortedKeys(e.Headers) {
		s.Headers = append(s.Headers, Header{Name: k, Value: e.Headers[k]})
	}
	return s, nil
}

// serverFields are the keys of a server definition cordis reads.
var serverFields = []string{"type", "command", "args", "env", "url", "headers"}

// checkKeys refuses a definition whose keys Go's decoder would read
// differently from what the user approved (the definition as written)
// and from what Claude Code runs: a field name in other letter case
// ("Command", which Go takes for "command" and JavaScript ignores, so
// {"command": "npx tool", "COMMAND": "sh"} would run sh), or a key given
// twice.
func checkKeys(raw json.RawMessage) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return err
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		if seen[key] {
			return fmt.Errorf("the key %q is given twice", key)
		}
		seen[key] = true
		for _, f := range serverFields {
			if key != f && strings.EqualFold(key, f) {
				return fmt.Errorf("the key %q is not %q (keys are case-sensitive)", key, f)
			}
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return err
		}
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Expand returns s with ${VAR} and ${VAR:-default} expanded, as Claude
// Code does, in its command, args, env values, url and header values.
// lookup gives a variable's value and whether it is set; the caller
// leaves out what no file may read (cordis: the provider keys). An unset
// variable without a default stays as written and is named in missing.
func (s Server) Expand(lookup func(string) (string, bool)) (_ Server, missing []string) {
	ex := func(v string) string {
		out, miss := expand(v, lookup)
		for _, m := range miss {
			if !slices.Contains(missing, m) {
				missing = append(missing, m)
			}
		}
		return out
	}
	s.Command = ex(s.Command)
	s.Args = slices.Clone(s.Args)
	for i := range s.Args {
		s.Args[i] = ex(s.Args[i])
	}
	s.Env = slices.Clone(s.Env)
	for i, kv := range s.Env {
		k, v, _ := strings.Cut(kv, "=")
		s.Env[i] = k + "=" + ex(v)
	}
	s.URL = ex(s.URL)
	s.Headers = slices.Clone(s.Headers)
	for i := range s.Headers {
		s.Headers[i].Value = ex(s.Headers[i].Value)
	}
	return s, missing
}

// expand expands ${VAR} and ${VAR:-default} in v, for Expand.
func expand(v string, lookup func(string) (string, bool)) (string, []string) {
	if !strings.Contains(v, "${") {
		return v, nil
	}
	var b strings.Builder
	var missing []string
	for {
		i := strings.Index(v, "${")
		if i < 0 {
			b.WriteString(v)
			return b.String(), missing
		}
		j := strings.IndexByte(v[i:], '}')
		if j < 0 {
			b.WriteString(v)
			return b.String(), missing
		}
		b.WriteString(v[:i])
		inner := v[i+2 : i+j]
		name, def, hasDef := strings.Cut(inner, ":-")
		switch val, ok := lookup(name); {
		case !validVar(name):
			b.WriteString(v[i : i+j+1])
		case ok:
			b.WriteString(val)
		case hasDef:
			b.WriteString(def)
		default:
			b.WriteString(v[i : i+j+1])
			missing = append(missing, name)
		}
		v = v[i+j+1:]
	}
}

func validVar(name string) bool {
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	for _, c := range []byte(name) {
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// User is what the user's ~/.claude.json says about MCP servers for one
// project: its top-level servers (Claude Code's user scope) and those of
// the project's entry (local scope, the user's own for that project).
type User struct {
	Servers, Local File
	// Project is the key of projects the local servers came from ("":
	// none).
	Project string
}

// ParseUser reads the mcpServers of ~/.claude.json: the top level, and
// the first of projects (absolute paths, the closest first) that has an
// entry in its "projects" object.
func ParseUser(where string, data []byte, projects []string) (User, error) {
	var u User
	if len(bytes.TrimSpace(data)) == 0 {
		return u, nil
	}
	// Keys are read exactly, as in Parse.
	var top struct {
		Servers  json.RawMessage
		Projects map[string]map[string]json.RawMessage
	}
	var keys map[string]json.RawMessage
	err := json.Unmarshal(data, &keys)
	if err == nil && keys["projects"] != nil {
		err = json.Unmarshal(keys["projects"], &top.Projects)
	}
	if err != nil {
		return u, fmt.Errorf("%s: not valid JSON: %v", where, err)
	}
	top.Servers = keys["mcpServers"]
	if u.Servers, err = ParseServers(where, top.Servers); err != nil {
		return u, err
	}
	for _, p := range projects {
		entry, ok := top.Projects[p]
		if !ok {
			continue
		}
		u.Project = p
		u.Local, err = ParseServers(fmt.Sprintf("%s: projects[%q]", where, p), entry["mcpServers"])
		return u, err
	}
	return u, nil
}

// Approvals are the settings keys with which Claude Code approves or
// rejects a project's .mcp.json servers ahead of its dialog.
type Approvals struct {
	// All is enableAllProjectMcpServers.
	All bool
	// Enabled and Disabled are enabledMcpjsonServers and
	// disabledMcpjsonServers.
	Enabled, Disabled []string
}

// ParseApprovals reads the approval keys of a settings file.
func ParseApprovals(data []byte) (Approvals, error) {
	var a struct {
		All      bool     `json:"enableAllProjectMcpServers"`
		Enabled  []string `json:"enabledMcpjsonServers"`
		Disabled []string `json:"disabledMcpjsonServers"`
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return Approvals{}, nil
	}
	if err := json.Unmarshal(data, &a); err != nil {
		return Approvals{}, err
	}
	return Approvals{All: a.All, Enabled: a.Enabled, Disabled: a.Disabled}, nil
}
