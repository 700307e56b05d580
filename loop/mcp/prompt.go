package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cordis-agent/cordis/loop/commands"
)

// PromptArgument is an argument an MCP prompt declares.
type PromptArgument struct {
	Name     string
	Required bool
}

func promptArguments(args []*sdk.PromptArgument) []*PromptArgument {
	out := make([]*PromptArgument, 0, len(args))
	for _, a := range args {
		if a != nil {
			out = append(out, &PromptArgument{Name: a.Name, Required: a.Required})
		}
	}
	return out
}

// promptCommand makes a server's prompt the slash command
// /mcp__<server>__<prompt>. Running it fetches the prompt with the
// arguments given and submits its text as the user's turn.
func promptCommand(s *server, name string, p *sdk.Prompt) commands.Command {
	args := promptArguments(p.Arguments)
	desc := strings.TrimSpace(p.Description)
	if desc == "" {
		desc = p.Title
	}
	if desc == "" {
		desc = fmt.Sprintf("Prompt %s of the MCP server %s", p.Name, s.spec.Name)
	}
	return &commands.Local{
		Spec: commands.Spec{Name: name, Description: desc, ArgumentHint: argumentHint(args), Source: commands.SourceMCP},
		Run: func(ctx context.Context, inv *commands.Invocation) commands.Intent {
			values, err := ParseArguments(args, inv.Args)
			if err != nil {
				usage := "/" + name
				if h := argumentHint(args); h != "" {
					usage += " " + h
				}
				return commands.ShowError{Message: fmt.Sprintf("/%s: %v. Usage: %s (arguments by position or as name=value).", name, err, usage)}
			}
			text, err := s.getPrompt(ctx, p.Name, values)
			if err != nil {
				return commands.ShowError{Message: fmt.Sprintf("/%s: %v", name, err)}
			}
			return commands.SubmitPrompt{Text: text}
		},
	}
}

func argumentHint(args []*PromptArgument) string {
	parts := make([]string, 0, len(args))
	for _, a := range args {
		if a == nil {
			continue
		}
		if a.Required {
			parts = append(parts, "<"+a.Name+">")
		} else {
			parts = append(parts, "["+a.Name+"]")
		}
	}
	return strings.Join(parts, " ")
}

// ParseArguments maps a command line onto a prompt's arguments (after
// Claude Code's MCP prompt commands): a token name=value whose name is an
// argument sets that argument; the other tokens fill the arguments not set
// by name, in their declared order; tokens left over are appended, with
// spaces, to the last argument filled by position. Tokens split on
// whitespace; "double" or 'single' quotes keep spaces in a value. Missing
// required arguments are an error.
func ParseArguments(decl []*PromptArgument, line string) (map[string]string, error) {
	tokens, err := tokenize(line)
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, a := range decl {
		if a != nil {
			known[a.Name] = true
		}
	}
	out := map[string]string{}
	var positional []string
	for _, tok := range tokens {
		if k, v, ok := strings.Cut(tok, "="); ok && known[k] {
			out[k] = v
			continue
		}
		positional = append(positional, tok)
	}
	last := ""
	for _, a := range decl {
		if len(positional) == 0 {
			break
		}
		if a == nil {
			continue
		}
		if _, set := out[a.Name]; set {
			continue
		}
		out[a.Name], positional = positional[0], positional[1:]
		last = a.Name
	}
	if len(positional) > 0 {
		if last == "" {
			if len(decl) == 0 {
				return nil, fmt.Errorf("the prompt takes no arguments, got %q", strings.Join(positional, " "))
			}
			return nil, fmt.Errorf("too many arguments: %q is left over", strings.Join(positional, " "))
		}
		out[last] += " " + strings.Join(positional, " ")
	}
	var missing []string
	for _, a := range decl {
		if a == nil || !a.Required {
			continue
		}
		if _, set := out[a.Name]; !set {
			missing = append(missing, a.Name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("missing required argument %s", strings.Join(missing, ", "))
	}
	return out, nil
}

func tokenize(line string) ([]string, error) {
	var (
		out   []string
		cur   strings.Builder
		quote rune
		in    bool // a token is open (possibly empty, as in "")
	)
	for _, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c quote", quote)
	}
	if in {
		out = append(out, cur.String())
	}
	return out, nil
}

// getPrompt fetches a prompt and flattens its messages to one text.
func (s *server) getPrompt(ctx context.Context, name string, args map[string]string) (string, error) {
	cs, err := s.session()
	if err != nil {
		return "", fmt.Errorf("the MCP server %q is not running: %v", s.spec.Name, err)
	}
	cctx, cancel := context.WithTimeout(ctx, s.callTimeout())
	defer cancel()
	defer s.track(cctx)()
	res, err := cs.GetPrompt(cctx, &sdk.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		if cctx.Err() != nil {
			return "", fmt.Errorf("the MCP server %q did not answer prompts/get within %s", s.spec.Name, s.callTimeout())
		}
		if gone := s.brokenConnection(err); gone != nil {
			return "", fmt.Errorf("the MCP server %q %v", s.spec.Name, gone)
		}
		return "", fmt.Errorf("the MCP server %q could not give prompt %s: %v", s.spec.Name, name, err)
	}
	var parts []string
	for _, m := range res.Messages {
		if m == nil || m.Content == nil {
			continue
		}
		text := resultOf([]sdk.Content{m.Content}, nil, false).Text
		if m.Role == "assistant" {
			text = "Assistant: " + text
		}
		parts = append(parts, text)
	}
	if len(parts) == 0 {
		return "", fmt.Errorf("the MCP server %q returned prompt %s without messages", s.spec.Name, name)
	}
	return strings.Join(parts, "\n\n"), nil
}
