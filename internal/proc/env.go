package proc

import (
	"os"
	"slices"
	"strings"
)

// alwaysHidden are the model providers' credential variables: a hook or a
// model-chosen command has no business with the agent's API key (secrets
// never reach subprocesses).
var alwaysHidden = []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY"}

// EnvPolicy says which of cordis's environment variables a subprocess
// inherits. cmd/cordis builds one at start-up from the configuration (each
// provider's key variable hidden, agent.exposeEnv let through) and hands it
// to everything that starts processes. It never changes once built, so it
// is safe to share between goroutines.
type EnvPolicy struct {
	hidden map[string]bool
}

// DefaultEnvPolicy hides the well-known provider key variables; it is what
// a Cmd without a policy gets.
var DefaultEnvPolicy = NewEnvPolicy(nil, nil)

// NewEnvPolicy hides the well-known provider key variables and hide, then
// lets expose through after all.
func NewEnvPolicy(hide, expose []string) *EnvPolicy {
	p := &EnvPolicy{hidden: map[string]bool{}}
	for _, n := range slices.Concat(alwaysHidden, hide) {
		if n != "" {
			p.hidden[n] = true
		}
	}
	for _, n := range expose {
		delete(p.hidden, n)
	}
	return p
}

// Hidden lists the hidden variables, sorted.
func (p *EnvPolicy) Hidden() []string {
	names := make([]string, 0, len(p.or().hidden))
	for n := range p.or().hidden {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Environ is cordis's environment without the hidden variables: what a
// subprocess inherits.
func (p *EnvPolicy) Environ() []string { return p.Filter(os.Environ()) }

// Filter returns env without the hidden variables.
func (p *EnvPolicy) Filter(env []string) []string {
	hidden := p.or().hidden
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !hidden[name] {
			out = append(out, kv)
		}
	}
	return out
}

// or is p, or the default policy for a nil p.
func (p *EnvPolicy) or() *EnvPolicy {
	if p == nil {
		return DefaultEnvPolicy
	}
	return p
}
