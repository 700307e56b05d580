// Package tools implements the model-callable tools of cordis under Claude
// Code's names and input fields: Read, Write, Edit, Bash, Glob, Grep,
// TodoWrite, Task, NotebookEdit, TaskOutput and TaskStop (BashOutput and
// KillShell accepted), AskUserQuestion and WebFetch.
//
//	all := tools.Builtin()
//	read, _ := tools.ByName(all, "Read")
//	env := &tools.Env{Cwd: dir, Roots: []string{dir}}
//	d := read.Describe(env, input) // title and locations for the editor
//	res := read.Run(ctx, env, input)
//	// res.Text goes to the model; res.IsError marks a failed call.
//
// Every tool decodes its input strictly (unknown fields and wrong types are
// error results that name the problem) and confines file paths to the
// session's directories with Env.Resolve. Every file of the local disk is
// then opened through those directories (internal/confine), so a symlink
// swapped in after the check cannot lead outside, and only regular files
// are read or written (a FIFO is refused, never waited on). File contents
// go through Env.FS (the editor's buffers, which the editor opens) when it
// is set, and commands through Env.Terminals (the editor's terminals) when
// it is set; otherwise the local disk and local processes are used. Grep
// and Glob walk the local disk either way.
// Input schemas are generated from the input structs with
// github.com/invopop/jsonschema when the package is initialised.
//
// Concurrency: the tools are stateless values, safe for concurrent use;
// everything a call needs arrives in its Env and input. Each local Bash call
// owns its process group (see package proc), which is gone when Run
// returns; a background Bash call's group is owned by the session's
// Background, which kills it when the session closes.
package tools
