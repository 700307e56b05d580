package sandbox

import (
	"bytes"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary act as the helper, as the cordis binary
// does (Start re-executes /proc/self/exe).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && strings.HasPrefix(os.Args[1], HelperVerb) {
		os.Exit(Main(os.Args[1], os.Args[2:]))
	}
	os.Exit(m.Run())
}

func requireSandbox(t *testing.T, p *Policy) {
	t.Helper()
	if err := Check().usable(p); err != nil {
		t.Skipf("this machine cannot enforce the policy: %v", err)
	}
}

// systemRead is what a shell needs to start.
var systemRead = []string{"/usr", "/bin", "/lib", "/lib64", "/etc", "/proc", "/dev"}

// run starts bash -c script confined by p and returns its output and exit
// code.
func run(t *testing.T, p *Policy, script string) (string, int) {
	return runIn(t, p, "", script)
}

// runIn is run with a working directory.
func runIn(t *testing.T, p *Policy, dir, script string) (string, int) {
	t.Helper()
	cmd := exec.Command("/bin/bash", "-c", script)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := Start(cmd, p, cmd.Start); err != nil {
		t.Fatalf("Start: %v", err)
	}
	err := cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("wait: %v", err)
	}
	return out.String(), code
}

// layout is a project with a git-like tree and a secret outside it.
type layout struct{ project, outside, secret string }

