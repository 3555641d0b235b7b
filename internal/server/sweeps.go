package server

import (
	"bufio"
	"context"
	"time"

	"github.com/misslab/misslab/internal/sched"
	"github.com/misslab/misslab/internal/wire"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// sweepService implements pb.SweepServiceServer.
type sweepService struct {
	pb.UnimplementedSweepServiceServer
	c *Coordinator
}

func (s *sweepService) status(st sched.Status) *pb.SweepStatus {
	info, _ := s.c.info(st.ID)
	if info == nil {
		return StatusToProto(st, nil)
	}
	return StatusToProto(st, info.spec)
}

// Submit validates the spec and registers or resumes the sweep.
func (s *sweepService) Submit(ctx context.Context, req *pb.SubmitRequest) (*pb.SubmitResponse, error) {
	spec, err := wire.SpecFromProto(req.GetSpec())
	if err != nil {
		return nil, err
	}
	st, err := s.c.Submit(ctx, spec)
	if err != nil {
		return nil, err
	}
	s.c.log.Info("sweep submitted", "sweep", short(st.ID), "name", st.Name, "jobs", st.Jobs, "reused", st.Reused)
	return &pb.SubmitResponse{SweepId: st.ID, Status: s.status(st)}, nil
}

// Status reports one sweep, or all when the id is empty.
func (s *sweepService) Status(_ context.Context, req *pb.StatusRequest) (*pb.StatusResponse, error) {
	if req.GetSweepId() == "" {
		out := &pb.StatusResponse{}
		for _, st := range s.c.sched.Statuses() {
			out.Sweeps = append(out.Sweeps, s.status(st))
		}
		return out, nil
	}
	st, err := s.c.Status(req.GetSweepId())
	if err != nil {
		return nil, err
	}
	return &pb.StatusResponse{Sweeps: []*pb.SweepStatus{s.status(st)}}, nil
}

// Watch streams a sweep's status until it is complete or cancelled.
func (s *sweepService) Watch(req *pb.WatchRequest, stream pb.SweepService_WatchServer) error {
	every := time.Duration(req.GetIntervalSeconds() * float64(time.Second))
	if every <= 0 {
		every = time.Second
	}
	every = max(every, 50*time.Millisecond)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		st, err := s.c.Status(req.GetSweepId())
		if err != nil {
			return err
		}
		if err := stream.Send(&pb.WatchResponse{Status: s.status(st)}); err != nil {
			return err
		}
		if st.Closed || st.Cancelled {
			return nil
		}
		select {
		case <-stream.Context().Done():
			return stream.Context().Err()
		case <-t.C:
		}
	}
}

// Cancel stops a sweep.
func (s *sweepService) Cancel(_ context.Context, req *pb.CancelRequest) (*pb.CancelResponse, error) {
	st, err := s.c.Cancel(req.GetSweepId())
	if err != nil {
		return nil, err
	}
	s.c.log.Info("sweep cancelled", "sweep", short(st.ID))
	return &pb.CancelResponse{Status: s.status(st)}, nil
}

// chunkWriter sends what it is given as ExportResponse messages.
type chunkWriter struct{ stream pb.SweepService_ExportServer }

// Write sends p as one message.
func (w chunkWriter) Write(p []byte) (int, error) {
	if err := w.stream.Send(&pb.ExportResponse{Csv: p}); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Export streams the sweep's tidy CSV in chunks of up to 64 kB, after
// committing every accepted result.
func (s *sweepService) Export(req *pb.ExportRequest, stream pb.SweepService_ExportServer) error {
	if err := s.c.Flush(stream.Context()); err != nil {
		return err
	}
	full, err := s.c.resolve(req.GetSweepId())
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(chunkWriter{stream}, 64<<10)
	if req.GetFolds() {
		err = s.c.exportFolds(stream.Context(), bw, full)
	} else {
		err = s.c.st.ExportCSV(bw, full)
	}
	if err != nil {
		return err
	}
	return bw.Flush()
}
