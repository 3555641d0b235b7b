package worker

import (
	"errors"
	"testing"

	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// fakeStream fails a Send after CloseSend, as gRPC does.
type fakeStream struct {
	pb.WorkService_WorkClient
	closed bool
	sent   int
}

func (f *fakeStream) Send(*pb.WorkRequest) error {
	if f.closed {
		return errors.New("SendMsg called after CloseSend")
	}
	f.sent++
	return nil
}

func (f *fakeStream) CloseSend() error { f.closed = true; return nil }

// TestSendAfterCloseIsDropped: once a drained worker closed its side, a
// message it still wants to send (the release of a lease granted while
// it drained, a heartbeat) is dropped without an error. An error made
// the receiver break the stream before the coordinator read the close,
// so those leases counted as lost on disconnect (seen in the compose
// rolling-restart test).
func TestSendAfterCloseIsDropped(t *testing.T) {
	fs := &fakeStream{}
	s := &session{stream: fs}
	release := &pb.WorkRequest{Msg: &pb.WorkRequest_Release{Release: &pb.Release{Tokens: []uint64{7}}}}
	if err := s.send(release); err != nil || fs.sent != 1 {
		t.Fatalf("send before close: %v, %d sent", err, fs.sent)
	}
	s.closeSend()
	if err := s.send(release); err != nil || fs.sent != 1 {
		t.Fatalf("send after close: %v, %d sent; want it dropped without error", err, fs.sent)
	}
}
