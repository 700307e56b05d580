package engine

import (
	"iter"

	"github.com/cordis-agent/cordis/bridge/internal/guard"
	"github.com/cordis-agent/cordis/bridge/internal/hookproc"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/internal/trust"
)

// Dialect is what a hook dialect (bridge/claude, bridge/codex) tells the
// engine: its tables and rules. H is the dialect's parsed handler.
type Dialect[H Handler] interface {
	// Info names the dialect.
	Info() Info
	// Seams are the cordis seams the dialect serves, in registration
	// order, each with the event key its files declare hooks under.
	Seams() []Seam
	// Layers are the hook files in effect for a session in cwd, in the
	// order their hooks run (lowest precedence first). With cwd "" they
	// are the files that do not depend on a session (an explicit path).
	Layers(cwd string) []Layer
	// Parse parses one file. It never fails: what is wrong goes into the
	// File's Problems (a file that does not parse has no handlers).
	Parse(l Layer, data []byte) *File[H]
	// Match returns the test a handler of in's event must pass to run for
	// in (its matcher, a filter). It must be cheap and have no side
	// effects: Applies calls it.
	Match(in *hooks.Input) func(H) bool
	// Prepare starts one seam call that runs the handlers of run (in
	// configuration order; run may be empty when an Observer asked to see
	// the call): it renders the hook input and does the call's
	// bookkeeping. The engine calls the Call's methods in this order:
	// Command for each handler, Interpret for each result, Decision,
	// Close.
	Prepare(in *hooks.Input, run []H, observed bool) (Call[H], error)
}

// Observer is implemented by a dialect that must see some seam calls even
// when none of its handlers runs for them (Codex keeps a file's content at
// PreToolUse for a later PostToolUse patch, and remembers subagent types).
// Observes must be cheap and have no side effects; the work belongs in
// Prepare. runnable lists every handler that may run for the session.
type Observer[H Handler] interface {
	Observes(in *hooks.Input, runnable iter.Seq[H]) bool
}

// Backgrounder is implemented by a dialect whose hooks may run in the
// background (Claude's async and asyncRewake, Codex's async): the seam call
// neither waits for them nor takes their decisions. The engine starts
// them through the session's hooks.Later (owned by the session, killed
// when it closes), at most Info.AsyncLimit at once per session, and hands
// what Late makes of each result to the session when it ends.
type Backgrounder[H Handler] interface {
	// Background reports whether h runs in the background for in.
	Background(in *hooks.Input, h H) bool
	// Late turns the result of h's background run for in into what
	// reaches the session; a failure says why it gave nothing. It may be
	// called concurrently, after the seam call's Close.
	Late(in *hooks.Input, h H, res hookproc.Result) (late hooks.LateResult, failure string)
}

// Call is one seam call of a dialect, from the rendered input to the
// merged decision. It is used by one goroutine.
type Call[H Handler] interface {
	// Command is how h runs (its shell or argv, directory, environment,
	// stdin and timeout). OutputLimit and Grace default to the engine's.
	Command(h H) hookproc.Command
	// Interpret takes in the result of h's run, in configuration order,
	// and returns why the run failed, or "": a failed run contributes
	// nothing, and the engine logs and records it.
	Interpret(h H, res hookproc.Result) (failure string)
	// Refuse turns the run Interpret saw last (a guard that could not
	// run, under guardFailure: deny) into a refusal of the call.
	Refuse(reason string)
	// Decision merges what the runs said, in configuration order.
	Decision() hooks.Decision
	// Close releases what Prepare acquired.
	Close()
}

// Handler is one parsed hook of a dialect.
type Handler interface {
	// Identity is the hook's identity in the trust store; its Source is
	// the file that declares it and its Command names it in messages.
	Identity() trust.Hook
	// Advisory reports a hook that cannot decide (Claude's async hooks):
	// it is not a guard when it fails to run.
	Advisory() bool
}

// Info names a dialect.
type Info struct {
	// Name is the trust store's name for the dialect ("claude").
	Name string
	// Guard names the dialect in messages: Guard.Name ("Claude") in
	// /doctor lines and logs, and all of it in guard-failure messages.
	Guard guard.Dialect
	// Dedup runs identical commands of one call once (Claude Code does;
	// Codex runs them all).
	Dedup bool
	// AsyncLimit bounds the background hooks one session runs at once
	// (Codex: 8); more wait for a free slot. 0 is DefaultAsyncLimit.
	AsyncLimit int
}

// Seam is a cordis seam a dialect serves and the event key of its files
// that runs there (Codex runs its PostToolUse hooks on PostToolUseFailure).
type Seam struct {
	Event hooks.Event
	Key   string
}

// Layer is one hook file a dialect reads.
type Layer struct {
	Path string
	// Format selects the dialect's parser (Codex: "toml" for a
	// config.toml); the engine does not look at it.
	Format string
	// Project is set for a file found in the project: its hooks run only
	// once trusted, and it is read confined (internal/trust.ReadHookFile).
	Project bool
	// Managed is set for an administrator's policy file (managed
	// settings): its hooks run even when the policy allows only managed
	// hooks, and a disableAllHooks in another file does not stop them.
	Managed bool
	// Explicit is set for the file named by the user's cordis.yml: when
	// it does not exist the bridge registers no hook at all.
	Explicit bool
	// Env are NAME=value variables the file's hooks get in their
	// environment, which the dialect also substitutes in their commands
	// (a Claude Code plugin's CLAUDE_PLUGIN_ROOT and CLAUDE_PLUGIN_DATA).
	Env []string
	// Optional is set for a file that usually holds other settings
	// (Codex's config.toml): without hooks or problems it is not
	// mentioned by Doctor or Discover.
	Optional bool
	// Sibling is another file of the same layer, read before this one;
	// when both declare hooks, Overlap is a problem of this file.
	Sibling, Overlap string
}

// File is a parsed hook file.
type File[H Handler] struct {
	// ByEvent holds the handlers that can run, by event key, in
	// configuration order.
	ByEvent map[string][]H
	// All lists the same handlers in file order, for trust and reports.
	All []H
	// Problems are what is wrong (a file that does not parse, a skipped
	// entry), each naming the file: logged, shown to each session once,
	// listed by Problems, Doctor and Discover.
	Problems []string
	// Warnings are settings cordis does not support: logged and listed by
	// Discover.
	Warnings []string
	// Declares is set when the file declares hooks, runnable or not.
	Declares bool
	// DisableAll, when set in the file of highest precedence that sets
	// it, turns the session's hooks on or off (Claude's disableAllHooks):
	// in a managed file every hook, in another file every hook but the
	// managed ones.
	DisableAll *bool
}
