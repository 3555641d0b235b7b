package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/misslab/misslab/internal/fpclass"
	"github.com/misslab/misslab/internal/methodid"
	"github.com/misslab/misslab/internal/sched"
	"github.com/misslab/misslab/internal/store"
	"github.com/misslab/misslab/internal/wire"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// maxHeld bounds the held jobs of a Hello that are considered; the
// scheduler caps what a stream may hold (sched.Options.MaxCapacity).
const maxHeld = 4096

// workService implements pb.WorkServiceServer.
type workService struct {
	pb.UnimplementedWorkServiceServer
	c *Coordinator
}

// workStream is the coordinator's side of one worker stream.
type workStream struct {
	c      *Coordinator
	stream pb.WorkService_WorkServer
	w      *sched.Worker

	sendMu sync.Mutex
	specs  map[string]bool // sweeps whose spec this stream has been sent
	log    hclog.Logger
	ctx    context.Context // the stream's, cancelled by stopSend
	stop   context.CancelFunc
}

// Work serves one worker stream: Hello, then leases out and results in
// until the stream ends, when the worker's leases are queued again.
func (s *workService) Work(stream pb.WorkService_WorkServer) error {
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	hello := first.GetHello()
	if hello == nil {
		return fmt.Errorf("%w: the first message must be Hello", ErrProtocol)
	}
	if err := wire.CheckWorkerID(hello.GetWorkerId()); err != nil {
		return fmt.Errorf("%w: hello.worker_id: %w", ErrProtocol, err)
	}
	if want, got := s.c.opts.FPClass, hello.GetFpClass(); !fpclass.Accepts(want, got) {
		s.c.log.Warn("refused a worker of another floating-point class", "worker", hello.GetWorkerId(), "worker_class", got, "class", want)
		return fmt.Errorf("%w: worker %q computes in floating-point class %q, this coordinator accepts %q: "+
			"scores could differ in their last bits depending on which worker ran a job; run workers built "+
			"like the coordinator (same architecture, GOAMD64 level and Go release), or serve with "+
			"--fp-class=%q to accept that class instead, or --fp-class=any to accept every class",
			ErrFPClass, hello.GetWorkerId(), got, want, got)
	}
	ws := &workStream{c: s.c, stream: stream, specs: map[string]bool{}}
	ws.ctx, ws.stop = context.WithCancel(stream.Context())
	defer ws.stop()
	for _, id := range hello.GetCachedSweeps() {
		ws.specs[id] = true
	}
	offers, err := wire.MethodsFromProto("hello", hello.GetMethods())
	if err == nil && slices.ContainsFunc(offers, func(m methodid.Method) bool { return m.ID == "" || m.Kind == "" }) {
		err = fmt.Errorf("%w: hello.methods: a method a worker offers needs a kind and an identity", ErrProtocol)
	}
	if err != nil {
		return err
	}
	ws.w = s.c.sched.Connect(hello.GetWorkerId(), int(hello.GetCapacity()), s.c.methods.heard(offers)...)
	defer s.c.sched.Disconnect(ws.w)
	defer s.c.obs.WorkerDisconnected(hello.GetWorkerId())
	s.c.obs.WorkerConnected(hello.GetWorkerId())
	log := s.c.log.With("worker", hello.GetWorkerId())
	ws.log = log
	log.Info("worker connected", "capacity", ws.w.Capacity(), "held", len(hello.GetHeld()), "methods", len(offers))
	if err := ws.welcome(hello); err != nil {
		return err
	}
	sendErr := make(chan error, 1)
	go func() { sendErr <- ws.sendLoop() }()
	recvErr := ws.recvLoop()
	if errors.Is(recvErr, io.EOF) {
		recvErr = nil
		ws.stop() // no more leases for a worker that closed its side
		ws.handBack(sendErr)
	}
	log.Info("worker disconnected", "error", recvErr)
	return recvErr
}

func (ws *workStream) send(m *pb.WorkResponse) error {
	ws.sendMu.Lock()
	defer ws.sendMu.Unlock()
	return ws.stream.Send(m)
}

// welcome rebinds the jobs the worker still holds and sends Welcome. A
// held job is adopted only under the token of its lease (see adopt); the
// rest are refused (new token 0: the worker drops them): made-up tokens,
// tokens of leases that ended otherwise than lost with their worker,
// claims adopted before, earlier-process tokens without an unexpired
// proof, a job or token named twice, and every entry past the first
// maxHeld.
func (ws *workStream) welcome(h *pb.Hello) error {
	ttl := ws.c.sched.LeaseTTL()
	wel := &pb.Welcome{HeartbeatSeconds: ttl.Seconds() / 3, LeaseSeconds: ttl.Seconds()}
	type heldJob struct {
		sweep string
		job   int64
	}
	jobs, tokens := map[heldJob]bool{}, map[uint64]bool{}
	refused := 0
	for i, held := range h.GetHeld() {
		rb := &pb.Rebind{OldToken: held.GetToken()}
		key := heldJob{held.GetSweepId(), held.GetJob()}
		fresh := i < maxHeld && !jobs[key] && !tokens[held.GetToken()]
		jobs[key], tokens[held.GetToken()] = true, true
		if g, ok := ws.adopt(held, fresh); ok {
			rb.NewToken, rb.DeadlineUnixNano = g.Token, g.Deadline.UnixNano()
			rb.Proof = ws.c.signer.proof(g.Sweep.ID, int64(g.Job), g.Token, g.Deadline)
		} else {
			refused++
		}
		wel.Rebinds = append(wel.Rebinds, rb)
	}
	if refused > 0 {
		ws.log.Info("held jobs refused; the worker drops them", "refused", refused, "held", len(h.GetHeld()))
	}
	return ws.send(&pb.WorkResponse{Msg: &pb.WorkResponse_Welcome{Welcome: wel}})
}

