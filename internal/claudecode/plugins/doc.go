// Package plugins reads the Claude Code plugins a user installed, as
// Claude Code leaves them on disk, and decides which are in effect for a
// project as Claude Code's settings say:
//
//   - installed_plugins.json (version 1: one record per plugin; version 2:
//     a list of records with scope user, project or local) under
//     <user folder>/plugins, and under each folder of
//     CLAUDE_CODE_PLUGIN_SEED_DIR (read-only seeds, below the user's own);
//     a record whose cache folder is gone falls back to the copy in its
//     marketplace (known_marketplaces.json, marketplace.json);
//   - enabledPlugins in the user's, the project's and the project's local
//     settings, the highest that names a plugin deciding (local over
//     project over user); without an entry a plugin the user installed
//     is enabled;
//   - a plugin that only the project's settings enable (the user neither
//     enabled it nor installed it for this project) runs only once the
//     user trusted that enablement (internal/trust; `cordis trust`), as
//     project hooks do;
//   - each plugin's .claude-plugin/plugin.json (optional) and its parts:
//     commands/, skills/, agents/, hooks/hooks.json and .mcp.json, or the
//     paths and inline objects its manifest names instead.
//
// A plugin that cannot be used (a manifest that is not JSON, a missing
// folder) is skipped with the reason; nothing here fails a session.
//
// It imports internal/setup (the neutral sources it returns),
// internal/trust (project settings are read confined, enablements are
// trusted there) and internal/claudecode/mcpjson. A Finder is safe for
// concurrent use; it caches what it read per project and re-reads when a
// file it read changes (size or modification time).
package plugins
