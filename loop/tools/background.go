package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/cordis-agent/cordis/internal/proc"
)

// Background owns a session's background shell tasks (Bash with
// run_in_background): each is a process group started through
// internal/proc, its output kept in a capped buffer that TaskOutput reads
// from where the last read stopped. StopAll, called when the session
// closes (and so when cordis exits), kills every group. Safe for
// concurrent use.
type Background struct {
	mu     sync.Mutex
	tasks  map[string]*bgTask
	next   int
	closed bool
	// keep is how many bytes of each task's output are kept (0:
	// bgKeepDefault); older output is dropped, and a read says how much.
	keep int
}

const (
	bgKeepDefault = 1 << 20
	// bgSettle bounds the wait for a finished command's last output: a
	// process it left behind may hold the pipe open.
	bgSettle = 2 * time.Second
)

// NewBackground returns an empty set of background tasks.
func NewBackground() *Background {
	return &Background{tasks: map[string]*bgTask{}}
}

// bgTask is one background command.
type bgTask struct {
	id, command string
	started     time.Time
	p           *proc.Process
	out         *tailBuffer
	// finished is closed once the command has ended and its output has
	// been collected (or it was stopped).
	finished chan struct{}

	mu       sync.Mutex
	readUpTo int64 // how much of the output earlier reads returned
	killed   bool
}

// start runs command in the background under the session's shell.
func (b *Background) start(env *Env, command string) (*bgTask, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, errors.New("the session is closing")
	}
	_, shellPath := shell()
	// Standard error joins standard output, in the order written, as in a
	// terminal.
	p, err := proc.Start(proc.Cmd{
		Path:      shellPath,
		Args:      []string{"-c", "exec 2>&1\n" + command},
		Dir:       env.Cwd,
		EnvPolicy: env.EnvPolicy,
		Env:       env.commandEnv(),
		Grace:     bashGrace,
		Sandbox:   env.Sandbox,
	})
	if err != nil {
		return nil, err
	}
	p.Stdin().Close() // nothing will ever answer it
	b.next++
	keep := b.keep
	if keep <= 0 {
		keep = bgKeepDefault
	}
	t := &bgTask{
		id: "bash_" + strconv.Itoa(b.next), command: command, started: time.Now(),
		p: p, out: newTailBuffer(keep), finished: make(chan struct{}),
	}
	b.tasks[t.id] = t
	go t.collect()
	return t, nil
}

// collect copies the output until the command ends, then ends the rest of
// its group (what it left running) so nothing outlives it unowned.
func (t *bgTask) collect() {
	copied := make(chan struct{})
	go func() {
		_, _ = io.Copy(t.out, t.p.Stdout())
		close(copied)
	}()
	<-t.p.Done()
	settle := time.NewTimer(bgSettle)
	select {
	case <-copied:
	case <-settle.C:
	}
	settle.Stop()
	t.p.Stop(0)
	<-copied
	close(t.finished)
}

// get returns the task called id.
func (b *Background) get(id string) (*bgTask, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t, ok := b.tasks[id]
	if !ok {
		ids := make([]string, 0, len(b.tasks))
		for k := range b.tasks {
			ids = append(ids, k)
		}
		sort.Strings(ids)
		if len(ids) == 0 {
			return nil, fmt.Errorf("no background task %q: none was started in this session", id)
		}
		return nil, fmt.Errorf("no background task %q (tasks: %v)", id, ids)
	}
	return t, nil
}

// stop kills the task's process group and waits until it is gone. It
// reports whether the task was still running.
func (t *bgTask) stop() bool {
	running := t.status() == "running"
	if running {
		t.mu.Lock()
		t.killed = true
		t.mu.Unlock()
	}
	t.p.Stop(0)
	<-t.finished
	return running
}

// StopAll kills every task's process group, and refuses new tasks; it
// returns once all are gone.
func (b *Background) StopAll() {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.closed = true
	tasks := make([]*bgTask, 0, len(b.tasks))
	for _, t := range b.tasks {
		tasks = append(tasks, t)
	}
	b.mu.Unlock()
	var wg sync.WaitGroup
	for _, t := range tasks {
		wg.Go(func() { t.stop() })
	}
	wg.Wait()
}

// Status describes each task in start order, one line each, for /status.
func (b *Background) Status() []string {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	tasks := make([]*bgTask, 0, len(b.tasks))
	for _, t := range b.tasks {
		tasks = append(tasks, t)
	}
	b.mu.Unlock()
	sort.Slice(tasks, func(i, j int) bool { return tasks[i].started.Before(tasks[j].started) })
	lines := make([]string, len(tasks))
	for i, t := range tasks {
		lines[i] = fmt.Sprintf("%s (%s, pid %d): %s", t.id, t.describeStatus(), t.p.Pid(), commandTitle(t.command, 80))
	}
	return lines
}

// status is running, completed (exit 0), failed (another exit) or killed.
func (t *bgTask) status() string {
	select {
	case <-t.finished:
	default:
		return "running"
	}
	t.mu.Lock()
	killed := t.killed
	t.mu.Unlock()
	switch st := t.p.ExitStatus(); {
	case killed:
		return "killed"
	case st == "exit status 0":
		return "completed"
	default:
		return "failed"
	}
}

// describeStatus is the status with how the command ended.
func (t *bgTask) describeStatus() string {
	s := t.status()
	if s == "failed" {
		return s + ": " + t.p.ExitStatus()
	}
	return s
}

// wait blocks until the task finishes, ctx ends or timeout passes, and
// reports whether it finished.
func (t *bgTask) wait(ctx context.Context, timeout time.Duration) bool {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-t.finished:
		return true
	case <-ctx.Done():
	case <-timer.C:
	}
	return false
}

// unread returns the output written since the last call (at most limit
// bytes, the latest), and how many bytes of it were dropped.
func (t *bgTask) unread(limit int) (text string, dropped int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	data, lost, end := t.out.since(t.readUpTo)
	t.readUpTo = end
	if len(data) > limit {
		lost += int64(len(data) - limit)
		data = data[len(data)-limit:]
	}
	return string(data), lost
}

// tailBuffer keeps the last keep bytes written to it, and counts them
// all, so a reader can ask for what came after an offset it saw. Safe for
// concurrent use.
type tailBuffer struct {
	mu    sync.Mutex
	keep  int
	buf   []byte
	total int64
}

func newTailBuffer(keep int) *tailBuffer { return &tailBuffer{keep: keep} }

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total += int64(len(p))
	b.buf = append(b.buf, p...)
	if len(b.buf) > 2*b.keep { // trim in batches, not on every write
		b.buf = append([]byte(nil), b.buf[len(b.buf)-b.keep:]...)
	}
	return len(p), nil
}

// since returns the kept bytes written after offset, how many bytes after
// offset are no longer kept, and the offset of the end.
func (b *tailBuffer) since(offset int64) (data []byte, dropped, end int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	buf := b.buf
	if len(buf) > b.keep {
		buf = buf[len(buf)-b.keep:]
	}
	first := b.total - int64(len(buf)) // offset of buf[0]
	if offset < first {
		dropped = first - offset
		offset = first
	}
	return append([]byte(nil), buf[offset-first:]...), dropped, b.total
}
