package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/docker/docker/client"

	"github.com/behaves-dev/behaves/internal/cli"
	"github.com/behaves-dev/behaves/internal/dockertest"
	"github.com/behaves-dev/behaves/internal/verdict"
)

// engineProxy forwards a Unix socket in a temporary folder to the real
// Docker daemon, so that a test can break the path between behaves and the
// engine the ways real paths break.
type engineProxy struct {
	t        testing.TB
	ln       net.Listener
	upstream func() (net.Conn, error)

	// cutAtAttach, when > 0, cuts the proxy when the n-th attach request
	// arrives (before forwarding it): the socket is removed and every
	// connection closed, as when the daemon goes away.
	cutAtAttach int
	// halfCloseKills makes the proxy close both directions of a
	// connection when the client half-closes it (some socket proxies do),
	// instead of passing the half-close on.
	halfCloseKills bool

	mu       sync.Mutex
	conns    map[net.Conn]bool
	attaches int
	cut      bool
}

// newEngineProxy starts a proxy to the daemon the environment names
// (DOCKER_HOST, a Unix socket by default) and returns it with its socket's
// DOCKER_HOST value. It is closed when the test ends.
func newEngineProxy(t testing.TB, configure func(p *engineProxy)) (*engineProxy, string) {
	t.Helper()
	network, addr := "unix", "/var/run/docker.sock"
	if h := os.Getenv("DOCKER_HOST"); h != "" {
		scheme, rest, ok := strings.Cut(h, "://")
		if !ok || scheme != "unix" && scheme != "tcp" {
			t.Skipf("DOCKER_HOST %q: the proxy forwards to unix:// or tcp:// only", h)
		}
		network, addr = scheme, rest
	}
	sock := filepath.Join(t.TempDir(), "engine.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	p := &engineProxy{
		t:        t,
		ln:       ln,
		upstream: func() (net.Conn, error) { return net.Dial(network, addr) },
		conns:    map[net.Conn]bool{},
	}
	if configure != nil {
		configure(p)
	}
	t.Cleanup(p.cutAll)
	go p.serve()
	return p, "unix://" + sock
}

func (p *engineProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.forward(c)
	}
}

// track registers a connection to close on a cut; false when the proxy is
// cut already.
func (p *engineProxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cut {
		return false
	}
	p.conns[c] = true
	return true
}

// cutAll removes the socket and closes every connection.
func (p *engineProxy) cutAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	p.ln.Close() // a Unix listener removes its socket file
	for c := range p.conns {
		c.Close()
	}
}

// isCut says whether the proxy was cut.
func (p *engineProxy) isCut() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cut
}

func (p *engineProxy) forward(client net.Conn) {
	if !p.track(client) {
		client.Close()
		return
	}
	// An attach is always the first request of its connection (the
	// client dials anew to hijack it).
	br := bufio.NewReader(client)
	line, err := br.ReadString('\n')
	if err != nil {
		client.Close()
		return
	}
	if strings.Contains(line, "/attach") {
		p.mu.Lock()
		p.attaches++
		cutNow := p.cutAtAttach > 0 && p.attaches == p.cutAtAttach
		p.mu.Unlock()
		if cutNow {
			p.cutAll()
			return
		}
	}
	up, err := p.upstream()
	if err != nil || !p.track(up) {
		client.Close()
		if up != nil {
			up.Close()
		}
		return
	}
	if _, err := io.WriteString(up, line); err != nil {
		client.Close()
		up.Close()
		return
	}
	done := make(chan struct{}, 2)
	go func() { // client → engine
		io.Copy(up, br)
		if p.halfCloseKills {
			client.Close()
			up.Close()
		} else {
			closeWrite(up)
		}
		done <- struct{}{}
	}()
	go func() { // engine → client
		io.Copy(client, up)
		closeWrite(client)
		done <- struct{}{}
	}()
	<-done
	<-done
	client.Close()
	up.Close()
}

// closeWrite half-closes a connection that can, else closes it.
func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		return
	}
	c.Close()
}

// runThroughProxy runs `behaves run` with DOCKER_HOST set to host and
// returns what it did. The run's containers and volumes are removed
// through the real daemon when the test ends, whatever the run could do.
func runThroughProxy(t *testing.T, real *client.Client, host, spec string, files map[string]string, args ...string) outcome {
	t.Helper()
	// The report names the run; until it is read, the cleanup has no ID
	// to remove (and runSpec fails the test without a report).
	var runID string
	t.Cleanup(func() {
		if runID != "" {
			removeRun(t, real, runID)
		}
	})
	t.Setenv("DOCKER_HOST", host)
	o := runSpec(t, context.Background(), spec, files, args...)
	runID = o.report.RunID
	return o
}

