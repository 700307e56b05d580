package codexsetup

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// Config is what cordis reads of a Codex config.toml besides its hooks
// (bridge/codex reads those): its [mcp_servers.<name>] tables, and the
// projects it marks trusted ([projects."<path>"] trust_level).
type Config struct {
	Path string
	// servers are the [mcp_servers.<name>] tables as decoded.
	servers map[string]map[string]any
	// trust is trust_level by project path.
	trust map[string]string
	// Problems are entries of the file that were skipped.
	Problems []string
}

// ParseConfig reads a config.toml. A file that is not valid TOML is an
// error (with its line and column); an [mcp_servers] entry that is not a
// table is a problem and skipped.
func ParseConfig(path string, data []byte) (Config, error) {
	c := Config{Path: path, servers: map[string]map[string]any{}, trust: map[string]string{}}
	// Keys are read exactly, as Codex (serde) reads them: go-toml's
	// struct decoding would also take [MCP_SERVERS] or [Projects."/x"],
	// which Codex ignores.
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, col := de.Position()
			return c, fmt.Errorf("%s:%d:%d: %s (not a valid config.toml)", path, line, col, strings.TrimPrefix(err.Error(), "toml: "))
		}
		return c, fmt.Errorf("%s: %v (not a valid config.toml)", path, err)
	}
	servers, ok := doc["mcp_servers"].(map[string]any)
	if !ok && doc["mcp_servers"] != nil {
		c.Problems = append(c.Problems, fmt.Sprintf("%s: mcp_servers must be a table; skipped", path))
	}
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		t, ok := servers[name].(map[string]any)
		if !ok {
			c.Problems = append(c.Problems, fmt.Sprintf("%s: mcp_servers.%s must be a table; skipped", path, name))
			continue
		}
		c.servers[name] = t
	}
	projects, _ := doc["projects"].(map[string]any)
	for p, v := range projects {
		if t, ok := v.(map[string]any); ok {
			if level, ok := t["trust_level"].(string); ok {
				c.trust[filepath.Clean(p)] = level
			}
		}
	}
	return c, nil
}

// ServerNames are the names of the file's servers, sorted.
func (c Config) ServerNames() []string { return slices.Sorted(maps.Keys(c.servers)) }

// Has reports whether the file defines a server named name.
func (c Config) Has(name string) bool { _, ok := c.servers[name]; return ok }

// Definition is the server's table as written, as compact JSON with
// sorted keys ("" when the file has none of that name): the identity
// under which a user's approval of it is recorded.
func (c Config) Definition(name string) string {
	t, ok := c.servers[name]
	if !ok {
		return ""
	}
	data, err := json.Marshal(t)
	if err != nil {
		return fmt.Sprint(t) // NaN and infinities have no JSON; the table printed (keys sorted) still names it
	}
	return string(data)
}

// Trusts reports whether the file marks any of dirs a trusted project
// (trust_level = "trusted"), as Codex's own project trust does.
func (c Config) Trusts(dirs ...string) bool {
	for _, d := range dirs {
		if d != "" && c.trust[filepath.Clean(d)] == "trusted" {
			return true
		}
	}
	return false
}

// MCPServer is one Codex MCP server definition.
type MCPServer struct {
	Name string
	// Command, Args, Env (NAME=value, sorted by name), EnvVars (names of
	// variables to pass on from cordis's environment) and Cwd start a
	// stdio server.
	Command string
	Args    []string
	Env     []string
	EnvVars []string
	Cwd     string
	// URL reaches a streamable HTTP server, with Headers (sorted by
	// name), EnvHeaders (a header's value read from the named variable)
	// and BearerTokenEnvVar (the variable whose value is sent as
	// "Authorization: Bearer <value>").
	URL               string
	Headers           []Header
	EnvHeaders        []Header
	BearerTokenEnvVar string
	// Enabled is false for `enabled = false`: the server is not started.
	Enabled bool
	// Required is `required = true` (Codex's `codex exec` stops when such
	// a server fails to start).
	Required bool
	// StartupTimeout and ToolTimeout are startup_timeout_sec (or
	// startup_timeout_ms) and tool_timeout_sec; 0 when not set.
	StartupTimeout, ToolTimeout time.Duration
	// EnabledTools, when not nil, are the only tools offered;
	// DisabledTools are never offered, even when enabled.
	EnabledTools, DisabledTools []string
}

