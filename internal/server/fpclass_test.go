package server_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/misslab/misslab/internal/fpclass"
	"github.com/misslab/misslab/internal/server"
	"github.com/misslab/misslab/internal/store"
	"github.com/misslab/misslab/internal/verify"
	"github.com/misslab/misslab/internal/worker"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// TestWorkerOfAnotherFPClassIsRefused checks that a coordinator refuses,
// at Hello and before any lease, a worker whose floating-point class it
// does not accept (a real worker then stops with ErrRefused instead of
// retrying), and that --fp-class names the accepted class or any.
func TestWorkerOfAnotherFPClassIsRefused(t *testing.T) {
	const other = "riscv64+fma go1.99.0"
	cases := []struct {
		name, accept, worker string
		refused              bool
	}{
		{"own class by default", "", fpclass.Current(), false},
		{"another class", "", other, true},
		{"no class (an older worker)", "", "", true},
		{"the class named", other, other, false},
		{"own class when another is named", other, fpclass.Current(), true},
		{"any", fpclass.Any, other, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := startCluster(t, t.TempDir(), server.Options{FPClass: tc.accept})
			s := dialRawWorker(t, c.addr).open(t)
			must(t, s.Send(&pb.WorkRequest{Msg: &pb.WorkRequest_Hello{Hello: &pb.Hello{WorkerId: "raw", Capacity: 1, FpClass: tc.worker}}}))
			m, err := s.Recv()
			if !tc.refused {
				if m.GetWelcome() == nil {
					t.Fatalf("class %q: got %v, %v; want Welcome", tc.worker, m, err)
				}
				return
			}
			msg := status.Convert(err).Message()
			if status.Code(err) != codes.FailedPrecondition || !strings.Contains(msg, fpclass.Mismatch) ||
				!strings.Contains(msg, "--fp-class") || !strings.Contains(msg, acceptedClass(tc.accept)) {
				t.Fatalf("class %q: got %v, %v; want FailedPrecondition naming the classes and --fp-class", tc.worker, m, err)
			}
		})
	}
}

// acceptedClass is the class a coordinator started with Options.FPClass
// accept accepts.
func acceptedClass(accept string) string {
	if accept == "" {
		return fpclass.Current()
	}
	return accept
}

