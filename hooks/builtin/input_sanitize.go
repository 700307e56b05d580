package builtin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/cordis-agent/cordis/hooks"
)

// InputSanitizeConfig configures input-sanitize (and what the audit log
// redacts).
type InputSanitizeConfig struct {
	Redact    []string        `yaml:"redact,omitempty" json:"redact,omitempty" jsonschema:"description=Built-in pattern sets to apply: api-keys / tokens / private-keys / emails (default: all four)"`
	Patterns  []PatternConfig `yaml:"patterns,omitempty" json:"patterns,omitempty" jsonschema:"description=Extra patterns to redact"`
	SkipTools []string        `yaml:"skipTools,omitempty" json:"skipTools,omitempty" jsonschema:"description=Tools whose input is left alone (default Edit and Write: redacting file content would corrupt the file)"`
}

// PatternConfig is one extra redaction pattern.
type PatternConfig struct {
	Name  string `yaml:"name" json:"name" jsonschema:"required,description=Shown in the replacement: [REDACTED:name]"`
	Regex string `yaml:"regex" json:"regex" jsonschema:"required,description=A Go regular expression (RE2 syntax) matching the secret"`
}

// pattern is one compiled redaction pattern; repl is a regexp replacement
// template.
type pattern struct {
	name string
	re   *regexp.Regexp
	repl string
	// keep, when set, spares a match (git@host is an SSH remote, not an
	// address).
	keep func(match string) bool
	// hints are lower-case literals one of which every match contains: a
	// text with none of them is not scanned (nil: always scan).
	hints []string
}

// patternSetNames are the built-in sets, in the order they apply.
var patternSetNames = []string{"private-keys", "api-keys", "tokens", "emails"}

