package server_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/misslab/misslab/internal/sched"
	"github.com/misslab/misslab/internal/server"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// manualClock is a sched.Clock the test moves by hand: leases expire and
// grant credit refills only when it says so.
type manualClock struct {
	mu  sync.Mutex
	now time.Time
}

func newManualClock() *manualClock { return &manualClock{now: time.Unix(1e9, 0)} }

func (c *manualClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *manualClock) Advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// takeLeases reads s until at least n leases have arrived and returns them.
func takeLeases(t *testing.T, s pb.WorkService_WorkClient, n int) []*pb.Job {
	t.Helper()
	var got []*pb.Job
	for len(got) < n {
		m, err := s.Recv()
		must(t, err)
		got = append(got, m.GetJobs().GetJobs()...)
	}
	return got
}

// TestDroppedStreamsFailNoJob: a client opens a worker stream asking for
// 4096 leases, takes what it is given and aborts, three rounds over, on an
// open coordinator of 5,000 jobs. The stream is given only its first
// batch (the scheduler's grant burst), and the leases it drops are lost
// deliveries, which the job survives up to the larger lost bound: no job
// fails. (Before: 4,096 leases a round, each loss a failed delivery, and
// 4,096 jobs failed for good after the third round.)
func TestDroppedStreamsFailNoJob(t *testing.T) {
	clock := newManualClock() // no credit refills with time: only the first batch
	c := startCluster(t, t.TempDir(), server.Options{Clock: clock, LeaseTTL: time.Minute, SpeculateAfter: time.Hour})
	sw := testSweep(t, 31, 1000, []float64{0.1, 0.2, 0.3, 0.4, 0.5}, "tree/mia") // 5,000 jobs
	id := c.submit(sw).SweepId
	raw := dialRawWorker(t, c.addr)
	most := 0
	for range 3 {
		ctx, abort := context.WithCancel(t.Context())
		s, _ := hello(ctx, t, raw, "grabber", 4096)
		takeLeases(t, s, sched.DefaultGrantBurst)
		st := pollSched(t, c, id, func(sched.Status) bool { return true })
		most = max(most, st.Running)
		abort()
		pollSched(t, c, id, func(st sched.Status) bool { return st.Running == 0 })
	}
	st := pollSched(t, c, id, func(sched.Status) bool { return true })
	if st.Failed != 0 {
		t.Fatalf("%d jobs failed for good after three aborted streams, want none", st.Failed)
	}
	if most != sched.DefaultGrantBurst {
		t.Fatalf("one stream held %d leases at once, want its first batch of %d", most, sched.DefaultGrantBurst)
	}
}
