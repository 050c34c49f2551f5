package docker

// An httptest fake of the Docker Engine API, for fault injection only: it
// makes the engine fail in ways a real daemon cannot be made to (a refused
// create, a broken attach stream, an engine that stops answering, a removal
// that fails). Every other test uses the real daemon.
//
// The fake speaks API 1.41 (the oldest the product supports) to a real
// *client.Client, so the real Sandbox code runs unchanged: version
// negotiation, the hijacked attach stream (101 Switching Protocols, then the
// stdcopy-multiplexed stream of a container without a TTY), the next-exit wait
// whose headers come at once and whose body comes at the exit. It models only
// what the sandbox uses: one image, volumes, containers that run a Go function
// instead of a process.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/image"
	timetypes "github.com/docker/docker/api/types/time"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/behaves-dev/behaves/internal/runner"
)

// fakeAPIVersion is the API version the fake announces.
const fakeAPIVersion = "1.41"

// fakeImageID is the image the fake daemon holds by default.
var fakeImageID = "sha256:" + strings.Repeat("f", 64)

// fakeCall is one request to the fake, as a fault sees it.
type fakeCall struct {
	// Op names the operation: "ping", "version", "image-inspect",
	// "image-pull", "volume-create", "volume-inspect", "volume-remove", "create", "archive",
	// "attach", "wait", "start", "kill", "inspect", "remove", "events".
	Op string
	// Role is the behaves.role label of the container concerned ("" for
	// calls about no container, or an unknown one).
	Role string
	// N counts the calls of this Op for this Role so far, from 1.
	N int
	W http.ResponseWriter
	R *http.Request
}

// fakeFault answers a call in place of the fake. It returns true when it has
// answered (or hung until released), false to let the fake answer.
type fakeFault func(d *fakeDaemon, c *fakeCall) bool

// fakeProc is a running container's process as its program function sees
// it: the attach stream's two output streams (io.Discard when nobody
// attached), the raw connection (to break it), a channel closed when the
// client has closed stdin, and one closed by a kill.
type fakeProc struct {
	Stdout, Stderr io.Writer
	Conn           net.Conn // nil when nobody attached
	StdinDone      <-chan struct{}
	Killed         <-chan struct{}
	// OOMEvent makes the engine log an "oom" event for the container at
	// its exit while its state keeps OOMKilled false: Engine 20.10 does so
	// when containerd's TaskOOM arrives after TaskExit.
	OOMEvent func()
}

// fakeProgram is what a started container does; it returns the exit code
// (ignored after a kill: a killed container exits 137).
type fakeProgram func(p *fakeProc) int

// fakeCtr is one container of the fake.
type fakeCtr struct {
	id, name   string
	labels     map[string]string
	volumes    []string // the volumes it mounts
	status     string   // "created", "running", "exited"
	created    time.Time
	exitCode   int
	startedAt  time.Time
	finishedAt time.Time
	conn       net.Conn      // the attach stream, once attached
	stdinDone  chan struct{} // closed at the end of stdin
	killed     chan struct{}
	killOnce   sync.Once
	exited     chan struct{}
	oomEvent   bool // log "oom" at the exit (fakeProc.OOMEvent)
}

func (c *fakeCtr) kill() { c.killOnce.Do(func() { close(c.killed) }) }

// fakeDaemon is the fake engine. Set image, program and faults before the
// sandbox makes its first call.
type fakeDaemon struct {
	t   testing.TB
	srv *httptest.Server

	// image is what every image inspect answers; an empty ID answers 404.
	image image.InspectResponse
	// program is what every started container does (default: print "ok",
	// exit 0).
	program fakeProgram
	// faults answer calls by operation in place of the fake.
	faults map[string]fakeFault
	// runtimes are registered beside runc (name → path), as the engine's
	// info lists them.
	runtimes map[string]string

	release chan struct{} // closed when the test ends: hung handlers return
	// endEvents, once closed (EndEventStreams), ends every live event
	// stream, as a daemon restart does.
	endEvents     chan struct{}
	endEventsOnce sync.Once
	// silent, once set, makes every call hang: the engine stopped answering.
	silent atomic.Bool

	mu         sync.Mutex
	calls      []string // "op role" in order, for assertions
	counts     map[string]int
	containers map[string]*fakeCtr // by ID
	pending    map[*fakeCtr]bool   // creates in progress: their volumes are in use
	volumes    map[string]map[string]string
	eventLog   []events.Message // container events, in order
	logged     chan struct{}    // closed (and replaced) when an event is logged
	// created holds the body of every container create, in order, so that
	// a test can see what was asked of the engine.
	created []container.CreateRequest
}

