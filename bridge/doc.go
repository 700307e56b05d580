// Package bridge is the home of cordis's hook bridges, which run hook
// programs written for other coding agents, unmodified, on cordis's seams:
//
//   - bridge/claude: Claude Code's dialect (settings.json "hooks");
//   - bridge/codex: the Codex CLI's dialect (hooks.json, [hooks] in
//     config.toml);
//   - bridge/internal/engine: the one engine both run on (discovery,
//     caching, trust, planning, running, failure records, /doctor), generic
//     over a small Dialect interface; its doc says how to add a hook source
//     or a dialect;
//   - internal/trust: which project hooks the user trusted;
//   - bridge/internal/hookproc: runs hook commands as owned process
//     groups; bridge/internal/guard: the policy for guards that could not
//     run.
//
// The package itself holds no code: its tests are the dialect-conflict
// matrix, which runs the same hook files through both dialects and checks
// that they disagree where the originals do (reference §10 of
// hook-dialects.md beside a checkout).
package bridge
