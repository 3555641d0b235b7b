package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/misslab/misslab/internal/auth"
	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/sched"
	"github.com/misslab/misslab/internal/sim"
	"github.com/misslab/misslab/internal/store"
	"github.com/misslab/misslab/internal/wire"
)

// statusCodes reads the table of docs/OPERATIONS.md's "Status codes":
// each row's first cell (what went wrong) and its code.
func statusCodes(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open("../../docs/OPERATIONS.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, in := map[string]string{}, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "## Status codes":
			in = true
		case in && strings.HasPrefix(line, "## "):
			return rows
		case in && strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "| what went wrong"):
			cells := strings.Split(line, "|")
			rows[strings.TrimSpace(cells[1])] = strings.TrimSpace(cells[2])
		}
	}
	t.Fatal("docs/OPERATIONS.md has no \"Status codes\" section")
	return nil
}

// TestEverySentinelMapsToTheDocumentedCode: toStatus, the one mapping of
// errors to gRPC codes, gives every sentinel of the packages behind the
// RPCs (wrapped, as handlers return them) the code docs/OPERATIONS.md
// promises for it, naming the row by a phrase of its first cell.
func TestEverySentinelMapsToTheDocumentedCode(t *testing.T) {
	docs := statusCodes(t)
	for _, c := range []struct {
		err    error
		phrase string // in the docs row
	}{
		{store.ErrNotFound, "no sweep has that id"},
		{sched.ErrUnknownSweep, "no sweep has that id"},
		{store.ErrNoTable, "no such table"},
		{wire.ErrInvalidSpec, "not valid"},
		{grid.ErrInvalid, "not valid"},
		{sim.ErrInvalid, "not valid"},
		{learn.ErrUnknownPipeline, "not valid"},
		{learn.ErrBadSetting, "not valid"},
		{store.ErrAmbiguous, "an id prefix of several sweeps"},
		{store.ErrBadTableHash, "a malformed table hash"},
		{store.ErrTableMismatch, "differ from their announced size"},
		{ErrProtocol, "breaks the protocol"},
		{store.ErrWrite, "cannot be written now"},
		{store.ErrClosed, "closing"},
		{ErrPrecondition, "submitted before its table"},
		{store.ErrSchema, "another schema"},
		{ErrFPClass, "a worker of another floating-point class"},
		{store.ErrCorrupt, "a damaged data directory"},
		{ErrOutOfRange, "past its end"},
		{auth.ErrUnauthenticated, "a missing or wrong token"},
		{auth.ErrWrongCluster, "of another cluster"},
		{context.Canceled, "cancelled"},
		{context.DeadlineExceeded, "deadline"},
		{errors.New("a bug"), "anything else"},
	} {
		got := status.Code(toStatus(fmt.Errorf("rpc: %w", c.err)))
		want := ""
		for row, code := range docs {
			if strings.Contains(row, c.phrase) {
				want = code
			}
		}
		if want == "" {
			t.Errorf("%v: no row of the docs' status codes says %q", c.err, c.phrase)
			continue
		}
		if name := strings.ToUpper(codeName(got)); name != want {
			t.Errorf("%v: toStatus gives %s, the docs promise %s", c.err, name, want)
		}
	}
	if s := status.Error(codes.Aborted, "x"); toStatus(fmt.Errorf("wrapped: %w", s)) == nil ||
		status.Code(toStatus(fmt.Errorf("wrapped: %w", s))) != codes.Aborted {
		t.Error("a status error is not passed through unchanged")
	}
}

// codeName spells a code as gRPC's documentation and the docs do
// (NOT_FOUND, CANCELLED).
func codeName(c codes.Code) string {
	if c == codes.Canceled {
		return "CANCELLED"
	}
	var b strings.Builder
	for i, r := range c.String() {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return b.String()
}