// newFakeDaemon starts a fake engine that holds fakeImageID and closes it
// when the test ends (after releasing every hung handler).
func newFakeDaemon(t testing.TB) *fakeDaemon {
	t.Helper()
	d := &fakeDaemon{
		t:          t,
		image:      image.InspectResponse{ID: fakeImageID},
		program:    func(p *fakeProc) int { fmt.Fprint(p.Stdout, "ok\n"); return 0 },
		faults:     map[string]fakeFault{},
		release:    make(chan struct{}),
		endEvents:  make(chan struct{}),
		counts:     map[string]int{},
		containers: map[string]*fakeCtr{},
		pending:    map[*fakeCtr]bool{},
		volumes:    map[string]map[string]string{},
		logged:     make(chan struct{}),
	}
	d.srv = httptest.NewServer(http.HandlerFunc(d.serve))
	t.Cleanup(d.srv.Close)
	t.Cleanup(func() { close(d.release) }) // runs first: hung handlers return, then Close can finish
	return d
}

// client is a real Docker client of the fake, with version negotiation as in
// the product.
func (d *fakeDaemon) client(t testing.TB) *client.Client {
	t.Helper()
	cli, err := client.NewClientWithOpts(
		client.WithHost("tcp://"+d.srv.Listener.Addr().String()),
		client.WithAPIVersionNegotiation(),
	)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

// sandbox is the real Sandbox over a real client of the fake. Zero
// durations in opt get short test defaults.
func (d *fakeDaemon) sandbox(t testing.TB, opt Options) *Sandbox {
	t.Helper()
	if opt.RunID == "" {
		opt.RunID = "fake-" + fakeHex(4)
	}
	if opt.EngineTimeout == 0 {
		opt.EngineTimeout = 5 * time.Second
	}
	if opt.Grace == 0 {
		opt.Grace = time.Second
	}
	if opt.CleanupTimeout == 0 {
		opt.CleanupTimeout = 2 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sb, err := newSandbox(ctx, d.client(t), opt)
	if err != nil {
		t.Fatalf("newSandbox over the fake: %v", err)
	}
	return sb
}

// fault sets the fault of an operation.
func (d *fakeDaemon) fault(op string, f fakeFault) { d.faults[op] = f }

// Calls returns the calls so far ("op role"; "op" alone for calls about no
// container).
func (d *fakeDaemon) Calls() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.calls)
}

// createdRequests returns the body of every container create so far.
func (d *fakeDaemon) createdRequests() []container.CreateRequest {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.created)
}

// count is how many calls of op (for any role) the fake received.
func (d *fakeDaemon) count(op string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for k, v := range d.counts {
		if k == op || strings.HasPrefix(k, op+" ") {
			n += v
		}
	}
	return n
}

// leftovers lists the containers (by name) and volumes the fake still holds.
func (d *fakeDaemon) leftovers() (containers, volumes []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, c := range d.containers {
		containers = append(containers, c.name)
	}
	for v := range d.volumes {
		volumes = append(volumes, v)
	}
	slices.Sort(containers)
	slices.Sort(volumes)
	return containers, volumes
}

// The faults.

// failWith answers with an engine error: status and {"message": msg}.
func failWith(status int, msg string) fakeFault {
	return func(d *fakeDaemon, c *fakeCall) bool {
		writeError(c.W, status, msg)
		return true
	}
}

// hang never answers: the handler returns only when the client gives up or
// the test ends. It is an engine that stopped answering.
func hang() fakeFault {
	return func(d *fakeDaemon, c *fakeCall) bool {
		select {
		case <-c.R.Context().Done():
		case <-d.release:
		}
		return true
	}
}

