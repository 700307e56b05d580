package permrules

import (
	"errors"
	"github.com/cordis-agent/cordis/internal/confine"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// ReadOnlyDirs are where a read-only command may look: the session's
// working directory (relative paths start there), the other directories
// its tools may use, and the home directory "~" stands for ("": none).
type ReadOnlyDirs struct {
	Cwd  string
	Dirs []string
	Home string
}

// ReadOnlyCommand reports whether a Bash command only reads, so that it
// may run without asking, as Claude Code runs its built-in set of
// read-only commands (ls, cat, grep, find without -exec or -delete,
// git status / diff / log ...). It is conservative: every simple command
// of the line (split at ; & && | || and newlines, subshells included)
// must be one of a fixed list, with only the options listed for it
// (none that writes or runs other programs: sort -o, sed -i, find -exec,
// git diff --output, git -c ...); no output may be redirected to a file
// (only to /dev/null or another descriptor); no command or process
// substitution, parameter expansion, brace expansion or here-document
// may appear; an environment assignment may only set the locale, time
// zone or colour; and every path a command reads (operands, git's too,
// file-valued options, input redirections, cd and git -C) must lie
// inside the session's directories, resolved as the kernel resolves it
// and globs expanded as bash expands them. What is not recognized is not
// read-only. It is a first filter: the command still runs confined.
func ReadOnlyCommand(command string, d ReadOnlyDirs) bool {
	cmds, ok := parseShell(command)
	if !ok || len(cmds) == 0 {
		return false
	}
	ck := &readOnlyCheck{dirs: d}
	if d.Cwd != "" {
		ck.bases = []string{d.Cwd}
		ck.roots = append([]string{d.Cwd}, d.Dirs...)
	} else {
		ck.roots = slices.Clone(d.Dirs)
	}
	for i, r := range ck.roots {
		ck.roots[i] = resolvePath(filepath.Clean(r))
	}
	for _, c := range cmds {
		if !ck.simple(c) {
			return false
		}
	}
	return true
}

// readOnlyCheck checks the simple commands of one line in order.
type readOnlyCheck struct {
	dirs ReadOnlyDirs
	// roots are the directories paths must stay in, symlinks resolved.
	roots []string
	// bases are the directories a relative path may be relative to: the
	// working directory and every directory an earlier cd went to (the
	// cd may or may not have happened, so a path must be inside from
	// each).
	bases []string
}

// safeEnv are the variables an assignment before a read-only command may
// set: they change how output looks, not what runs or what is read
// (unlike PATH, LD_PRELOAD, PAGER or GIT_DIR).
var safeEnv = regexp.MustCompile(`^(LANG|LANGUAGE|LC_[A-Z]+|TZ|NO_COLOR|COLUMNS|TERM)=`)

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// envValue is a locale, terminal or zone name: never a path (with a
// slash the C library reads that file as locale or zone data), except
// the zone's Area/City.
var envValue = regexp.MustCompile(`^[A-Za-z0-9_.@+-]*$`)

func safeEnvAssignment(w shellWord) bool {
	if w.glob || !safeEnv.MatchString(w.text) {
		return false
	}
	name, value, _ := strings.Cut(w.text, "=")
	if name == "TZ" && !strings.Contains(value, "..") && !strings.HasPrefix(value, "/") {
		value = strings.ReplaceAll(value, "/", "")
	}
	return envValue.MatchString(value)
}

func (ck *readOnlyCheck) simple(c simpleCommand) bool {
	for _, r := range c.redirs {
		if !ck.redirection(r) {
			return false
		}
	}
	words := c.words
	for len(words) > 0 && words[0].plain && envName.MatchString(words[0].text) {
		if !safeEnvAssignment(words[0]) {
			return false
		}
		words = words[1:]
	}
	if len(words) == 0 {
		return false // an assignment alone sets a shell variable
	}
	name := words[0].text
	args := words[1:]
	switch name {
	case "git":
		return ck.git(args)
	case "find":
		return ck.find(args)
	case "sed":
		return ck.sed(args)
	case "cd":
		return ck.cd(args)
	}
	spec, ok := readOnlyCommands[name]
	if !ok {
		return false
	}
	return ck.generic(spec, args)
}

// redirection allows duplicating or closing descriptors, discarding
// output into /dev/null, here-strings, and reading a file inside the
// session's directories.
func (ck *readOnlyCheck) redirection(r redirection) bool {
	t := r.target
	switch r.op {
	case ">&", "<&":
		if isDigits(t.text) || t.text == "-" {
			return true
		}
		return r.op == ">&" && t.text == "/dev/null" && !t.glob
	case ">", ">>", ">|", "&>", "&>>":
		return t.text == "/dev/null" && !t.glob
	case "<":
		return ck.path(t)
	case "<<<":
		return !t.glob
	}
	return false // <> opens for writing too
}

// operandKind says what a command's operands are.
type operandKind int

const (
	operandPaths       operandKind = iota // files or directories it reads
	operandText                           // text, not files (echo)
	operandPatternPath                    // a pattern, then files (grep), unless an option gave the pattern
)

// readOnlySpec describes one read-only command.
type readOnlySpec struct {
	operands operandKind
	// opts are the options it may be given, space-separated, each "-x"
	// or "--name" followed by what it takes: ":" a value that is text,
	// "/" a value that is a path, "%" a value that is git's format,
	// "?" an optional value (only glued or after =), and "!" when it
	// gives the pattern (grep -e). "-#" allows
	// a count in digits (head -5, grep -2). "*" allows anything (text
	// commands, which open no file). Every other option, abbreviations
	// of long ones included, makes the command asked about.
	opts string
	// maxOperands limits the operands (-1: any number).
	maxOperands int
	// operand, when set, must accept every operand (date +FORMAT).
	operand func(string) bool
}

const (
	checksumOpts = "-b -t -z --binary --text --tag --zero"
	grepOpts     = "-# -E -F -G -P -i -y -v -w -x -c -l -L -n -h -H -o -q -s -b -a -I -r -z -Z -U -T -e:! -f/! -m: -A: -B: -C: -d: -D: " +
		"--extended-regexp --fixed-strings --basic-regexp --perl-regexp --ignore-case --no-ignore-case --invert-match --word-regexp " +
		"--line-regexp --count --files-with-matches --files-without-match --line-number --no-filename --with-filename --only-matching " +
		"--quiet --silent --no-messages --byte-offset --text --recursive --null --null-data --binary --initial-tab --line-buffered " +
		"--color? --colour? --regexp:! --file/! --max-count: --after-context: --before-context: --context: --directories: --devices: " +
		"--include: --exclude: --exclude-dir: --label: --binary-files:"
)

// readOnlyCommands are the commands (besides git, find, sed and cd, which
// have their own checks) that only read files or print text, with the
// options known not to write, run a program or read a file that is not
// checked: ls -L, grep -R, du -L, diff -r, rg -L and tree -l follow
// symlinks out of the tree they walk; sort -o, tree -o and uniq's second
// operand write; rg --pre and -z, sort --compress-program and file -z run
// programs; --files0-from, file -f and -m, sort --random-source, du -X
// and tree --fromfile read files named in them or by them. Commands
// whose options could not be read exactly without a parser of their own
// (xxd, hexdump -f, strings @FILE, column, fmt, fold, expand, unexpand)
// are not on the list.
var readOnlyCommands = map[string]readOnlySpec{
	"ls": {maxOperands: -1, opts: "-a -A -b -B -c -C -d -f -F -g -G -h -H -i -k -l -m -n -N -o -p -q -Q -r -R -s -S -t -u -U -v -x -X -Z -1 " +
		"-w: -I: -T: --all --almost-all --escape --ignore-backups --directory --classify? --file-type --human-readable --si --inode " +
		"--kibibytes --numeric-uid-gid --literal --hide-control-chars --show-control-chars --quote-name --reverse --recursive --size " +
		"--group-directories-first --full-time --no-group --author --context --zero --color? --colour? --indicator-style: " +
		"--quoting-style: --time-style: --time: --sort: --format: --block-size: --width: --ignore: --hide: --tabsize:"},
	"cat":  {maxOperands: -1, opts: "-A -b -e -E -n -s -t -T -u -v --show-all --number-nonblank --number --squeeze-blank --show-ends --show-tabs --show-nonprinting"},
	"head": {maxOperands: -1, opts: "-# -n: -c: -q -v -z --lines: --bytes: --quiet --silent --verbose --zero-terminated"},
	"tail": {maxOperands: -1, opts: "-# -n: -c: -q -v -z --lines: --bytes: --quiet --silent --verbose --zero-terminated"},
	"wc":   {maxOperands: -1, opts: "-c -m -l -w -L --bytes --chars --lines --words --max-line-length --total:"},
	"stat": {maxOperands: -1, opts: "-L -f -t -c: --dereference --file-system --terse --format: --printf:"},
	"du": {maxOperands: -1, opts: "-a -b -c -h -k -m -s -x -S -l -0 -d: -B: -t: --all --apparent-size --bytes --total --human-readable --si " +
		"--summarize --one-file-system --separate-dirs --count-links --null --inodes --max-depth: --block-size: --threshold: --exclude:"},
	"df": {maxOperands: -1, opts: "-a -h -H -i -k -l -P -T -t: -x: -B: --all --human-readable --si --inodes --local --portability " +
		"--print-type --total --type: --exclude-type: --output? --block-size:"},
	"nl": {maxOperands: -1, opts: "-p -b: -d: -f: -h: -i: -l: -n: -s: -v: -w:"},
	"od": {maxOperands: -1, opts: "-v -a -b -c -d -f -i -l -o -s -x -A: -j: -N: -t: -w? -S? --address-radix: --skip-bytes: --read-bytes: " +
		"--format: --output-duplicates --width? --strings? --endian:"},
	"tac":      {maxOperands: -1, opts: "-b -r -s: --before --regex --separator:"},
	"rev":      {maxOperands: -1},
	"comm":     {maxOperands: 2, opts: "-1 -2 -3 -z --check-order --nocheck-order --output-delimiter: --total --zero-terminated"},
	"cmp":      {maxOperands: 2, opts: "-b -l -s -n: -i: --print-bytes --verbose --quiet --silent --bytes: --ignore-initial:"},
	"readlink": {maxOperands: -1, opts: "-f -e -m -n -q -s -v -z --canonicalize --canonicalize-existing --canonicalize-missing --no-newline --quiet --silent --verbose --zero"},
	"realpath": {maxOperands: -1, opts: "-e -m -L -P -q -s -z --canonicalize-existing --canonicalize-missing --logical --physical --quiet " +
		"--strip --no-symlinks --zero --relative-to/ --relative-base/"},
	"diff": {maxOperands: 2, opts: "-u -U: -c -C: -q -s -y -i -w -b -B -E -Z -a -N -t -T -p -d -W: --unified? --context? --brief " +
		"--report-identical-files --side-by-side --ignore-case --ignore-all-space --ignore-space-change --ignore-blank-lines --text " +
		"--new-file --expand-tabs --initial-tab --show-c-function --minimal --width: --color? --label: --normal --strip-trailing-cr " +
		"--suppress-common-lines --speed-large-files"},
	"cut": {maxOperands: -1, opts: "-b: -c: -f: -d: -s -z -n --bytes: --characters: --fields: --delimiter: --only-delimited " +
		"--zero-terminated --complement --output-delimiter:"},
	"paste":     {maxOperands: -1, opts: "-d: -s -z --delimiters: --serial --zero-terminated"},
	"md5sum":    {maxOperands: -1, opts: checksumOpts},
	"sha1sum":   {maxOperands: -1, opts: checksumOpts},
	"sha256sum": {maxOperands: -1, opts: checksumOpts},
	"sha512sum": {maxOperands: -1, opts: checksumOpts},
	"b2sum":     {maxOperands: -1, opts: checksumOpts + " -l: --length:"},
	"cksum":     {maxOperands: -1, opts: checksumOpts + " -l: --length: -a: --algorithm: --untagged --base64 --raw"},
	"uniq": {maxOperands: 1, opts: "-c -d -D -u -i -z -f: -s: -w: --count --repeated --unique --ignore-case --zero-terminated " +
		"--skip-fields: --skip-chars: --check-chars:"},
	"file": {maxOperands: -1, opts: "-b -i -L -h -k -N -E -0 -F: --brief --mime --mime-type --mime-encoding --dereference " +
		"--no-dereference --keep-going --no-pad --extension --apple --print0 --separator:"},
	"tree": {maxOperands: -1, opts: "-a -d -f -i -x -s -h -D -p -u -g -F -C -n -r -t -c -U -v -Q -N -A -S -J -X -L: -P: -I: " +
		"--dirsfirst --noreport --prune --du --si --matchdirs --ignore-case --filelimit: --charset:"},
	"sort": {maxOperands: -1, opts: "-b -d -f -g -h -i -M -n -R -r -V -c -C -m -s -u -z -k: -t: -S: --ignore-leading-blanks " +
		"--dictionary-order --ignore-case --general-numeric-sort --human-numeric-sort --ignore-nonprinting --month-sort --numeric-sort " +
		"--random-sort --reverse --version-sort --merge --stable --unique --zero-terminated --debug --key: --field-separator: " +
		"--buffer-size: --parallel: --sort:"},
	"grep": {operands: operandPatternPath, maxOperands: -1, opts: grepOpts}, "egrep": {operands: operandPatternPath, maxOperands: -1, opts: grepOpts},
	"fgrep": {operands: operandPatternPath, maxOperands: -1, opts: grepOpts},
	"rg": {operands: operandPatternPath, maxOperands: -1, opts: "-e:! -f/! -g: -t: -T: -m: -A: -B: -C: -M: -d: -j: -E: -i -s -S -w " +
		"-x -v -n -N -l -c -o -F -u -U -P -a -q -p -H -I -0 -b -. --regexp:! --file/! --files! --type-list! --glob: --iglob: --type: " +
		"--type-not: --type-add: --max-count: --after-context: --before-context: --context: --max-columns: --max-depth: --threads: " +
		"--encoding: --ignore-case --case-sensitive --smart-case --word-regexp --line-regexp --invert-match --line-number " +
		"--no-line-number --files-with-matches --files-without-match --count --count-matches --only-matching --fixed-strings " +
		"--unrestricted --multiline --pcre2 --text --quiet --pretty --with-filename --no-filename --no-heading --heading --null " +
		"--byte-offset --hidden --no-ignore --no-ignore-vcs --no-ignore-parent --no-ignore-dot --vimgrep --json --column --trim " +
		"--stats --color: --colors: --sort: --sortr: --max-filesize: --passthru --no-messages --include-zero"},
	// printf -v sets a variable (PATH); bash's printf has no other option.
	"echo": {operands: operandText, maxOperands: -1, opts: "*"}, "printf": {operands: operandText, maxOperands: -1},
	"pwd": {operands: operandText, opts: "-L -P"}, "whoami": {operands: operandText}, "id": {operands: operandText, maxOperands: 1, opts: "*"},
	"true": {operands: operandText, maxOperands: -1, opts: "*"}, "false": {operands: operandText, maxOperands: -1, opts: "*"},
	"uname": {operands: operandText, opts: "*"}, "nproc": {operands: operandText, opts: "*"}, "arch": {operands: operandText},
	"groups": {operands: operandText, maxOperands: -1}, "basename": {operands: operandText, maxOperands: -1, opts: "*"},
	"dirname": {operands: operandText, maxOperands: -1, opts: "*"}, "seq": {operands: operandText, maxOperands: 3, opts: "*"},
	"which": {operands: operandText, maxOperands: -1, opts: "-a -s"}, "type": {operands: operandText, maxOperands: -1, opts: "-a -f -p -P -t"},
	// date -f reads dates from a file, -s sets the clock; -d's text may
	// name a zone file (TZ="/x"), so a value like a path out is checked.
	"date": {operands: operandText, maxOperands: 1, opts: "-d: -r/ -u -R -I? --date: --reference/ --utc --universal --rfc-email " +
		"--iso-8601? --rfc-3339: --debug", operand: func(s string) bool { return strings.HasPrefix(s, "+") }},
}

// generic checks a command of readOnlyCommands: its options, the number
// of its operands, and that each file it names is inside.
func (ck *readOnlyCheck) generic(spec readOnlySpec, args []shellWord) bool {
	operands, patternGiven, ok := ck.options(spec.opts, spec.operands == operandText, args)
	if !ok {
		return false
	}
	if spec.operands == operandPatternPath && !patternGiven {
		if len(operands) == 0 || operands[0].glob {
			return false
		}
		operands = operands[1:]
	}
	if spec.maxOperands >= 0 && len(operands) > spec.maxOperands {
		return false
	}
	for _, o := range operands {
		if spec.operands == operandText {
			if o.glob || spec.operand != nil && !spec.operand(o.text) {
				return false
			}
		} else if !ck.path(o) {
			return false
		}
	}
	return true
}

// options reads args as GNU getopt_long does, against opts (see
// readOnlySpec): clusters (-abc), values glued (-fFILE, --file=FILE) or
// in the next word, options after operands (GNU permutes them), and --
// ending the options. It returns the operands, and whether an option
// gave the pattern; ok is false for an option opts does not list or a
// value that is not safe. Long options must be written whole: GNU
// accepts any unambiguous prefix, but of its own list, not of opts.
func (ck *readOnlyCheck) options(opts string, text bool, args []shellWord) (operands []shellWord, patternGiven, ok bool) {
	known := func(name string) (string, bool) {
		for _, o := range strings.Fields(opts) {
			if spec, found := strings.CutPrefix(o, name); found && strings.Trim(spec, ":/?!%") == "" {
				return spec, true
			}
		}
		return "", false
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.text == "--" && opts != "*":
			return append(operands, args[i+1:]...), patternGiven, true
		case !strings.HasPrefix(a.text, "-") || a.text == "-":
			operands = append(operands, a)
			continue
		case a.glob:
			return nil, false, false
		case opts == "*":
			continue
		case len(operands) > 0 && !text && !ck.path(a):
			// A program that does not permute reads an option after
			// an operand as a file: it must be inside too.
			return nil, false, false
		}
		// take applies the option spec with its value, glued (given)
		// or, when it needs one, the next word.
		take := func(spec, value string, glued bool) bool {
			optional := strings.Contains(spec, "?")
			needs := !optional && strings.ContainsAny(spec, ":/%")
			if !needs && !optional {
				if glued {
					return false // --flag=value for a flag that takes none
				}
			} else if !glued && needs {
				if i+1 >= len(args) || args[i+1].glob {
					return false
				}
				i++
				value, glued = args[i].text, true
			}
			patternGiven = patternGiven || strings.Contains(spec, "!")
			v := shellWord{text: value, tilde: strings.HasPrefix(value, "~")}
			switch {
			case !glued:
				return true
			case strings.Contains(spec, "/"):
				return ck.path(v)
			case strings.Contains(spec, "%"):
				return gitFormat(value)
			case text && (strings.HasPrefix(value, "/") || v.tilde || strings.Contains("/"+value+"/", "/../")):
				return ck.path(v) // date -d 'TZ="/x"': see readOnlyCommands
			}
			return true
		}
		if strings.HasPrefix(a.text, "--") {
			name, value, glued := strings.Cut(a.text, "=")
			spec, found := known(name)
			if !found || !take(spec, value, glued) {
				return nil, false, false
			}
			continue
		}
		for j := 1; j < len(a.text); j++ {
			c := a.text[j]
			if c >= '0' && c <= '9' {
				if _, found := known("-#"); found {
					continue
				}
			}
			spec, found := known("-" + string(c))
			if !found {
				return nil, false, false
			}
			if strings.ContainsAny(spec, ":/?%") {
				rest := a.text[j+1:]
				if !take(spec, rest, rest != "") {
					return nil, false, false
				}
				break
			}
			if !take(spec, "", false) {
				return nil, false, false
			}
		}
	}
	return operands, patternGiven, true
}

