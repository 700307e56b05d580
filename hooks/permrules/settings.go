package permrules

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cordis-agent/cordis/internal/confine"
	"github.com/cordis-agent/cordis/internal/setup"
)

// Files are where permission rules are kept on disk, each list highest
// precedence first (cmd/cordis gives Claude Code's layout). Only a list's
// project sources are the project's; the user's need no trust.
type Files struct {
	// Settings are the settings files whose permissions object applies.
	Settings []setup.Source
	// Local is the project settings file, relative to the project
	// directory, where "Always allow" answers are saved.
	Local string
	// Commands and Skills are the folders of command files and the skill
	// roots (<root>/<name>/SKILL.md) whose allowed-tools need trust.
	Commands, Skills []setup.Source
	// Sandbox is a sandbox block of the user's besides their settings
	// files (cordis.yml's agent.sandbox): it lies above them, below the
	// project's files and the policy.
	Sandbox SandboxLayer
}

// SandboxLayer is a `sandbox` block as JSON, and where it was written.
type SandboxLayer struct {
	Block []byte
	From  string
}

// Permissions is the permissions object of a Claude Code settings file.
type Permissions struct {
	Allow []string `json:"allow"`
	Ask   []string `json:"ask"`
	Deny  []string `json:"deny"`
	// DefaultMode is the permission mode sessions start in ("": unset).
	DefaultMode string `json:"defaultMode"`
	// AdditionalDirectories are directories the file tools may use
	// besides the session's.
	AdditionalDirectories []string `json:"additionalDirectories"`
	// DisableBypassPermissionsMode is "disable" to forbid
	// bypassPermissions.
	DisableBypassPermissionsMode string `json:"disableBypassPermissionsMode"`
}

// BypassDisabled reports whether the file forbids bypassPermissions.
func (p Permissions) BypassDisabled() bool { return p.DisableBypassPermissionsMode == "disable" }

// ParsePermissions reads the permissions object of a settings file's
// content; a file without one has no rules.
func ParsePermissions(data []byte) (Permissions, error) {
	var doc struct {
		Permissions json.RawMessage `json:"permissions"`
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return Permissions{}, nil
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return Permissions{}, err
	}
	if len(doc.Permissions) == 0 {
		return Permissions{}, nil
	}
	perms, problems := decodePermissions(doc.Permissions)
	// A rule list of the wrong type fails the file, as before; a mistyped
	// scalar key costs that key only (SessionSettings reports it).
	var ruleProblems []string
	for _, p := range problems {
		if strings.HasPrefix(p, "permissions.allow ") || strings.HasPrefix(p, "permissions.ask ") || strings.HasPrefix(p, "permissions.deny ") || !strings.HasPrefix(p, "permissions.") {
			ruleProblems = append(ruleProblems, p)
		}
	}
	if len(ruleProblems) > 0 {
		return perms, errors.New(strings.Join(ruleProblems, "; "))
	}
	return perms, nil
}

// decodePermissions reads a permissions object key by key, so that one
// mistyped key (a defaultMode that is a number) costs that key only; each
// such key is a problem. Unknown keys are ignored, as Claude Code does.
func decodePermissions(raw json.RawMessage) (Permissions, []string) {
	var keys map[string]json.RawMessage
	if string(bytes.TrimSpace(raw)) == "null" {
		return Permissions{}, nil
	}
	if err := json.Unmarshal(raw, &keys); err != nil {
		return Permissions{}, []string{"permissions is not an object"}
	}
	var p Permissions
	var problems []string
	field := func(name string, into any) {
		v, ok := keys[name]
		if !ok || string(bytes.TrimSpace(v)) == "null" {
			return
		}
		if err := json.Unmarshal(v, into); err != nil {
			problems = append(problems, fmt.Sprintf("permissions.%s has the wrong type (%v)", name, err))
		}
	}
	field("allow", &p.Allow)
	field("ask", &p.Ask)
	field("deny", &p.Deny)
	field("defaultMode", &p.DefaultMode)
	field("additionalDirectories", &p.AdditionalDirectories)
	field("disableBypassPermissionsMode", &p.DisableBypassPermissionsMode)
	return p, problems
}

// ReadProjectFile reads the settings file rel of the project at dir. It is
// opened through an os.Root on dir, so a settings folder or file that is a
// symbolic link out of the project is refused rather than followed.
func ReadProjectFile(dir, rel string) ([]byte, fs.FileInfo, error) {
	dirs := confine.New(dir)
	defer dirs.Close()
	p, err := dirs.Locate(filepath.Join(dir, rel))
	if err != nil {
		return nil, nil, err
	}
	// Open refuses a FIFO or device without waiting on it.
	f, err := p.Open()
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSettingsFile+1))
	if err == nil && len(data) > maxSettingsFile {
		err = fmt.Errorf("%s is larger than %d bytes", p, maxSettingsFile)
	}
	if err != nil {
		return nil, nil, err
	}
	return data, fi, nil
}

