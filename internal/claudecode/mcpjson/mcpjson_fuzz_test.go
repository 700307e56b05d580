package mcpjson

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"
)

// FuzzParse reads arbitrary .mcp.json files and compares every server
// cordis would start with the file read as JavaScript reads it (keys
// exact, the last of a repeated key winning): the servers come from the
// exact "mcpServers" key; each has a name and a type it supports; its
// command, args, env, url and headers are exactly the fields of those
// names (a key that differs only in case, or a repeated key, skips the
// server); and its definition is the entry as written.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"mcpServers": {"local": {"command": "node", "args": ["s.js"], "env": {"B": "2", "A": "1"}}}}`,
		`{"mcpServers": {"remote": {"type": "streamable-http", "url": "https://h/mcp", "headers": {"Authorization": "Bearer x"}}}}`,
		`{"mcpServers": {"x": {"command": "npx tool", "COMMAND": "sh"}}}`,
		`{"mcpServers": {"x": {"command": "a", "command": "b"}}}`,
		`{"MCPSERVERS": {"x": {"command": "sh"}}}`,
		`{"mcpServers": {"a": {"command": "ok"}}, "mcpservers": {"b": {"command": "sh"}}}`,
		`{"mcpServers": {"sock": {"type": "ws", "url": "wss://h"}, "": {"command": "x"}}}`,
		`{"mcpServers": {"e": {"command": "x", "env": {"0": "0", "": "0"}}}}`,
		`{"mcpServers": null}`, `[]`, `{"mcpServers": []}`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(".mcp.json", data)
		if err != nil {
			return
		}
		var top map[string]json.RawMessage
		if len(file.Servers) > 0 {
			if json.Unmarshal(data, &top) != nil {
				t.Fatalf("servers from a file that is no JSON object: %q", data)
			}
		}
		var entries map[string]json.RawMessage
		json.Unmarshal(top["mcpServers"], &entries)
		for _, s := range file.Servers {
			raw, ok := entries[s.Name]
			if !ok {
				t.Fatalf("server %q is not in the exact \"mcpServers\" key of %q", s.Name, data)
			}
			checkAsJavaScriptReads(t, s, raw)
		}
		if !sort.SliceIsSorted(file.Servers, func(i, j int) bool { return file.Servers[i].Name < file.Servers[j].Name }) {
			t.Fatal("servers not sorted")
		}
	})
}

// checkAsJavaScriptReads compares a parsed server with its entry read
// with exact keys.
func checkAsJavaScriptReads(t *testing.T, s Server, raw json.RawMessage) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("server %q from an entry that is not an object: %s", s.Name, raw)
	}
	var def map[string]any
	if json.Unmarshal([]byte(s.Definition), &def) != nil || fmt.Sprint(def) != fmt.Sprint(m) {
		t.Fatalf("server %q: definition %s is not the entry %s", s.Name, s.Definition, raw)
	}
	for k := range m {
		for _, field := range serverFields {
			if k != field && strings.EqualFold(k, field) {
				t.Fatalf("server %q kept with the key %q beside %q", s.Name, k, field)
			}
		}
	}
	str := func(k string) string { v, _ := m[k].(string); return v }
	if strings.TrimSpace(s.Name) == "" {
		t.Fatalf("a server without a name: %s", raw)
	}
	if !slices.Contains([]string{"stdio", "http", "sse"}, s.Type) {
		t.Fatalf("server %q has type %q", s.Name, s.Type)
	}
	if s.Command != str("command") || s.URL != str("url") {
		t.Fatalf("server %q: command %q url %q, but the entry says %q and %q", s.Name, s.Command, s.URL, str("command"), str("url"))
	}
	var args []string
	if a, ok := m["args"].([]any); ok {
		for _, x := range a {
			s, _ := x.(string) // null reads as ""
			args = append(args, s)
		}
	}
	if !slices.Equal(s.Args, args) {
		t.Fatalf("server %q: args %q, the entry says %q", s.Name, s.Args, args)
	}
	pairs := func(k string) []string {
		obj, _ := m[k].(map[string]any)
		var out []string
		for _, name := range slices.Sorted(maps.Keys(obj)) {
			s, _ := obj[name].(string)
			out = append(out, name+"="+s)
		}
		return out
	}
	var headers []string // sorted by name
	for _, h := range s.Headers {
		headers = append(headers, h.Name+"="+h.Value)
	}
	if !slices.Equal(s.Env, pairs("env")) || !slices.Equal(headers, pairs("headers")) {
		t.Fatalf("server %q: env %q headers %q, the entry says %q and %q", s.Name, s.Env, headers, pairs("env"), pairs("headers"))
	}
}

// FuzzExpand expands arbitrary text with ${VAR} and ${VAR:-default}
// against an environment where one variable is withheld (as cordis
// withholds the provider keys): its value never appears (not even
// through a variable whose value names it), a missing name is one the
// text names, and every field expands alike.
func FuzzExpand(f *testing.F) {
	for _, s := range []string{"${SHOWN}", "${HIDDEN}", "${HIDDEN:-d}", "${NESTED}", "a${SHOWN:-x}b${UNSET}c", "${", "${}", "${bad name}", "$HIDDEN", "${SHOWN:-${HIDDEN}}"} {
		f.Add(s)
	}
	const secret = "\x01hidden-value"
	env := map[string]string{"HIDDEN": secret, "SHOWN": "shown", "NESTED": "${HIDDEN}"}
	lookup := func(k string) (string, bool) {
		if k == "HIDDEN" {
			return "", false
		}
		v, ok := env[k]
		return v, ok
	}
	f.Fuzz(func(t *testing.T, v string) {
		if strings.Contains(v, "\x01") {
			return
		}
		out, missing := expand(v, lookup)
		if strings.Contains(out, "\x01") {
			t.Fatalf("expand(%q) = %q: the withheld value leaked", v, out)
		}
		for _, m := range missing {
			if !strings.Contains(v, "${"+m) || !validVar(m) {
				t.Fatalf("expand(%q): missing %q is not a variable the text names", v, m)
			}
		}
		s := Server{Name: "x", Command: v, Args: []string{v}, Env: []string{"K=" + v}, URL: v, Headers: []Header{{"H", v}}}
		got, _ := s.Expand(lookup)
		if got.Command != out || got.Args[0] != out || got.Env[0] != "K="+out || got.URL != out || got.Headers[0].Value != out {
			t.Fatalf("Expand of %q differs between fields: %+v", v, got)
		}
	})
}
