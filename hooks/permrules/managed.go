package permrules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/cordis-agent/cordis/internal/confine"
)

// Managed is an administrator's policy: Claude Code's managed settings
// (managed-settings.json, then every managed-settings.d/*.json in
// alphabetical order, merged as Claude Code merges them: a later file's
// scalar replaces, lists are concatenated without duplicates, objects
// merge key by key). Its rules are the user's own (no trust), it always
// applies, and its lock-down keys are honoured wherever cordis can.
type Managed struct {
	// Files are the files read, in merge order (empty: no policy).
	Files []string
	// Permissions are the merged permissions object.
	Permissions Permissions
	// RulesOnly (allowManagedPermissionRulesOnly): only the policy's
	// allow, ask and deny rules apply; "Always allow" is not offered.
	RulesOnly bool
	// HooksOnly (allowManagedHooksOnly): only the policy's hooks run.
	HooksOnly bool
	// DisableAllHooks (disableAllHooks in the policy): no hook runs, the
	// policy's included.
	DisableAllHooks bool
	// MCPAllowed and MCPDenied are the raw allowedMcpServers and
	// deniedMcpServers lists (nil when absent), which cmd/cordis applies
	// to every MCP server (internal/claudecode/mcpjson.Policy).
	MCPAllowed, MCPDenied json.RawMessage
	// Problems are files that could not be read or parsed, each naming
	// the file: such a file is left out, the others still apply.
	Problems []string
}

// Active reports whether a policy file was read.
func (m Managed) Active() bool { return len(m.Files) > 0 }

// HasRules reports whether the policy has permission rules or restricts
// them, so that switching the permission-rules hook off would lift it.
func (m Managed) HasRules() bool {
	p := m.Permissions
	return m.RulesOnly || len(p.Allow)+len(p.Ask)+len(p.Deny) > 0
}

// BypassDisabled reports whether the policy forbids bypassPermissions.
func (m Managed) BypassDisabled() bool { return m.Permissions.BypassDisabled() }

// Managed settings file names, in the policy folder.
const (
	managedFile   = "managed-settings.json"
	managedDropIn = "managed-settings.d"
)

// ManagedFiles lists the policy files of dir that exist, in merge order:
// managed-settings.json, then managed-settings.d/*.json sorted by name
// (hidden files and other extensions are ignored, as Claude Code does).
func ManagedFiles(dir string) []string {
	if dir == "" {
		return nil
	}
	var out []string
	main := filepath.Join(dir, managedFile)
	if fi, err := os.Stat(main); err == nil && !fi.IsDir() {
		out = append(out, main)
	}
	entries, err := os.ReadDir(filepath.Join(dir, managedDropIn))
	if err != nil {
		return out
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, ".") || !strings.HasSuffix(n, ".json") || e.IsDir() {
			continue
		}
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		out = append(out, filepath.Join(dir, managedDropIn, n))
	}
	return out
}

// ReadManaged reads and merges the policy files of dir. A file that cannot
// be read or is not a JSON object is a problem and is left out.
func ReadManaged(dir string) Managed {
	m := Managed{}
	merged := map[string]any{}
	for _, path := range ManagedFiles(dir) {
		data, err := confine.ReadRegularFile(path, maxSettingsFile)
		var doc map[string]any
		if err == nil {
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.UseNumber()
			err = dec.Decode(&doc)
			if err == nil && doc == nil {
				err = errors.New("not a JSON object")
			}
		}
		if err != nil {
			m.Problems = append(m.Problems, fmt.Sprintf("%s: %v; cordis leaves this policy file out", path, err))
			continue
		}
		m.Files = append(m.Files, path)
		mergeObject(merged, doc)
	}
	if len(m.Files) == 0 {
		return m
	}
	data, _ := json.Marshal(merged)
	var top struct {
		Permissions     json.RawMessage `json:"permissions"`
		RulesOnly       any             `json:"allowManagedPermissionRulesOnly"`
		HooksOnly       any             `json:"allowManagedHooksOnly"`
		DisableAllHooks any             `json:"disableAllHooks"`
		// disableBypassPermissionsMode belongs under permissions; a
		// policy that sets it at the top level means the same.
		DisableBypass any             `json:"disableBypassPermissionsMode"`
		MCPAllowed    json.RawMessage `json:"allowedMcpServers"`
		MCPDenied     json.RawMessage `json:"deniedMcpServers"`
	}
	json.Unmarshal(data, &top)
	m.MCPAllowed, m.MCPDenied = top.MCPAllowed, top.MCPDenied
	m.RulesOnly, m.HooksOnly, m.DisableAllHooks = top.RulesOnly == true, top.HooksOnly == true, top.DisableAllHooks == true
	if len(top.Permissions) > 0 {
		perms, problems := decodePermissions(top.Permissions)
		m.Permissions = perms
		for _, p := range problems {
			m.Problems = append(m.Problems, "managed settings: "+p)
		}
	}
	if top.DisableBypass == "disable" {
		m.Permissions.DisableBypassPermissionsMode = "disable"
	}
	return m
}

// mergeObject merges src into dst as Claude Code merges managed-settings.d
// files: objects key by key, lists concatenated without duplicates, any
// other value replaced.
func mergeObject(dst, src map[string]any) {
	for k, v := range src {
		switch sv := v.(type) {
		case map[string]any:
			if dv, ok := dst[k].(map[string]any); ok {
				mergeObject(dv, sv)
				continue
			}
		case []any:
			if dv, ok := dst[k].([]any); ok {
				for _, item := range sv {
					if !slices.ContainsFunc(dv, func(d any) bool { return sameJSON(d, item) }) {
						dv = append(dv, item)
					}
				}
				dst[k] = dv
				continue
			}
		}
		dst[k] = v
	}
}

func sameJSON(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// ManagedSource reads the policy of one folder, again only when one of its
// files changed (they are stat'ed at each Load: a policy deployed while
// cordis runs takes effect at the next call). Safe for concurrent use.
type ManagedSource struct {
	dir string

	mu   sync.Mutex
	sig  string
	last Managed
}

// NewManagedSource returns the policy of dir ("" : none).
func NewManagedSource(dir string) *ManagedSource { return &ManagedSource{dir: dir} }

// Dir is the policy folder ("" for none).
func (s *ManagedSource) Dir() string {
	if s == nil {
		return ""
	}
	return s.dir
}

// Load returns the policy as the files are now. A nil source has none.
func (s *ManagedSource) Load() Managed {
	if s == nil || s.dir == "" {
		return Managed{}
	}
	var sig strings.Builder
	for _, p := range ManagedFiles(s.dir) {
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		fmt.Fprintf(&sig, "%s\x00%d\x00%d\n", p, fi.Size(), fi.ModTime().UnixNano())
	}
	s.mu.Lock()
	if sig.String() == s.sig && s.sig != "" {
		m := s.last
		s.mu.Unlock()
		return m
	}
	s.mu.Unlock()
	m := ReadManaged(s.dir)
	s.mu.Lock()
	s.sig, s.last = sig.String(), m
	s.mu.Unlock()
	return m
}
