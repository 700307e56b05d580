package main

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/cordis-agent/cordis/cmd/cordis/config"
	"github.com/cordis-agent/cordis/internal/confine"
	"github.com/cordis-agent/cordis/internal/trust"
	"github.com/cordis-agent/cordis/llm"
)

// A project's cordis.yml (the one in the directory the editor starts cordis
// in, which is the project root) is written by whoever wrote the project.
// It is read only once the user has trusted its exact content (`cordis
// trust`), and even then it is an overlay on the user's configuration that
// may change only the settings listed in projectPolicy. A project can never
// redirect the model provider, expose keys, widen the directories tools may
// use, relax the permission mode, add or disable plugins, or switch off a
// guard; a user who wants a project's file wholesale passes it with
// --config, which is an explicit choice.

// projectConfigName is the project overlay's file name in the cwd.
const projectConfigName = "cordis.yml"

// projectTrustDialect is the trust store's dialect for project config files;
// a file is one "hook" whose command is the hash of its content, so an edit
// makes it "changed since it was trusted".
const projectTrustDialect = "cordis-config"

// mergeRule says how a project value combines with the user's.
type mergeRule int

const (
	// replace: the project's value is used.
	replace mergeRule = iota
	// appendList: the project's items are added to the user's (rules that
	// only restrict: deny, ask, more redaction).
	appendList
	// tighten: a limit where 0 means none; the project may set one or lower
	// the user's, never raise or remove it.
	tighten
	// stricterMode: a permission mode no more permissive than the user's.
	stricterMode
	// failClosed: only the value "deny" (a guard that could not run
	// refuses the call) is taken.
	failClosed
	// onlyOff: a switch the project may turn off, never on.
	onlyOff
)

// projectPolicy lists, per plugin name, the settings (dotted YAML paths) a
// trusted project file may change. Anything not listed is refused with the
// reason in projectRefusal.
var projectPolicy = map[string]map[string]mergeRule{
	"agent": {
		"models":           replace,
		"defaultMode":      stricterMode,
		"maxTurnRequests":  tighten,
		"maxStopBlocks":    replace,
		"maxSubagentDepth": tighten,
		"contextWindow":    tighten,
		"mcpStartTimeout":  replace,
		"mcpCallTimeout":   replace,
		// WebFetch's limits; its private addresses are the user's alone.
		"webFetch.timeout":      replace,
		"webFetch.maxRedirects": tighten,
		"webFetch.maxBytes":     tighten,
		"webFetch.maxChars":     tighten,
	},
	"llm/anthropic": {
		"model": replace, "maxTokens": replace, "thinkingBudget": replace,
		"fallbackModel": replace, "fallbackAfter": replace, "fallbackCooldown": replace,
		"maxRetries": replace, "streamIdleTimeout": replace,
	},
	"llm/openai": {
		"model": replace, "maxTokens": replace, "maxTokensField": replace,
		"maxRetries": replace, "streamIdleTimeout": replace,
	},
	"bridge/claude": {"guardFailure": failClosed},
	"bridge/codex":  {"guardFailure": failClosed},
	"hooks/builtin": {
		"permissionRules.deny": appendList,
		"permissionRules.ask":  appendList,
		// Read-only commands run without asking; a project may only ask
		// about them too.
		"permissionRules.readOnlyCommands": onlyOff,
		"inputSanitize.redact":             appendList,
		"inputSanitize.patterns":           appendList,
		"budgetCheck.maxTokens":            tighten,
		"budgetCheck.maxCostUSD":           tighten,
		"resultCompress.maxTokens":         replace,
		"contextMonitor.warnAt":            replace,
		"contextMonitor.compactAt":         replace,
		"contextInjector.files":            replace,
		"todoEnforcer.remindersPerTurn":    replace,
		"auditLog.inputSummaryChars":       replace,
	},
}