// adopt rebinds one held job to this stream if fresh (not a duplicate
// nor past the bound) and either the scheduler accepts its token (a
// current lease, or one lost with a broken stream or expired while the
// worker was cut off; once) or the claim carries an unexpired proof of a
// lease of an earlier life of the coordinator, not adopted before in
// this life (see signer): a made-up or replayed claim has neither.
func (ws *workStream) adopt(held *pb.Held, fresh bool) (sched.Grant, bool) {
	if !fresh {
		return sched.Grant{}, false
	}
	g, ok := ws.c.sched.Adopt(ws.w, held.GetSweepId(), int(held.GetJob()), held.GetToken())
	if !ok {
		until, vouched := ws.c.signer.vouch(held.GetSweepId(), held.GetJob(), held.GetToken(), held.GetProof(), ws.c.sched.Now())
		if vouched {
			g, ok = ws.c.sched.AdoptVouched(ws.w, held.GetSweepId(), int(held.GetJob()), held.GetToken(), until)
		}
	}
	if ok {
		ws.specs[held.GetSweepId()] = true // the worker has it: it runs the job
		ws.c.obs.Granted(g.Sweep.ID, 1)
	}
	return g, ok
}

// sendLoop hands out leases and revocations whenever the scheduler says
// there may be some, until the stream ends.
func (ws *workStream) sendLoop() error {
	for {
		select {
		case <-ws.ctx.Done():
			return ws.ctx.Err()
		case <-ws.w.Notify():
		}
		if c := ws.c.sched.TakeCancels(ws.w); len(c) > 0 {
			if err := ws.send(&pb.WorkResponse{Msg: &pb.WorkResponse_Cancel{Cancel: &pb.CancelLeases{Tokens: c}}}); err != nil {
				return err
			}
		}
		if err := ws.c.backlog.wait(ws.ctx); err != nil { // the store is behind
			return err
		}
		if err := ws.sendJobs(ws.c.sched.Lease(ws.w)); err != nil {
			return err
		}
	}
}

// sendJobs sends grants as one JobBatch per sweep, preceded by the sweep's
// spec the first time this stream sees the sweep.
func (ws *workStream) sendJobs(grants []sched.Grant) error {
	for len(grants) > 0 {
		sw := grants[0].Sweep
		batch := &pb.JobBatch{SweepId: sw.ID}
		rest := grants[:0]
		for _, g := range grants {
			if g.Sweep != sw {
				rest = append(rest, g)
				continue
			}
			pipes := make([]int32, len(g.Pipelines))
			for i, p := range g.Pipelines {
				pipes[i] = int32(p)
			}
			rep, fold := sw.Data.(*sweepInfo).spec.Fold(g.Rep)
			batch.Jobs = append(batch.Jobs, &pb.Job{Job: int64(g.Job), Scenario: int32(g.Scenario),
				Repetition: int32(rep), Fold: int32(fold), Pipelines: pipes, Token: g.Token, DeadlineUnixNano: g.Deadline.UnixNano(),
				Proof: ws.c.signer.proof(sw.ID, int64(g.Job), g.Token, g.Deadline)})
		}
		ws.c.obs.Granted(sw.ID, len(batch.Jobs))
		grants = rest
		if !ws.specs[sw.ID] {
			info := sw.Data.(*sweepInfo)
			m := &pb.SweepSpecMessage{SweepId: sw.ID, Spec: info.wire}
			if err := ws.send(&pb.WorkResponse{Msg: &pb.WorkResponse_Sweep{Sweep: m}}); err != nil {
				return err
			}
			ws.specs[sw.ID] = true
		}
		if err := ws.send(&pb.WorkResponse{Msg: &pb.WorkResponse_Jobs{Jobs: batch}}); err != nil {
			return err
		}
	}
	return nil
}

// recvLoop handles the worker's messages until the stream ends. Nothing a
// worker sends can stop the coordinator: bad results are acknowledged as
// invalid and count against their job's delivery limit.
func (ws *workStream) recvLoop() error {
	for {
		m, err := ws.stream.Recv()
		if err != nil {
			return err
		}
		switch msg := m.GetMsg().(type) {
		case *pb.WorkRequest_Heartbeat:
			err = ws.heartbeat(msg.Heartbeat.GetTokens())
		case *pb.WorkRequest_Results:
			err = ws.results(msg.Results.GetResults())
		case *pb.WorkRequest_Release:
			ws.c.sched.Release(ws.w, msg.Release.GetTokens())
		default:
			ws.c.log.Warn("ignoring unexpected worker message", "worker", ws.w.ID, "type", fmt.Sprintf("%T", msg))
		}
		if err != nil {
			return err
		}
	}
}

