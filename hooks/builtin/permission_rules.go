package builtin

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/hooks/permrules"
	"github.com/cordis-agent/cordis/internal/sandbox"
	"github.com/cordis-agent/cordis/internal/setup"
	"github.com/cordis-agent/cordis/internal/trust"
)

// PermissionRulesConfig configures permission-rules.
type PermissionRulesConfig struct {
	Allow []string `yaml:"allow,omitempty" json:"allow,omitempty" jsonschema:"description=Calls that run without asking. A rule is a tool name (Read) or Tool(specifier) as in Claude Code: Bash(git status) / Bash(git push:*) / Edit(src/**) / Read(~/.ssh/**) / Task(explorer)"`
	Ask   []string `yaml:"ask,omitempty" json:"ask,omitempty" jsonschema:"description=Calls the editor is always asked about (even in bypassPermissions mode)"`
	Deny  []string `yaml:"deny,omitempty" json:"deny,omitempty" jsonschema:"description=Calls that never run; deny wins over ask and allow"`
	// ReadOnlyCommands (nil: on) runs read-only Bash commands without
	// asking, as Claude Code does (permrules.ReadOnlyCommand).
	ReadOnlyCommands *bool `yaml:"readOnlyCommands,omitempty" json:"readOnlyCommands,omitempty" jsonschema:"description=Run read-only Bash commands (ls / cat / grep / git status / git diff / git log ... inside the session's directories, no redirection to files) without asking, as Claude Code does (default true; deny and ask rules still apply; a project may only turn it off)"`
}

// readOnlyOn reports whether read-only commands run without asking.
func (c PermissionRulesConfig) readOnlyOn() bool {
	return c.ReadOnlyCommands == nil || *c.ReadOnlyCommands
}

// ruleLists are allow, ask and deny rules.
type ruleLists struct {
	allow, ask, deny []permrules.Rule
}

func (l ruleLists) empty() bool { return len(l.allow)+len(l.ask)+len(l.deny) == 0 }

// permissionRules applies, on PreToolUse, the rules of cordis.yml and
// those of the settings files it is given, as Claude Code would: the
// user's own (trusted: they are theirs), and the project's, whose deny and
// ask rules always apply (they only restrict) but whose allow rules apply only
// once trusted, since a cloned repository can ship them. An allow rule
// that is skipped, or a rule or file that cannot be read, is reported to
// the user once per session.
type permissionRules struct {
	configured ruleLists
	match      permrules.Matcher
	// settings are the settings files read, user's and project's.
	settings []setup.Source
	// trusted reports whether the user vouched for a project allow rule
	// (nil: none is trusted).
	trusted func(settingsPath, rule string) bool
	// managed is the administrator's policy (nil: none): its rules always
	// apply, and under allowManagedPermissionRulesOnly only they do.
	managed *permrules.ManagedSource
	// onlyManaged is set when disabledHooks names the hook: it then
	// applies the policy's rules alone.
	onlyManaged bool
	// readOnly allows read-only Bash commands no rule decided.
	readOnly bool
	// syntaxTold: a settings file that is not valid JSON is told by
	// another reader (Options.SettingsSyntaxErrorsTold).
	syntaxTold bool

	mu    sync.Mutex
	files map[string]cachedFile
	told  map[string]map[string]bool // session id → notices shown
}

// cachedFile is a settings file's rules as last read, with what tells a
// changed file.
type cachedFile struct {
	size    int64
	modTime time.Time
	perms   permrules.Permissions
	err     error
}

// managedRulesLock keeps the permission-rules hook on while the policy
// has rules.
func managedRulesLock(src *permrules.ManagedSource) func(on bool) string {
	return func(on bool) string {
		if m := src.Load(); !on && m.HasRules() {
			return "your organization's managed settings (" + strings.Join(m.Files, ", ") + ") have permission rules, which cannot be switched off"
		}
		return ""
	}
}