// cd allows changing into a directory inside; later relative paths are
// then checked from there as well.
func (ck *readOnlyCheck) cd(args []shellWord) bool {
	var target *shellWord
	for i := range args {
		switch a := args[i]; {
		case a.text == "-L" || a.text == "-P":
		case target == nil && a.text != "-" && !strings.HasPrefix(a.text, "-"):
			target = &args[i]
		default:
			return false
		}
	}
	if target == nil || !ck.path(*target) {
		return false // cd alone goes home, cd - to the last directory
	}
	ck.cdInto(*target)
	return true
}

// cdInto adds the directory a cd (or git -C) to dir, checked, may lead
// to as a base for later relative paths. bash's cd -L goes to the path
// with .. removed as text, cd -P and git -C where the kernel lands:
// both are added.
func (ck *readOnlyCheck) cdInto(dir shellWord) {
	for _, b := range ck.candidates(dir, false) {
		phys, _ := physicalPath(b)
		ck.bases = append(ck.bases, filepath.Clean(b), phys)
	}
}

// find allows the search with no action that writes or runs anything:
// its expression may only hold findPrimaries.
func (ck *readOnlyCheck) find(args []shellWord) bool {
	i := 0
	for ; i < len(args); i++ {
		a := args[i].text
		if args[i].glob && strings.HasPrefix(a, "-") {
			return false // the shell would expand it into any option
		}
		// -L (and -follow below) would walk into the directories
		// symlinks lead to; -H follows only the starting points, which
		// are checked with their symlinks resolved.
		if a == "-H" || a == "-P" || strings.HasPrefix(a, "-O") {
			continue
		}
		if a == "-D" {
			// Its argument names debug options; a glob there would be
			// expanded by the shell into anything, a file named -delete
			// included.
			if i+1 >= len(args) || args[i+1].glob {
				return false
			}
			i++
			continue
		}
		break
	}
	for ; i < len(args); i++ {
		a := args[i].text
		if strings.HasPrefix(a, "-") || a == "(" || a == "!" || a == ")" {
			break
		}
		if !ck.path(args[i]) {
			return false
		}
	}
	for ; i < len(args); i++ {
		a := args[i]
		if a.glob {
			return false // the shell would expand it into the expression
		}
		takes, known := findPrimaries[a.text]
		if strings.HasPrefix(a.text, "-newer") && len(a.text) == 8 {
			// -newerXY: a file's time, or a date when Y is t.
			takes, known = "/", true
			if a.text[7] == 't' {
				takes = ":"
			}
		}
		if !known {
			return false
		}
		if takes == "" {
			continue
		}
		if i++; i >= len(args) || args[i].glob || takes == "/" && !ck.path(args[i]) {
			return false
		}
	}
	return true
}

