package methods

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Process limits.
const (
	// ShutdownGrace is how long a process may take to exit after its
	// stdin is closed before its process group is killed.
	ShutdownGrace = 5 * time.Second
	// StderrTail is how many trailing bytes of a process's stderr are kept
	// for error messages.
	StderrTail = 4 << 10
	// maxLine is the longest stdout line read (a reply is far shorter).
	maxLine = 1 << 20
	// exitGrace bounds the wait for the last stdout line once a process
	// has exited (a grandchild may hold the pipe open).
	exitGrace = time.Second
)

// lineItem is one line of a process's stdout, or the error that ended
// the reading.
type lineItem struct {
	text []byte
	err  error
}

// proc is one live process of a method, bound to one sweep.
type proc struct {
	name   string
	sweep  string
	pid    int
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	home   string
	lines  chan lineItem
	exited chan struct{} // closed once Wait has returned
	done   chan struct{} // closed by cleanup, stops the reader
	stderr *tail
	nextID int64
	once   sync.Once
	// idleSince is when the process last became idle (guarded by its
	// pool's mutex).
	idleSince time.Time
}

// startSpec is what starting a process needs.
type startSpec struct {
	cfg   Config
	sweep string
	root  string // parent of the process's private home
}

// startProc starts a method process and waits for its ready line. Its
// errors describe the failure in a few words (without the stderr tail,
// which the caller adds from the returned proc when it is not nil).
func startProc(ctx context.Context, s startSpec) (*proc, error) {
	home, err := os.MkdirTemp(s.root, "proc-")
	if err != nil {
		return nil, fmt.Errorf("could not make its home directory: %w", err)
	}
	env := childEnv(s.cfg, home)
	prog, err := resolveProgram(s.cfg.Command[0], envValue(env, "PATH"), s.cfg.Dir)
	if err != nil {
		os.RemoveAll(home)
		return nil, err
	}
	p := &proc{name: s.cfg.Name, sweep: s.sweep, home: home, lines: make(chan lineItem),
		exited: make(chan struct{}), done: make(chan struct{}), stderr: &tail{}}
	if err := p.exec(prog, s.cfg, env); err != nil {
		os.RemoveAll(home)
		return nil, err
	}
	if err := p.awaitReady(ctx, s.cfg.StartTimeout); err != nil {
		p.kill()
		return p, err
	}
	return p, nil
}

// exec starts the process with its pipes, its own process group, and the
// goroutines that wait for it and read its stdout.
func (p *proc) exec(prog string, cfg Config, env []string) error {
	inR, inW, err := os.Pipe()
	if err != nil {
		return err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return err
	}
	p.cmd = &exec.Cmd{Path: prog, Args: cfg.Command, Dir: cfg.Dir, Env: env, Stdin: inR, Stdout: outW,
		Stderr: p.stderr, SysProcAttr: &syscall.SysProcAttr{Setpgid: true}, WaitDelay: exitGrace}
	err = p.cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return fmt.Errorf("could not start %q: %w", cfg.Command[0], err)
	}
	p.pid, p.stdin, p.stdout = p.cmd.Process.Pid, inW, outR
	go func() {
		p.cmd.Wait() // the exit status stays in p.cmd.ProcessState
		close(p.exited)
	}()
	go p.read()
	return nil
}

// read sends the process's stdout lines to p.lines until EOF, an error or
// cleanup.
func (p *proc) read() {
	defer close(p.lines)
	sc := bufio.NewScanner(p.stdout)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	for sc.Scan() {
		select {
		case p.lines <- lineItem{text: slices.Clone(sc.Bytes())}:
		case <-p.done:
			return
		}
	}
	if err := sc.Err(); err != nil && !errors.Is(err, os.ErrClosed) {
		select {
		case p.lines <- lineItem{err: err}:
		case <-p.done:
		}
	}
}