// forRole applies f to the calls about containers of one role (program,
// helper) only, and only to the n-th such call when n > 0.
func forRole(role string, n int, f fakeFault) fakeFault {
	return func(d *fakeDaemon, c *fakeCall) bool {
		if c.Role != role || (n > 0 && c.N != n) {
			return false
		}
		return f(d, c)
	}
}

// slowCreate is a create (container or volume) that takes the engine
// delay: arrived runs when the call arrives (a test sends its signal
// there), and the engine makes the object delay later, whether or not the
// client is still waiting for the answer, as a daemon does.
func slowCreate(delay time.Duration, arrived func()) fakeFault {
	return func(d *fakeDaemon, c *fakeCall) bool {
		arrived()
		select {
		case <-time.After(delay):
		case <-d.release:
			return true
		}
		return false // the fake creates it now, and answers if anyone listens
	}
}

// slowCreateDelay is how long a slow create takes.
const slowCreateDelay = 100 * time.Millisecond

// The server.

// fakeCPUs is the CPU count the fake engine reports.
const fakeCPUs = 2

var versionPrefix = regexp.MustCompile(`^/v[0-9]+\.[0-9]+/`)

func (d *fakeDaemon) serve(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if v := versionPrefix.FindString(p); v != "" {
		if v != "/v"+fakeAPIVersion+"/" {
			writeError(w, http.StatusBadRequest, "fake: client version "+v+" is not the negotiated "+fakeAPIVersion)
			return
		}
		p = p[len(v)-1:]
	}
	parts := strings.Split(strings.Trim(p, "/"), "/")
	m := r.Method
	switch {
	case p == "/_ping":
		d.handle(w, r, "ping", nil, d.ping)
	case p == "/version" && m == http.MethodGet:
		d.handle(w, r, "version", nil, func(w http.ResponseWriter, r *http.Request, _ *fakeCtr) {
			writeJSON(w, http.StatusOK, map[string]any{"ApiVersion": fakeAPIVersion, "MinAPIVersion": "1.12", "Os": "linux", "Version": "20.10.0-fake"})
		})
	case p == "/info" && m == http.MethodGet:
		d.handle(w, r, "info", nil, func(w http.ResponseWriter, r *http.Request, _ *fakeCtr) {
			runtimes := map[string]any{"runc": map[string]any{"path": "runc"}}
			for name, path := range d.runtimes {
				runtimes[name] = map[string]any{"path": path}
			}
			writeJSON(w, http.StatusOK, map[string]any{"NCPU": fakeCPUs, "OSType": "linux", "ServerVersion": "20.10.0-fake",
				"DefaultRuntime": "runc", "Runtimes": runtimes})
		})
	case p == "/images/create":
		d.handle(w, r, "image-pull", nil, func(w http.ResponseWriter, r *http.Request, _ *fakeCtr) {
			writeError(w, http.StatusInternalServerError, "fake: behaves must never pull")
		})
	case strings.HasPrefix(p, "/images/") && strings.HasSuffix(p, "/json") && m == http.MethodGet:
		ref := strings.TrimSuffix(strings.TrimPrefix(p, "/images/"), "/json")
		d.handle(w, r, "image-inspect", nil, func(w http.ResponseWriter, r *http.Request, _ *fakeCtr) {
			if d.image.ID == "" {
				writeError(w, http.StatusNotFound, "No such image: "+ref)
				return
			}
			writeJSON(w, http.StatusOK, d.image)
		})
	case p == "/volumes/create" && m == http.MethodPost:
		d.volumeCreate(w, r)
	case len(parts) == 2 && parts[0] == "volumes" && m == http.MethodDelete:
		d.handle(w, r, "volume-remove", nil, d.volumeRemove)
	case len(parts) == 2 && parts[0] == "volumes" && m == http.MethodGet:
		d.handle(w, r, "volume-inspect", nil, d.volumeInspect)
	case p == "/containers/create" && m == http.MethodPost:
		d.create(w, r)
	case p == "/events" && m == http.MethodGet:
		d.events(w, r)
	case len(parts) == 2 && parts[0] == "containers" && m == http.MethodDelete:
		d.handle(w, r, "remove", d.lookup(parts[1]), d.remove)
	case len(parts) == 3 && parts[0] == "containers":
		c := d.lookup(parts[1])
		switch op := parts[2]; {
		case op == "json" && m == http.MethodGet:
			d.handle(w, r, "inspect", c, need(d.inspect))
		case op == "archive" && m == http.MethodPut:
			d.handle(w, r, "archive", c, need(d.archive))
		case op == "attach" && m == http.MethodPost:
			d.handle(w, r, "attach", c, need(d.attach))
		case op == "wait" && m == http.MethodPost:
			d.handle(w, r, "wait", c, need(d.wait))
		case op == "start" && m == http.MethodPost:
			d.handle(w, r, "start", c, need(d.start))
		case op == "kill" && m == http.MethodPost:
			d.handle(w, r, "kill", c, need(d.kill))
		default:
			d.unknown(w, r)
		}
	default:
		d.unknown(w, r)
	}
}

