package tools

import "os"

// commandEnv is a Bash command's environment: nil (inherit) unless
// SessionStart hooks left a shell environment (ShellEnvFile), which bash
// then sources before the command through BASH_ENV.
func (e *Env) commandEnv() []string {
	if e.ShellEnvFile == "" && len(e.ExtraEnv) == 0 {
		return nil
	}
	env := append(os.Environ(), e.ExtraEnv...)
	if e.ShellEnvFile != "" {
		env = append(env, "BASH_ENV="+e.ShellEnvFile)
	}
	return env
}

// terminalCommand is how an editor terminal runs command: through env(1)
// to set BASH_ENV when there is a shell environment, since a terminal is
// created with the editor's environment.
func (e *Env) terminalCommand(shellName, command string) (string, []string) {
	if e.ShellEnvFile == "" && len(e.ExtraEnv) == 0 {
		return shellName, []string{"-c", command}
	}
	args := append([]string(nil), e.ExtraEnv...)
	if e.ShellEnvFile != "" {
		args = append(args, "BASH_ENV="+e.ShellEnvFile)
	}
	return "env", append(args, shellName, "-c", command)
}
