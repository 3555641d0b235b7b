package worker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/status"

	"github.com/misslab/misslab/internal/auth"
	"github.com/misslab/misslab/internal/fpclass"
)

// keepaliveOption makes the worker ping a silent coordinator and drop the
// connection when no answer comes within 40 s, so that a half-open
// connection (a network cut, a vanished host) ends in a reconnection
// instead of waiting for TCP's retransmission timeout (about 15 min). The
// coordinator accepts pings every 5 s or more.
var keepaliveOption = grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: 30 * time.Second, Timeout: 10 * time.Second,
	PermitWithoutStream: true})

// ErrRefused is wrapped by the error Run returns when the coordinator
// refuses the worker: at the TLS layer (a certificate from another CA, a
// client certificate missing or refused, TLS on one side only; decided
// after refuseAfter identical handshake failures in a row) or at its
// token and cluster check (Unauthenticated, PermissionDenied) or its
// floating-point class check (FailedPrecondition; both decided at once,
// and the gRPC status stays reachable with status.Code). Retrying
// cannot help, and a worker that exits makes the mistake visible to its
// supervisor (CrashLoopBackOff, a restarting container) instead of
// looking idle. The error's text says what to fix.
var ErrRefused = errors.New("worker: refused by the coordinator")

// refusal is closed, with err set, when the coordinator refuses the worker.
type refusal struct {
	done chan struct{}
	err  error
}

// refused reports whether err, how the last session ended, or the run of
// connection attempts behind it is a refusal, and if so records it and
// wakes Run. ctx bounds the TLS probe of a plaintext worker.
func (w *Worker) refused(ctx context.Context, err error) bool {
	reason, cause := w.refusalOf(ctx, err)
	if reason == "" {
		return false
	}
	w.log.Error("the coordinator refused this worker; not retrying", "addr", w.opts.Addr, "reason", reason, "error", cause)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.refusal.err == nil {
		w.refusal.err = fmt.Errorf("%w: %s (%w)", ErrRefused, reason, cause)
		close(w.refusal.done)
	}
	return true
}

// refusalOf returns the reason, in plain words, and the error of a
// refusal, or "" when the worker should retry.
func (w *Worker) refusalOf(ctx context.Context, err error) (string, error) {
	switch status.Code(err) {
	case codes.Unauthenticated:
		return "the coordinator did not accept this worker's credentials: check its token (--token-file or $MISSLAB_TOKEN) " +
			"and, under mutual TLS, its client certificate (--tls-cert, --tls-key)", err
	case codes.PermissionDenied:
		return "the coordinator serves another cluster: check --cluster or $MISSLAB_CLUSTER", err
	case codes.FailedPrecondition:
		if !strings.Contains(status.Convert(err).Message(), fpclass.Mismatch) {
			break
		}
		return "the coordinator does not accept this worker's floating-point class (" + fpclass.Current() +
			"): run a worker built like the coordinator, or see coordinator serve --fp-class", err
	}
	kind, reason, cause, run := w.seen.streak()
	if run < refuseAfter {
		return "", nil
	}
	switch kind {
	case rejected:
		return reason, cause
	case silent:
		w.seen.reset() // probe again only after another run
		if auth.SpeaksTLS(ctx, w.opts.Addr) {
			return auth.PlaintextRefusal("this worker"), cause
		}
	}
	return "", nil
}
