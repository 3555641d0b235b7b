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

	"github.com/misslab/misslab/internal/atomicfile"
	"github.com/misslab/misslab/internal/calibrate"
	"github.com/misslab/misslab/internal/cli"
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

func main() {
	os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr))
}

func newLogger(name, level string) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: name, Level: hclog.LevelFromString(level), Output: os.Stderr})
}

func serve(args []string) error {
	fs := newCommand("serve")
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
	sec := addServeSecurity(fs.FlagSet)
	af := addAddrFile(fs.FlagSet)
	pos, err := fs.Parse(args)
	if err != nil {
		return err
	}
	if *data == "" || len(pos) > 0 {
		return fs.Usagef("need --data and no other argument")
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
func loadGrid(cmd *cli.Command, pos []string, reps int) (*grid.File, error) {
	if len(pos) != 1 {
		return nil, cmd.Usagef("need exactly one grid file")
	}
	return client.LoadGrid(pos[0], reps)
}

func isTTY(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

func submit(w io.Writer, args []string) error {
	cc := newClientCmd("submit")
	reps := cc.Int("reps", 0, "run only this many repetitions of each sweep (0: as in the file)")
	detach := cc.Bool("detach", false, "return after submitting")
	every := cc.Duration("every", 10*time.Second, "time between progress lines when not on a terminal")
	pos, err := cc.Parse(args)
	if err != nil {
		return err
	}
	f, err := loadGrid(cc.Command, pos, *reps)
	if err != nil {
		return err
	}
	c, err := cc.dial()
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ids, err := c.SubmitFile(ctx, f)
	if err != nil {
		return err
	}
	for i, id := range ids {
		fmt.Fprintf(w, "submitted sweep %q as %s\n", f.Sweeps[i].Name, id)
	}
	if *detach {
		return nil
	}
	p := &client.Progress{Out: w, TTY: w == io.Writer(os.Stdout) && isTTY(os.Stdout), Every: *every}
	err = c.Follow(ctx, ids, 500*time.Millisecond, p)
	if errors.Is(err, context.Canceled) {
		fmt.Fprintf(w, "\ndetached; the sweeps keep running. Follow them with: coordinator status --addr %s\n", *cc.addr)
		return nil
	}
	return err
}

// clientCmd is the flag set of a command that talks to a running
// coordinator: --addr plus the security flags.
type clientCmd struct {
	*cli.Command
	addr *string
	sec  *clientSecurity
}

func newClientCmd(name string) *clientCmd {
	cmd := newCommand(name)
	return &clientCmd{Command: cmd, addr: cmd.String("addr", defaultAddr, "coordinator address (host:port)"),
		sec: addClientSecurity(cmd.FlagSet)}
}

// args parses args and checks that there are between lo and hi
// positional arguments (else a usage error saying want).
func (cc *clientCmd) args(args []string, lo, hi int, want string) ([]string, error) {
	pos, err := cc.Parse(args)
	if err != nil {
		return nil, err
	}
	if len(pos) < lo || len(pos) > hi {
		return nil, cc.Usagef("%s", want)
	}
	return pos, nil
}

// dial connects to the coordinator at --addr with the security flags.
func (cc *clientCmd) dial() (*client.Client, error) {
	return cc.sec.dial(*cc.addr)
}

// addrSet reports whether --addr was given on the command line.
func (cc *clientCmd) addrSet() bool {
	set := false
	cc.Visit(func(f *flag.Flag) { set = set || f.Name == "addr" })
	return set
}

func statusTo(w io.Writer, args []string) error {
	cc := newClientCmd("status")
	output := cc.AddOutput("the sweeps' progress")
	pos, err := cc.args(args, 0, 1, "give at most one sweep")
	if err != nil {
		return err
	}
	asJSON, err := output.JSON()
	if err != nil {
		return err
	}
	c, err := cc.dial()
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
	if asJSON {
		return plan.WriteJSON(w, client.NewStatusJSON(resp.GetSweeps()))
	}
	return writeStatus(w, resp.GetSweeps())
}

func writeStatus(w io.Writer, sts []*pb.SweepStatus) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SWEEP\tNAME\tSTATE\tJOBS\tDONE\tFAILED\tRUNNING\tREUSED\tLAST ERROR")
	for _, s := range sts {
		fmt.Fprintf(tw, "%.12s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\n", s.GetSweepId(), s.GetName(), client.StateName(s.GetState()),
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

func cancelTo(w io.Writer, args []string) error {
	cc := newClientCmd("cancel")
	pos, err := cc.args(args, 1, 1, "need exactly one sweep")
	if err != nil {
		return err
	}
	c, err := cc.dial()
	if err != nil {
		return err
	}
	defer c.Close()
	resp, err := c.Cancel(context.Background(), &pb.CancelRequest{SweepId: pos[0]})
	if err != nil {
		return err
	}
	return writeStatus(w, []*pb.SweepStatus{resp.GetStatus()})
}

// retryTo puts a sweep's failed jobs back and writes how many and the
// sweep's status to w.
func retryTo(w io.Writer, args []string) error {
	cc := newClientCmd("retry")
	pos, err := cc.args(args, 1, 1, "need exactly one sweep")
	if err != nil {
		return err
	}
	c, err := cc.dial()
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

// exportTo writes a sweep's tidy CSV, or its folds, to --out ('-': w),
// from the coordinator at --addr or, with --data, from a data directory
// opened read-only (server.ExportStored: the same bytes).
func exportTo(w io.Writer, args []string) error {
	cc := newClientCmd("export")
	out := cc.String("out", "", "output CSV file (required; '-' for standard output)")
	folds := cc.Bool("folds", false, "write a table sweep's fold assignment (repetition,fold,row; 1-based) instead of its results")
	data := cc.String("data", "", "read the sweep from this data directory, read-only, instead of asking a coordinator "+
		"(offline: after coordinator run, or on a copy of a served directory)")
	pos, err := cc.args(args, 1, 1, "need one sweep and --out")
	if err != nil {
		return err
	}
	switch {
	case *out == "":
		return cc.Usagef("need one sweep and --out")
	case *data != "" && cc.addrSet():
		return cc.Usagef("give --data (a data directory, offline) or --addr (a running coordinator), not both")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *data != "" {
		st, err := store.OpenReadOnly(*data)
		if err != nil {
			return err
		}
		defer st.Close()
		return writeOut(*out, w, func(w io.Writer) error { return server.ExportStored(ctx, st, pos[0], *folds, w) })
	}
	c, err := cc.dial()
	if err != nil {
		return err
	}
	defer c.Close()
	exp := c.Export
	if *folds {
		exp = c.ExportFolds
	}
	err = writeOut(*out, w, func(w io.Writer) error { return exp(ctx, pos[0], w) })
	if client.Unreachable(err) {
		return fmt.Errorf("%w; or, with no coordinator, export from its data directory with --data DIR", err)
	}
	return err
}

// writeOut runs write on path, written atomically, or on stdout for "-".
// An error of write is returned as it is, not as the file's.
func writeOut(path string, stdout io.Writer, write func(io.Writer) error) error {
	if path == "-" {
		return write(stdout)
	}
	var werr error
	err := atomicfile.WriteFile(path, 0o644, func(w io.Writer) error {
		werr = write(w)
		return werr
	})
	if werr != nil {
		return werr
	}
	return err
}

func planTo(w io.Writer, args []string) error {
	fs := newCommand("plan")
	reps := fs.Int("reps", 0, "plan only this many repetitions of each sweep (0: as in the file)")
	slurm := fs.Bool("slurm", false, "also suggest a Slurm allocation for deploy/slurm/sweep.sbatch (docs/SLURM.md)")
	var so plan.SlurmOptions
	fs.IntVar(&so.CPUsPerNode, "cpus-per-node", 32, "with --slurm: cores per node given to a worker")
	fs.IntVar(&so.MaxNodes, "max-nodes", 64, "with --slurm: at most this many nodes")
	fs.Float64Var(&so.TargetHours, "target-hours", 4, "with --slurm: aim to finish within this many hours")
	calib := fs.Bool("calibrate", false, "first time Figure 3's pipelines here (five runs, about 7 s) and scale each learner "+
		"family's level to this machine; run it where the workers will run")
	output := fs.AddOutput("the plan")
	pos, err := fs.Parse(args)
	if err != nil {
		return err
	}
	asJSON, err := output.JSON()
	if err != nil {
		return err
	}
	f, err := loadGrid(fs, pos, *reps)
	if err != nil {
		return err
	}
	cost := plan.DefaultCostModel()
	var factors []calibrate.Factor
	if *calib {
		if cost, factors, err = calibrate.Model(context.Background(), cost, 5); err != nil {
			return err
		}
		if !asJSON {
			writeCalibration(w, factors)
		}
	}
	p := plan.Of(f, cost)
	if asJSON {
		doc := p.JSON()
		for _, f := range factors {
			doc.Calibration = append(doc.Calibration, plan.CalibrationJSON{Learner: f.Learner, MeasuredSeconds: f.Measured,
				ModelledSeconds: f.Modelled, Ratio: f.Ratio()})
		}
		if *slurm {
			doc.Slurm = p.Slurm(so).JSON(pos[0])
		}
		return plan.WriteJSON(w, doc)
	}
	if err := p.WriteText(w); err != nil || !*slurm {
		return err
	}
	fmt.Fprintln(w)
	return p.Slurm(so).WriteText(w, pos[0])
}

// verifyClass is server.Options.VerifyClass: a data directory whose
// results carry another floating-point class takes this build's class if
// this build recomputes three of its stored jobs bit for bit.
func verifyClass(ctx context.Context, st *store.Store) (int, error) {
	return verify.Stored(ctx, st, 3)
}

// writeCalibration prints what plan --calibrate measured
// (calibrate.Model, five runs).
func writeCalibration(w io.Writer, factors []calibrate.Factor) {
	fmt.Fprintln(w, "Calibrated on this machine (Figure 3's pipelines, n_train = 1000, one thread; per family the mean of each pipeline's median of 5 runs):")
	for _, f := range factors {
		fmt.Fprintf(w, "  %-7s %9.4f s against %9.4f s in the model: ×%.2f\n", f.Learner, f.Measured, f.Modelled, f.Ratio())
	}
	fmt.Fprintln(w)
}

func run(args []string) error {
	fs := newCommand("run")
	out := fs.String("out", "", "output directory for results.csv and the reports (required)")
	data := fs.String("data", "", "data directory (default: --out); stored results are reused")
	reps := fs.Int("reps", 0, "run only this many repetitions of each sweep (0: as in the file)")
	parallel := fs.Int("parallel", 0, "jobs at once (0: all cores)")
	executor := fs.String("executor", "experiment", "job executor: experiment, or deterministic/noop for tests")
	level := fs.String("log-level", "warn", "log level")
	methodsFile := fs.String("methods", "", "methods file of the external methods the grid may use (see docs/METHODS.md)")
	fs.Hide("executor")
	pos, err := fs.Parse(args)
	if err != nil {
		return err
	}
	if *out == "" {
		return fs.Usagef("--out is required")
	}
	f, err := loadGrid(fs, pos, *reps)
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