// builtinPatternSets compiles the built-in sets once, on first use rather
// than when the hooks are registered: the regular expressions take a
// quarter of a millisecond, which the agent's start-up should not pay
// (BENCHMARKS.md).
var builtinPatternSets = sync.OnceValue(func() map[string][]pattern {
	p := func(label, re string, hints ...string) pattern {
		return pattern{name: label, re: regexp.MustCompile(re), repl: "[REDACTED:" + label + "]", hints: hints}
	}
	assign := p("token", `(?i)(\b(?:api[_-]?key|access[_-]?key|secret[_-]?key|secret|token|password|passwd)["']?\s*[:=]\s*["']?)[^\s"'&;,\[][^\s"'&;,]{7,}`, "key", "secret", "token", "passw")
	assign.repl = "${1}[REDACTED:token]"
	email := p("email", `\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b`, "@")
	email.keep = func(m string) bool { return strings.HasPrefix(m, "git@") }
	return map[string][]pattern{
		"private-keys": {p("private-key", `-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END[A-Z0-9 ]*PRIVATE KEY-----|$)`, "private key")},
		"api-keys": {
			p("api-key", `\bsk-ant-[A-Za-z0-9_-]{20,}`, "sk-ant-"),
			p("api-key", `\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`, "sk-"),
			p("api-key", `\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`, "akia", "asia"),
			p("api-key", `\bAIza[0-9A-Za-z_-]{35}`, "aiza"),
		},
		"tokens": {
			p("token", `\bgh[pousr]_[A-Za-z0-9]{30,}`, "ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
			p("token", `\bgithub_pat_[A-Za-z0-9_]{22,}`, "github_pat_"),
			p("token", `\bxox[abposr]-[A-Za-z0-9-]{10,}`, "xox"),
			p("token", `\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`, "eyj"),
			p("token", `(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{16,}`, "bearer"),
			assign,
		},
		"emails": {email},
	}
})

// redactor replaces secrets in text and in JSON tool input. Its patterns
// are assembled on first use (see builtinPatternSets); configuration
// errors are found when it is built.
type redactor struct {
	patterns func() []pattern
	none     bool // no pattern is configured
}

func newRedactor(cfg InputSanitizeConfig) (*redactor, error) {
	sets := slices.Clone(cfg.Redact)
	for _, name := range sets {
		if !slices.Contains(patternSetNames, name) {
			return nil, fmt.Errorf("redact: unknown pattern set %q (valid: %s)", name, strings.Join(patternSetNames, ", "))
		}
	}
	var extra []pattern
	for i, pc := range cfg.Patterns {
		if pc.Name == "" || pc.Regex == "" {
			return nil, fmt.Errorf("patterns[%d]: name and regex are required", i)
		}
		re, err := regexp.Compile(pc.Regex)
		if err != nil {
			return nil, fmt.Errorf("patterns[%d] (%s): %v", i, pc.Name, err)
		}
		if re.MatchString("") {
			return nil, fmt.Errorf("patterns[%d] (%s): the pattern matches the empty string", i, pc.Name)
		}
		extra = append(extra, pattern{name: pc.Name, re: re, repl: "[REDACTED:" + pc.Name + "]"})
	}
	return &redactor{patterns: sync.OnceValue(func() []pattern {
		var all []pattern
		for _, name := range sets {
			all = append(all, builtinPatternSets()[name]...)
		}
		return append(all, extra...)
	}), none: len(sets) == 0 && len(extra) == 0}, nil
}

// hinted reports whether lower (a lower-cased text) holds one of p's
// hints.
func (p *pattern) hinted(lower string) bool {
	if p.hints == nil {
		return true
	}
	for _, h := range p.hints {
		if strings.Contains(lower, h) {
			return true
		}
	}
	return false
}

// String redacts s and reports whether anything was replaced.
func (r *redactor) String(s string) (string, bool) {
	changed := false
	lower := strings.ToLower(s)
	patterns := r.patterns()
	for i := range patterns {
		p := &patterns[i]
		if !p.hinted(lower) || !p.re.MatchString(s) {
			continue
		}
		var out string
		if p.keep == nil {
			out = p.re.ReplaceAllString(s, p.repl)
		} else {
			out = p.re.ReplaceAllStringFunc(s, func(m string) string {
				if p.keep(m) {
					return m
				}
				return p.re.ReplaceAllString(m, p.repl)
			})
		}
		if out != s {
			s, changed = out, true
		}
	}
	return s, changed
}

// JSON redacts every string (keys excepted) in a JSON document. It returns
// nil when nothing changed. The common case, no pattern matching the raw
// bytes, costs a lower-cased copy and a literal scan per pattern.
func (r *redactor) JSON(raw json.RawMessage) json.RawMessage {
	suspect := hiddenEscape(raw) // an escape could hide a secret from the raw scan
	lower := strings.ToLower(string(raw))
	patterns := r.patterns()
	for i := range patterns {
		if suspect {
			break
		}
		p := &patterns[i]
		suspect = p.hinted(lower) && p.re.Match(raw)
	}
	if !suspect {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	v, changed := r.walk(v)
	if !changed {
		return nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return nil
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// hiddenEscape reports a \uXXXX escape other than the <, > and & that Go's
// encoder writes: one could spell a secret the raw scan does not see.
func hiddenEscape(raw []byte) bool {
	for i := 0; ; {
		j := bytes.Index(raw[i:], []byte(`\u`))
		if j < 0 {
			return false
		}
		i += j + 2
		if i+4 > len(raw) {
			return true
		}
		switch string(raw[i : i+4]) {
		case "003c", "003e", "0026", "003C", "003E":
		default:
			return true
		}
	}
}

func (r *redactor) walk(v any) (any, bool) {
	switch x := v.(type) {
	case string:
		return r.String(x)
	case []any:
		changed := false
		for i, e := range x {
			var c bool
			if x[i], c = r.walk(e); c {
				changed = true
			}
		}
		return x, changed
	case map[string]any:
		changed := false
		for k, e := range x {
			var c bool
			if x[k], c = r.walk(e); c {
				changed = true
			}
		}
		return x, changed
	}
	return v, false
}

// inputSanitizeHooks redacts secrets from tool input before the tool
// runs: the tool, the permission question and every later hook see the
// redacted input.
func inputSanitizeHooks(cfg InputSanitizeConfig, r *redactor) []registration {
	if r.none {
		return nil
	}
	skip := slices.Clone(cfg.SkipTools)
	return []registration{{event: hooks.PreToolUse, priority: 20, run: func(in *hooks.Input) (hooks.Decision, error) {
		if slices.Contains(skip, in.ToolName) {
			return hooks.Decision{}, nil
		}
		if out := r.JSON(in.ToolInput); out != nil {
			return hooks.Decision{UpdatedInput: out}, nil
		}
		return hooks.Decision{}, nil
	}}}
}
