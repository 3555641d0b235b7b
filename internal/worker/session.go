package worker

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/misslab/misslab/internal/fpclass"
	"github.com/misslab/misslab/internal/wire"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// session is one stream to the coordinator.
type session struct {
	stream    pb.WorkService_WorkClient
	sendMu    sync.Mutex
	sentAll   bool // closeSend was called (guarded by sendMu)
	flush     chan struct{}
	heartbeat time.Duration

	ctx  context.Context      // ends with the session
	work pb.WorkServiceClient // fetches tables
	gate *tableGate           // job batches waiting for their sweep's tables

	// tasks are the session's goroutines besides its sender (each batch
	// waiting for its tables, see gateJobs): runSession waits for them
	// once the session has ended, so none outlives it.
	tasks sync.WaitGroup
}

// send sends m, or drops it once the worker has closed its side: what a
// drained worker could still want to say then (a heartbeat, the release
// of a lease granted while it drained) the coordinator infers from the
// close, and an error here would break the stream before the coordinator
// reads the close, so those leases would count as lost.
func (s *session) send(m *pb.WorkRequest) error {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	if s.sentAll {
		return nil
	}
	return s.stream.Send(m)
}

// closeSend closes the worker's side of the stream.
func (s *session) closeSend() {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	s.sentAll = true
	_ = s.stream.CloseSend()
}

// connectLoop keeps a session open, reconnecting with jittered
// exponential backoff, until ctx ends.
func (w *Worker) connectLoop(ctx context.Context, client pb.WorkServiceClient) {
	backoff := w.opts.MinBackoff
	for ctx.Err() == nil {
		start := time.Now()
		err := w.runSession(ctx, client)
		if ctx.Err() != nil {
			return
		}
		if w.refused(ctx, err) || w.isClosed() {
			return
		}
		if time.Since(start) > 10*time.Second {
			backoff = w.opts.MinBackoff
		}
		d := jitter(backoff)
		w.log.Warn("not connected to coordinator; retrying", "addr", w.opts.Addr, "error", err, "in", d)
		select {
		case <-ctx.Done():
			return
		case <-w.seen.decide():
			if w.refused(ctx, nil) {
				return
			}
		case <-time.After(d):
		}
		backoff = min(2*backoff, w.opts.MaxBackoff)
	}
}

// runSession runs one stream until it breaks or ctx ends.
func (w *Worker) runSession(ctx context.Context, client pb.WorkServiceClient) error {
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w.setOpening(true)
	defer w.setOpening(false)
	stream, err := client.Work(sctx)
	if err != nil {
		return err
	}
	hello := w.hello()
	if err := stream.Send(&pb.WorkRequest{Msg: &pb.WorkRequest_Hello{Hello: hello}}); err != nil {
		if _, recvErr := stream.Recv(); recvErr != nil {
			return recvErr // the status that ended the stream (Send only says EOF)
		}
		return err
	}
	m, err := stream.Recv()
	if err != nil {
		return err
	}
	wel := m.GetWelcome()
	if wel == nil {
		return fmt.Errorf("worker: coordinator sent %T before Welcome", m.GetMsg())
	}
	s := &session{stream: stream, flush: make(chan struct{}, 1),
		heartbeat: max(time.Duration(wel.GetHeartbeatSeconds()*float64(time.Second)), 10*time.Millisecond),
		ctx:       sctx, work: client, gate: newTableGate()}
	w.start(s, hello.GetHeld(), wel.GetRebinds())
	if w.isClosed() { // a drain began while the session opened: close it as the drain would have
		s.closeSend()
	}
	w.log.Info("connected to coordinator", "addr", w.opts.Addr, "held", len(hello.GetHeld()), "fp_class", hello.GetFpClass())
	senderDone := make(chan struct{})
	go func() { defer close(senderDone); w.sender(sctx, s) }()
	err = w.receive(s)
	cancel()
	<-senderDone
	s.tasks.Wait()
	w.mu.Lock()
	w.cur = nil
	w.mu.Unlock()
	return err
}

// hello lists every job still held, so the coordinator can rebind it.
func (w *Worker) hello() *pb.Hello {
	w.mu.Lock()
	defer w.mu.Unlock()
	h := &pb.Hello{WorkerId: w.opts.ID, Capacity: int32(w.opts.Parallel + w.opts.Prefetch),
		Methods: wire.MethodsToProto(w.opts.Methods), FpClass: fpclass.Current()}
	if w.draining {
		h.Capacity = 0 // the coordinator clamps to 1; drained jobs are released at once
	}
	for _, j := range w.jobs {
		h.Held = append(h.Held, &pb.Held{SweepId: j.key.sweep, Job: j.key.job, Token: j.token, Proof: j.proof})
	}
	for id := range w.specs {
		h.CachedSweeps = append(h.CachedSweeps, id)
	}
	return h
}

// start applies the coordinator's rebinds and makes s the current session.
func (w *Worker) start(s *session, held []*pb.Held, rebinds []*pb.Rebind) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, rb := range rebinds {
		if i >= len(held) {
			break
		}
		j := w.byToken[rb.GetOldToken()]
		if j == nil {
			continue
		}
		if rb.GetNewToken() == 0 {
			w.remove(j)
			continue
		}
		delete(w.byToken, j.token)
		j.token, j.proof = rb.GetNewToken(), rb.GetProof()
		w.byToken[j.token] = j
	}
	for _, j := range w.jobs {
		j.sent = false
	}
	w.cur = s
	w.signal()
}

