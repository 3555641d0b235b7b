package server

import (
	"context"

	"github.com/misslab/misslab/internal/sched"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// Retry puts the jobs of a sweep (id, unique prefix or name) that failed
// for good back to run again, with their delivery counts at zero, and
// clears their stored failures; it returns the sweep's status and how
// many jobs it put back. A cancelled sweep keeps them pending until a
// Submit resumes it. Errors: the name's (store.ErrNotFound,
// store.ErrAmbiguous), ctx's while waiting for queued failures to be
// stored, and store.ErrWrite when the failures cannot be cleared (the
// jobs are back in this coordinator's life, but a restart would find
// them failed; retry again).
func (c *Coordinator) Retry(ctx context.Context, arg string) (sched.Status, int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id, err := c.resolve(arg)
	if err != nil {
		return sched.Status{}, 0, err
	}
	n, err := c.sched.Retry(id)
	if err != nil {
		return sched.Status{}, 0, err
	}
	if err := c.clearFailures(ctx, id); err != nil {
		return sched.Status{}, 0, err
	}
	st, err := c.sched.Status(id)
	return st, n, err
}

// clearFailures deletes the stored failures of sweep id, once the
// scheduler has put its failed jobs back (Retry, Resume). It first waits
// until the failures already queued for the store are committed, so that
// none of them lands after the clearing and comes back at a restart. A
// job that fails anew in between may lose its stored failure: the
// scheduler still counts it failed, and a restart would run it again,
// never show a failure it no longer has. Call with c.mu held.
func (c *Coordinator) clearFailures(ctx context.Context, id string) error {
	if err := c.writer.Flush(ctx); err != nil {
		return err
	}
	return c.st.ClearFailures(id)
}

// Retry puts a sweep's failed jobs back to run again.
func (s *sweepService) Retry(ctx context.Context, req *pb.RetryRequest) (*pb.RetryResponse, error) {
	st, n, err := s.c.Retry(ctx, req.GetSweepId())
	if err != nil {
		return nil, err
	}
	s.c.log.Info("failed jobs put back to run again", "sweep", short(st.ID), "jobs", n)
	return &pb.RetryResponse{Status: s.status(st), Retried: int64(n)}, nil
}
