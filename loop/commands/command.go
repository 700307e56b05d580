package commands

import "context"

// Source says where a command came from; it orders precedence (project
// over user over built-in) and is shown by /help.
type Source string

const (
	SourceBuiltin Source = "builtin"
	SourceUser    Source = "user"
	SourceProject Source = "project"
	SourceMCP     Source = "mcp"
	// SourcePlugin is a command of a plugin (Sources.Bundles), the
	// user's own.
	SourcePlugin Source = "plugin"
)

// Spec is what every command kind has in common.
type Spec struct {
	Name         string
	Aliases      []string
	Description  string
	ArgumentHint string
	Source       Source
	// Path is the defining file of a file command.
	Path string
	// ReadOnly commands only read state, so they may run while a turn is
	// in progress; the others wait for the turn or are refused.
	ReadOnly bool
	// Enabled is evaluated on every lookup (nil: always enabled).
	Enabled func() bool
}

// Command is a closed sum: *Local or *Prompt. A switch over kinds lists
// both and has no default, so a new kind fails to compile where it is not
// handled (see Kind).
type Command interface {
	spec() *Spec
}

// Local runs code and returns an Intent for the loop to carry out.
type Local struct {
	Spec
	Run func(ctx context.Context, inv *Invocation) Intent
}

// Prompt expands a template that is then submitted to the model as the
// user's turn.
type Prompt struct {
	Spec
	Template string
	// AllowedTools are Claude permission rules (`allowed-tools`
	// frontmatter) pre-approved for the turn it starts; every other tool
	// stays offered and asks as usual.
	AllowedTools []string
	// Model overrides the model for that turn ("" keeps the session's).
	Model string
	// Fork runs the expanded prompt in a subagent (`context: fork`), of
	// type Agent ("" for general-purpose), whose report answers the turn.
	Fork  bool
	Agent string
	// Arguments name the words of the arguments in order (`arguments`
	// frontmatter; $name in the template).
	Arguments []string
}

func (c *Local) spec() *Spec  { return &c.Spec }
func (c *Prompt) spec() *Spec { return &c.Spec }

// SpecOf returns a command's common fields.
func SpecOf(c Command) Spec { return *c.spec() }

// Invocation is one use of a command.
type Invocation struct {
	Name string
	Args string
	Cwd  string
}

// Intent is what a local command asks the loop to do: a closed sum of the
// types below.
type Intent interface{ intent() }

// ShowText shows Markdown text to the user (no model turn).
type ShowText struct{ Text string }

// ShowError shows an error to the user (no model turn).
type ShowError struct{ Message string }

// ClearConversation starts a new conversation in the same session.
type ClearConversation struct{}

// CompactConversation replaces the history with a model-written summary.
type CompactConversation struct{ Instructions string }

// SubmitPrompt runs a model turn with Text as the user's message.
type SubmitPrompt struct {
	Text         string
	AllowedTools []string
	Model        string
}

func (ShowText) intent()            {}
func (ShowError) intent()           {}
func (ClearConversation) intent()   {}
func (CompactConversation) intent() {}
func (SubmitPrompt) intent()        {}
