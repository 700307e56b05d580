package netproxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Decide says whether a connection to host (lower case, no trailing dot)
// and port may be made. It may take as long as it needs (asking the
// user); ctx ends when the proxy closes.
type Decide func(ctx context.Context, host string, port int) bool

// Options tune a Proxy.
type Options struct {
	// AllowPrivate reports whether host, allowed by name, may resolve to a
	// non-public address (a name the user listed, such as localhost).
	AllowPrivate func(host string) bool
	// DialTimeout bounds each outgoing connection (0: 10 s).
	DialTimeout time.Duration
}

// Proxy is a running proxy on a loopback port.
type Proxy struct {
	ln      net.Listener
	decide  Decide
	opts    Options
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	closed  bool
	dialer  *net.Dialer
	private *net.Dialer
}

// Start listens on 127.0.0.1 (a port of the kernel's choosing) and
// serves until Close.
func Start(decide Decide, opts Options) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	timeout := opts.DialTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Proxy{
		ln: ln, decide: decide, opts: opts, ctx: ctx, cancel: cancel, conns: map[net.Conn]struct{}{},
		dialer:  &net.Dialer{Timeout: timeout, Control: RefusePrivate(nil)},
		private: &net.Dialer{Timeout: timeout},
	}
	p.wg.Add(1)
	go p.serve()
	return p, nil
}

// Port is the port the proxy listens on.
func (p *Proxy) Port() uint16 { return uint16(p.ln.Addr().(*net.TCPAddr).Port) }

// URL is the proxy's address as the proxy variables give it.
func (p *Proxy) URL() string { return "http://" + p.ln.Addr().String() }

// Env are the variables that point a command's HTTP clients at the proxy.
func (p *Proxy) Env() []string {
	u := p.URL()
	var env []string
	for _, name := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"} {
		env = append(env, name+"="+u)
	}
	// Nothing bypasses the proxy: a direct connection would be refused.
	return append(env, "NO_PROXY=", "no_proxy=")
}

// Close stops the proxy and ends every connection through it.
func (p *Proxy) Close() {
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.cancel()
	p.ln.Close()
	p.wg.Wait()
}

func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		c.Close()
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.Close()
}

func (p *Proxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if !p.track(c) {
			continue
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			defer p.untrack(c)
			p.handle(c)
		}()
	}
}

// maxHeader bounds a request's head: the client is untrusted.
const maxHeader = 64 << 10

func (p *Proxy) handle(c net.Conn) {
	head := &headLimit{r: c, left: maxHeader}
	br := bufio.NewReaderSize(head, 4096)
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	req, err := http.ReadRequest(br)
	if err != nil {
		refuse(c, http.StatusBadRequest, "cordis proxy: cannot read the request: "+err.Error())
		return
	}
	c.SetReadDeadline(time.Time{})
	head.left = -1 // the body, or a tunnel's bytes, are not capped
	host, port, err := target(req)
	if err != nil {
		refuse(c, http.StatusBadRequest, "cordis proxy: "+err.Error())
		return
	}
	if !p.decide(p.ctx, host, port) {
		refuse(c, http.StatusForbidden, fmt.Sprintf("cordis proxy: the sandbox does not allow network access to %s (the user did not allow it, or the settings deny it)", host))
		return
	}
	dialer := p.dialer
	if p.opts.AllowPrivate != nil && p.opts.AllowPrivate(host) {
		dialer = p.private
	}
	upstream, err := dialer.DialContext(p.ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		if pe, ok := errors.AsType[PrivateAddressError](err); ok {
			refuse(c, http.StatusForbidden, fmt.Sprintf("cordis proxy: %s resolves to a non-public address (%s), which is not reached through the sandbox's proxy", host, pe.IP))
			return
		}
		refuse(c, http.StatusBadGateway, "cordis proxy: cannot connect to "+host+": "+err.Error())
		return
	}
	if !p.track(upstream) {
		return
	}
	defer p.untrack(upstream)
	if req.Method == http.MethodConnect {
		if _, err := io.WriteString(c, "HTTP/1.1 200 Connection Established\r\n\r\n"); err != nil {
			return
		}
		// Bytes the client sent after its CONNECT head belong upstream.
		if n := br.Buffered(); n > 0 {
			b, _ := br.Peek(n)
			if _, err := upstream.Write(b); err != nil {
				return
			}
		}
		pipe(c, upstream)
		return
	}
	// A plain HTTP request: sent on in origin form, one request per
	// connection (the proxy answers Connection: close).
	req.RequestURI = ""
	req.URL.Scheme, req.URL.Host = "", ""
	req.Close = true
	req.Header.Del("Proxy-Connection")
	req.Header.Del("Proxy-Authorization")
	if err := req.Write(upstream); err != nil {
		return
	}
	io.Copy(c, upstream)
}