func (d *fakeDaemon) unknown(w http.ResponseWriter, r *http.Request) {
	d.record("unknown "+r.Method+" "+r.URL.Path, "")
	writeError(w, http.StatusNotImplemented, "fake: no route for "+r.Method+" "+r.URL.Path)
}

// record notes a call and returns its number for (op, role).
func (d *fakeDaemon) record(op, role string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	key := strings.TrimSpace(op + " " + role)
	d.calls = append(d.calls, key)
	d.counts[key]++
	return d.counts[key]
}

// handle records the call, lets the operation's fault answer it, or else
// answers with h.
func (d *fakeDaemon) handle(w http.ResponseWriter, r *http.Request, op string, c *fakeCtr, h func(http.ResponseWriter, *http.Request, *fakeCtr)) {
	role := ""
	if c != nil {
		role = c.labels[runner.LabelRole]
	}
	n := d.record(op, role)
	if d.silent.Load() {
		hang()(d, &fakeCall{R: r})
		return
	}
	if f := d.faults[op]; f != nil && f(d, &fakeCall{Op: op, Role: role, N: n, W: w, R: r}) {
		return
	}
	h(w, r, c)
}

// need answers 404 for a container the fake does not hold.
func need(h func(http.ResponseWriter, *http.Request, *fakeCtr)) func(http.ResponseWriter, *http.Request, *fakeCtr) {
	return func(w http.ResponseWriter, r *http.Request, c *fakeCtr) {
		if c == nil {
			writeError(w, http.StatusNotFound, "No such container: "+r.URL.Path)
			return
		}
		h(w, r, c)
	}
}

func (d *fakeDaemon) lookup(idOrName string) *fakeCtr {
	d.mu.Lock()
	defer d.mu.Unlock()
	if c, ok := d.containers[idOrName]; ok {
		return c
	}
	for _, c := range d.containers {
		if c.name == idOrName {
			return c
		}
	}
	return nil
}

func (d *fakeDaemon) ping(w http.ResponseWriter, r *http.Request, _ *fakeCtr) {
	w.Header().Set("Api-Version", fakeAPIVersion)
	w.Header().Set("Ostype", "linux")
	w.Header().Set("Docker-Experimental", "false")
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		io.WriteString(w, "OK")
	}
}

func (d *fakeDaemon) volumeCreate(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Name   string
		Labels map[string]string
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		d.record("volume-create", "")
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	d.handle(w, r, "volume-create", nil, func(w http.ResponseWriter, r *http.Request, _ *fakeCtr) {
		name := req.Name
		if name == "" {
			name = fakeHex(32)
		}
		d.mu.Lock()
		labels, ok := d.volumes[name]
		if !ok { // like the engine, a create of an existing name answers with that volume
			labels = req.Labels
			d.volumes[name] = labels
		}
		d.mu.Unlock()
		writeJSON(w, http.StatusCreated, map[string]any{"Name": name, "Driver": "local", "Labels": labels, "Mountpoint": "/fake/" + name, "Scope": "local"})
	})
}

func (d *fakeDaemon) volumeInspect(w http.ResponseWriter, r *http.Request, _ *fakeCtr) {
	name := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
	d.mu.Lock()
	labels, ok := d.volumes[name]
	d.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, "get "+name+": no such volume")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"Name": name, "Driver": "local", "Labels": labels, "Mountpoint": "/fake/" + name, "Scope": "local"})
}

