package tools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cordis-agent/cordis/internal/proc"
	"github.com/cordis-agent/cordis/internal/sandbox"
)

// Kind is the ACP tool kind shown by the editor. The values are ACP's.
type Kind string

const (
	KindRead    Kind = "read"
	KindEdit    Kind = "edit"
	KindDelete  Kind = "delete"
	KindMove    Kind = "move"
	KindSearch  Kind = "search"
	KindExecute Kind = "execute"
	KindThink   Kind = "think"
	KindFetch   Kind = "fetch"
	// KindSwitchMode: Zed shows such a call as a mode switch.
	KindSwitchMode Kind = "switch_mode"
	KindOther      Kind = "other"
)

// Tool is one model-callable tool. Implementations are stateless values;
// everything a call needs arrives in Env and the input.
type Tool interface {
	// Name is Claude Code's tool name ("Read", "Bash", ...).
	Name() string
	Description() string
	// Schema is the JSON Schema of the input object (inline root,
	// additionalProperties false).
	Schema() json.RawMessage
	Kind() Kind
	// ReadOnly tools are the only ones allowed in plan mode and run without
	// asking in default mode.
	ReadOnly() bool
	// Describe derives the editor-facing title and locations from the raw
	// input. It must tolerate invalid input (it runs before validation).
	Describe(env *Env, input json.RawMessage) Description
	// Run executes the call. Failures are reported in Result (IsError), not
	// as a Go error: a tool never ends the turn.
	Run(ctx context.Context, env *Env, input json.RawMessage) Result
}

// Description is what the editor shows for a pending call.
type Description struct {
	Title     string
	Locations []Location
	// Detail is Markdown shown in the call's card before it runs, and in
	// its permission request (Bash: the whole command, which the editor
	// does not otherwise show); "" for none.
	Detail string
	// Quiet calls get no card of their own: what they publish is their
	// card (TodoWrite's plan, as claude-agent-acp shows it).
	Quiet bool
}

// Location is a file (and optionally a 1-based line) a call touches.
type Location struct {
	Path string `json:"path"`
	Line int    `json:"line,omitempty"`
}

// Diff is an edit shown to the editor. OldText nil means a new file.
type Diff struct {
	Path    string  `json:"path"`
	OldText *string `json:"oldText"`
	NewText string  `json:"newText"`
}

// Image is a picture a tool returns: base64 (standard, padded) Data of
// MediaType, one of image/png, image/jpeg, image/gif and image/webp (the
// types every model wire cordis speaks accepts).
type Image struct {
	MediaType string `json:"mediaType"`
	Data      string `json:"data"`
}

// DecodedLen is the number of bytes base64 data (standard alphabet, padded
// or not) stands for.
func DecodedLen(data string) int {
	return base64.RawStdEncoding.DecodedLen(len(strings.TrimRight(data, "=")))
}

// SendableImage returns the image a tool other than Read (an MCP server's)
// gave as base64 data, if the model can take it: a type every wire
// accepts, valid standard base64, and within the API's size limit (see
// imageMaxBase64). Otherwise the caller keeps a text note only.
func SendableImage(mediaType, data string) (Image, bool) {
	if _, ok := imageNames[mediaType]; !ok || len(data) > imageMaxBase64 {
		return Image{}, false
	}
	if _, err := base64.StdEncoding.DecodeString(data); err != nil {
		return Image{}, false
	}
	return Image{MediaType: mediaType, Data: data}, true
}

// Result is the outcome of one call.
type Result struct {
	// Text is what the model receives as the tool_result content. When
	// Images are set it still says what they are, for text-only readers
	// (logs, hooks, transcripts, the compaction summary).
	Text    string `json:"text"`
	IsError bool   `json:"isError,omitempty"`
	// Images follow Text in the tool_result the model receives, and in
	// what the editor is shown.
	Images []Image `json:"images,omitempty"`
	// Display, when set, is what the editor's card shows instead of
	// Text: Text may carry notes meant for the model only (Read's paging
	// hint).
	Display string `json:"display,omitempty"`
	// Diffs, Locations and TerminalID are what the editor shows; when all
	// are empty the editor is shown Display or Text (and Images).
	Diffs      []Diff     `json:"diffs,omitempty"`
	Locations  []Location `json:"locations,omitempty"`
	TerminalID string     `json:"terminalId,omitempty"`
}

// Errorf returns an error result; the text goes to the model.
func Errorf(format string, args ...any) Result {
	return Result{Text: fmt.Sprintf(format, args...), IsError: true}
}

// FileSystem reads and writes text files. The loop supplies the editor's
// fs/read_text_file and fs/write_text_file when the client offers them;
// a nil FileSystem in Env means the local disk.
type FileSystem interface {
	ReadTextFile(ctx context.Context, path string) (string, error)
	WriteTextFile(ctx context.Context, path, content string) error
}

