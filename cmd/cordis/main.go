package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/internal/hardening"
	"github.com/cordis-agent/cordis/internal/printable"
	subproc "github.com/cordis-agent/cordis/internal/proc"
	"github.com/cordis-agent/cordis/internal/sandbox"
	"github.com/cordis-agent/cordis/internal/secrets"
	"github.com/cordis-agent/cordis/loop"
)

// version is set at link time (-ldflags "-X main.version=v1.2.3"); a
// plain `go build` reports the module version or the VCS revision.
var version = ""

const usage = `cordis — a coding agent for editors that speak ACP

Usage:
  cordis acp [flags]      serve the Agent Client Protocol on stdin/stdout
  cordis trust [--cwd DIR] [--list]
                          trust the project's cordis.yml and hook files
  cordis hooks trust|list [--cwd DIR]
                          trust or list project hook files
  cordis config show [--cwd DIR]
                          show the Claude Code settings cordis applies in DIR
                          (managed policy, permission rules and where each
                          comes from, directories, mode)
  cordis login [--config PATH]
                          store the model API key for cordis (asked on the
                          terminal, kept 0600 in <user config dir>/cordis/credentials)
  cordis logout           remove the stored keys
  cordis schema           print the JSON Schema of cordis.yml
  cordis version          print the version
  cordis help             show this help

Flags (for acp and schema):
  --config PATH       config file (default: $CORDIS_CONFIG, else
                      <user config dir>/cordis/cordis.yml, else built-in);
                      a trusted ./cordis.yml is laid over it (cordis trust)
  --state-dir DIR     where sessions are kept (default: $CORDIS_HOME, else
                      <user state dir>/cordis)
  --log-file PATH     write logs to PATH instead of stderr
  --log-level LEVEL   debug, info, warn or error (default info)

stdout of 'cordis acp' carries JSON-RPC frames only; logs never go there.
`

func main() {
	// The sandbox's helper: cordis re-executed to confine one command
	// (internal/sandbox). Nothing else of cordis runs in that process.
	if len(os.Args) > 1 && strings.HasPrefix(os.Args[1], sandbox.HelperVerb) {
		os.Exit(sandbox.Main(os.Args[1], os.Args[2:]))
	}
	if err := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "cordis: "+printable.Line(oneLine(err.Error())))
		os.Exit(1)
	}
}

// flags are shared by the subcommands that load configuration.
type flags struct {
	config   string
	stateDir string
	logFile  string
	logLevel string
}

func parseFlags(name string, args []string, stderr io.Writer) (*flags, error) {
	f := &flags{}
	fs := flag.NewFlagSet("cordis "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.config, "config", "", "config file")
	fs.StringVar(&f.stateDir, "state-dir", "", "state directory")
	fs.StringVar(&f.logFile, "log-file", "", "log file")
	fs.StringVar(&f.logLevel, "log-level", "info", "log level")
	if err := fs.Parse(args); err != nil {
		return nil, fmt.Errorf("%s: %v (see 'cordis help')", name, err)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("%s: unexpected argument %q (see 'cordis help')", name, fs.Arg(0))
	}
	return f, nil
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errors.New("no command given")
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "help", "-h", "--help", "-help":
		fmt.Fprint(stdout, usage)
		return nil
	case "version", "--version":
		fmt.Fprintln(stdout, "cordis "+currentVersion())
		return nil
	case "schema":
		if _, err := parseFlags(cmd, rest, stderr); err != nil {
			return err
		}
		data, err := newRegistry().Schema()
		if err != nil {
			return err
		}
		_, err = stdout.Write(append(data, '\n'))
		return err
	case "hooks":
		return runHooks(rest, printableWriter{stdout}, stderr)
	case "config":
		return runConfig(rest, printableWriter{stdout})
	case "trust":
		return runTrust(rest, printableWriter{stdout})
	case "login", "logout":
		f, err := parseFlags(cmd, rest, stderr)
		if err != nil {
			return err
		}
		if cmd == "logout" {
			return runLogout(f, stdout)
		}
		return runLogin(f, stdin, stdout, stderr)
	case "acp":
		// A client runs the terminal auth method as the agent's own
		// command with "login" appended.
		login := len(rest) > 0 && rest[len(rest)-1] == "login"
		if login {
			rest = rest[:len(rest)-1]
		}
		f, err := parseFlags(cmd, rest, stderr)
		if err != nil {
			return err
		}
		if login {
			return runLogin(f, stdin, stdout, stderr)
		}
		return serveACP(f, stdin, stdout, stderr)
	}
	return fmt.Errorf("unknown command %q (valid: acp, login, logout, trust, hooks, schema, version, help)", cmd)
}