func (d *fakeDaemon) volumeRemove(w http.ResponseWriter, r *http.Request, _ *fakeCtr) {
	name := strings.TrimPrefix(r.URL.Path[strings.LastIndex(r.URL.Path, "/volumes/"):], "/volumes/")
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.volumes[name]; !ok {
		writeError(w, http.StatusNotFound, "get "+name+": no such volume")
		return
	}
	for _, c := range d.containers {
		if slices.Contains(c.volumes, name) {
			writeError(w, http.StatusConflict, "remove "+name+": volume is in use - ["+c.id+"]")
			return
		}
	}
	for c := range d.pending {
		if slices.Contains(c.volumes, name) {
			writeError(w, http.StatusConflict, "remove "+name+": volume is in use - ["+c.id+"]")
			return
		}
	}
	delete(d.volumes, name)
	w.WriteHeader(http.StatusNoContent)
}

func (d *fakeDaemon) create(w http.ResponseWriter, r *http.Request) {
	var req container.CreateRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Config == nil || req.HostConfig == nil {
		d.record("create", "")
		writeError(w, http.StatusBadRequest, fmt.Sprintf("fake: a create needs a config and a host config (%v)", err))
		return
	}
	d.mu.Lock()
	d.created = append(d.created, req)
	d.mu.Unlock()
	c := &fakeCtr{
		id:        fakeHex(32),
		name:      r.URL.Query().Get("name"),
		labels:    req.Labels,
		status:    "created",
		created:   time.Now(),
		killed:    make(chan struct{}),
		exited:    make(chan struct{}),
		stdinDone: make(chan struct{}),
	}
	for _, m := range req.HostConfig.Mounts {
		c.volumes = append(c.volumes, m.Source)
	}
	// Like the engine, the fake takes its references on the volumes when a
	// create begins: removing them meanwhile is refused.
	d.mu.Lock()
	d.pending[c] = true
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		delete(d.pending, c)
		d.mu.Unlock()
	}()
	d.handle(w, r, "create", c, func(w http.ResponseWriter, r *http.Request, _ *fakeCtr) {
		d.mu.Lock()
		defer d.mu.Unlock()
		for _, o := range d.containers {
			if o.name == c.name {
				writeError(w, http.StatusConflict, fmt.Sprintf("Conflict. The container name %q is already in use", c.name))
				return
			}
		}
		for _, v := range c.volumes {
			if _, ok := d.volumes[v]; !ok {
				writeError(w, http.StatusNotFound, "no such volume: "+v)
				return
			}
		}
		d.containers[c.id] = c
		writeJSON(w, http.StatusCreated, container.CreateResponse{ID: c.id, Warnings: []string{}})
	})
}

func (d *fakeDaemon) archive(w http.ResponseWriter, r *http.Request, c *fakeCtr) {
	io.Copy(io.Discard, r.Body)
	w.WriteHeader(http.StatusOK)
}

// attach hijacks the connection as the engine does: 101, then the raw
// stream. Stdin is drained until the client closes its write side.
func (d *fakeDaemon) attach(w http.ResponseWriter, r *http.Request, c *fakeCtr) {
	conn, brw, err := w.(http.Hijacker).Hijack()
	if err != nil {
		d.t.Errorf("fake: hijack: %v", err)
		return
	}
	// The stream is the container's before the client learns it is
	// attached: a start that follows at once must find it.
	d.mu.Lock()
	c.conn = conn
	d.mu.Unlock()
	brw.WriteString("HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n")
	if err := brw.Flush(); err != nil {
		conn.Close()
		return
	}
	go func() { // stdin, until the client closes its write side
		io.Copy(io.Discard, brw.Reader)
		close(c.stdinDone)
	}()
}