func permissionRulesHooks(cfg PermissionRulesConfig, opts Options, disabled bool) ([]registration, error) {
	p := &permissionRules{
		onlyManaged: disabled,
		readOnly:    cfg.readOnlyOn(),
		syntaxTold:  opts.SettingsSyntaxErrorsTold,
		match:       permrules.Matcher{Home: opts.Home},
		settings:    opts.Settings,
		trusted:     opts.TrustedRule,
		managed:     opts.Managed,
		files:       map[string]cachedFile{},
		told:        map[string]map[string]bool{},
	}
	for _, l := range []struct {
		name  string
		texts []string
		out   *[]permrules.Rule
	}{{"allow", cfg.Allow, &p.configured.allow}, {"ask", cfg.Ask, &p.configured.ask}, {"deny", cfg.Deny, &p.configured.deny}} {
		for _, t := range l.texts {
			r, err := permrules.Parse(t, "")
			if err != nil {
				return nil, fmt.Errorf("%s: %w", l.name, err)
			}
			*l.out = append(*l.out, r)
		}
	}
	return []registration{{event: hooks.PreToolUse, priority: 10, run: p.decide}}, nil
}

// decide applies the rules: any matching deny rule denies, else any
// matching ask rule asks, else allow rules allow (a Bash command only when
// every part of it is allowed). Rules of every source are pooled, so a
// deny anywhere beats an allow anywhere, as in Claude Code. A Bash
// command no rule decided runs without asking when it only reads (as
// Claude Code's built-in read-only commands do, managed
// allowManagedPermissionRulesOnly or not: they are not rules), unless
// readOnlyCommands is off or disabledHooks names this hook.
func (p *permissionRules) decide(in *hooks.Input) (hooks.Decision, error) {
	rules, notices := p.rulesFor(in.Cwd)
	d := hooks.Decision{SystemMessages: p.untold(in.SessionID, notices)}
	// Only where the kernel confines the command read-only: the parse is
	// a first filter, the sandbox the boundary (fail closed without it).
	readOnly := p.readOnly && !p.onlyManaged && in.ToolName == "Bash" && sandbox.Check().Available()
	if rules.empty() && !readOnly {
		return d, nil
	}
	c := permrules.NewCall(in.ToolName, in.ToolInput, in.Cwd)
	if r, ok := p.match.Restricts(rules.deny, c); ok {
		d.Permission, d.Reason = hooks.Deny, fmt.Sprintf("the permission rule deny %s forbids this call (hooks/builtin permissionRules)", r.Text)
	} else if r, ok := p.match.Restricts(rules.ask, c); ok {
		d.Permission, d.Reason = hooks.Ask, fmt.Sprintf("the permission rule ask %s requires confirmation", r.Text)
	} else if r, ok := p.match.Permits(rules.allow, c); ok {
		d.Permission, d.Reason = hooks.Allow, fmt.Sprintf("allowed by the permission rule %s", r.Text)
	} else if readOnly && permrules.ReadOnlyCommand(c.Command, permrules.ReadOnlyDirs{Cwd: in.Cwd, Dirs: in.Directories, Home: p.match.Home}) {
		d.Permission, d.Reason = hooks.Allow, "a read-only command, run in the read-only sandbox (hooks/builtin permissionRules.readOnlyCommands)"
		d.ReadOnlyConfined = true
	}
	return d, nil
}

// rulesFor pools the configured rules with those of the settings files
// that apply in cwd, and returns what the user should be told about the
// files (keyed, so that each is told once per session).
func (p *permissionRules) rulesFor(cwd string) (ruleLists, map[string]string) {
	notices := map[string]string{}
	m := p.managed.Load()
	for _, problem := range m.Problems {
		notices["managed\x00"+problem] = "cordis could not use a managed settings file: " + problem
	}
	if p.onlyManaged {
		var rules ruleLists
		if m.Active() {
			p.add(&rules, notices, strings.Join(m.Files, ", "), cwd, m.Permissions, nil, true)
		}
		return rules, notices
	}
	if m.RulesOnly {
		// The policy is the only source of rules (Claude Code's
		// allowManagedPermissionRulesOnly): cordis.yml's and the settings
		// files' rules are ignored, and the user is told once.
		var rules ruleLists
		p.add(&rules, notices, strings.Join(m.Files, ", "), cwd, m.Permissions, nil, true)
		notices["managed-only"] = "Managed settings (" + strings.Join(m.Files, ", ") + ") allow only their own permission rules: the rules of cordis.yml and of your and the project's settings files do not apply."
		return rules, notices
	}
	rules := p.configured
	if m.Active() {
		// Policy rules pool with the others: a deny anywhere wins, and no
		// other file can allow what the policy denies.
		p.add(&rules, notices, strings.Join(m.Files, ", "), cwd, m.Permissions, nil, true)
	}
	var userFiles []string
	for _, src := range p.settings {
		if src.Project {
			continue
		}
		userFile := src.Path
		userFiles = append(userFiles, userFile)
		perms, err := p.read(userFile, func() ([]byte, fs.FileInfo, error) { return readWithInfo(userFile) })
		p.add(&rules, notices, userFile, filepath.Dir(userFile), perms, err, true)
	}
	if cwd == "" {
		return rules, notices
	}
	for _, src := range p.settings {
		if !src.Project {
			continue
		}
		rel, path := src.Path, src.In(cwd)
		if slices.ContainsFunc(userFiles, func(u string) bool { return trust.SamePath(path, u) }) {
			continue // in the home directory the project file is the user's own
		}
		perms, err := p.read(path, func() ([]byte, fs.FileInfo, error) { return permrules.ReadProjectFile(cwd, rel) })
		p.add(&rules, notices, path, cwd, perms, err, false)
	}
	return rules, notices
}