// findPrimaries are the words of find's expression that neither write
// nor run anything (no -exec, -ok, -delete, -fprint, -fls) nor follow
// symlinks out (-follow), with what each takes: "" nothing, ":" a text
// value, "/" a file (checked as a path).
var findPrimaries = func() map[string]string {
	m := map[string]string{}
	for _, p := range strings.Fields("-print -print0 -ls -prune -quit -true -false -empty -depth -d -xdev -mount -readable -writable " +
		"-executable -nouser -nogroup -noleaf -daystart -ignore_readdir_race -noignore_readdir_race -not -a -o -and -or ! ( ) ,") {
		m[p] = ""
	}
	for _, p := range strings.Fields("-name -iname -path -ipath -wholename -iwholename -regex -iregex -type -xtype -maxdepth -mindepth " +
		"-size -mtime -mmin -atime -amin -ctime -cmin -perm -user -group -links -inum -uid -gid -regextype -lname -ilname -fstype " +
		"-used -printf") {
		m[p] = ":"
	}
	for _, p := range strings.Fields("-newer -anewer -cnewer -samefile -files0-from") {
		m[p] = "/"
	}
	return m
}()

// sed allows printing: no -i (in place) and no script read from a file;
// the script may only use commands that print or edit the pattern space
// (see sedScriptReadOnly).
func (ck *readOnlyCheck) sed(args []shellWord) bool {
	var scripts []string
	var operands []shellWord
	endOfFlags := false
	// nextScript takes the argument after args[*i] as a script (-e S);
	// false when there is none or it is a glob.
	nextScript := func(i *int) bool {
		if *i+1 >= len(args) || args[*i+1].glob {
			return false
		}
		*i++
		scripts = append(scripts, args[*i].text)
		return true
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.glob && (len(scripts) == 0 && len(operands) == 0 || strings.HasPrefix(a.text, "-")) {
			return false // a glob where a flag or the script belongs
		}
		switch {
		case endOfFlags || !strings.HasPrefix(a.text, "-") || a.text == "-":
			operands = append(operands, a)
		case a.text == "--":
			endOfFlags = true
		case a.text == "-e" || a.text == "--expression":
			if !nextScript(&i) {
				return false
			}
		case strings.HasPrefix(a.text, "--expression="):
			scripts = append(scripts, strings.TrimPrefix(a.text, "--expression="))
		case strings.HasPrefix(a.text, "--"):
			switch a.text {
			case "--quiet", "--silent", "--regexp-extended", "--posix", "--debug", "--sandbox", "--separate", "--unbuffered", "--null-data", "--zero-terminated":
			default:
				return false // --in-place, --file and anything unknown
			}
		default:
			// A cluster of -n, -E, -r, -s, -u, -z; -e must come last.
			for j := 1; j < len(a.text); j++ {
				switch a.text[j] {
				case 'n', 'E', 'r', 's', 'u', 'z':
				case 'e':
					if j == len(a.text)-1 {
						if !nextScript(&i) {
							return false
						}
					} else {
						scripts = append(scripts, a.text[j+1:])
					}
					j = len(a.text)
				default:
					return false // -i, -f, -l N and anything unknown
				}
			}
		}
	}
	if len(scripts) == 0 {
		if len(operands) == 0 || operands[0].glob {
			return false
		}
		scripts = append(scripts, operands[0].text)
		operands = operands[1:]
	}
	for _, s := range scripts {
		if !sedScriptReadOnly(s) {
			return false
		}
	}
	for _, o := range operands {
		if !ck.path(o) {
			return false
		}
	}
	return true
}