// maxSettingsFile caps a project settings file: it is small, and a
// project's could be endless.
const maxSettingsFile = 4 << 20

// SaveAllowRule adds rule to permissions.allow in the project's settings
// file at file (relative to projectDir: Files.Local, where Claude Code
// keeps a user's "don't ask again" answers), and returns the file's path.
// It creates the file and its folder when missing, keeps every other key (and their order), writes
// nothing when the rule is already there, and replaces the file atomically
// (a temporary file renamed over it), keeping its permission bits; a new
// file is 0600, as Claude Code creates the files it writes. Everything goes
// through an os.Root on the project directory, so a settings folder that
// links out of the project is refused; a file that is not valid JSON is
// left alone.
func SaveAllowRule(projectDir, file, rule string) (string, error) {
	path := filepath.Join(projectDir, file)
	root, err := os.OpenRoot(projectDir)
	if err != nil {
		return path, err
	}
	defer root.Close()
	if err := root.Mkdir(filepath.Dir(file), 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return path, err
	}
	mode := fs.FileMode(0o600)
	data, fi, err := ReadProjectFile(projectDir, file)
	switch {
	case err == nil:
		mode = fi.Mode().Perm()
	case errors.Is(err, fs.ErrNotExist):
	default:
		return path, err
	}
	updated, changed, err := addAllowRule(data, rule)
	if err != nil {
		return path, fmt.Errorf("%s: %v; cordis leaves it as it is", path, err)
	}
	if !changed {
		return path, nil
	}
	tmp := filepath.Join(filepath.Dir(file), "."+filepath.Base(file)+"."+randomSuffix()+".tmp")
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return path, err
	}
	_, werr := f.Write(updated)
	if err := f.Close(); werr == nil {
		werr = err
	}
	if werr == nil {
		werr = root.Rename(tmp, file)
	}
	if werr != nil {
		root.Remove(tmp)
		return path, werr
	}
	return path, nil
}

func randomSuffix() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// addAllowRule returns data (a settings file, possibly empty) with rule
// appended to permissions.allow, other keys kept in their order, indented
// with two spaces as Claude Code writes it. changed is false when the rule
// is already allowed.
func addAllowRule(data []byte, rule string) (out []byte, changed bool, err error) {
	doc, err := decodeObject(data)
	if err != nil {
		return nil, false, err
	}
	perms, err := decodeObject(doc.get("permissions"))
	if err != nil {
		return nil, false, fmt.Errorf("permissions: %v", err)
	}
	var allow []json.RawMessage
	if raw := perms.get("allow"); raw != nil {
		if err := json.Unmarshal(raw, &allow); err != nil {
			return nil, false, fmt.Errorf("permissions.allow is not a list: %v", err)
		}
	}
	if slices.ContainsFunc(allow, func(r json.RawMessage) bool {
		var s string
		return json.Unmarshal(r, &s) == nil && s == rule
	}) {
		return data, false, nil
	}
	ruleJSON, err := marshal(rule)
	if err != nil {
		return nil, false, err
	}
	allowJSON, err := marshal(append(allow, ruleJSON))
	if err != nil {
		return nil, false, err
	}
	perms.set("allow", allowJSON)
	doc.set("permissions", perms.encode())
	var compact, indented bytes.Buffer
	if err := json.Compact(&compact, doc.encode()); err != nil {
		return nil, false, err
	}
	if err := json.Indent(&indented, compact.Bytes(), "", "  "); err != nil {
		return nil, false, err
	}
	indented.WriteByte('\n')
	return indented.Bytes(), true, nil
}

// object is a JSON object whose keys keep the order they were read in.
type object struct {
	keys   []string
	values map[string]json.RawMessage
}

// decodeObject reads a JSON object; empty input (or null) is an empty one.
func decodeObject(data []byte) (*object, error) {
	o := &object{values: map[string]json.RawMessage{}}
	if len(bytes.TrimSpace(data)) == 0 || string(bytes.TrimSpace(data)) == "null" {
		return o, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.set(key, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data[dec.InputOffset():])) > 0 {
		return nil, errors.New("text after the JSON object")
	}
	return o, nil
}

func (o *object) get(key string) json.RawMessage { return o.values[key] }

func (o *object) set(key string, v json.RawMessage) {
	if _, ok := o.values[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.values[key] = v
}

func (o *object) encode() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kj, _ := marshal(k)
		b.Write(kj)
		b.WriteByte(':')
		b.Write(o.values[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// marshal is json.Marshal without HTML escaping, so that a rule such as
// Bash(make && make test) reads in the file as it was written.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