func newLayout(t *testing.T) layout {
	t.Helper()
	base := t.TempDir()
	l := layout{project: filepath.Join(base, "project"), outside: filepath.Join(base, "outside")}
	for _, d := range []string{l.project + "/.git/hooks", l.project + "/src", l.outside} {
		if err := os.MkdirAll(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	l.secret = filepath.Join(l.outside, "secret.txt")
	for path, text := range map[string]string{
		l.project + "/src/a.txt": "inside\n", l.project + "/.git/config": "[core]\n", l.secret: "s3cret\n",
	} {
		if err := os.WriteFile(path, []byte(text), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

func TestReadOnlyPolicy(t *testing.T) {
	l := newLayout(t)
	p := &Policy{Read: []string{l.project}, ReadSystem: true}
	requireSandbox(t, p)
	for _, c := range []struct {
		name, script string
		ok           bool
	}{
		{"read inside", "cat " + l.project + "/src/a.txt", true},
		{"write to /dev/null", "echo x > /dev/null", true},
		{"write inside", "echo x > " + l.project + "/src/new.txt", false},
		{"append inside", "echo x >> " + l.project + "/src/a.txt", false},
		{"delete inside", "rm " + l.project + "/src/a.txt", false},
		{"read outside", "cat " + l.secret, false},
		{"read outside through /proc/self/root", "cat /proc/self/root" + l.secret, false},
		{"chmod inside", "chmod 600 " + l.project + "/src/a.txt", false},
		{"touch -d inside", "touch -d 2001-01-01 " + l.project + "/src/a.txt", false},
		{"truncate inside", "truncate -s 0 " + l.project + "/src/a.txt", false},
		{"no capabilities", "grep -q 'CapEff:.0000000000000000' /proc/self/status", true},
		{"programs find users and libraries", "ls -l " + l.project + " > /dev/null && id -un && git --version", true},
		{"no /etc/shadow", "cat /etc/shadow", false},
		{"its own output through /dev", "echo x > /dev/stdout && echo y > /dev/stderr", true},
		{"no signal to a process outside", "kill -0 " + strconv.Itoa(os.Getpid()), false},
		{"signals inside", "sleep 5 & kill $!", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, code := run(t, p, c.script)
			if (code == 0) != c.ok {
				t.Fatalf("%s: exit %d, want success=%v; output: %s", c.script, code, c.ok, out)
			}
		})
	}
	for _, disk := range []string{"/dev/vda", "/dev/sda", "/dev/nvme0n1"} {
		if _, err := os.Stat(disk); err == nil {
			if out, code := run(t, p, "head -c1 "+disk+" 2>/dev/null | wc -c"); code == 0 && strings.TrimSpace(out) != "0" {
				t.Errorf("read a byte of %s: %q", disk, out)
			}
		}
	}
	if b, _ := os.ReadFile(l.project + "/src/a.txt"); string(b) != "inside\n" {
		t.Fatalf("the file changed: %q", b)
	}
	st, _ := os.Stat(l.project + "/src/a.txt")
	if st.Mode().Perm() != 0o666&^umask() {
		t.Fatalf("mode changed to %v", st.Mode())
	}
	// cordis itself is not confined.
	if err := os.WriteFile(filepath.Join(l.outside, "after.txt"), []byte("x"), 0o644); err != nil {
		t.Fatalf("the caller lost its own access: %v", err)
	}
}

func umask() os.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return os.FileMode(m)
}

func TestNoNetwork(t *testing.T) {
	p := &Policy{Read: systemRead}
	requireSandbox(t, p)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	udpPort := udp.LocalAddr().(*net.UDPAddr).Port

	if out, code := run(t, p, "echo hi > /dev/tcp/127.0.0.1/"+strconv.Itoa(port)); code == 0 {
		t.Fatalf("a TCP connection got through: %s", out)
	}
	if out, code := run(t, p, "echo leak > /dev/udp/127.0.0.1/"+strconv.Itoa(udpPort)); code == 0 {
		t.Fatalf("a UDP datagram could be sent: %s", out)
	}
	udp.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if n, _, err := udp.ReadFrom(make([]byte, 64)); err == nil {
		t.Fatalf("a datagram of %d bytes arrived", n)
	}
}

func TestProxyPortOnly(t *testing.T) {
	proxy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	other, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	p := &Policy{Read: systemRead, ProxyPort: uint16(proxy.Addr().(*net.TCPAddr).Port)}
	requireSandbox(t, p)
	go func() {
		for {
			c, err := proxy.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	if out, code := run(t, p, "exec 3<>/dev/tcp/127.0.0.1/"+strconv.Itoa(int(p.ProxyPort))); code != 0 {
		t.Fatalf("the proxy port is unreachable: %s", out)
	}
	if out, code := run(t, p, "exec 3<>/dev/tcp/127.0.0.1/"+strconv.Itoa(other.Addr().(*net.TCPAddr).Port)); code == 0 {
		t.Fatalf("another port was reachable: %s", out)
	}
}

func TestWritePolicyProtectsPaths(t *testing.T) {
	l := newLayout(t)
	p := &Policy{ReadAll: true, Write: []string{l.project}, Protect: []string{l.project + "/.git/config", l.project + "/.git/hooks", l.project + "/.mcp.json"}}
	requireSandbox(t, p)
	for _, c := range []struct {
		name, script string
		ok           bool
	}{
		{"write inside", "echo x > " + l.project + "/src/new.txt && mkdir " + l.project + "/d && mv " + l.project + "/src/new.txt " + l.project + "/d/", true},
		{"git's own files", "echo x > " + l.project + "/.git/index.lock && mv " + l.project + "/.git/index.lock " + l.project + "/.git/index", true},
		{"read outside", "cat " + l.secret, true},
		{"write outside", "echo x > " + l.outside + "/new.txt", false},
		{"append to .git/config", "echo '[core] fsmonitor=evil' >> " + l.project + "/.git/config", false},
		{"replace .git/config", "rm -f " + l.project + "/.git/config", false},
		{"rename over .git/config", "echo x > " + l.project + "/c && mv " + l.project + "/c " + l.project + "/.git/config", false},
		{"add a hook", "echo x > " + l.project + "/.git/hooks/pre-commit", false},
		{"chmod outside", "chmod 600 " + l.secret, false},
		{"touch outside", "touch -d 2001-01-01 " + l.secret, false},
		{"no capabilities", "grep -q 'CapEff:.0000000000000000' /proc/self/status", true},
		{"no mounts", "mount -t tmpfs none " + l.project + "/src", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, code := run(t, p, c.script)
			if (code == 0) != c.ok {
				t.Fatalf("%s: exit %d, want success=%v; output: %s", c.script, code, c.ok, out)
			}
		})
	}
	if b, _ := os.ReadFile(l.project + "/.git/config"); string(b) != "[core]\n" {
		t.Fatalf(".git/config changed: %q", b)
	}
	if _, err := os.Stat(l.project + "/.git/hooks/pre-commit"); err == nil {
		t.Fatal("a hook was planted")
	}
}

// A command started in a writable folder writes there by relative
// paths: the helper's mounts must not leave it in the read-only view.
func TestWritePolicyWorkingDirectory(t *testing.T) {
	l := newLayout(t)
	p := &Policy{ReadAll: true, Write: []string{l.project}, Protect: []string{l.project + "/.git/config"}}
	requireSandbox(t, p)
	if out, code := runIn(t, p, l.project, "echo x > rel.txt"); code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
}

// TestDieWithParent: killing the process an editor terminal started (the
// outer helper) kills what the command started, even a process that left
// its group.
func TestDieWithParent(t *testing.T) {
	l := newLayout(t)
	p := &Policy{ReadAll: true, Write: []string{l.project}}
	// A duration of its own, so no other test's sleeper is taken for it.
	sleep := "sleep " + strconv.Itoa(300+os.Getpid()%1000) + ".5"
	name, args, err := Command(p, "/bin/bash", "-c", "setsid "+sleep+" & echo $! > "+l.project+"/pid; wait")
	if err != nil {
		t.Skipf("this machine cannot enforce the policy: %v", err)
	}
	if name != mustExecutable(t) {
		t.Fatalf("the helper is %q", name)
	}
	cmd := exec.Command("/proc/self/exe", args...)
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, err := os.ReadFile(l.project + "/pid"); err == nil && len(bytes.TrimSpace(b)) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the command never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The sleeper's pid is in the helper's namespace; find it from here.
	defer cmd.Process.Kill()
	sleeper := findProcess(t, sleep, deadline)
	cmd.Process.Kill()
	cmd.Wait()
	for time.Now().Before(deadline) {
		if !alive(sleeper) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("process %d outlived the terminal's process", sleeper)
}

func mustExecutable(t *testing.T) string {
	p, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// findProcess waits until a process runs cmdline (the shell reports a
// background job's pid before the job has exec'd).
func findProcess(t *testing.T, cmdline string, deadline time.Time) int {
	t.Helper()
	for time.Now().Before(deadline) {
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			b, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			if strings.ReplaceAll(strings.TrimRight(string(b), "\x00"), "\x00", " ") == cmdline {
				return pid
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no process %q", cmdline)
	return 0
}

func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// A zombie is dead; only its parent has not reaped it.
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || len(b) < i+3 || b[i+2] != 'Z'
}

// TestAsUnprivilegedUser runs the tests above again as an ordinary user
// (uid 65534), when these tests run as root: Landlock, seccomp and the
// namespaces must hold without privilege too.
func TestAsUnprivilegedUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("already unprivileged: the other tests ran as this user")
	}
	if os.Getenv("CORDIS_SANDBOX_TEST_UNPRIVILEGED") != "" {
		t.Skip("this is the unprivileged run")
	}
	dir, err := os.MkdirTemp("", "sandbox-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "sandbox.test")
	data, err := os.ReadFile(mustExecutable(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run", "^(TestReadOnlyPolicy|TestNoNetwork|TestProxyPortOnly|TestWritePolicyProtectsPaths|TestWritePolicyWorkingDirectory|TestDieWithParent|TestHelperWithoutNamespaces|TestWarmHelper)$", "-test.v", "-test.count=1")
	cmd.Env = []string{"PATH=/usr/bin:/bin", "CORDIS_SANDBOX_TEST_UNPRIVILEGED=1", "TMPDIR=/tmp", "HOME=/tmp"}
	cmd.Dir = "/tmp"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as uid 65534: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("--- PASS: TestWritePolicyProtectsPaths")) || bytes.Contains(out, []byte("--- SKIP")) {
		t.Fatalf("as uid 65534 the tests did not all run:\n%s", out)
	}
}

func TestIsProtected(t *testing.T) {
	roots := []string{"/w/p"}
	for path, want := range map[string]bool{
		"/w/p/.git/config": true, "/w/p/.git/hooks/pre-commit": true, "/w/p/vendor/lib/.git/config": true,
		"/w/p/.claude/settings.json": true, "/w/p/.mcp.json": true, "/w/p/.vscode/tasks.json": true,
		"/w/p/src/main.go": false, "/w/p/.github/workflows/ci.yml": false, "/w/p/.gitignore": false,
		"/home/u/.bashrc": false, // home is not inside a root
	} {
		if got := IsProtected(path, roots, "/home/u"); got != want {
			t.Errorf("IsProtected(%s) = %v, want %v", path, got, want)
		}
	}
	if !IsProtected("/home/u/.bashrc", []string{"/home/u"}, "/home/u") {
		t.Error("a writable home's .bashrc is not protected")
	}
}

// A warm helper, started before its command is known, confines the
// command it is sent exactly as the cold helper does.
func TestWarmHelper(t *testing.T) {
	l := newLayout(t)
	p := &Policy{ReadAll: true, Write: []string{l.project}, Protect: []string{l.project + "/.git/config"}, DenyRead: []string{l.secret}}
	requireSandbox(t, p)
	w, err := NewWarm()
	if err != nil {
		t.Skipf("no warm helper here: %v", err)
	}
	err = w.Cmd.Start()
	w.Started()
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // let it reach its wait: it must not matter
	r, wr, _ := os.Pipe()
	devnull, _ := os.Open(os.DevNull)
	script := "pwd; echo $MARK; echo x > rel.txt; cat " + l.secret + "; echo y >> .git/config; exit 3"
	if err := w.Send(p, "/bin/bash", []string{"-c", script}, []string{"PATH=/usr/bin:/bin", "MARK=marked"}, l.project, devnull, wr, wr); err != nil {
		t.Fatal(err)
	}
	wr.Close()
	devnull.Close()
	out, _ := io.ReadAll(r)
	err = w.Cmd.Wait()
	if code := w.Cmd.ProcessState.ExitCode(); code != 3 {
		t.Fatalf("exit %d (%v), want the command's 3; output: %s", code, err, out)
	}
	text := string(out)
	if !strings.HasPrefix(text, l.project+"\nmarked\n") || strings.Contains(text, "s3cret") {
		t.Fatalf("output %q", text)
	}
	if _, err := os.Stat(l.project + "/rel.txt"); err != nil {
		t.Fatalf("the relative write inside failed: %v (%s)", err, text)
	}
	if b, _ := os.ReadFile(l.project + "/.git/config"); string(b) != "[core]\n" {
		t.Fatalf(".git/config changed: %q", b)
	}
	// A helper given up exits at once.
	w2, _ := NewWarm()
	w2.Cmd.Start()
	w2.Started()
	w2.Close()
	if err := w2.Cmd.Wait(); err != nil {
		t.Fatalf("a helper given up: %v", err)
	}
}

// The inner stage run by hand, outside namespaces of its own, refuses
// before it mounts anything: it would change the caller's mounts.
func TestInnerStageOutsideItsNamespaces(t *testing.T) {
	dir := t.TempDir()
	before, _ := os.ReadFile("/proc/self/mountinfo")
	for _, verb := range []string{innerVerb, warmVerb} {
		cmd := exec.Command("/proc/self/exe", verb, `{"readAll":true,"write":["`+dir+`"]}`, "--", "/bin/true")
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != ExitUnenforced {
			t.Errorf("%s run by hand: %v %s", verb, err, out)
		}
	}
	if after, _ := os.ReadFile("/proc/self/mountinfo"); !bytes.Equal(before, after) {
		t.Fatalf("the mounts changed:\n%s", after)
	}
}