// sedScriptReadOnly reports whether a sed script only prints and edits
// the pattern space: addresses (N, $, /re/, N~S, ranges, !) before the
// commands p P d D q Q = l n N h H g G x z, s/re/text/flags with flags
// of g p i I m M and digits, and y/a/b/. It refuses w, W, r, R, e, the
// s flags w and e, text commands (a i c), branches and labels, and
// anything it cannot read.
func sedScriptReadOnly(s string) bool {
	i := 0
	skipBlanks := func() {
		for i < len(s) && strings.IndexByte(" \t\n;", s[i]) >= 0 {
			i++
		}
	}
	address := func() bool {
		switch {
		case i < len(s) && s[i] >= '0' && s[i] <= '9':
			for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '~') {
				i++
			}
		case i < len(s) && s[i] == '$':
			i++
		case i < len(s) && s[i] == '/':
			j, ok := sedDelimited(s, i+1, '/')
			if !ok {
				return false
			}
			i = j + 1
			if i < len(s) && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
		}
		return true
	}
	for skipBlanks(); i < len(s); skipBlanks() {
		if !address() {
			return false
		}
		if i < len(s) && s[i] == ',' {
			i++
			if !address() {
				return false
			}
		}
		for i < len(s) && (s[i] == '!' || s[i] == ' ') {
			i++
		}
		if i >= len(s) {
			return false
		}
		cmd := s[i]
		i++
		switch {
		case strings.IndexByte("pPdDqQ=lnNhHgGxz{}", cmd) >= 0:
			if (cmd == 'q' || cmd == 'Q' || cmd == 'l') && i < len(s) {
				for i < len(s) && s[i] >= '0' && s[i] <= '9' {
					i++ // an exit code or line length
				}
			}
		case cmd == 's' || cmd == 'y':
			if i >= len(s) || s[i] == '\\' || s[i] == '\n' {
				return false
			}
			delim := s[i]
			j, ok := sedDelimited(s, i+1, delim)
			if !ok {
				return false
			}
			k, ok := sedDelimited(s, j+1, delim)
			if !ok {
				return false
			}
			i = k + 1
			if cmd == 's' {
				for i < len(s) && strings.IndexByte("gpiImM0123456789", s[i]) >= 0 {
					i++
				}
			}
		default:
			return false
		}
		if cmd != '{' && i < len(s) && strings.IndexByte(" \t\n;}", s[i]) < 0 {
			return false
		}
	}
	return true
}