// LineReader is a FileSystem that also reads a window of a file: limit
// lines from 1-based line (ACP fs/read_text_file's line and limit).
type LineReader interface {
	ReadTextLines(ctx context.Context, path string, line, limit int) (string, error)
}

// ExitStatus is how a command ended. Signal is set when it was killed.
type ExitStatus struct {
	ExitCode *int
	Signal   string
}

// Terminals runs commands in the editor's terminals (ACP terminal/*).
// A nil Terminals in Env means local processes.
type Terminals interface {
	Create(ctx context.Context, command string, args []string, cwd string, outputByteLimit int) (terminalID string, err error)
	Output(ctx context.Context, terminalID string) (output string, truncated bool, exit *ExitStatus, err error)
	WaitForExit(ctx context.Context, terminalID string) (ExitStatus, error)
	Kill(ctx context.Context, terminalID string) error
	Release(ctx context.Context, terminalID string) error
}

// TodoItem is one TodoWrite entry (Claude Code's shape).
type TodoItem struct {
	Content    string `json:"content" jsonschema:"minLength=1" jsonschema_description:"What needs to be done, in the imperative (Run the tests)."`
	Status     string `json:"status" jsonschema:"enum=pending,enum=in_progress,enum=completed" jsonschema_description:"The item's state; keep exactly one item in_progress while working."`
	ActiveForm string `json:"activeForm,omitempty" jsonschema_description:"The same task in the present continuous, shown while it is in progress (Running the tests)."`
	Priority   string `json:"priority,omitempty" jsonschema:"enum=high,enum=medium,enum=low" jsonschema_description:"How important the item is."`
}

// TaskInput is the Task tool's input (Claude Code's shape).
type TaskInput struct {
	Description  string `json:"description" jsonschema:"description=A short (3-5 word) description of the task"`
	Prompt       string `json:"prompt" jsonschema:"description=The task for the agent to perform"`
	SubagentType string `json:"subagent_type,omitempty" jsonschema:"description=The type of specialized agent to use for this task"`
	// Model is set by the loop, never by the model (it is not in the
	// schema): the `model` field of a `context: fork` command or skill,
	// which the subagent runs on ("" keeps its type's).
	Model string `json:"-"`
}

// Env is the per-call environment the loop provides.
type Env struct {
	SessionID string
	// Cwd is the session's absolute working directory.
	Cwd string
	// Roots are the absolute directories tools may touch (Cwd first, then
	// configured extra directories). Paths outside them are refused.
	Roots []string

	FS        FileSystem // nil: local disk
	Terminals Terminals  // nil: local processes

	// Progress reports an intermediate result (for example a terminal id
	// to embed as soon as the command starts). May be nil.
	Progress func(Result)
	// Todos publishes the TodoWrite list (the loop sends an ACP plan).
	Todos func(ctx context.Context, items []TodoItem) error
	// RunSubagent runs a Task subagent and returns its final text.
	RunSubagent func(ctx context.Context, in TaskInput) (string, error)

	// Background owns the session's background shell tasks (Bash with
	// run_in_background, TaskOutput, TaskStop); nil: none can be started.
	Background *Background
	// AskUser puts AskUserQuestion's questions to the user and returns
	// the answers; nil: the tool reports that no one can be asked.
	AskUser func(ctx context.Context, questions []Question) ([]Answer, error)
	// ExitPlan shows the plan to the user and, when approved, leaves plan
	// mode; nil: ExitPlanMode reports that no one can be asked.
	ExitPlan func(ctx context.Context, plan string) (PlanDecision, error)
	// Web is how WebFetch reaches the network (nil: the defaults, which
	// refuse loopback and private addresses).
	Web *WebOptions
	// WebSearch runs a web search through the model provider's own search
	// tool; nil when the provider has none (WebSearch then reports so).
	WebSearch func(ctx context.Context, in WebSearchInput) (SearchResult, error)
	// AskAboutPage applies a WebFetch call's prompt to the page it
	// fetched with a small model and returns the answer; nil when no
	// model is configured for it (WebFetch then returns the page).
	AskAboutPage func(ctx context.Context, q PageQuestion) (string, error)

	// OutputLimit caps captured command output in bytes (0: default).
	OutputLimit int
	// EnvPolicy decides what of cordis's environment a command inherits
	// (nil: proc.DefaultEnvPolicy).
	EnvPolicy *proc.EnvPolicy
	// Sandbox, when not nil, confines the commands this call runs (Bash,
	// in the foreground, the background or an editor terminal): the loop
	// chooses it per call from the session's sandbox settings and how the
	// call was allowed. A policy that cannot be enforced fails the call;
	// nothing runs unconfined in its place.
	Sandbox *sandbox.Policy
	// ExtraEnv are variables set for this call's commands on top of what
	// they inherit (the loop's git settings for read-only confined runs).
	ExtraEnv []string
	// ShellEnvFile is a script bash sources before every Bash command
	// (through BASH_ENV): what SessionStart hooks exported (Claude's
	// CLAUDE_ENV_FILE); "" for none.
	ShellEnvFile string
}