// awaitReady waits for the ready line {"ready": true, "protocol": 1}.
func (p *proc) awaitReady(ctx context.Context, limit time.Duration) error {
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case it, ok := <-p.lines:
		if !ok {
			<-p.exited
			return fmt.Errorf("exited before its ready line (%s)", p.status())
		}
		var r struct {
			Ready    bool `json:"ready"`
			Protocol int  `json:"protocol"`
		}
		if it.err != nil || json.Unmarshal(it.text, &r) != nil || !r.Ready || r.Protocol != 1 {
			return fmt.Errorf(`first line %s is not {"ready": true, "protocol": 1}`, clip(it.text, it.err))
		}
		return nil
	case <-timer.C:
		return fmt.Errorf("printed no ready line within %s", limit)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// outcome classifies the end of a round trip.
type outcome int

const (
	outOK      outcome = iota // a well-formed reply (ok may be false)
	outCrash                  // the process exited or could not be written to
	outTimeout                // no reply within the limit
	outGarbage                // a line that is not this request's reply
	outCtx                    // the context ended
)

// reply is a method's answer to a request.
type reply struct {
	ID             *int64  `json:"id"`
	OK             *bool   `json:"ok"`
	Error          string  `json:"error"`
	FitSeconds     float64 `json:"fit_seconds"`
	PredictSeconds float64 `json:"predict_seconds"`
}

// roundTrip sends req (with the process's next id) and waits up to limit
// for its reply. On anything but outOK the process has been killed and
// detail says what happened.
func (p *proc) roundTrip(ctx context.Context, req *request, limit time.Duration) (reply, outcome, string) {
	p.nextID++
	req.ID = p.nextID
	line, err := json.Marshal(req)
	if err != nil {
		p.kill()
		return reply{}, outGarbage, fmt.Sprintf("could not encode the request: %v", err)
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	p.stdin.SetWriteDeadline(time.Now().Add(limit))
	if _, err := p.stdin.Write(append(line, '\n')); err != nil {
		p.kill()
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return reply{}, outTimeout, "did not read its request"
		}
		return reply{}, outCrash, fmt.Sprintf("exited (%s)", p.status())
	}
	select {
	case it, ok := <-p.lines:
		return p.parseReply(it, ok)
	case <-p.exited:
		return p.lastLine()
	case <-timer.C:
		p.kill()
		return reply{}, outTimeout, ""
	case <-ctx.Done():
		p.kill()
		return reply{}, outCtx, ""
	}
}

// lastLine takes a reply printed just before the process exited, if any.
func (p *proc) lastLine() (reply, outcome, string) {
	timer := time.NewTimer(exitGrace)
	defer timer.Stop()
	select {
	case it, ok := <-p.lines:
		return p.parseReply(it, ok)
	case <-timer.C:
		p.kill()
		return reply{}, outCrash, fmt.Sprintf("exited during the call (%s)", p.status())
	}
}

// parseReply checks one stdout line against the request's id.
func (p *proc) parseReply(it lineItem, ok bool) (reply, outcome, string) {
	if !ok {
		p.kill()
		return reply{}, outCrash, fmt.Sprintf("exited during the call (%s)", p.status())
	}
	var r reply
	if it.err != nil || json.Unmarshal(it.text, &r) != nil || r.ID == nil || r.OK == nil {
		p.kill()
		return reply{}, outGarbage, fmt.Sprintf("replied %s, not a protocol reply", clip(it.text, it.err))
	}
	if *r.ID != p.nextID {
		p.kill()
		return reply{}, outGarbage, fmt.Sprintf("replied to request %d, not %d", *r.ID, p.nextID)
	}
	return r, outOK, ""
}

// status describes how the process ended.
func (p *proc) status() string {
	select {
	case <-p.exited:
		if st := p.cmd.ProcessState; st != nil {
			return st.String()
		}
		return "unknown status"
	default:
		return "still running"
	}
}

// kill kills the process group, waits for the process and releases its
// resources; it may be called more than once.
func (p *proc) kill() {
	syscall.Kill(-p.pid, syscall.SIGKILL)
	<-p.exited
	p.cleanup()
}

// shutdown closes the process's stdin, gives it grace to exit, then
// kills its process group (whatever of it is left).
func (p *proc) shutdown(grace time.Duration) {
	p.stdin.Close()
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-p.exited:
	case <-timer.C:
	}
	p.kill()
}

// cleanup closes the pipes, stops the reader and removes the home
// directory, once.
func (p *proc) cleanup() {
	p.once.Do(func() {
		close(p.done)
		p.stdin.Close()
		p.stdout.Close()
		os.RemoveAll(p.home)
	})
}

// alive reports whether the process has not exited.
func (p *proc) alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// childEnv builds a method's environment from scratch (protocol v1).
func childEnv(cfg Config, home string) []string {
	m := map[string]string{"PATH": os.Getenv("PATH"), "LANG": "C.UTF-8", "HOME": home, "TMPDIR": home,
		"MISSLAB_METHOD": cfg.Name, "MISSLAB_PROTOCOL": "1"}
	for k, v := range cfg.Env {
		m[k] = v
	}
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// envValue returns the value of name in env ("" when absent).
func envValue(env []string, name string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}

// resolveProgram finds the program to run: a name with a slash is taken
// relative to dir, a bare name is looked up in the child's PATH (absolute
// entries only).
func resolveProgram(prog, pathList, dir string) (string, error) {
	if strings.Contains(prog, "/") {
		if !filepath.IsAbs(prog) {
			prog = filepath.Join(dir, prog)
		}
		return prog, nil
	}
	for _, d := range filepath.SplitList(pathList) {
		if !filepath.IsAbs(d) {
			continue
		}
		p := filepath.Join(d, prog)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("could not start %q: not found in PATH %q", prog, pathList)
}

// clip shows a stdout line (or the read error) in an error message.
func clip(b []byte, err error) string {
	if err != nil {
		return fmt.Sprintf("(unreadable: %v)", err)
	}
	if len(b) > 200 {
		return fmt.Sprintf("%q...", b[:200])
	}
	return fmt.Sprintf("%q", b)
}

// tail keeps the last StderrTail bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

// Write keeps the end of b; it never fails.
func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > 2*StderrTail {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-StderrTail:]...)
	}
	return len(b), nil
}

// String returns the kept bytes, trimmed of surrounding white space.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if len(b) > StderrTail {
		b = b[len(b)-StderrTail:]
	}
	return strings.TrimSpace(string(b))
}