// sedDelimited returns the index of the unescaped delim that ends the
// part of a sed script starting at i.
func sedDelimited(s string, i int, delim byte) (int, bool) {
	for ; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case delim:
			return i, true
		case '\n':
			return 0, false
		}
	}
	return 0, false
}

// maxGlobMatches is how many files a glob may match before the command
// is asked about rather than every match checked.
const maxGlobMatches = 1000

// globBudget is how many directory entries a glob may read before the
// command is asked about: */*/*/*/*/* over node_modules would otherwise
// hold up the permission decision for seconds. A variable so that tests
// can lower it.
var globBudget = 20000

// path checks that a word naming a file stays inside the session's
// directories, from every base a relative path may start at: lexically,
// with symlinks resolved, and, for a glob, every file bash would match
// (none of which may start with "-", which the command would take as a
// flag) as well as the word itself, which bash passes unchanged when
// nothing matches.
func (ck *readOnlyCheck) path(w shellWord) bool {
	if len(ck.roots) == 0 {
		return false
	}
	cands := ck.candidates(w, false)
	if cands == nil {
		return false
	}
	for _, p := range cands {
		if !ck.insideBothWays(p) {
			return false
		}
	}
	if !w.glob {
		return true
	}
	if strings.HasPrefix(w.text, "-") {
		return false
	}
	for _, p := range ck.candidates(w, true) {
		// Where the pattern starts must be inside before anything is
		// listed: /*/*/*/*/* would read the whole disk.
		if !ck.inside(resolvePath(globDir(p))) {
			return false
		}
		matches, ok := boundedGlob(p)
		if !ok {
			return false
		}
		for _, m := range matches {
			if strings.HasPrefix(filepath.Base(m), "-") || !ck.insideBothWays(m) {
				return false
			}
		}
	}
	return true
}

