package worker

import (
	"errors"
	"fmt"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/status"
)

// keepaliveOption makes the worker ping a silent coordinator and drop the
// connection when no answer comes within 40 s, so that a half-open
// connection (a network cut, a vanished host) ends in a reconnection
// instead of waiting for TCP's retransmission timeout (about 15 min). The
// coordinator accepts pings every 5 s or more.
var keepaliveOption = grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: 30 * time.Second, Timeout: 10 * time.Second,
	PermitWithoutStream: true})

// ErrRefused is wrapped by the error Run returns when the coordinator
// refuses the worker's credentials (no or wrong token, no client
// certificate, another cluster): retrying cannot help, and a worker that
// exits makes the mistake visible to its supervisor (CrashLoopBackOff,
// a restarting container) instead of looking idle.
var ErrRefused = errors.New("worker: refused by the coordinator")

// refusal is closed, with err set, when the coordinator refuses the worker.
type refusal struct {
	done chan struct{}
	err  error
}

// refused reports whether err is a refusal of the worker's credentials,
// and if so records it and wakes Run.
func (w *Worker) refused(err error) bool {
	code := status.Code(err)
	if code != codes.Unauthenticated && code != codes.PermissionDenied {
		return false
	}
	w.log.Error("the coordinator refused this worker; check its token, certificate and cluster name",
		"addr", w.opts.Addr, "code", code.String(), "reason", status.Convert(err).Message())
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.refusal.err == nil {
		w.refusal.err = fmt.Errorf("%w: %s", ErrRefused, status.Convert(err).Message())
		close(w.refusal.done)
	}
	return true
}