// wait answers the headers at once (the client's acknowledgement) and the
// body at the container's exit.
func (d *fakeDaemon) wait(w http.ResponseWriter, r *http.Request, c *fakeCtr) {
	if cond := r.URL.Query().Get("condition"); cond != string(container.WaitConditionNextExit) {
		writeError(w, http.StatusBadRequest, "fake: only next-exit waits, not "+cond)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	select {
	case <-c.exited:
		d.mu.Lock()
		code := c.exitCode
		d.mu.Unlock()
		json.NewEncoder(w).Encode(container.WaitResponse{StatusCode: int64(code)})
	case <-r.Context().Done():
	case <-d.release:
	}
}

// start runs the program in the background: its output goes to the attach
// stream; at its end the container exits and the stream closes.
func (d *fakeDaemon) start(w http.ResponseWriter, r *http.Request, c *fakeCtr) {
	d.mu.Lock()
	if c.status != "created" {
		d.mu.Unlock()
		writeError(w, http.StatusNotModified, "container already started")
		return
	}
	c.status, c.startedAt = "running", time.Now()
	proc := &fakeProc{Stdout: io.Discard, Stderr: io.Discard, Conn: c.conn, StdinDone: c.stdinDone, Killed: c.killed,
		OOMEvent: func() { d.mu.Lock(); c.oomEvent = true; d.mu.Unlock() }}
	if c.conn != nil {
		proc.Stdout = stdcopy.NewStdWriter(c.conn, stdcopy.Stdout)
		proc.Stderr = stdcopy.NewStdWriter(c.conn, stdcopy.Stderr)
	}
	program, conn := d.program, c.conn
	d.mu.Unlock()
	go func() {
		code := program(proc)
		select {
		case <-c.killed:
			code = 137
		default:
		}
		// As the engine does, the exit is recorded before the attach
		// stream ends: Engine 20.10 closes the streams while it processes
		// the exit under the container's lock, which an inspect waits for,
		// so an inspect made after the stream's end finds it exited.
		d.mu.Lock()
		c.status, c.exitCode, c.finishedAt = "exited", code, time.Now()
		if c.oomEvent {
			d.logEvent(c, events.ActionOOM)
		}
		d.mu.Unlock()
		if conn != nil {
			endStream(conn, c.stdinDone)
		}
		close(c.exited)
	}()
	w.WriteHeader(http.StatusNoContent)
}

func (d *fakeDaemon) kill(w http.ResponseWriter, r *http.Request, c *fakeCtr) {
	d.mu.Lock()
	running := c.status == "running"
	d.mu.Unlock()
	if !running {
		writeError(w, http.StatusConflict, "Cannot kill container: "+c.id+": Container "+c.id+" is not running")
		return
	}
	c.kill()
	w.WriteHeader(http.StatusNoContent)
}

func (d *fakeDaemon) inspect(w http.ResponseWriter, r *http.Request, c *fakeCtr) {
	d.mu.Lock()
	defer d.mu.Unlock()
	ts := func(t time.Time) string {
		if t.IsZero() {
			return "0001-01-01T00:00:00Z"
		}
		return t.UTC().Format(time.RFC3339Nano)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"Id":      c.id,
		"Name":    "/" + c.name,
		"Created": ts(c.created),
		"State": map[string]any{
			"Status":     c.status,
			"Running":    c.status == "running",
			"ExitCode":   c.exitCode,
			"OOMKilled":  false,
			"StartedAt":  ts(c.startedAt),
			"FinishedAt": ts(c.finishedAt),
		},
		"Config": map[string]any{"Labels": c.labels},
	})
}