// projectRefusal explains why a setting is not taken from a project.
func projectRefusal(key string) string {
	switch {
	case key == "baseURL" || key == "apiKeyEnv":
		return "a project may not redirect the model provider or choose its key"
	case key == "exposeEnv":
		return "a project may not expose keys to commands"
	case key == "extraDirectories":
		return "a project may not widen the directories tools may use"
	case strings.HasPrefix(key, "webFetch.allowPrivate"):
		return "a project may not let WebFetch reach private or loopback addresses"
	case key == "defaultMode":
		return "a project may not relax the permission mode"
	case key == "systemPrompt":
		return "a project may not replace the base system prompt (its AGENTS.md or CLAUDE.md reaches the model)"
	case key == "path":
		return "a project may not name hook files (its own are found and trusted per hook)"
	case key == "permissionRules.allow":
		return "a project may not allow calls without asking"
	case key == "disabledHooks" || key == "inputSanitize.skipTools":
		return "a project may not switch off a guard"
	case key == "auditLog.file":
		return "a project may not choose files cordis writes"
	case strings.HasPrefix(key, "budgetCheck.") || key == "maxTurnRequests" || key == "maxSubagentDepth":
		return "a project may only lower a limit"
	}
	return "a project may not change this setting"
}

// projectOverlay is what became of a project cordis.yml.
type projectOverlay struct {
	Path   string
	Status trust.Status // Trusted when applied
	// Applied and Refused are "entry.key" settings, in file order.
	Applied []string
	Refused []string
	// Err is why the file could not be read or parsed (or the store
	// consulted); the file was then ignored.
	Err error
}

// Notice is what the editor shows at the start of each session; "" when
// there is nothing to say (no file, or every setting applied).
func (o *projectOverlay) Notice() string {
	if o == nil {
		return ""
	}
	dir := filepath.Dir(o.Path)
	switch {
	case o.Err != nil:
		return fmt.Sprintf("cordis ignored this project's configuration %s: %v", o.Path, o.Err)
	case o.Status != trust.Trusted:
		return fmt.Sprintf("cordis did not load this project's configuration %s: it is %s. Review it, then run `cordis trust --cwd %s` to use it.", o.Path, o.Status, dir)
	case len(o.Refused) > 0:
		return fmt.Sprintf("cordis applied this project's configuration %s except: %s.", o.Path, strings.Join(o.Refused, "; "))
	}
	return ""
}

// Report is the overlay's part of /doctor.
func (o *projectOverlay) Report() []string {
	if o == nil {
		return nil
	}
	if o.Err != nil || o.Status != trust.Trusted {
		return []string{"✗ " + o.Notice()}
	}
	lines := []string{fmt.Sprintf("✓ project config %s (trusted): %s", o.Path, cmp.Or(strings.Join(o.Applied, ", "), "nothing to apply"))}
	for _, r := range o.Refused {
		lines = append(lines, "✗ project config: not applied: "+r)
	}
	return lines
}

// projectConfigHook is the trust record of a project config file's current
// content.
func projectConfigHook(path string, content []byte) trust.Hook {
	sum := sha256.Sum256(content)
	return trust.Hook{Dialect: projectTrustDialect, Source: path, Event: "config", Type: "file", Command: "sha256:" + hex.EncodeToString(sum[:])}
}

// readProjectConfig reads dir/cordis.yml through dir itself
// (internal/confine): a symlink out of the project, a FIFO or a huge file
// is refused, not followed or waited on. found is false when there is no
// such file.
func readProjectConfig(dir string) (path string, data []byte, found bool, err error) {
	path = filepath.Join(dir, projectConfigName)
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return path, nil, false, nil
	}
	dirs := confine.New(dir)
	defer dirs.Close()
	data, err = dirs.ReadFile(path, 1<<20)
	if _, outside := errors.AsType[*confine.OutsideError](err); outside {
		err = fmt.Errorf("cannot be opened inside the project: %v", err)
	}
	return path, data, true, err
}

// applyProjectConfig overlays dir's trusted cordis.yml on base. It returns
// nil when there is no such file or base already read it (the user named
// it or included it). The overlay never makes loading fail: whatever is
// wrong with the project's file is reported and the file ignored.
func applyProjectConfig(base *config.Config, dir string, store *trust.Store, reg *config.Registry) *projectOverlay {
	if dir == "" {
		return nil
	}
	path, data, found, err := readProjectConfig(dir)
	if !found {
		return nil
	}
	for _, f := range base.Files {
		if trust.SamePath(f, path) {
			return nil
		}
	}
	o := &projectOverlay{Path: path}
	if err != nil {
		o.Err = err
		return o
	}
	st, err := store.Check(projectConfigHook(path, data))
	o.Status = st
	if err != nil {
		o.Err = fmt.Errorf("the trust store cannot be read: %v", err)
		return o
	}
	if st != trust.Trusted {
		return o
	}
	o.apply(base, data, reg)
	return o
}

