// Command coordinator serves misslab sweeps to workers, submits and follows
// them, and runs a grid on this machine with `coordinator run`.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/term"

	"github.com/misslab/misslab/internal/calibrate"
	"github.com/misslab/misslab/internal/client"
	"github.com/misslab/misslab/internal/embedded"
	"github.com/misslab/misslab/internal/fpclass"
	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/methods"
	"github.com/misslab/misslab/internal/plan"
	"github.com/misslab/misslab/internal/sched"
	"github.com/misslab/misslab/internal/server"
	"github.com/misslab/misslab/internal/store"
	"github.com/misslab/misslab/internal/verify"
	"github.com/misslab/misslab/internal/worker"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

const defaultAddr = "127.0.0.1:7420"

const usage = `usage: coordinator <command> [arguments]

commands:
  serve   --data DIR [--listen ADDR]       run a coordinator for workers
  submit  GRID [--addr ADDR] [--reps N]    submit a grid and follow it (Ctrl-C detaches)
  status  [SWEEP] [--addr ADDR]            progress of one or every sweep
  cancel  SWEEP [--addr ADDR]              stop a sweep (a later submit resumes it)
  retry   SWEEP [--addr ADDR]              run a sweep's failed jobs again
  export  SWEEP --out FILE [--folds] [--addr ADDR]
                                           write a sweep's results as tidy CSV, or
                                           with --folds a table sweep's folds
  plan    GRID [--reps N]                  what a grid would run, and its cost
  run     GRID --out DIR [--reps N]        run a grid here on all cores, write DIR/results.csv
                                           and each sweep's report in DIR/report/<sweep>/
  report  [SWEEP] --data DIR --out DIR     write a sweep's report from a data directory (offline)
  check   --data DIR                       verify a data directory's store (read only); fails on damage

SWEEP is a sweep id, a unique id prefix or a sweep name (the latest submitted
sweep of that name).
Run 'coordinator <command> -h' for a command's flags.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	cmds := map[string]func([]string) error{
		"serve": serve, "submit": submit, "status": status, "cancel": cancel, "retry": retry,
		"export": export, "plan": planCmd, "run": run, "report": reportCmd,
		"check": runCheck,
	}
	cmd := cmds[os.Args[1]]
	if cmd == nil {
		fmt.Fprintf(os.Stderr, "coordinator: unknown command %q\n\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	if err := cmd(os.Args[2:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "coordinator "+os.Args[1]+": "+err.Error())
		os.Exit(1)
	}
}

// parse parses flags and positional arguments in any order.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func newLogger(name, level string) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: name, Level: hclog.LevelFromString(level), Output: os.Stderr})
}

func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	listen := fs.String("listen", defaultAddr, "address to listen on (host:port)")
	data := fs.String("data", "", "data directory (required)")
	lease := fs.Duration("lease", 30*time.Second, "lease lifetime without a heartbeat")
	maxDeliveries := fs.Int("max-deliveries", 3, "job errors (a worker reports the job failed, or sends an invalid result) before a job is marked failed")
	maxLost := fs.Int("max-lost-deliveries", sched.DefaultMaxLostDeliveries,
		"deliveries lost with their worker (killed, stopped or cut off without handing the job back) before a job is marked failed")
	restartGrace := fs.Duration("restart-grace", server.DefaultRestartGrace,
		"how long past a lease's end a worker may still keep its job when this coordinator restarts (cover the restart's length)")
	level := fs.String("log-level", "info", "log level (trace, debug, info, warn, error)")
	methodsFile := fs.String("methods", "", "methods file whose external methods bind a grid's names at submit (default: what connected workers offer)")
	fpClass := fs.String("fp-class", "", "floating-point class of the workers to accept, as a refused worker's log names it, or \"any\" "+
		"(mixing classes breaks bit-identical results; default: this coordinator's own class, "+fpclass.Current()+")")
	sec := addServeSecurity(fs)
	af := addAddrFile(fs)
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if *data == "" {
		return errors.New("--data is required")
	}
	cat, err := loadMethods(*methodsFile)
	if err != nil {
		return err
	}
	log := newLogger("coordinator", *level)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := server.Options{Logger: log, LeaseTTL: *lease, MaxDeliveries: *maxDeliveries, MaxLostDeliveries: *maxLost,
		RestartGrace: *restartGrace, FPClass: *fpClass, VerifyClass: verifyClass}
	if opts.FPClass == fpclass.Any {
		log.Warn("accepting workers of every floating-point class: a job's scores may differ in their last bits depending on the worker that ran it")
	}
	if cat != nil {
		opts.Methods = cat.Methods()
	}
	if err := sec.apply(*listen, &opts, log); err != nil {
		return err
	}
	return server.ServeDir(ctx, *listen, *data, opts, af.write)
}

// loadGrid loads a grid file, shrinking repetitions when reps > 0.
func loadGrid(pos []string, reps int) (*grid.File, error) {
	if len(pos) != 1 {
		return nil, errors.New("need exactly one grid file")
	}
	return client.LoadGrid(pos[0], reps)
}

func isTTY(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

func submit(args []string) error {
	cc := newClientCmd("submit")
	reps := cc.fs.Int("reps", 0, "run only this many repetitions of each sweep (0: as in the file)")
	detach := cc.fs.Bool("detach", false, "return after submitting")
	every := cc.fs.Duration("every", 10*time.Second, "time between progress lines when not on a terminal")
	c, pos, err := cc.connect(args, 1, 1, "need exactly one grid file")
	if err != nil {
		return err
	}
	defer c.Close()
	f, err := loadGrid(pos, *reps)
	if err != nil {
		return err
	}
	addr := cc.addr
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ids, err := c.SubmitFile(ctx, f)
	if err != nil {
		return err
	}
	for i, id := range ids {
		fmt.Printf("submitted sweep %q as %s\n", f.Sweeps[i].Name, id)
	}
	if *detach {
		return nil
	}
	p := &client.Progress{Out: os.Stdout, TTY: isTTY(os.Stdout), Every: *every}
	err = c.Follow(ctx, ids, 500*time.Millisecond, p)
	if errors.Is(err, context.Canceled) {
		fmt.Printf("\ndetached; the sweeps keep running. Follow them with: coordinator status --addr %s\n", *addr)
		return nil
	}
	return err
}

// clientCmd is the flag set of a command that talks to a running
// coordinator: --addr plus the security flags.
type clientCmd struct {
	fs   *flag.FlagSet
	addr *string
	sec  *clientSecurity
}

func newClientCmd(name string) *clientCmd {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	return &clientCmd{fs: fs, addr: fs.String("addr", defaultAddr, "coordinator address"), sec: addClientSecurity(fs)}
}

// connect parses args, checks that there are between lo and hi positional
// arguments (else errors with usage) and dials the coordinator.
func (cc *clientCmd) connect(args []string, lo, hi int, usage string) (*client.Client, []string, error) {
	pos, err := parse(cc.fs, args)
	if err != nil {
		return nil, nil, err
	}
	if len(pos) < lo || len(pos) > hi {
		return nil, nil, errors.New(usage)
	}
	c, err := cc.sec.dial(*cc.addr)
	return c, pos, err
}

func status(args []string) error {
	c, pos, err := newClientCmd("status").connect(args, 0, 1, "give at most one sweep id")
	if err != nil {
		return err
	}
	defer c.Close()
	req := &pb.StatusRequest{}
	if len(pos) > 0 {
		req.SweepId = pos[0]
	}
	resp, err := c.Status(context.Background(), req)
	if err != nil {
		return err
	}
	return writeStatus(os.Stdout, resp.GetSweeps())
}

func writeStatus(w io.Writer, sts []*pb.SweepStatus) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SWEEP\tNAME\tSTATE\tJOBS\tDONE\tFAILED\tRUNNING\tREUSED\tLAST ERROR")
	for _, s := range sts {
		state := strings.ToLower(strings.TrimPrefix(s.GetState().String(), "STATE_"))
		fmt.Fprintf(tw, "%.12s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\n", s.GetSweepId(), s.GetName(), state,
			s.GetJobs(), s.GetDone(), s.GetFailed(), s.GetRunning(), s.GetReused(), firstLine(s.GetLastError()))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range sts {
		if len(s.GetWaitingFor()) > 0 {
			fmt.Fprintf(w, "%.12s waits for a worker offering %s (worker --methods; see docs/METHODS.md)\n",
				s.GetSweepId(), strings.Join(s.GetWaitingFor(), ", "))
		}
	}
	return nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func cancel(args []string) error {
	c, pos, err := newClientCmd("cancel").connect(args, 1, 1, "need exactly one sweep id")
	if err != nil {
		return err
	}
	defer c.Close()
	resp, err := c.Cancel(context.Background(), &pb.CancelRequest{SweepId: pos[0]})
	if err != nil {
		return err
	}
	return writeStatus(os.Stdout, []*pb.SweepStatus{resp.GetStatus()})
}

func retry(args []string) error { return retryTo(os.Stdout, args) }

// retryTo puts a sweep's failed jobs back and writes how many and the
// sweep's status to w.
func retryTo(w io.Writer, args []string) error {
	c, pos, err := newClientCmd("retry").connect(args, 1, 1, "need exactly one sweep id")
	if err != nil {
		return err
	}
	defer c.Close()
	st, n, err := c.Retry(context.Background(), pos[0])
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%d failed jobs put back to run again\n", n)
	return writeStatus(w, []*pb.SweepStatus{st})
}

func export(args []string) error {
	cc := newClientCmd("export")
	out := cc.fs.String("out", "", "output CSV file (required; '-' for standard output)")
	folds := cc.fs.Bool("folds", false, "write a table sweep's fold assignment (repetition,fold,row; 1-based) instead of its results")
	c, pos, err := cc.connect(args, 1, 1, "need one sweep id and --out")
	if err != nil {
		return err
	}
	defer c.Close()
	if *out == "" {
		return errors.New("need one sweep id and --out")
	}
	exp := c.Export
	if *folds {
		exp = c.ExportFolds
	}
	if *out == "-" {
		return exp(context.Background(), pos[0], os.Stdout)
	}
	return server.WriteFileAtomic(*out, func(w io.Writer) error { return exp(context.Background(), pos[0], w) })
}

func planCmd(args []string) error {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	reps := fs.Int("reps", 0, "plan only this many repetitions of each sweep (0: as in the file)")
	slurm := fs.Bool("slurm", false, "also suggest a Slurm allocation for deploy/slurm/sweep.sbatch (docs/SLURM.md)")
	var so plan.SlurmOptions
	fs.IntVar(&so.CPUsPerNode, "cpus-per-node", 32, "with --slurm: cores per node given to a worker")
	fs.IntVar(&so.MaxNodes, "max-nodes", 64, "with --slurm: at most this many nodes")
	fs.Float64Var(&so.TargetHours, "target-hours", 4, "with --slurm: aim to finish within this many hours")
	calib := fs.Bool("calibrate", false, "first time Figure 3's pipelines here (five runs, about 7 s) and scale each learner "+
		"family's level to this machine; run it where the workers will run")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	f, err := loadGrid(pos, *reps)
	if err != nil {
		return err
	}
	cost := plan.DefaultCostModel()
	if *calib {
		if cost, err = calibrated(cost); err != nil {
			return err
		}
	}
	p := plan.Of(f, cost)
	if err := p.WriteText(os.Stdout); err != nil || !*slurm {
		return err
	}
	fmt.Println()
	return p.Slurm(so).WriteText(os.Stdout, pos[0])
}

// verifyClass is server.Options.VerifyClass: a data directory whose
// results carry another floating-point class takes this build's class if
// this build recomputes three of its stored jobs bit for bit.
func verifyClass(ctx context.Context, st *store.Store) (int, error) {
	return verify.Stored(ctx, st, 3)
}

// calibrated returns cost scaled to this machine (calibrate.Model, five
// runs) and prints what it measured.
func calibrated(cost plan.CostModel) (plan.CostModel, error) {
	out, factors, err := calibrate.Model(context.Background(), cost, 5)
	if err != nil {
		return cost, err
	}
	fmt.Println("Calibrated on this machine (Figure 3's pipelines, n_train = 1000, one thread; per family the mean of each pipeline's median of 5 runs):")
	for _, f := range factors {
		fmt.Printf("  %-7s %9.4f s against %9.4f s in the model: ×%.2f\n", f.Learner, f.Measured, f.Modelled, f.Ratio())
	}
	fmt.Println()
	return out, nil
}

func run(args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	out := fs.String("out", "", "output directory for results.csv (required)")
	data := fs.String("data", "", "data directory (default: --out); stored results are reused")
	reps := fs.Int("reps", 0, "run only this many repetitions of each sweep (0: as in the file)")
	parallel := fs.Int("parallel", 0, "jobs at once (0: all cores)")
	executor := fs.String("executor", "experiment", "job executor (experiment, deterministic, noop)")
	level := fs.String("log-level", "warn", "log level")
	methodsFile := fs.String("methods", "", "methods file of the external methods the grid may use (see docs/METHODS.md)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if *out == "" {
		return errors.New("--out is required")
	}
	f, err := loadGrid(pos, *reps)
	if err != nil {
		return err
	}
	exec, err := worker.NewExecutor(*executor)
	if err != nil {
		return err
	}
	cat, err := loadMethods(*methodsFile)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	p := &client.Progress{Out: os.Stdout, TTY: isTTY(os.Stdout)}
	ids, err := embedded.Run(ctx, f, embedded.Options{DataDir: *data, OutDir: *out, Parallel: *parallel,
		Executor: exec, Logger: newLogger("run", *level), Progress: p, Methods: cat,
		Coord: server.Options{VerifyClass: verifyClass}})
	if errors.Is(err, context.Canceled) {
		return errors.New("interrupted; stored results are kept and reused by the next run")
	}
	if err == nil {
		fmt.Printf("results: %s/%s\n", *out, embedded.ResultsFile)
		err = writeRunReports(ctx, cmp.Or(*data, *out), *out, ids)
	}
	return err
}

// loadMethods reads a methods file (--methods); nil without one.
func loadMethods(path string) (*methods.Catalog, error) {
	if path == "" {
		return nil, nil
	}
	return methods.Load(path)
}