// TestRealWorkerStopsWhenItsFPClassIsRefused runs a real worker against a
// coordinator that accepts another class: Run must end with ErrRefused
// at once rather than reconnect forever.
func TestRealWorkerStopsWhenItsFPClassIsRefused(t *testing.T) {
	c := startCluster(t, t.TempDir(), server.Options{FPClass: "riscv64+fma go1.99.0"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := worker.Run(ctx, worker.Options{Addr: c.addr, ID: "w", Parallel: 1, Executor: worker.Deterministic{},
		MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond, DrainTimeout: time.Second})
	if !errors.Is(err, worker.ErrRefused) || ctx.Err() != nil || !strings.Contains(err.Error(), fpclass.Current()) {
		t.Fatalf("Run = %v, want ErrRefused naming the worker's class %q before the deadline", err, fpclass.Current())
	}
}

// TestDataDirectoryKeepsItsFPClass checks that a data directory keeps the
// floating-point class of its results across coordinator lives: a
// directory without results takes any class; once results are stored, a
// coordinator accepting another class is refused at Open, naming the
// directory, both classes and --fp-class; accepting any class records
// the mix for good.
func TestDataDirectoryKeepsItsFPClass(t *testing.T) {
	const other = "riscv64+fma go1.99.0"
	dir := t.TempDir()
	for _, accept := range []string{other, "", other} { // no results yet: nothing to protect
		c, err := server.Open(context.Background(), dir, server.Options{FPClass: accept})
		if err != nil {
			t.Fatalf("directory without results, class %q: %v", accept, err)
		}
		c.Close()
	}
	c := startCluster(t, dir, server.Options{})
	stop := c.startWorker("w", 1, worker.Deterministic{})
	c.wait(c.submit(testSweep(t, 1, 2, []float64{0.1}, "tree/mean")).SweepId)
	stop()
	c.close()
	if class := storedClass(t, dir); class != fpclass.Current() {
		t.Fatalf("stored class %q, want the coordinator's own %q", class, fpclass.Current())
	}

	_, err := server.Open(context.Background(), dir, server.Options{FPClass: other})
	if !errors.Is(err, server.ErrPrecondition) {
		t.Fatalf("Open accepting %q on results of %q: %v, want ErrPrecondition", other, fpclass.Current(), err)
	}
	for _, part := range []string{dir, strconv.Quote(fpclass.Current()), strconv.Quote(other), "--fp-class"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("refusal %q does not name %s", err, part)
		}
	}
	if class := storedClass(t, dir); class != fpclass.Current() {
		t.Fatalf("a refused Open changed the stored class to %q", class)
	}

	for _, step := range []struct{ accept, stored string }{
		{"", fpclass.Current()},    // its own class reopens it
		{fpclass.Any, fpclass.Any}, // any reopens it and marks the mix
		{other, fpclass.Any},       // once mixed, every class may add to it
	} {
		c, err := server.Open(context.Background(), dir, server.Options{FPClass: step.accept})
		if err != nil {
			t.Fatalf("Open accepting %q: %v", step.accept, err)
		}
		c.Close()
		if class := storedClass(t, dir); class != step.stored {
			t.Fatalf("after Open accepting %q: stored class %q, want %q", step.accept, class, step.stored)
		}
	}
}

// storedClass returns the floating-point class dir's store records.
func storedClass(t *testing.T, dir string) string {
	t.Helper()
	st, err := store.OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	class, _, err := st.FPClass()
	if err != nil {
		t.Fatal(err)
	}
	return class
}

// TestDataDirectoryTakesAVerifiedClass checks Options.VerifyClass: a
// directory whose results carry another class takes the coordinator's
// own class when this build recomputes them bit for bit, and is refused,
// naming the difference, when it does not (scores of the deterministic
// test executor are not the learners'), or when the coordinator accepts
// a class other than its own, which this process cannot recompute.
func TestDataDirectoryTakesAVerifiedClass(t *testing.T) {
	const other = "riscv64+fma go1.99.0 scores/1"
	verifyStored := func(ctx context.Context, st *store.Store) (int, error) { return verify.Stored(ctx, st, 3) }
	cases := []struct {
		name   string
		exec   worker.Executor
		accept string
		taken  bool
		says   string
	}{
		{"recomputed bit for bit", worker.Experiment{Threads: 1}, "", true, ""},
		{"scores that differ", worker.Deterministic{}, "", false, "recomputed under this build"},
		{"another class accepted", worker.Experiment{Threads: 1}, "arm64+fma go1.26.8 scores/1", false, "no recomputation can vouch"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			c := startCluster(t, dir, server.Options{})
			stop := c.startWorker("w", 2, tc.exec)
			c.wait(c.submit(testSweep(t, 1, 2, []float64{0.1, 0.3}, "tree/mean", "knn/gaussian")).SweepId)
			stop()
			c.close()
			setClass(t, dir, other)

			coord, err := server.Open(context.Background(), dir, server.Options{FPClass: tc.accept, VerifyClass: verifyStored})
			if tc.taken {
				if err != nil {
					t.Fatalf("Open: %v, want the directory taken", err)
				}
				coord.Close()
				if class := storedClass(t, dir); class != fpclass.Current() {
					t.Fatalf("stored class %q, want %q", class, fpclass.Current())
				}
				return
			}
			if !errors.Is(err, server.ErrPrecondition) || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("Open: %v, want ErrPrecondition saying %q", err, tc.says)
			}
			if class := storedClass(t, dir); class != other {
				t.Fatalf("a refused Open changed the stored class to %q", class)
			}
		})
	}
}

// setClass records class as dir's store's class.
func setClass(t *testing.T, dir, class string) {
	t.Helper()
	st, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.SetFPClass(class); err != nil {
		t.Fatal(err)
	}
}
