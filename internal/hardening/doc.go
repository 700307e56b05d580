// Package hardening protects the running cordis process from its own
// children. Every Bash command, hook, template snippet and MCP server runs
// as the same user as cordis, and on Linux such a process could read
// /proc/<cordis>/environ (where the provider key sits in cordis's initial
// environment, whatever is removed from the children's own), open
// /proc/<cordis>/fd/1 and write forged JSON-RPC frames onto the editor's
// stream, or read cordis's memory.
//
// Apply marks the process non-dumpable (prctl PR_SET_DUMPABLE 0): its
// /proc entries then belong to root and processes of the same ordinary
// user can no longer read or open them. A process with CAP_SYS_PTRACE
// still passes that check, and every child of a root cordis would have it,
// so once Apply has run, children are started through Start, on a thread
// whose capability bounding set lacks CAP_SYS_PTRACE (root only): no
// program cordis starts can hold it. As a last line, Apply
// overwrites the values of the named variables in the process's initial
// environment block, which is what /proc/<pid>/environ shows; Go keeps its
// own copy of the environment, so os.Getenv still works. RELIABILITY.md's threat model
// says what holds as root and as an ordinary user.
//
// Concurrency: Apply is called once, early in main, before any child is
// started; it affects the whole process. Start is safe from any goroutine:
// starts are serialised on the spawner thread.
package hardening
