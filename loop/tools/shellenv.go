package tools

import "os"

// commandEnv is a Bash command's environment: nil (inherit) unless
// SessionStart hooks left a shell environment (ShellEnvFile), which bash
// then sources before the command through BASH_ENV.
func (e *Env) commandEnv() []string {
	if e.ShellEnvFile == "" {
		return nil
	}
	return append(os.Environ(), "BASH_ENV="+e.ShellEnvFile)
}

// terminalCommand is how an editor terminal runs command: through env(1)
// to set BASH_ENV when there is a shell environment, since a terminal is
// created with the editor's environment.
func (e *Env) terminalCommand(shellName, command string) (string, []string) {
	if e.ShellEnvFile == "" {
		return shellName, []string{"-c", command}
	}
	return "env", []string{"BASH_ENV=" + e.ShellEnvFile, shellName, "-c", command}
}