// heartbeat extends the leases named by tokens, sends their fresh proofs
// (RenewLeases), and revokes the tokens that are no current lease of
// this stream (CancelLeases).
func (ws *workStream) heartbeat(tokens []uint64) error {
	renewed, stale := ws.c.sched.Heartbeat(ws.w, tokens)
	if len(stale) > 0 {
		if err := ws.send(&pb.WorkResponse{Msg: &pb.WorkResponse_Cancel{Cancel: &pb.CancelLeases{Tokens: stale}}}); err != nil {
			return err
		}
	}
	if len(renewed) == 0 {
		return nil
	}
	m := &pb.RenewLeases{Leases: make([]*pb.Renewal, len(renewed))}
	for i, r := range renewed {
		m.Leases[i] = &pb.Renewal{Token: r.Token, DeadlineUnixNano: r.Deadline.UnixNano(),
			Proof: ws.c.signer.proof(r.SweepID, int64(r.Job), r.Token, r.Deadline)}
	}
	return ws.send(&pb.WorkResponse{Msg: &pb.WorkResponse_Renew{Renew: m}})
}

// results judges a batch of results, queues the accepted ones for the
// store and acknowledges every one.
func (ws *workStream) results(rs []*pb.JobResult) error {
	ack := &pb.Ack{}
	var recs []store.Record
	for _, r := range rs {
		item := &pb.Ack_Item{Token: r.GetToken()}
		rec, o, reason := ws.judge(r)
		item.Outcome, item.Reason = outcomeToProto(o), reason
		ws.observe(r, o, reason)
		if rec != nil {
			recs = append(recs, *rec)
		}
		ack.Items = append(ack.Items, item)
	}
	if len(recs) > 0 {
		if err := ws.c.writer.Enqueue(recs...); err == nil {
			ws.c.backlog.add(len(recs))
		} else {
			for _, r := range recs {
				ws.c.sched.CommitFailed(r.SweepID, r.Job, err)
			}
		}
	}
	return ws.send(&pb.WorkResponse{Msg: &pb.WorkResponse_Ack{Ack: ack}})
}

// judge returns the store record of an accepted result, and the outcome.
func (ws *workStream) judge(r *pb.JobResult) (*store.Record, sched.Outcome, string) {
	info, err := ws.c.info(r.GetSweepId())
	if err != nil || r.GetJob() < 0 || r.GetJob() >= int64(len(info.draws)*info.spec.UnitCount()) {
		return nil, sched.Invalid, "unknown sweep or job out of range"
	}
	job := int(r.GetJob())
	if r.GetError() != "" {
		return nil, ws.c.sched.Fail(ws.w, r.GetToken(), r.GetSweepId(), job, r.GetError()), ""
	}
	o, err := ws.c.sched.Complete(ws.w, r.GetToken(), r.GetSweepId(), job, func(want []int) error {
		return checkResult(r, len(info.pipes), want)
	})
	if o != sched.Accepted {
		reason := ""
		if err != nil {
			reason = err.Error()
		}
		return nil, o, reason
	}
	rec, reason := ws.record(info, r, job)
	return rec, o, reason
}

// record returns the store record of an accepted result. A pipeline
// result whose numbers cannot be a score is stored as a store.KindInvalid
// failure (see storeResult); reason then says which, for the Ack.
func (ws *workStream) record(info *sweepInfo, r *pb.JobResult, job int) (rec *store.Record, reason string) {
	si, rep := info.spec.Job(job)
	rec = &store.Record{SweepID: r.GetSweepId(), Job: job, Draw: info.draws[si], Rep: rep}
	invalid := 0
	for _, p := range r.GetPipelines() {
		res, why := storeResult(p)
		if why != "" {
			if invalid++; invalid == 1 {
				reason = fmt.Sprintf("pipeline %d: %s: stored as %s", p.GetPipeline(), why, store.KindInvalid)
			}
		}
		rec.Pipes = append(rec.Pipes, info.pipes[p.GetPipeline()])
		rec.Results = append(rec.Results, res)
	}
	if invalid > 0 {
		ws.log.Warn("result with numbers that cannot be a score; stored as failed pipeline runs",
			"sweep", short(r.GetSweepId()), "job", job, "pipelines", invalid, "first", reason)
	}
	return rec, reason
}

func outcomeToProto(o sched.Outcome) pb.Ack_Outcome {
	switch o {
	case sched.Accepted:
		return pb.Ack_OUTCOME_ACCEPTED
	case sched.Duplicate:
		return pb.Ack_OUTCOME_DUPLICATE
	case sched.Stale:
		return pb.Ack_OUTCOME_STALE
	}
	return pb.Ack_OUTCOME_INVALID
}