// apply parses the project file's content and lays what the policy allows
// over base.
func (o *projectOverlay) apply(base *config.Config, data []byte, reg *config.Registry) {
	// No ${VAR} of the user's environment is expanded in a project's file:
	// it could copy a key into a setting that reaches the model.
	noEnv := func(string) string { return "" }
	proj, err := config.Parse(data, o.Path, reg, noEnv)
	if err != nil {
		o.Err = err
		return
	}
	for _, p := range proj.Plugins {
		o.overlay(base, p)
	}
}

// overlay applies one project entry to the base entry of the same id.
func (o *projectOverlay) overlay(base *config.Config, p config.Plugin) {
	i := slices.IndexFunc(base.Plugins, func(b config.Plugin) bool { return b.ID == p.ID })
	switch {
	case i < 0:
		o.Refused = append(o.Refused, fmt.Sprintf("entry %q (%s): a project may not add plugins", p.ID, p.Name))
		return
	case base.Plugins[i].Name != p.Name:
		o.Refused = append(o.Refused, fmt.Sprintf("entry %q: a project may not replace %s with %s", p.ID, base.Plugins[i].Name, p.Name))
		return
	case p.Disabled != base.Plugins[i].Disabled:
		o.Refused = append(o.Refused, fmt.Sprintf("entry %q: a project may not enable or disable plugins", p.ID))
		return
	}
	policy := projectPolicy[p.Name]
	target := reflect.ValueOf(base.Plugins[i].Config).Elem()
	from := reflect.ValueOf(p.Config).Elem()
	for _, key := range p.Keys {
		name := p.ID + "." + key
		if p.Name == "agent" && key == "webFetch.model" {
			if why := cheaperSummaryModel(base.Plugins[i].Config.(*agentConfig), p.Config.(*agentConfig)); why != "" {
				o.Refused = append(o.Refused, fmt.Sprintf("%s (%s)", name, why))
			} else {
				o.Applied = append(o.Applied, name)
			}
			continue
		}
		if model, field, ok := modelTableKey(p.Name, key); ok {
			if why := lowerModelLimit(base.Plugins[i].Config.(*agentConfig), p.Config.(*agentConfig), model, field); why != "" {
				o.Refused = append(o.Refused, fmt.Sprintf("%s (%s)", name, why))
			} else {
				o.Applied = append(o.Applied, name)
			}
			continue
		}
		rule, ok := policy[key]
		if !ok {
			o.Refused = append(o.Refused, fmt.Sprintf("%s (%s)", name, projectRefusal(key)))
			continue
		}
		dst, src := fieldByYAMLPath(target, key), fieldByYAMLPath(from, key)
		if !dst.IsValid() || !src.IsValid() {
			o.Refused = append(o.Refused, fmt.Sprintf("%s (%s)", name, projectRefusal(key)))
			continue
		}
		if why := merge(rule, dst, src); why != "" {
			o.Refused = append(o.Refused, fmt.Sprintf("%s (%s)", name, why))
			continue
		}
		o.Applied = append(o.Applied, name)
	}
}

// modelTableKey splits an agent entry's "modelTable.NAME.FIELD" key (a
// model name may hold dots, so the field is the last part).
func modelTableKey(plugin, key string) (model, field string, ok bool) {
	rest, found := strings.CutPrefix(key, "modelTable.")
	if plugin != "agent" || !found {
		return "", "", false
	}
	i := strings.LastIndexByte(rest, '.')
	if i <= 0 {
		return rest, "", true
	}
	return rest[:i], rest[i+1:], true
}

// lowerModelLimit lays a project's modelTable setting over the user's: a
// project may lower a model's context window or output limit (compact
// sooner, ask for less), never raise them, and never change a model's
// prices or capabilities (the cost shown to the user and the requests
// sent are the user's business). It returns why it refused, or "".
func lowerModelLimit(user, project *agentConfig, model, field string) string {
	if field != "contextWindow" && field != "maxOutput" {
		return "a project may not change a model's prices or capabilities, only lower its contextWindow or maxOutput"
	}
	if strings.HasSuffix(model, "*") {
		return "a project may lower the limits of a named model, not of a prefix"
	}
	table, err := llm.NewModelTable(user.ModelTable)
	if err != nil {
		return "the user's modelTable is not valid"
	}
	cur, want := table.Lookup(model), project.ModelTable[model]
	spec := user.ModelTable[model]
	switch field {
	case "contextWindow":
		if want.ContextWindow <= 0 || want.ContextWindow > cur.ContextWindow {
			return fmt.Sprintf("a project may only lower a model's context window (%d for %s)", cur.ContextWindow, model)
		}
		spec.ContextWindow = want.ContextWindow
	case "maxOutput":
		if want.MaxOutput <= 0 || want.MaxOutput > cur.MaxOutput {
			return fmt.Sprintf("a project may only lower a model's output limit (%d for %s)", cur.MaxOutput, model)
		}
		spec.MaxOutput = want.MaxOutput
	}
	if spec.ContextWindow > 0 && spec.MaxOutput >= spec.ContextWindow {
		return fmt.Sprintf("%s's output limit would not be below its context window", model)
	}
	merged := maps.Clone(user.ModelTable)
	if merged == nil {
		merged = map[string]llm.ModelSpec{}
	}
	merged[model] = spec
	user.ModelTable = merged
	return ""
}