// candidates are the absolute paths a word may name, not cleaned (the
// kernel reads l/.. after resolving l): with ~ expanded, and a relative
// path joined to each base; as patterns (the word's pattern, the bases
// escaped) when pattern is set. nil when it cannot be known (~user, no
// home, no base).
func (ck *readOnlyCheck) candidates(w shellWord, pattern bool) []string {
	p, esc := w.text, func(s string) string { return s }
	if pattern {
		p, esc = w.pattern, globEscape
	}
	if w.tilde {
		if p != "~" && !strings.HasPrefix(p, "~/") || ck.dirs.Home == "" {
			return nil
		}
		p = esc(ck.dirs.Home) + strings.TrimPrefix(p, "~")
	}
	if filepath.IsAbs(p) {
		return []string{p}
	}
	if len(ck.bases) == 0 {
		return nil
	}
	out := make([]string, 0, len(ck.bases))
	for _, b := range ck.bases {
		out = append(out, esc(b)+"/"+p)
	}
	return out
}

// insideBothWays reports whether the absolute path p, as written, is
// inside read both as bash's cd -L reads it (.. removed as text, then
// symlinks resolved) and as the kernel does (see physicalPath): cd
// without -P goes the first way, and every open the second.
func (ck *readOnlyCheck) insideBothWays(p string) bool {
	phys, ok := physicalPath(p)
	return ok && ck.inside(phys) && ck.inside(resolvePath(filepath.Clean(p)))
}

// physicalPath is where the kernel lands for the absolute path p
// (confine.EvalExisting: a symlink is replaced by its target before the
// next component, so l/.. is the parent of l's target, not the directory
// holding l); ok is false where a lookup fails or links loop.
func physicalPath(p string) (string, bool) {
	phys, err := confine.EvalExisting(p)
	return phys, err == nil
}

// inside reports whether the absolute, resolved path p is one of the
// roots or under one.
func (ck *readOnlyCheck) inside(p string) bool {
	for _, r := range ck.roots {
		if p == r || strings.HasPrefix(p, r+string(filepath.Separator)) || r == string(filepath.Separator) {
			return true
		}
	}
	return false
}

// resolvePath evaluates the symlinks of the longest existing part of p
// and keeps the rest as written.
func resolvePath(p string) string {
	rest := ""
	for cur := p; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		} else if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, os.ErrInvalid) {
			return p
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// globDir is the directory part of a glob before its first wildcard.
func globDir(p string) string {
	i := strings.IndexAny(p, "*?[")
	return filepath.Dir(p[:i+1])
}