// remove removes a container; forced, it kills a running one first.
func (d *fakeDaemon) remove(w http.ResponseWriter, r *http.Request, c *fakeCtr) {
	if c == nil {
		writeError(w, http.StatusNotFound, "No such container: "+r.URL.Path)
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if c.status == "running" && r.URL.Query().Get("force") != "1" {
		writeError(w, http.StatusConflict, "You cannot remove a running container "+c.id)
		return
	}
	c.kill()
	delete(d.containers, c.id)
	d.logEvent(c, events.ActionDestroy)
	w.WriteHeader(http.StatusNoContent)
}

// logEvent appends a container event to the log; d.mu must be held.
func (d *fakeDaemon) logEvent(c *fakeCtr, action events.Action) {
	now := time.Now()
	d.eventLog = append(d.eventLog, events.Message{
		Type:     events.ContainerEventType,
		Action:   action,
		Actor:    events.Actor{ID: c.id, Attributes: c.labels},
		Time:     now.Unix(),
		TimeNano: now.UnixNano(),
	})
	close(d.logged)
	d.logged = make(chan struct{})
}

// events streams the container events that match the filters (type,
// container, event, label) since the given time, then those logged later, as the
// engine does, until the client goes away or the time "until" (if given)
// has come. The call's role is that of the container named in the
// filters ("" for the run's stream, which names none).
func (d *fakeDaemon) events(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f, err := filters.FromJSON(q.Get("filters"))
	if err != nil {
		d.record("events", "")
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	var since, until time.Time
	for key, t := range map[string]*time.Time{"since": &since, "until": &until} {
		if v := q.Get(key); v != "" {
			sec, nsec, err := timetypes.ParseTimestamps(v, 0)
			if err != nil {
				d.record("events", "")
				writeError(w, http.StatusBadRequest, "fake: "+key+" "+v+": "+err.Error())
				return
			}
			*t = time.Unix(sec, nsec)
		}
	}
	var end <-chan time.Time // never, without until
	if !until.IsZero() {
		end = time.After(time.Until(until))
	}
	role := ""
	d.mu.Lock()
	for _, id := range f.Get("container") {
		if c, ok := d.containers[id]; ok {
			role = c.labels[runner.LabelRole]
		}
	}
	for _, m := range d.eventLog { // a container already removed
		if role == "" && f.Contains("container") && f.ExactMatch("container", m.Actor.ID) {
			role = m.Actor.Attributes[runner.LabelRole]
		}
	}
	d.mu.Unlock()
	var c *fakeCtr
	if role != "" {
		c = &fakeCtr{labels: map[string]string{runner.LabelRole: role}}
	}
	d.handle(w, r, "events", c, func(w http.ResponseWriter, r *http.Request, _ *fakeCtr) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		enc := json.NewEncoder(w)
		next := 0
		for {
			d.mu.Lock()
			log, logged := d.eventLog[next:], d.logged
			next = len(d.eventLog)
			d.mu.Unlock()
			for _, m := range log {
				if time.Unix(0, m.TimeNano).Before(since) || !f.ExactMatch("type", string(m.Type)) ||
					!f.ExactMatch("container", m.Actor.ID) || !f.ExactMatch("event", string(m.Action)) ||
					!f.MatchKVList("label", m.Actor.Attributes) {
					continue
				}
				enc.Encode(m)
			}
			w.(http.Flusher).Flush()
			select {
			case <-logged:
			case <-end:
				return
			case <-r.Context().Done():
				return
			case <-d.release:
				return
			case <-d.endEvents:
				return
			}
		}
	})
}

// EndEventStreams ends every live event stream, those open and those to
// come, with a clean end of the response: the client reads EOF.
func (d *fakeDaemon) EndEventStreams() {
	d.endEventsOnce.Do(func() { close(d.endEvents) })
}

// Helpers.

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// writeError answers as the engine does: {"message": …} as JSON.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"message": msg})
}

func fakeHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// frameHeader is a stdcopy frame header announcing size bytes on stream
// (1 stdout, 2 stderr), to write a frame by hand (e.g. one cut short).
func frameHeader(stream byte, size uint32) []byte {
	return []byte{stream, 0, 0, 0, byte(size >> 24), byte(size >> 16), byte(size >> 8), byte(size)}
}

// endStream ends the attach stream at the exit: the output side first (the
// client reads end-of-stream), the whole connection once the client has
// closed stdin (closing with stdin bytes unread would reset the connection,
// which the client would rightly take for a broken stream).
func endStream(conn net.Conn, stdinDone <-chan struct{}) {
	tc, ok := conn.(*net.TCPConn)
	if !ok {
		conn.Close()
		return
	}
	tc.CloseWrite()
	go func() {
		select {
		case <-stdinDone:
		case <-time.After(10 * time.Second):
		}
		conn.Close()
	}()
}

// rst closes a TCP connection with a reset instead of an orderly close, as a
// crashing engine's kernel may: the client's read fails instead of ending.
func rst(conn net.Conn) {
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}
