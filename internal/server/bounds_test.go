package server_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/misslab/misslab/internal/fpclass"
	"github.com/misslab/misslab/internal/server"
	"github.com/misslab/misslab/internal/wire"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// TestSubmitBoundsTheSweepName: a sweep name of 4 MB (accepted before,
// then echoed by every status) or holding control characters is refused
// with InvalidArgument naming the field, and nothing is stored.
func TestSubmitBoundsTheSweepName(t *testing.T) {
	c := startCluster(t, t.TempDir(), server.Options{})
	for _, name := range []string{strings.Repeat("n", 4<<20), "a\x1b[2Jb"} { // protobuf itself refuses non-UTF-8
		spec := wire.SpecToProto(testSweep(t, 1, 1, []float64{0.2}, "tree/mia"))
		spec.Name = name
		_, err := c.client.Submit(context.Background(), &pb.SubmitRequest{Spec: spec})
		if msg := status.Convert(err).Message(); status.Code(err) != codes.InvalidArgument || !strings.Contains(msg, "name") || len(msg) > 1000 {
			t.Errorf("name of %d bytes: %.200v, want a short InvalidArgument naming the field", len(name), err)
		}
	}
	if recs, err := c.coord.Store().Sweeps(); err != nil || len(recs) != 0 {
		t.Errorf("refused sweeps were stored: %d, %v", len(recs), err)
	}
}

// TestHelloBoundsTheWorkerID: a worker id of 1 MB (copied before into
// every log line about the worker) or holding control characters is
// refused at Hello with InvalidArgument, and not logged whole.
func TestHelloBoundsTheWorkerID(t *testing.T) {
	var logs syncBuffer
	c := startCluster(t, t.TempDir(), server.Options{Logger: hclog.New(&hclog.LoggerOptions{Output: &logs, Level: hclog.Trace})})
	for _, id := range []string{strings.Repeat("w", 1<<20), "w1\nFAKE LOG LINE"} {
		s := dialRawWorker(t, c.addr).open(t)
		must(t, s.Send(&pb.WorkRequest{Msg: &pb.WorkRequest_Hello{Hello: &pb.Hello{WorkerId: id, Capacity: 1, FpClass: fpclass.Current()}}}))
		_, err := s.Recv()
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(status.Convert(err).Message(), "worker_id") {
			t.Errorf("worker id of %d bytes: %.200v, want InvalidArgument naming hello.worker_id", len(id), err)
		}
	}
	if l := logs.String(); len(l) > 100_000 || bytes.Contains([]byte(l), []byte("FAKE LOG LINE")) {
		t.Errorf("the refused ids reached the log (%d bytes)", len(l))
	}
}
