// Package netproxy is the filtering HTTP proxy through which sandboxed
// commands reach the network: the sandbox lets them connect to its port
// alone (internal/sandbox), and the proxy lets a request through only to a
// host its Decide function allows. It serves CONNECT (HTTPS and any other
// TCP protocol a client tunnels) and plain HTTP requests in absolute form.
//
// A host that resolves to a loopback, private, link-local or otherwise
// non-public address is refused unless the host was allowed by name as
// such (Options.AllowPrivate), so an allowed name cannot be pointed at
// cordis's own machine or network by DNS.
//
// Concurrency: a Proxy serves each connection on its own goroutine;
// Decide may be called concurrently and must be safe for that. Close
// stops the listener and every open connection.
package netproxy
