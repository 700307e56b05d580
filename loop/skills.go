package loop

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cordis-agent/cordis/loop/commands"
	"github.com/cordis-agent/cordis/loop/tools"
)

// sessionTools gives the Agent and Skill tools of ts this session's custom
// subagent types and skills (found afresh for each model request, from
// the registry's cache), so their descriptions list them as Claude Code's
// do.
func (s *Session) sessionTools(ts []tools.Tool) []tools.Tool {
	set := s.agent.commands.Load(s.cwd)
	out := make([]tools.Tool, len(ts))
	for i, t := range ts {
		switch t.Name() {
		case "Agent":
			out[i] = tools.NewAgentTool(agentTypes(set.Agents))
		case "Skill":
			infos := skillInfos(set.Skills)
			out[i] = skillTool{Tool: tools.NewSkillTool(infos, nil), s: s, infos: infos}
		default:
			out[i] = t
		}
	}
	return out
}

// skillTool is the Skill tool bound to the session: each call's loader
// gets the call's environment, through which a `context: fork` skill runs
// its subagent under the Skill call (forkcmd.go).
type skillTool struct {
	tools.Tool
	s     *Session
	infos []tools.SkillInfo
}

func (t skillTool) Run(ctx context.Context, env *tools.Env, input json.RawMessage) tools.Result {
	load := func(ctx context.Context, in tools.SkillInput) (string, error) { return t.s.loadSkill(ctx, env, in) }
	return tools.NewSkillTool(t.infos, load).Run(ctx, env, input)
}

func skillInfos(skills []commands.Skill) []tools.SkillInfo {
	var out []tools.SkillInfo
	for _, sk := range skills {
		if sk.ModelInvocable {
			out = append(out, tools.SkillInfo{Name: sk.Name, Description: sk.Description})
		}
	}
	return out
}

// loadSkill is the Skill tool's loader: the skill's allowed-tools are
// pre-approved for the rest of the turn, and its body, with its
// arguments and folder substituted, becomes the tool result under the
// line Claude Code starts it with; a `context: fork` skill runs in a
// subagent instead, whose report is the result.
func (s *Session) loadSkill(ctx context.Context, env *tools.Env, in tools.SkillInput) (string, error) {
	set := s.agent.commands.Load(s.cwd)
	for _, sk := range set.Skills {
		if sk.Name != in.Skill || !sk.ModelInvocable {
			continue
		}
		s.grants.add(ctx, s, sk.Path, sk.Source, sk.AllowedTools)
		if sk.Fork {
			if report, err := s.runForkedSkill(ctx, env, sk, in.Args); !errors.As(err, new(tooDeep)) {
				return report, err
			}
			// Already in a subagent as deep as subagents go: the skill
			// loads here, in a conversation that is already its own.
		}
		body := skillBody(sk, in.Args, s.id)
		return fmt.Sprintf("Launching skill: %s\n\nBase directory for this skill: %s\n\n%s", sk.Name, sk.Dir, body), nil
	}
	var names []string
	for _, i := range skillInfos(set.Skills) {
		names = append(names, i.Name)
	}
	return "", fmt.Errorf("Unknown skill: %s. Available skills: %s", in.Skill, cmp.Or(strings.Join(names, ", "), "none"))
}

// skillBody substitutes what Claude Code substitutes in a skill invoked by
// the model: its arguments ($ARGUMENTS, $N and $ARGUMENTS[N] 0-based,
// $name; appended as "ARGUMENTS: …" when the body uses none),
// ${CLAUDE_SKILL_DIR} and ${CLAUDE_SESSION_ID}. Shell injections (!`cmd`)
// are left as text: the model runs what it needs through Bash, governed
// call by call.
func skillBody(sk commands.Skill, args, sessionID string) string {
	body := strings.NewReplacer("${CLAUDE_SKILL_DIR}", sk.Dir, "${CLAUDE_SESSION_ID}", sessionID).Replace(sk.Body)
	return commands.NewArguments(args, sk.Arguments).Substitute(body)
}
