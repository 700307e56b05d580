package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// frame is one line an agent wrote, with the time it was read.
type frame struct {
	at     time.Time
	raw    []byte
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// proc is one agent process driven over stdio as an editor would, with as
// little work on the editor side as possible: session/update
// notifications are counted (and handed to onUpdate when set) without
// being decoded, so the driver does not compete with the agent for the
// two cores.
type proc struct {
	name  string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	start time.Time
	// cwd answers fs/read_text_file requests relative to nothing: paths
	// are absolute.
	stderr *os.File

	wmu    sync.Mutex
	mu     sync.Mutex
	nextID int
	wait   map[string]chan *frame
	closed chan struct{}
	rerr   error

	updates     atomic.Int64
	updateBytes atomic.Int64
	// onUpdate, when set, sees every session/update line on the reader
	// goroutine (the slice is valid only during the call).
	onUpdate func(line []byte, at time.Time)
}

// spawn starts argv in its own process group with env (and nothing else
// of the caller's environment but PATH).
func spawn(name string, argv []string, dir string, env []string, stderrPath string) (*proc, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p := &proc{name: name, cmd: cmd, stdin: stdin, wait: map[string]chan *frame{}, closed: make(chan struct{})}
	if stderrPath != "" {
		if p.stderr, err = os.Create(stderrPath); err != nil {
			return nil, err
		}
		cmd.Stderr = p.stderr
	}
	p.start = time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	go p.read(stdout)
	return p, nil
}

var updatePrefix = []byte(`"method":"session/update"`)

func (p *proc) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<20)
	var buf []byte
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			buf = append(buf, line...)
			continue
		}
		at := time.Now()
		if len(buf) > 0 {
			line = append(buf, line...)
			buf = buf[:0]
		}
		if len(line) > 0 {
			p.handle(line, at)
		}
		if err != nil {
			p.mu.Lock()
			p.rerr = err
			p.mu.Unlock()
			close(p.closed)
			return
		}
	}
}

func (p *proc) handle(line []byte, at time.Time) {
	head := line[:min(len(line), 96)]
	if bytes.Contains(head, updatePrefix) && !bytes.Contains(head, []byte(`"id"`)) {
		p.updates.Add(1)
		p.updateBytes.Add(int64(len(line)))
		if p.onUpdate != nil {
			p.onUpdate(line, at)
		}
		return
	}
	f := &frame{at: at, raw: append([]byte(nil), line...)}
	if err := json.Unmarshal(line, f); err != nil {
		return // not a frame; the snapshot suite polices stdout, not the bench
	}
	switch {
	case f.Method != "" && len(f.ID) > 0:
		go p.answer(f)
	case f.Method == "":
		p.mu.Lock()
		ch := p.wait[string(f.ID)]
		delete(p.wait, string(f.ID))
		p.mu.Unlock()
		if ch != nil {
			ch <- f
		}
	}
}

// answer plays the editor for the agent's reverse requests: permission
// requests are allowed (always), files are read from disk, the rest is
// refused.
func (p *proc) answer(f *frame) {
	var result any
	var rpcErr any
	switch f.Method {
	case "session/request_permission":
		var req struct {
			Options []struct {
				OptionID string `json:"optionId"`
				Kind     string `json:"kind"`
			} `json:"options"`
		}
		json.Unmarshal(f.Params, &req)
		choice := ""
		for _, kind := range []string{"allow_always", "allow_once"} {
			for _, o := range req.Options {
				if o.Kind == kind && choice == "" {
					choice = o.OptionID
				}
			}
		}
		result = map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": choice}}
	case "fs/read_text_file":
		var req struct {
			Path string `json:"path"`
		}
		json.Unmarshal(f.Params, &req)
		data, err := os.ReadFile(req.Path)
		if err != nil {
			rpcErr = map[string]any{"code": -32603, "message": err.Error()}
		} else {
			result = map[string]any{"content": string(data)}
		}
	default:
		rpcErr = map[string]any{"code": -32601, "message": "method not found: " + f.Method}
	}
	msg := map[string]any{"jsonrpc": "2.0", "id": f.ID}
	if rpcErr != nil {
		msg["error"] = rpcErr
	} else {
		msg["result"] = result
	}
	p.send(msg)
}