// headLimit caps what is read while left >= 0.
type headLimit struct {
	r    io.Reader
	left int64
}

func (h *headLimit) Read(b []byte) (int, error) {
	if h.left < 0 {
		return h.r.Read(b)
	}
	if h.left == 0 {
		return 0, errors.New("request head too large")
	}
	if int64(len(b)) > h.left {
		b = b[:h.left]
	}
	n, err := h.r.Read(b)
	h.left -= int64(n)
	return n, err
}

// target is where a request goes: CONNECT's authority, or an absolute
// http URL's host.
func target(req *http.Request) (string, int, error) {
	var hostport string
	switch {
	case req.Method == http.MethodConnect:
		hostport = req.RequestURI
	case req.URL != nil && req.URL.IsAbs() && req.URL.Scheme == "http":
		hostport = req.URL.Host
		if req.URL.Port() == "" {
			hostport = net.JoinHostPort(req.URL.Hostname(), "80")
		}
	default:
		return "", 0, errors.New("only CONNECT and absolute http:// requests go through this proxy")
	}
	host, portText, err := net.SplitHostPort(hostport)
	if err != nil {
		return "", 0, fmt.Errorf("bad target %q: %v", hostport, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port <= 0 || port > 65535 {
		return "", 0, fmt.Errorf("bad port in %q", hostport)
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "" {
		return "", 0, fmt.Errorf("no host in %q", hostport)
	}
	return host, port, nil
}

func refuse(c net.Conn, status int, msg string) {
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s\n",
		status, http.StatusText(status), len(msg)+1, msg)
}

// pipe copies both ways until either side ends.
func pipe(a, b net.Conn) {
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn) {
		io.Copy(dst, src)
		if tc, ok := dst.(*net.TCPConn); ok {
			tc.CloseWrite()
		}
		done <- struct{}{}
	}
	go cp(a, b)
	go cp(b, a)
	<-done
	<-done
}

// PrivateAddressError is a dial refused by the address check.
type PrivateAddressError struct{ IP netip.Addr }

func (e PrivateAddressError) Error() string { return "private address " + e.IP.String() }

// RefusePrivate is a dialer's Control: it runs with the resolved address
// and refuses every PrivateAddr but those in allowed.
func RefusePrivate(allowed []netip.Prefix) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return err
		}
		ip, err := netip.ParseAddr(host)
		if err != nil {
			return err
		}
		if !PrivateAddr(ip) {
			return nil
		}
		for _, p := range allowed {
			if p.Contains(ip.Unmap()) {
				return nil
			}
		}
		return PrivateAddressError{ip}
	}
}

var (
	sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10") // carrier-grade NAT
	// IPv6 prefixes that carry an IPv4 address a gateway or relay
	// reaches for the caller: NAT64 (RFC 6052 and RFC 8215) in the last
	// four bytes, 6to4 in bytes 2 to 5.
	nat64Prefixes = []netip.Prefix{netip.MustParsePrefix("64:ff9b::/96"), netip.MustParsePrefix("64:ff9b:1::/48")}
	sixToFour     = netip.MustParsePrefix("2002::/16")
)

// PrivateAddr reports whether ip is not a public unicast address:
// loopback, private, link-local, unspecified, multicast, carrier-grade
// NAT, or one of those carried inside IPv4-mapped, NAT64 or 6to4 IPv6.
func PrivateAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	if ip.Is6() {
		b := ip.As16()
		for _, p := range nat64Prefixes {
			if p.Contains(ip) {
				return PrivateAddr(netip.AddrFrom4([4]byte(b[12:16])))
			}
		}
		if sixToFour.Contains(ip) {
			return PrivateAddr(netip.AddrFrom4([4]byte(b[2:6])))
		}
	}
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() ||
		sharedAddressSpace.Contains(ip) || (ip.Is4() && ip.As4()[0] == 0)
}

// MatchDomain reports whether host matches pattern: the same name, or,
// for "*.example.com", any name below example.com (not example.com
// itself). An optional ":port" on the pattern must equal port, unless
// port is 0 (any port).
func MatchDomain(pattern, host string, port int) bool {
	pattern = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(pattern)), ".")
	if h, p, err := net.SplitHostPort(pattern); err == nil {
		if port != 0 && p != strconv.Itoa(port) {
			return false
		}
		pattern = h
	}
	if rest, ok := strings.CutPrefix(pattern, "*."); ok {
		return strings.HasSuffix(host, "."+rest)
	}
	return pattern != "" && host == pattern
}