// receive handles the coordinator's messages until the stream breaks.
func (w *Worker) receive(s *session) error {
	for {
		m, err := s.stream.Recv()
		if err != nil {
			return err
		}
		switch msg := m.GetMsg().(type) {
		case *pb.WorkResponse_Sweep:
			w.setSpec(msg.Sweep)
			w.opts.Tables.noteTables(msg.Sweep)
		case *pb.WorkResponse_Jobs:
			if w.gateJobs(s, msg.Jobs) {
				break // queued once the sweep's tables are here
			}
			if rel := w.addJobs(msg.Jobs); len(rel) > 0 {
				err = s.send(&pb.WorkRequest{Msg: &pb.WorkRequest_Release{Release: &pb.Release{Tokens: rel}}})
			}
		case *pb.WorkResponse_Ack:
			tokens := make([]uint64, len(msg.Ack.GetItems()))
			for i, it := range msg.Ack.GetItems() {
				tokens[i] = it.GetToken()
				if it.GetOutcome() == pb.Ack_OUTCOME_INVALID {
					w.log.Error("coordinator rejected a result as invalid", "token", it.GetToken(), "reason", it.GetReason())
				}
			}
			w.ack(tokens, true)
		case *pb.WorkResponse_Cancel:
			w.ack(msg.Cancel.GetTokens(), false)
			s.gate.revoke(msg.Cancel.GetTokens())
		case *pb.WorkResponse_Renew:
			w.renew(msg.Renew.GetLeases())
			s.gate.renew(msg.Renew.GetLeases())
		}
		if err != nil {
			return err
		}
	}
}

// sender sends finished results as they come and heartbeats on time:
// every period minus up to a quarter of it, drawn afresh each beat, so
// that a fleet connecting at once does not heartbeat in lockstep (never
// later than the coordinator asked, so leases are never at risk).
func (w *Worker) sender(ctx context.Context, s *session) {
	hb := time.NewTimer(jittered(s.heartbeat))
	defer hb.Stop()
	for {
		var m *pb.WorkRequest
		select {
		case <-ctx.Done():
			return
		case <-s.flush:
			rs, more := w.unsent()
			if len(rs) > 0 {
				m = &pb.WorkRequest{Msg: &pb.WorkRequest_Results{Results: &pb.ResultBatch{Results: rs}}}
			}
			if more {
				w.mu.Lock()
				w.signal()
				w.mu.Unlock()
			}
		case <-hb.C:
			m = &pb.WorkRequest{Msg: &pb.WorkRequest_Heartbeat{Heartbeat: &pb.Heartbeat{Tokens: w.tokens()}}}
			hb.Reset(jittered(s.heartbeat))
		}
		if m != nil && s.send(m) != nil {
			return // the receiver sees the broken stream too
		}
	}
}

// unsent returns finished results not yet sent on this session, stamped
// with their current tokens, about resultBatchBytes at most; more reports
// whether some are left for another message.
func (w *Worker) unsent() (out []*pb.JobResult, more bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	size := 0
	for _, j := range w.jobs {
		if j.state != finished || j.sent {
			continue
		}
		if size >= resultBatchBytes {
			return out, true
		}
		j.sent = true
		r := &pb.JobResult{Token: j.token, SweepId: j.result.GetSweepId(), Job: j.result.GetJob(),
			Pipelines: j.result.GetPipelines(), Error: j.result.GetError()}
		size += proto.Size(r)
		out = append(out, r)
	}
	return out, false
}

func (w *Worker) tokens() []uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]uint64, 0, len(w.jobs))
	for t := range w.byToken {
		out = append(out, t)
	}
	return out
}

// drain hands back queued leases, waits for running jobs (up to
// DrainTimeout, then abandons and releases them) and for their results
// to be acknowledged (up to 30 s more).
func (w *Worker) drain() {
	w.mu.Lock()
	w.draining = true
	var rel []uint64
	for len(w.queue) > 0 {
		rel = append(rel, w.queue[0].token)
		w.remove(w.queue[0])
	}
	w.mu.Unlock()
	w.release(rel)
	w.log.Info("draining", "released", len(rel))
	w.waitFor(w.opts.DrainTimeout, func() bool { return w.count(running) == 0 })
	w.mu.Lock()
	rel = rel[:0]
	for _, j := range w.jobs {
		if j.state == running {
			rel = append(rel, j.token)
			w.remove(j)
		}
	}
	w.mu.Unlock()
	if len(rel) > 0 {
		w.log.Warn("drain timeout: abandoning running jobs", "jobs", len(rel))
		w.release(rel)
	}
	if !w.waitFor(30*time.Second, func() bool { return len(w.jobs) == 0 }) {
		w.log.Warn("drain: results not acknowledged in time", "jobs", w.count(finished))
	}
	w.closeSession()
}

func (w *Worker) release(tokens []uint64) {
	w.mu.Lock()
	s := w.cur
	w.mu.Unlock()
	if s != nil && len(tokens) > 0 {
		_ = s.send(&pb.WorkRequest{Msg: &pb.WorkRequest_Release{Release: &pb.Release{Tokens: tokens}}})
	}
}

func (w *Worker) count(st jobState) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, j := range w.jobs {
		if j.state == st {
			n++
		}
	}
	return n
}

// waitFor waits until cond (called without w.mu) holds or d passes.
func (w *Worker) waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		w.mu.Lock()
		t := time.AfterFunc(50*time.Millisecond, func() { w.mu.Lock(); w.cond.Broadcast(); w.mu.Unlock() })
		w.cond.Wait()
		t.Stop()
		w.mu.Unlock()
	}
	return true
}

// jittered returns d less a uniform random part of up to d/4 (timing
// only: no result depends on it).
func jittered(d time.Duration) time.Duration {
	if d < 4 {
		return d
	}
	return d - rand.N(d/4)
}
