// Package loop is the agent: it implements acp.Agent on top of a model
// provider, the Claude-named tools, the hook seams and the session log.
//
// A session (Session) is one conversation in one working directory. A
// prompt turn (Session.prompt) first routes slash commands (slash.go), then
// runs the UserPromptSubmit seam and hands the user's message to a runner:
// the model/tool loop shared by the main agent and Task subagents
// (turn.go). Each step streams one model response to the editor as
// agent_message_chunk / agent_thought_chunk, runs the tool calls it asks
// for — tool_call (pending), PreToolUse, permission (permission.go: hook
// decisions, mode, remembered choices, PermissionRequest, then the editor;
// anything unanswerable denies), in_progress, the tool, completed or
// failed, PostToolUse (toolrun.go) — and loops until the model stops and
// the Stop seam agrees (blocks are capped by Config.MaxStopBlocks).
//
// Governance never lives here: every decision comes through hooks.Seams.
// SessionStart and SubagentStart context is kept until the next model
// request of that (sub)agent and placed in it, so injections are part of
// the turn and snapshot-testable.
//
// Everything a turn does is appended to the session's log
// (sessionlog) as it happens; session/load rebuilds the history from
// it and replays it to the editor (load.go), repairing a history a crash
// cut short. Hooks get the log's path (hooks.Input.SessionLogPath, and a
// subagent's own in AgentLogPath); each hook dialect renders its own view
// of the conversation from it.
//
// Concurrency: an Agent serves one connection. The acp server calls its
// methods in wire order except Prompt, which runs on its own goroutine; one
// turn runs per session at a time (a new prompt cancels the running one),
// while read-only slash commands may run alongside (RunsAlongside).
// Session fields that set_mode / set_config_option change while a turn
// runs are guarded by Session.mu; notifications of one turn are sent from
// its goroutine, in order.
package loop