// TestProxyEngineLostMidRun: the path to the engine goes away after a few
// cases (the socket removed, every connection closed, as when the daemon
// stops). The run failed: exit 4 even with --fail-on false, the report's
// error says the engine became unreachable, the cases observed before keep
// their verdict, and every case not observed is undetermined with a reason
// (those not started: the loss). What the run could not remove is found by
// its label and removed through the real daemon. Before, the run exited 0:
// every later case undetermined one by one, and --fail-on false passed it.
// It does not run in parallel: it sets DOCKER_HOST.
func TestProxyEngineLostMidRun(t *testing.T) {
	img := testImages(t)
	real := dockertest.Client(t)
	p, host := newEngineProxy(t, func(p *engineProxy) { p.cutAtAttach = 4 })
	var programs strings.Builder
	for i := range 3 {
		fmt.Fprintf(&programs, "  - {name: p%d, file: ok.sh, profile: sh, cases: [%s]}\n", i,
			"{name: a, expect: {stdout: {equals: ok}}}, {name: b, expect: {stdout: {equals: ok}}}, {name: c, expect: {stdout: {equals: ok}}}, {name: d, expect: {stdout: {equals: ok}}}")
	}
	spec := fmt.Sprintf(`version: 1
profiles:
  sh: {image: %q, command: ["/bin/sh"], timeout: 20s}
programs:
%s`, img.busybox, programs.String())
	o := runThroughProxy(t, real, host, spec, map[string]string{"ok.sh": "echo ok\n"}, "--parallel", "1", "--fail-on", "false")

	if !p.isCut() {
		t.Fatalf("the proxy was never cut (fewer than 4 attaches):\n%s", indent(o.stderr))
	}
	if o.code != cli.ExitRunFailed {
		t.Errorf("exit code %d with --fail-on false, want %d: a run that lost its engine failed\nstderr:\n%s", o.code, cli.ExitRunFailed, indent(o.stderr))
	}
	if o.report.Verdict != verdict.Undetermined || !strings.Contains(o.report.Error, "became unreachable") {
		t.Errorf("report: verdict %s, error %q; want undetermined, the engine named as unreachable", o.report.Verdict, o.report.Error)
	}
	observed := 0
	for _, prog := range o.report.Programs {
		for _, c := range prog.Cases {
			ev := c.Event
			switch {
			case ev.SandboxError == "":
				observed++
				if c.Verdict != verdict.True {
					t.Errorf("%s/%s observed before the loss: %s (%q), want true", prog.Name, c.Name, c.Verdict, c.Reason)
				}
			case c.Verdict != verdict.Undetermined:
				t.Errorf("%s/%s not observed (%q): %s, want undetermined", prog.Name, c.Name, ev.SandboxError, c.Verdict)
			case strings.HasPrefix(ev.SandboxError, "not run: "):
				if !strings.Contains(ev.SandboxError, "became unreachable") {
					t.Errorf("%s/%s not run: reason %q, want the loss", prog.Name, c.Name, ev.SandboxError)
				}
			}
		}
	}
	if observed != 3 {
		t.Errorf("%d cases observed, want the 3 before the cut", observed)
	}
	// The fourth attach, cut, was p0's case d: it was in flight, so its
	// reason is its own (the attach failed). Its program's other cases and
	// the later programs' are "not run" with the loss (checked above), or
	// carry their delivery's error had the cut interrupted one.
	p0 := o.program(t, "p0")
	if len(p0.Cases) != 4 {
		t.Fatalf("p0 has %d cases in the report, want 4", len(p0.Cases))
	}
	if d := p0.Cases[3]; d.Verdict != verdict.Undetermined || d.Event.SandboxError == "" || strings.HasPrefix(d.Event.SandboxError, "not run: ") {
		t.Errorf("p0/d, cut in flight: %s (%q), want undetermined with its own reason", d.Verdict, d.Event.SandboxError)
	}

	// The run could not clean up through the proxy: its leftovers are
	// found by label and removed through the real daemon (removeRun, as
	// behaves gc would for a dead run).
	removeRun(t, real, o.report.RunID)
	dockertest.AssertNothingLeft(t, real, o.report.RunID)
}

// TestProxyHalfCloseCutsOutput: a proxy that closes both directions when
// behaves half-closes stdin ends the attach stream while the program is
// still running, before it prints. The output never arrives, and an empty
// output must not be judged: every case is undetermined (never false with
// "got \"\"", never true), the engine is still reachable, so the run is not
// failed (exit 3) and removes everything it made. The programs wait a
// moment before printing, so that they are surely still running when the
// stream ends (see docs/sandbox.md, "Streams and time", for the moment this
// cannot cover).
// It does not run in parallel: it sets DOCKER_HOST.
func TestProxyHalfCloseCutsOutput(t *testing.T) {
	img := testImages(t)
	real := dockertest.Client(t)
	_, host := newEngineProxy(t, func(p *engineProxy) { p.halfCloseKills = true })
	spec := fmt.Sprintf(`version: 1
profiles:
  sh: {image: %q, command: ["/bin/sh"], timeout: 20s}
programs:
  - name: hi
    file: hi.sh
    profile: sh
    cases:
      - {name: no-stdin, expect: {stdout: {equals: hi}}}
      - {name: stdin, stdin: "x\n", expect: {stdout: {equals: hi}}}
  - name: reads
    file: reads.sh
    profile: sh
    cases:
      - {name: echo, stdin: "hi\n", expect: {stdout: {equals: hi}}}
`, img.busybox)
	o := runThroughProxy(t, real, host, spec, map[string]string{
		"hi.sh":    "sleep 1\necho hi\n",
		"reads.sh": "read x\nsleep 1\necho \"$x\"\n",
	})
	if o.code != cli.ExitUndetermined {
		t.Errorf("exit code %d, want %d (undetermined; the engine was not lost)\nstderr:\n%s", o.code, cli.ExitUndetermined, indent(o.stderr))
	}
	if o.report.Error != "" {
		t.Errorf("report error %q: the engine was reachable, the run did not fail", o.report.Error)
	}
	n := 0
	for _, prog := range o.report.Programs {
		for _, c := range prog.Cases {
			n++
			if c.Verdict != verdict.Undetermined || !strings.Contains(c.Event.SandboxError, "ended while the container was still running") {
				t.Errorf("%s/%s: %s (%q), stdout %q; want undetermined: the stream ended while the program ran", prog.Name, c.Name, c.Verdict, c.Reason, c.Event.Stdout)
			}
		}
	}
	if n != 3 {
		t.Fatalf("%d cases in the report, want 3", n)
	}
	dockertest.AssertNothingLeft(t, real, o.report.RunID)
}