func serveACP(f *flags, stdin io.Reader, stdout, stderr io.Writer) error {
	// Nothing cordis writes carries a provider key, whatever a subprocess
	// printed (secrets registers the values as the config names them).
	rawStdout := stdout
	stdout, stderr = secrets.Writer{W: stdout}, secrets.Writer{W: stderr}
	logger, closeLog, err := openLogger(f, stderr)
	if err != nil {
		return err
	}
	defer closeLog()
	// The configuration is loaded before the server reads. A broken one
	// does not end cordis: an editor shows a dead agent as a crash, so
	// cordis answers initialize and refuses sessions with the error
	// (file, line, field). Nothing else is set up before the first
	// answer (see acp.Options.Started).
	stateDir, err := resolveStateDir(f.stateDir)
	if err != nil {
		return err
	}
	cfg, keyEnv, err := loadAgentConfig(f, stateDir, logger)
	if err != nil {
		logger.Error("configuration", "error", err)
		cfg, keyEnv = &loop.Config{StateDir: stateDir, ConfigError: err}, []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY"}
		for _, name := range keyEnv {
			secrets.Register(name, os.Getenv(name))
		}
	}
	// Children must not read the keys out of cordis's own /proc entries
	// (internal/hardening); failing to harden is logged, not fatal, since
	// the keys are still scrubbed from everything cordis writes.
	if err := hardening.Apply(keyEnv...); err != nil {
		logger.Warn("hardening", "error", err)
	}
	cfg.Version = currentVersion()
	cfg.Logger = logger
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if f, ok := rawStdout.(*os.File); ok {
		watchStdoutClosed(ctx, f, cancel)
	}
	stdout = stdoutWatch{w: stdout, cancel: cancel}
	started := func() {
		go cancelOnSignal(ctx, cancel)
		logger.Info("cordis starting", "version", cfg.Version, "stateDir", stateDir, "model", cfg.Model)
	}
	newAgent := func(c *acp.Client) acp.Agent { return loop.New(*cfg)(c) }
	err = acp.Serve(ctx, stdin, stdout, newAgent, acp.Options{Logger: logger, Started: started})
	// Whatever a command left behind outside its process group dies with
	// the agent (each command's own leftovers are already gone).
	subproc.ReapOrphans()
	return err
}

func openLogger(f *flags, stderr io.Writer) (*slog.Logger, func(), error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return nil, nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", f.logLevel)
	}
	w, closeFn := stderr, func() {}
	if f.logFile != "" {
		file, err := os.OpenFile(f.logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, nil, fmt.Errorf("--log-file: %v", err)
		}
		w, closeFn = secrets.Writer{W: file}, func() { file.Close() }
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})), closeFn, nil
}

// resolveStateDir: --state-dir, $CORDIS_HOME, else the user state dir
// ($XDG_STATE_HOME/cordis or ~/.local/state/cordis).
func resolveStateDir(flagDir string) (string, error) {
	dir := flagDir
	if dir == "" {
		dir = os.Getenv("CORDIS_HOME")
	}
	if dir == "" {
		if xdg := os.Getenv("XDG_STATE_HOME"); xdg != "" {
			dir = filepath.Join(xdg, "cordis")
		} else {
			home, err := os.UserHomeDir()
			if err != nil {
				return "", fmt.Errorf("no state directory: set --state-dir or CORDIS_HOME (%v)", err)
			}
			dir = filepath.Join(home, ".local", "state", "cordis")
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return "", fmt.Errorf("state directory: %v", err)
	}
	return abs, nil
}

func currentVersion() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return "devel-" + s.Value[:12]
		}
	}
	return "devel"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
