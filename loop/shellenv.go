package loop

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/cordis-agent/cordis/sessionlog"
)

// keepShellEnv keeps what the session's SessionStart hooks exported
// (Claude Code's CLAUDE_ENV_FILE) in a file of the session's state
// folder, which every later Bash command sources through BASH_ENV
// (tools.Env.ShellEnvFile). The file ends by unsetting BASH_ENV, so bash
// scripts the command starts do not source it again. Each SessionStart
// replaces it; none leaves no file.
func (s *Session) keepShellEnv(scripts []string) {
	// <state>/sessions/<id>/, beside the session's subagent logs.
	dir := filepath.Dir(filepath.Dir(sessionlog.SubagentPath(s.agent.cfg.StateDir, s.id, "x")))
	path := filepath.Join(dir, "shell-env.sh")
	s.mu.Lock()
	defer s.mu.Unlock()
	s.shellEnv = ""
	if len(scripts) == 0 {
		os.Remove(path)
		return
	}
	script := strings.Join(scripts, "\n") + "\nunset BASH_ENV\n"
	if err := os.MkdirAll(dir, 0o700); err != nil {
		s.agent.log.Warn("SessionStart shell env not kept", "session", s.id, "error", err)
		return
	}
	if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
		s.agent.log.Warn("SessionStart shell env not kept", "session", s.id, "error", err)
		return
	}
	s.shellEnv = path
}

// shellEnvFile is the file keepShellEnv kept, or "".
func (s *Session) shellEnvFile() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shellEnv
}