// cheaperSummaryModel lays a project's agent.webFetch.model over the
// user's: a project may turn WebFetch's small model off, or choose one
// whose input and output prices (in the user's model table) are no
// higher than those of the user's choice. It may not turn one on where
// the user has none: that adds a model call to every fetch, billed to
// the user. It returns why it refused, or "".
func cheaperSummaryModel(user, project *agentConfig) string {
	want := strings.TrimSpace(project.WebFetch.Model)
	if want == "" || want == summaryModelOff {
		user.WebFetch.Model = summaryModelOff
		return ""
	}
	cur := strings.TrimSpace(user.WebFetch.Model)
	if cur == "" || cur == summaryModelOff {
		return "a project may turn WebFetch's small model off, not on"
	}
	table, err := llm.NewModelTable(user.ModelTable)
	if err != nil {
		return "the user's modelTable is not valid"
	}
	curPrice, wantPrice := table.Lookup(cur).Price, table.Lookup(want).Price
	if curPrice == nil || wantPrice == nil || wantPrice.Input > curPrice.Input || wantPrice.Output > curPrice.Output {
		return fmt.Sprintf("a project may only choose a small model for WebFetch that costs no more than the user's %s, by the model table", cur)
	}
	user.WebFetch.Model = want
	return ""
}

// merge applies src over dst by rule; it returns why it refused, or "".
func merge(rule mergeRule, dst, src reflect.Value) string {
	switch rule {
	case replace:
		dst.Set(src)
	case appendList:
		dst.Set(reflect.AppendSlice(dst, src))
	case tighten:
		newV, oldV, ok := asFloat(src), asFloat(dst), dst.CanSet()
		if !ok || newV <= 0 || (oldV > 0 && newV > oldV) {
			return "a project may only set or lower a limit"
		}
		dst.Set(src)
	case failClosed:
		if src.String() != "deny" {
			return "a project may only make a guard that could not run refuse the call (deny)"
		}
		dst.Set(src)
	case stricterMode:
		if modeRank(src.String()) > modeRank(dst.String()) {
			return "a project may not relax the permission mode"
		}
		dst.Set(src)
	case onlyOff:
		if v := reflect.Indirect(src); !v.IsValid() || v.Kind() != reflect.Bool || v.Bool() {
			return "a project may only turn this off"
		}
		dst.Set(src)
	}
	return ""
}

func asFloat(v reflect.Value) float64 {
	switch v.Kind() {
	case reflect.Int, reflect.Int64, reflect.Int32:
		return float64(v.Int())
	case reflect.Float64, reflect.Float32:
		return v.Float()
	}
	return -1
}

// modeRank orders the permission modes from the most restrictive; an
// unknown mode ranks above all, so it is never taken as stricter.
func modeRank(mode string) int {
	switch mode {
	case "plan":
		return 0
	case "", "default":
		return 1
	case "acceptEdits":
		return 2
	case "bypassPermissions":
		return 3
	}
	return 4
}

// fieldByYAMLPath finds the struct field a dotted YAML path names; the
// zero Value when there is none.
func fieldByYAMLPath(v reflect.Value, path string) reflect.Value {
	for _, name := range strings.Split(path, ".") {
		if v.Kind() == reflect.Pointer {
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return reflect.Value{}
		}
		found := reflect.Value{}
		for i := range v.NumField() {
			tag, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("yaml"), ",")
			if tag == name {
				found = v.Field(i)
				break
			}
		}
		if !found.IsValid() {
			return reflect.Value{}
		}
		v = found
	}
	return v
}