// Header is one HTTP header: its name and value (for EnvHeaders, the
// variable holding the value).
type Header struct{ Name, Value string }

// Server reads the server name from the given files, lowest precedence
// first (the user's config.toml, then the project's): their tables are
// merged key by key, a table's keys recursively, as Codex merges its
// configuration layers, and the result is read as Codex reads a server.
// A file without the name adds nothing.
func Server(name string, layers ...Config) (MCPServer, error) {
	merged := map[string]any{}
	for _, l := range layers {
		if t, ok := l.servers[name]; ok {
			merged = mergeTables(merged, t)
		}
	}
	return parseServer(name, merged)
}

// mergeTables returns over laid on base: a key's table merges with the
// base's, any other value replaces it.
func mergeTables(base, over map[string]any) map[string]any {
	out := maps.Clone(base)
	for k, v := range over {
		if vt, ok := v.(map[string]any); ok {
			if bt, ok := out[k].(map[string]any); ok {
				out[k] = mergeTables(bt, vt)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// rawServer is a server table's fields; nil is "not set".
type rawServer struct {
	Command           *string           `json:"command"`
	Args              []string          `json:"args"`
	Env               map[string]string `json:"env"`
	EnvVars           []string          `json:"env_vars"`
	Cwd               *string           `json:"cwd"`
	HTTPHeaders       map[string]string `json:"http_headers"`
	EnvHTTPHeaders    map[string]string `json:"env_http_headers"`
	URL               *string           `json:"url"`
	BearerToken       *string           `json:"bearer_token"`
	BearerTokenEnvVar *string           `json:"bearer_token_env_var"`
	StartupTimeoutSec *float64          `json:"startup_timeout_sec"`
	StartupTimeoutMs  *float64          `json:"startup_timeout_ms"`
	ToolTimeoutSec    *float64          `json:"tool_timeout_sec"`
	Enabled           *bool             `json:"enabled"`
	Required          *bool             `json:"required"`
	EnabledTools      []string          `json:"enabled_tools"`
	DisabledTools     []string          `json:"disabled_tools"`
	OAuthResource     *string           `json:"oauth_resource"`
}

// parseServer reads a merged table as Codex does: `command` makes a
// stdio server and `url` a streamable HTTP one, and a field of the other
// transport is an error; keys Codex does not know are ignored.
func parseServer(name string, t map[string]any) (MCPServer, error) {
	// Go's decoder below matches keys in any letter case; Codex's only
	// exactly, so "Command" or "ARGS" would be read where Codex ignores
	// them.
	fields := reflect.TypeFor[rawServer]()
	for k := range t {
		for i := range fields.NumField() {
			if f := fields.Field(i).Tag.Get("json"); k != f && strings.EqualFold(k, f) {
				return MCPServer{}, fmt.Errorf("the key %q is not %q (keys are case-sensitive)", k, f)
			}
		}
	}
	data, err := json.Marshal(t)
	if err != nil {
		return MCPServer{}, err
	}
	var r rawServer
	if err := json.Unmarshal(data, &r); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return MCPServer{}, fmt.Errorf("%s must be %s, not a %s", te.Field, typeName(te.Type.String()), te.Value)
		}
		return MCPServer{}, err
	}
	s := MCPServer{Name: name, Enabled: r.Enabled == nil || *r.Enabled, Required: r.Required != nil && *r.Required,
		EnabledTools: r.EnabledTools, DisabledTools: r.DisabledTools}
	if r.EnabledTools != nil && len(r.EnabledTools) == 0 {
		s.EnabledTools = []string{}
	}
	notFor := func(transport string, fields map[string]bool) error {
		for _, f := range slices.Sorted(maps.Keys(fields)) {
			if fields[f] {
				return fmt.Errorf("%s is not supported for a %s server", f, transport)
			}
		}
		return nil
	}
	switch {
	case r.Command != nil:
		if err := notFor("stdio", map[string]bool{"url": r.URL != nil, "bearer_token_env_var": r.BearerTokenEnvVar != nil, "bearer_token": r.BearerToken != nil,
			"http_headers": r.HTTPHeaders != nil, "env_http_headers": r.EnvHTTPHeaders != nil, "oauth_resource": r.OAuthResource != nil}); err != nil {
			return MCPServer{}, err
		}
		if strings.TrimSpace(*r.Command) == "" {
			return MCPServer{}, fmt.Errorf("command is empty")
		}
		s.Command, s.Args, s.EnvVars = *r.Command, r.Args, r.EnvVars
		if r.Cwd != nil {
			s.Cwd = *r.Cwd
		}
		for _, k := range slices.Sorted(maps.Keys(r.Env)) {
			s.Env = append(s.Env, k+"="+r.Env[k])
		}
	case r.URL != nil:
		if err := notFor("streamable HTTP", map[string]bool{"args": r.Args != nil, "env": r.Env != nil, "env_vars": r.EnvVars != nil,
			"cwd": r.Cwd != nil, "bearer_token (use bearer_token_env_var)": r.BearerToken != nil}); err != nil {
			return MCPServer{}, err
		}
		s.URL = *r.URL
		if r.BearerTokenEnvVar != nil {
			s.BearerTokenEnvVar = *r.BearerTokenEnvVar
		}
		for _, k := range slices.Sorted(maps.Keys(r.HTTPHeaders)) {
			s.Headers = append(s.Headers, Header{k, r.HTTPHeaders[k]})
		}
		for _, k := range slices.Sorted(maps.Keys(r.EnvHTTPHeaders)) {
			s.EnvHeaders = append(s.EnvHeaders, Header{k, r.EnvHTTPHeaders[k]})
		}
	default:
		return MCPServer{}, fmt.Errorf("a server needs a command (stdio) or a url (streamable HTTP)")
	}
	var err2 error
	if s.StartupTimeout, err2 = seconds("startup_timeout_sec", r.StartupTimeoutSec, 1); err2 != nil {
		return MCPServer{}, err2
	}
	if s.StartupTimeout == 0 {
		if s.StartupTimeout, err2 = seconds("startup_timeout_ms", r.StartupTimeoutMs, 1e-3); err2 != nil {
			return MCPServer{}, err2
		}
	}
	if s.ToolTimeout, err2 = seconds("tool_timeout_sec", r.ToolTimeoutSec, 1); err2 != nil {
		return MCPServer{}, err2
	}
	return s, nil
}

// maxTimeout bounds a timeout read from a file (a week).
const maxTimeout = 7 * 24 * time.Hour

// seconds reads a timeout given in units of unit seconds (nil: 0).
func seconds(field string, v *float64, unit float64) (time.Duration, error) {
	if v == nil {
		return 0, nil
	}
	secs := *v * unit
	if math.IsNaN(secs) || secs <= 0 || secs > maxTimeout.Seconds() {
		return 0, fmt.Errorf("%s must be a positive number of at most a week", field)
	}
	return time.Duration(secs * float64(time.Second)), nil
}

func typeName(goType string) string {
	switch {
	case strings.HasPrefix(goType, "[]"):
		return "an array of strings"
	case strings.HasPrefix(goType, "map["):
		return "a table of strings"
	case strings.Contains(goType, "float"):
		return "a number"
	case strings.Contains(goType, "bool"):
		return "a boolean"
	}
	return "a string"
}
