// Command worker joins a misslab coordinator and runs jobs on all cores
// until SIGTERM or Ctrl-C, then drains and exits.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/misslab/misslab/internal/worker"
)

func main() {
	fs := flag.NewFlagSet("worker", flag.ExitOnError)
	join := fs.String("join", "", "coordinator address host:port (required)")
	parallel := fs.Int("parallel", 0, "jobs run at once (0: all cores)")
	prefetch := fs.Int("prefetch", 0, "leases held beyond --parallel (0: as many as --parallel)")
	id := fs.String("id", "", "worker id in the coordinator's logs (default host-pid)")
	executor := fs.String("executor", "experiment", "job executor: experiment, or deterministic/noop for tests")
	delay := fs.Duration("delay", 0, "extra wait before each job (for tests)")
	drain := fs.Duration("drain-timeout", 10*time.Minute, "on SIGTERM, how long running jobs may take to finish")
	maxBackoff := fs.Duration("max-backoff", 5*time.Second, "longest wait between reconnection attempts")
	level := fs.String("log-level", "info", "log level (trace, debug, info, warn, error)")
	sec := addSecurity(fs)
	_ = fs.Parse(os.Args[1:])
	if *join == "" || fs.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: worker --join host:port [--parallel N]")
		os.Exit(2)
	}
	log := hclog.New(&hclog.LoggerOptions{Name: "worker", Level: hclog.LevelFromString(*level), Output: os.Stderr})
	exec, err := worker.NewExecutor(*executor)
	if err != nil {
		log.Error("cannot start", "error", err)
		os.Exit(2)
	}
	if *delay > 0 {
		exec = worker.Slow{Executor: exec, Delay: *delay}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	dial, exec, err := sec.setup(ctx, *id, *parallel, exec, log)
	if err != nil {
		log.Error("cannot start", "error", err)
		os.Exit(2)
	}
	err = worker.Run(ctx, worker.Options{Addr: *join, ID: *id, Parallel: *parallel, Prefetch: *prefetch,
		Executor: exec, Logger: log, DrainTimeout: *drain, MaxBackoff: *maxBackoff, DialOptions: dial})
	if err != nil {
		log.Error("worker failed", "error", err)
		os.Exit(1)
	}
	log.Info("drained; exiting")
}
