package loop

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/cordis-agent/cordis/hooks/permrules"
	"github.com/cordis-agent/cordis/internal/trust"
	"github.com/cordis-agent/cordis/loop/commands"
)

// turnGrants are the permission rules a command's or skill's
// `allowed-tools` pre-approved for the current turn (Claude Code: they
// hold until the next user message and restrict nothing). A granted call
// runs without asking, as an allow rule would: deny and ask rules, hooks
// and plan mode still come first (permit).
type turnGrants struct {
	mu    sync.Mutex
	rules []permrules.Rule
}

// reset drops the grants of the previous turn.
func (g *turnGrants) reset() {
	g.mu.Lock()
	g.rules = nil
	g.mu.Unlock()
}

// add grants rules from the file at path. A project file's rules are
// allow rules written by the repository, so, as for the allow rules of
// its settings, each counts only once the user trusted it (`cordis hooks
// trust`); the others are skipped and the user told.
func (g *turnGrants) add(ctx context.Context, s *Session, path string, source commands.Source, rules []string) {
	var store *trust.Store
	if source == commands.SourceProject {
		store = trust.Open(s.agent.cfg.StateDir)
	}
	var skipped []string
	g.mu.Lock()
	for _, text := range rules {
		if store != nil && !(permrules.Trust{Store: store}).TrustedFrontmatter(path, text) {
			skipped = append(skipped, text)
			continue
		}
		if r, err := permrules.Parse(text, s.cwd); err == nil {
			g.rules = append(g.rules, r)
		}
	}
	g.mu.Unlock()
	if len(skipped) > 0 {
		s.say(ctx, fmt.Sprintf("[cordis: %s pre-approves %s, but it is a project file whose allowed-tools are not trusted (`cordis hooks trust --cwd %s`), so those calls ask as usual.]\n\n", path, strings.Join(skipped, ", "), s.cwd))
	}
}

// match returns the granted rule that permits call, or "".
func (g *turnGrants) match(call permrules.Call) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	r, ok := permrules.Matcher{}.Permits(g.rules, call)
	if !ok {
		return ""
	}
	return r.Text
}
