package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// Access rights, split so that reading and writing are granted by separate
// rules: a denied read inside a writable tree stays denied (rights of
// several rules add up; none subtracts).
const (
	readRights  landlock.AccessFSSet = ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir
	writeRights landlock.AccessFSSet = ll.AccessFSWriteFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile |
		ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock | ll.AccessFSMakeFifo |
		ll.AccessFSMakeSym | ll.AccessFSRefer | ll.AccessFSTruncate
	sinkRights landlock.AccessFSSet = ll.AccessFSReadFile | ll.AccessFSWriteFile | ll.AccessFSTruncate
)

// sinks are the device files every confined command may write: discarding
// output must never fail.
var sinks = []string{"/dev/null", "/dev/zero", "/dev/full"}

// rulesetFor creates the policy's Landlock ruleset and returns its fd and
// the flags for landlock_restrict_self. The caller closes the fd once the
// command has started.
func rulesetFor(p *Policy, abi int) (int, uint32, error) {
	cfg := landlock.V7
	if p.AllowLocalBinding {
		// Listening is allowed: only outgoing connections are handled.
		cfg.HandledAccessNet = ll.AccessNetConnectTCP
	}
	// Best effort drops what an older kernel lacks; Check refuses the
	// kernels where what is dropped would matter (see minABI).
	cfg = cfg.BestEffort()
	var rules []landlock.Rule
	read := p.Read
	if p.ReadSystem {
		read = append(slices.Clone(read), systemReadPaths()...)
	}
	if p.ReadAll {
		read = []string{"/"}
	}
	full, listOnly, err := splitGrants(resolveAll(read), resolveAll(p.DenyRead))
	if err != nil {
		return -1, 0, err
	}
	rules = append(rules, grant(readRights, full)...)
	rules = append(rules, grant(ll.AccessFSReadDir, listOnly)...)
	rules = append(rules, grant(writeRights, resolveAll(p.Write))...)
	rules = append(rules, landlock.PathAccess(sinkRights, sinks...).IgnoreIfMissing())
	if p.ProxyPort != 0 {
		if abi < 4 {
			return -1, 0, fmt.Errorf("Landlock ABI %d cannot limit TCP to the proxy (ABI 4 can)", abi)
		}
		rules = append(rules, landlock.ConnectTCP(p.ProxyPort))
	}
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return -1, 0, fmt.Errorf("Landlock ruleset: %w", err)
	}
	if fd < 0 {
		return -1, 0, errors.New("Landlock: nothing could be enforced on this kernel")
	}
	return fd, flags, nil
}

// systemReadPaths are the folders programs need: the system's programs,
// libraries and configuration, and the folders of PATH outside home (home
// itself is never granted by this: it holds credentials).
func systemReadPaths() []string {
	paths := []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/nix/store", "/proc", "/sys"}
	// Of /etc and /dev only what programs read to run: a root command
	// owns /etc/shadow, the host's ssh keys and the raw disks, so the
	// folders are not granted whole.
	for _, f := range systemEtc {
		paths = append(paths, "/etc/"+f)
	}
	for _, f := range systemDev {
		paths = append(paths, "/dev/"+f)
	}
	home, _ := os.UserHomeDir()
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		dir = filepath.Clean(dir)
		if filepath.IsAbs(dir) && dir != "/" && (home == "" || dir != home && !within(dir, home)) {
			paths = append(paths, dir)
		}
	}
	return paths
}

// systemEtc are the files of /etc that programs read to start, find
// users, zones, locales, terminals and file types, and git's system
// configuration.
var systemEtc = []string{
	"ld.so.cache", "ld.so.conf", "ld.so.conf.d", "ld.so.preload", "nsswitch.conf", "passwd", "group",
	"localtime", "timezone", "locale.alias", "locale.conf", "default/locale", "environment",
	"inputrc", "terminfo", "magic", "magic.mime", "mime.types", "gitconfig", "gitattributes",
	"os-release", "lsb-release", "debian_version", "hostname", "host.conf", "gai.conf", "hosts",
	"alternatives", "bash.bashrc", "profile", "manpath.config", "java-17-openjdk", "ssl/openssl.cnf",
}

// systemDev are the device files a program may read.
var systemDev = []string{"null", "zero", "full", "random", "urandom", "tty", "pts", "ptmx"}

// fileRights are the rights that mean something on a file (the kernel
// refuses directory rights in a rule for one).
const fileRights landlock.AccessFSSet = ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile | ll.AccessFSTruncate | ll.AccessFSIoctlDev

// grant makes the rules that give rights beneath each of paths: a file
// gets only the rights a file can have; a missing path is skipped.
func grant(rights landlock.AccessFSSet, paths []string) []landlock.Rule {
	var dirs, files []string
	for _, p := range paths {
		info, err := os.Stat(p)
		switch {
		case err != nil:
		case info.IsDir():
			dirs = append(dirs, p)
		default:
			files = append(files, p)
		}
	}
	var rules []landlock.Rule
	if len(dirs) > 0 {
		rules = append(rules, landlock.PathAccess(rights, dirs...).IgnoreIfMissing())
	}
	if r := rights & fileRights; len(files) > 0 && r != 0 {
		rules = append(rules, landlock.PathAccess(r, files...).IgnoreIfMissing())
	}
	return rules
}

// resolveAll cleans paths and evaluates their symlinks (a missing path is
// kept as written: IgnoreIfMissing skips it, and a denied missing path
// denies nothing that exists).
func resolveAll(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		p = filepath.Clean(p)
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		out = append(out, p)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// maxSplitEntries bounds the directory entries splitGrants reads, so a
// denied path under a huge directory cannot stall a command's start.
const maxSplitEntries = 20000

// splitGrants turns readable bases and denied paths into Landlock grants:
// full are granted read with everything beneath; listOnly are directories
// on the way to a denied path, granted ReadDir only (their names are
// listable, their files are not readable through them), whose entries are
// granted one by one except the denied one.
func splitGrants(bases, deny []string) (full, listOnly []string, err error) {
	budget := maxSplitEntries
	var walk func(dir string) error
	walk = func(dir string) error {
		inside := false
		for _, d := range deny {
			if d == dir || within(dir, d) {
				return nil // denied itself, or beneath a denied path
			}
			if within(d, dir) {
				inside = true
			}
		}
		if !inside {
			full = append(full, dir)
			return nil
		}
		info, err := os.Lstat(dir)
		if err != nil || !info.IsDir() {
			return nil
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil // unreadable to cordis: not granted
		}
		if budget -= len(entries); budget < 0 {
			return fmt.Errorf("sandbox: too many entries beside the denied paths in %s", dir)
		}
		listOnly = append(listOnly, dir)
		for _, e := range entries {
			if err := walk(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
		return nil
	}
	for _, b := range bases {
		if err := walk(b); err != nil {
			return nil, nil, err
		}
	}
	return full, listOnly, nil
}