func (p *proc) send(msg any) error {
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	p.wmu.Lock()
	defer p.wmu.Unlock()
	_, err = p.stdin.Write(append(data, '\n'))
	return err
}

// call sends a request and waits for its response. It returns the
// response frame (whose at is when it was read) and the time the request
// was written.
func (p *proc) call(method string, params any, timeout time.Duration) (*frame, time.Time, error) {
	p.mu.Lock()
	p.nextID++
	id := p.nextID
	ch := make(chan *frame, 1)
	p.wait[strconv.Itoa(id)] = ch
	p.mu.Unlock()
	sent := time.Now()
	if err := p.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, sent, fmt.Errorf("%s: writing %s: %w", p.name, method, err)
	}
	select {
	case f := <-ch:
		if len(f.Error) > 0 && string(f.Error) != "null" {
			return f, sent, fmt.Errorf("%s: %s: %s", p.name, method, f.Error)
		}
		return f, sent, nil
	case <-p.closed:
		return nil, sent, fmt.Errorf("%s: exited before answering %s%s", p.name, method, p.stderrTail())
	case <-time.After(timeout):
		return nil, sent, fmt.Errorf("%s: no answer to %s within %s%s", p.name, method, timeout, p.stderrTail())
	}
}

func (p *proc) stderrTail() string {
	if p.stderr == nil {
		return ""
	}
	data, _ := os.ReadFile(p.stderr.Name())
	if len(data) > 800 {
		data = data[len(data)-800:]
	}
	if len(data) == 0 {
		return ""
	}
	return "; stderr: " + strings.TrimSpace(string(data))
}

// stop closes stdin, gives the agent a moment to exit on its own, then
// kills what is left of its process group (the group this driver made).
func (p *proc) stop() {
	// A peer's helpers may have left its process group (a detached
	// child); left running, they would slow whatever spawns next.
	helpers := descendants(p.cmd.Process.Pid)[1:]
	p.stdin.Close()
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
	}
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-done
	for _, pid := range helpers {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	awaitGone(helpers, 5*time.Second)
	if p.stderr != nil {
		p.stderr.Close()
	}
}

// awaitGone waits until none of pids is running (gone, or a zombie whose
// reaper has not come yet), or until timeout.
func awaitGone(pids []int, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for _, pid := range pids {
		for time.Now().Before(deadline) {
			data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			if err != nil {
				break
			}
			s := string(data)
			if i := strings.LastIndexByte(s, ')'); i >= 0 && strings.HasPrefix(strings.TrimSpace(s[i+1:]), "Z") {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// memory is a process's memory in KiB.
type memory struct {
	HWM int64 `json:"hwmKiB"` // VmHWM: peak resident set
	RSS int64 `json:"rssKiB"` // VmRSS: resident now
	// Tree sums VmRSS over the process and its descendants (peers start
	// helper processes).
	Tree      int64 `json:"treeKiB"`
	Processes int   `json:"processes"`
}

func readMemory(pid int) (memory, error) {
	var m memory
	hwm, rss, err := status(pid)
	if err != nil {
		return m, err
	}
	m.HWM, m.RSS = hwm, rss
	for _, q := range descendants(pid) {
		if _, r, err := status(q); err == nil {
			m.Tree += r
			m.Processes++
		}
	}
	return m, nil
}

func status(pid int) (hwm, rss int64, err error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		switch fields[0] {
		case "VmHWM:":
			hwm, _ = strconv.ParseInt(fields[1], 10, 64)
		case "VmRSS:":
			rss, _ = strconv.ParseInt(fields[1], 10, 64)
		}
	}
	return hwm, rss, nil
}

// descendants returns pid and every process below it.
func descendants(pid int) []int {
	children := map[int][]int{}
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, d := range dirs {
		data, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parens.
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(s[i+1:])
		if len(fields) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(fields[1])
		self, _ := strconv.Atoi(strings.Fields(s)[0])
		children[ppid] = append(children[ppid], self)
	}
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}
