package server

import (
	"context"
	"errors"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/misslab/misslab/internal/auth"
	"github.com/misslab/misslab/internal/fpclass"
	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/sched"
	"github.com/misslab/misslab/internal/sim"
	"github.com/misslab/misslab/internal/store"
	"github.com/misslab/misslab/internal/wire"
)

// ErrProtocol is wrapped by errors about a worker that breaks the stream
// protocol (no Hello first).
var ErrProtocol = errors.New("server: protocol violation")

// ErrPrecondition is wrapped by errors about a request that is valid but
// cannot be served in the coordinator's state: a table sweep submitted
// before its table was uploaded, the folds of a simulated sweep; also by
// Open on a data directory whose results were computed under a
// floating-point class the coordinator does not accept.
var ErrPrecondition = errors.New("server: failed precondition")

// ErrFPClass is wrapped by the refusal of a worker whose floating-point
// class (internal/fpclass) the coordinator does not accept.
var ErrFPClass = errors.New("server: " + fpclass.Mismatch)

// ErrOutOfRange is wrapped by the error of a FetchTable whose offset lies
// outside the table; a worker resuming a fetch takes OutOfRange as its
// cue to fetch the table again from the start.
var ErrOutOfRange = errors.New("server: out of range")

// toStatus is the one place where errors become gRPC status codes. Every
// handler's error passes through it (see the interceptors below).
func toStatus(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	code := codes.Internal
	switch {
	case errors.Is(err, store.ErrNotFound), errors.Is(err, sched.ErrUnknownSweep), errors.Is(err, store.ErrNoTable):
		code = codes.NotFound
	case errors.Is(err, wire.ErrInvalidSpec), errors.Is(err, grid.ErrInvalid), errors.Is(err, sim.ErrInvalid),
		errors.Is(err, learn.ErrUnknownPipeline), errors.Is(err, learn.ErrBadSetting),
		errors.Is(err, store.ErrAmbiguous), errors.Is(err, ErrProtocol),
		errors.Is(err, store.ErrBadTableHash), errors.Is(err, store.ErrTableMismatch):
		code = codes.InvalidArgument
	case errors.Is(err, store.ErrWrite), errors.Is(err, store.ErrClosed):
		code = codes.Unavailable
	case errors.Is(err, store.ErrSchema), errors.Is(err, ErrPrecondition), errors.Is(err, ErrFPClass):
		code = codes.FailedPrecondition
	case errors.Is(err, store.ErrCorrupt):
		code = codes.DataLoss
	case errors.Is(err, ErrOutOfRange):
		code = codes.OutOfRange
	case errors.Is(err, auth.ErrUnauthenticated):
		code = codes.Unauthenticated
	case errors.Is(err, auth.ErrWrongCluster):
		code = codes.PermissionDenied
	case errors.Is(err, context.Canceled):
		code = codes.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		code = codes.DeadlineExceeded
	}
	return status.Error(code, err.Error())
}

func unaryErrors(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	resp, err := h(ctx, req)
	return resp, toStatus(err)
}

func streamErrors(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	return toStatus(h(srv, ss))
}
