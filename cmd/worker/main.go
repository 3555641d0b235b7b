// Command worker joins a misslab coordinator and runs jobs on all cores
// until SIGTERM or Ctrl-C, then drains and exits. It exits with status 1,
// saying why, when the coordinator refuses it (certificate, TLS, token or
// cluster), and with status 2 on bad flags; --help and --version print to
// standard output and exit 0.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/misslab/misslab/internal/cli"
	"github.com/misslab/misslab/internal/methodid"
	"github.com/misslab/misslab/internal/methods"
	"github.com/misslab/misslab/internal/run"
	"github.com/misslab/misslab/internal/version"
	"github.com/misslab/misslab/internal/worker"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := realMain(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// about is the worker's usage text after its usage line.
const about = `Joins the coordinator at --join and runs its jobs on all cores until
SIGTERM or Ctrl-C, then drains (running jobs finish and are delivered) and
exits. It exits with status 1, saying why, when the coordinator refuses it
(certificate, TLS, token, cluster or floating-point class), and with status 2
on a command line that does not parse. 'worker --version' prints misslab's
version and the floating-point class, which must be the coordinator's.`

// realMain runs the worker with the command-line arguments args, logging to
// stderr, until ctx ends; it returns the exit status. Help and the
// version go to stdout.
func realMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := cli.New("worker", "--join HOST:PORT [flags]", about)
	join := fs.String("join", "", "coordinator address host:port (required)")
	parallel := fs.Int("parallel", 0, "jobs run at once (0: all cores)")
	prefetch := fs.Int("prefetch", 0, "leases held beyond --parallel (0: as many as --parallel)")
	id := fs.String("id", "", "worker id in the coordinator's logs (default host-pid)")
	executor := fs.String("executor", "experiment", "job executor: experiment, or deterministic/noop for tests")
	delay := fs.Duration("delay", 0, "extra wait before each job (for tests)")
	drain := fs.Duration("drain-timeout", 10*time.Minute, "on SIGTERM, how long running jobs may take to finish")
	maxBackoff := fs.Duration("max-backoff", 5*time.Second, "longest wait between reconnection attempts")
	level := fs.String("log-level", "info", "log level (trace, debug, info, warn, error)")
	tableDir := fs.String("table-dir", "", "directory of the tables fetched for table sweeps (default "+worker.DefaultTableDir()+")")
	methodsFile := fs.String("methods", "", "methods file: the external methods this worker runs (see docs/METHODS.md)")
	methodDir := fs.String("method-dir", "", "where methods' per-call files go (default: $TMPDIR, else /dev/shm when it has 256 MiB free, else the system temporary directory)")
	showVersion := fs.Bool("version", false, "print misslab's version, commit, Go release and floating-point class, and exit")
	sec := addSecurity(fs.FlagSet)
	fs.Hide("executor", "delay")
	pos, err := fs.Parse(args)
	switch {
	case err != nil:
	case *showVersion || len(pos) == 1 && pos[0] == "version":
		fmt.Fprintln(stdout, version.Line())
		return 0
	case *join == "":
		err = fs.Usagef("--join is required")
	case len(pos) > 0:
		err = fs.Usagef("unexpected argument %q", pos[0])
	}
	if err != nil {
		return cli.Exit(stdout, stderr, "worker", err)
	}
	log := hclog.New(&hclog.LoggerOptions{Name: "worker", Level: hclog.LevelFromString(*level), Output: stderr})
	exec, err := worker.NewExecutor(*executor)
	if err != nil {
		log.Error("cannot start", "error", err)
		return 2
	}
	tables, err := openTables(*tableDir, log)
	if err != nil {
		log.Error("cannot start", "error", err)
		return 2
	}
	exec = worker.WithTables(exec, tables)
	offers, closeMethods, err := startMethods(*methodsFile, *methodDir, &exec, *parallel, log)
	if err != nil {
		log.Error("cannot start", "error", err)
		return 2
	}
	defer closeMethods()
	if *delay > 0 {
		exec = worker.Slow{Executor: exec, Delay: *delay}
	}
	opts := worker.Options{Addr: *join, ID: *id, Parallel: *parallel, Prefetch: *prefetch, Executor: exec,
		Logger: log, DrainTimeout: *drain, MaxBackoff: *maxBackoff, Tables: tables, Methods: offers}
	serveMetrics, err := sec.setup(&opts, log)
	if err != nil {
		log.Error("cannot start", "error", err)
		return 2
	}
	// The worker and its metrics server run as one group: when either
	// stops, the other does (the worker drains first).
	var g run.Group
	g.AddContext(ctx, "worker", func(ctx context.Context) error { return worker.Run(ctx, opts) })
	if serveMetrics != nil {
		g.AddContext(ctx, "metrics server", serveMetrics)
	}
	if err := g.Run(); err != nil { // a refusal's error says what to fix
		log.Error("worker failed", "error", err)
		return 1
	}
	log.Info("drained; exiting")
	return 0
}

// openTables opens the worker's table store in dir (--table-dir). An
// unusable default directory (no writable cache or temporary directory,
// as in a read-only container) is not fatal: the worker runs without a
// table store and the jobs of table sweeps fail here, to run elsewhere;
// an unusable --table-dir is an error.
func openTables(dir string, log hclog.Logger) (*worker.TableStore, error) {
	ts, err := worker.OpenTableStore(dir)
	switch {
	case err == nil:
		log.Debug("table store", "dir", ts.Dir())
		return ts, nil
	case dir != "":
		return nil, fmt.Errorf("--table-dir: %w", err)
	}
	log.Warn("no table store: this worker cannot run table sweeps (give --table-dir a writable directory)", "error", err)
	return nil, nil
}

// startMethods loads the methods file (--methods) and makes *exec run
// its methods; it returns what the worker offers and a function that
// stops the methods' processes. Without a file it does nothing.
func startMethods(path, dir string, exec *worker.Executor, parallel int, log hclog.Logger) ([]methodid.Method, func(), error) {
	if path == "" {
		return nil, func() {}, nil
	}
	cat, err := methods.Load(path)
	if err != nil {
		return nil, nil, fmt.Errorf("--methods: %w", err)
	}
	if parallel <= 0 {
		parallel = runtime.NumCPU()
	}
	r, err := methods.NewRunner(cat, methods.Options{TempDir: dir, MaxProcs: parallel, Logger: log.Named("methods")})
	if err != nil {
		return nil, nil, err
	}
	*exec = worker.WithMethods(*exec, r)
	log.Info("methods' files", "dir", r.Root())
	for _, m := range cat.Methods() {
		log.Info("offering method", "method", m.Name, "kind", m.Kind, "id", m.ID[:16])
	}
	return cat.Methods(), func() { _ = r.Close() }, nil
}
