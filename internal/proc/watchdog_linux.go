package proc

import (
	"os"
	"os/exec"
	"strconv"
	"sync"

	"github.com/cordis-agent/cordis/internal/hardening"
)

// The watchdog kills every process group cordis owns when cordis dies
// without cleaning up (SIGKILL, a crash, an OOM kill), which no code in
// cordis can do. Pdeathsig is not enough: it only reaches the group's
// leader (a shell's `sleep 100 &` lives on), and it fires when the thread
// that forked exits, not the process. The watchdog is a small shell loop
// in cordis's own process group that reads "+PGID" and "-PGID" lines as
// groups are started and released; when its standard input reaches EOF,
// which happens only once every copy of the write end (cordis's, whose
// descriptors are close-on-exec) is gone, it kills the groups still
// listed. It ignores the signals a terminal or an editor sends to the
// whole group, so it outlives cordis for exactly that moment.
const watchdogScript = `trap '' HUP INT TERM PIPE
live=' '
while read -r op pg; do
  case "$op" in
  +) live="$live$pg " ;;
  -) case "$live" in *" $pg "*) live="${live%% $pg *} ${live#* $pg }" ;; esac ;;
  esac
done
for pg in $live; do kill -KILL "-$pg" 2>/dev/null; done
`

// watchdogEnv is the watchdog's whole environment.
var watchdogEnv = []string{"PATH=/usr/bin:/bin"}

var watchdog struct {
	once sync.Once
	w    *os.File // nil when the watchdog could not start
}

// startWatchdog starts the watchdog once; a failure leaves cordis as it
// was before (groups are still killed on every orderly exit).
func startWatchdog() {
	watchdog.once.Do(func() {
		r, w, err := os.Pipe()
		if err != nil {
			return
		}
		cmd := exec.Command("/bin/sh", "-c", watchdogScript)
		// An explicit environment, not cordis's: the watchdog lives as
		// long as cordis, and any process of the same user can read its
		// /proc/<pid>/environ, so an inherited provider key would be
		// exposed there (issue 27). The script uses only builtins; PATH
		// is there for a shell that looks kill up anyway.
		cmd.Env = watchdogEnv
		cmd.Stdin = r // stdout and stderr: /dev/null, never the protocol
		if err := hardening.Start(cmd.Start); err != nil {
			r.Close()
			w.Close()
			return
		}
		r.Close()
		go cmd.Wait() // reaped if it ever ends early
		watchdog.w = w
	})
}

// watch tells the watchdog that a group was started (+) or is gone (-).
// Called with owned held, so the lines keep the order of the events.
func watch(op byte, pgid int) {
	if watchdog.w == nil {
		return
	}
	line := append([]byte{op, ' '}, strconv.Itoa(pgid)...)
	watchdog.w.Write(append(line, '\n'))
}