// add appends the rules of one settings file, anchored at anchor. The allow
// rules of a project file (trusted false) count only when the user
// vouched for them.
func (p *permissionRules) add(rules *ruleLists, notices map[string]string, path, anchor string, perms permrules.Permissions, err error, trusted bool) {
	if err != nil {
		var syn *json.SyntaxError
		if !errors.Is(err, fs.ErrNotExist) && !(p.syntaxTold && errors.As(err, &syn)) {
			notices["read\x00"+path] = fmt.Sprintf("cordis could not read the permission rules of %s, so none of them apply: %v", path, err)
		}
		return
	}
	parse := func(texts []string, out *[]permrules.Rule, allow bool) {
		for _, t := range texts {
			r, err := permrules.Parse(t, anchor)
			if err != nil {
				notices["rule\x00"+path+"\x00"+t] = fmt.Sprintf("cordis ignored a permission rule of %s: %v", path, err)
				continue
			}
			if allow && !trusted && (p.trusted == nil || !p.trusted(path, r.Text)) {
				notices["allow\x00"+path+"\x00"+t] = fmt.Sprintf("cordis ignored the allow rule %s of %s: a project's allow rules apply only once you trust them (answer \"Always allow\" when cordis asks, or review the file and run `cordis hooks trust --cwd %s`).", r.Text, path, filepath.Clean(anchor))
				continue
			}
			*out = append(*out, r)
		}
	}
	parse(perms.Deny, &rules.deny, false)
	parse(perms.Ask, &rules.ask, false)
	parse(perms.Allow, &rules.allow, true)
}

// read returns a settings file's permissions, reading it again only when
// its size or modification time changed.
func (p *permissionRules) read(path string, load func() ([]byte, fs.FileInfo, error)) (permrules.Permissions, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return permrules.Permissions{}, err
	}
	p.mu.Lock()
	c, ok := p.files[path]
	p.mu.Unlock()
	if ok && c.size == fi.Size() && c.modTime.Equal(fi.ModTime()) {
		return c.perms, c.err
	}
	data, info, err := load()
	if err != nil {
		return permrules.Permissions{}, err
	}
	perms, err := permrules.ParsePermissions(data)
	if err != nil {
		err = fmt.Errorf("not valid JSON: %w", err)
	}
	p.mu.Lock()
	p.files[path] = cachedFile{size: info.Size(), modTime: info.ModTime(), perms: perms, err: err}
	p.mu.Unlock()
	return perms, err
}

// untold returns the notices session was not shown yet, and marks them
// shown.
func (p *permissionRules) untold(session string, notices map[string]string) []string {
	if len(notices) == 0 {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	seen := p.told[session]
	if seen == nil {
		if len(p.told) >= maxToldSessions {
			clear(p.told) // sessions are not closed here; bound what is kept
		}
		seen = map[string]bool{}
		p.told[session] = seen
	}
	var out []string
	for _, key := range sortedKeys(notices) {
		if !seen[key] {
			seen[key] = true
			out = append(out, notices[key])
		}
	}
	return out
}

const maxToldSessions = 1024

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func readWithInfo(path string) ([]byte, fs.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	data, err := io.ReadAll(f)
	return data, fi, err
}
