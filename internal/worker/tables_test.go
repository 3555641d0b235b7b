package worker

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// tableOf returns n reproducible pseudo-random bytes and their hex
// SHA-256 (crypto/sha256, the reference).
func tableOf(n int, seed uint64) ([]byte, string) {
	b := make([]byte, n)
	_, _ = rand.NewChaCha8([32]byte{byte(seed)}).Read(b)
	sum := sha256.Sum256(b)
	return b, hex.EncodeToString(sum[:])
}

// fakeTables is a WorkServiceClient whose FetchTable serves data in
// chunks of chunk bytes, as the coordinator does, with faults to order.
type fakeTables struct {
	pb.WorkServiceClient
	data  []byte
	chunk int

	hold    chan struct{}                  // if set, the first Recv of every call waits for it
	breakAt int64                          // > 0: the first call fails with Unavailable after this byte
	edit    func(m *pb.FetchTableResponse) // if set, changes every message
	err     error                          // if set, FetchTable fails with it
	started chan struct{}                  // if set, receives one value per call

	mu      sync.Mutex
	offsets []int64 // requested, call by call
}

func (f *fakeTables) FetchTable(ctx context.Context, req *pb.FetchTableRequest, _ ...grpc.CallOption) (grpc.ServerStreamingClient[pb.FetchTableResponse], error) {
	f.mu.Lock()
	f.offsets = append(f.offsets, req.GetOffset())
	first := len(f.offsets) == 1
	f.mu.Unlock()
	if f.started != nil {
		f.started <- struct{}{}
	}
	if f.err != nil {
		return nil, f.err
	}
	end := int64(len(f.data))
	if first && f.breakAt > 0 {
		end = f.breakAt
	}
	return &fakeFetch{f: f, ctx: ctx, off: req.GetOffset(), end: end, broken: end < int64(len(f.data))}, nil
}

func (f *fakeTables) calls() []int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]int64(nil), f.offsets...)
}

// fakeFetch is one FetchTable stream of a fakeTables.
type fakeFetch struct {
	grpc.ClientStream
	f        *fakeTables
	ctx      context.Context
	off, end int64
	broken   bool // ends with Unavailable at end rather than io.EOF
	waited   bool // the hold was waited for
	sentAny  bool
}

func (s *fakeFetch) Recv() (*pb.FetchTableResponse, error) {
	if !s.waited && s.f.hold != nil {
		s.waited = true
		select {
		case <-s.f.hold:
		case <-s.ctx.Done():
			return nil, status.FromContextError(s.ctx.Err()).Err()
		}
	}
	if s.off >= s.end {
		if s.broken {
			return nil, status.Error(codes.Unavailable, "connection reset")
		}
		if s.sentAny {
			return nil, io.EOF
		}
	}
	s.sentAny = true // a fetch from the end gets one message without data
	n := min(int64(s.f.chunk), s.end-s.off)
	m := &pb.FetchTableResponse{Size: int64(len(s.f.data)), Offset: s.off, Data: bytes.Clone(s.f.data[s.off : s.off+n])}
	s.off += n
	if s.f.edit != nil {
		s.f.edit(m)
	}
	return m, nil
}

// partFiles lists the partial downloads in dir.
func partFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.part"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestEnsureFetchesOnceAndVerifies: many concurrent Ensure calls for a
// table share one download; the file holds the table's bytes.
func TestEnsureFetchesOnceAndVerifies(t *testing.T) {
	ts, err := OpenTableStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data, sha := tableOf(100_000, 1)
	f := &fakeTables{data: data, chunk: 4096, hold: make(chan struct{})}
	if _, ok := ts.Path(sha); ok {
		t.Fatal("an empty store has the table")
	}
	const n = 8
	paths, errs := make([]string, n), make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() { defer wg.Done(); paths[i], errs[i] = ts.Ensure(context.Background(), f, sha) }()
	}
	close(f.hold)
	wg.Wait()
	for i := range n {
		if errs[i] != nil || paths[i] != filepath.Join(ts.Dir(), sha) {
			t.Errorf("call %d: %q %v", i, paths[i], errs[i])
		}
	}
	if calls := f.calls(); len(calls) != 1 {
		t.Errorf("%d fetches (offsets %v), want 1", len(calls), calls)
	}
	if got, err := os.ReadFile(filepath.Join(ts.Dir(), sha)); err != nil || !bytes.Equal(got, data) {
		t.Errorf("stored %d bytes (%v), not the table", len(got), err)
	}
	if p, ok := ts.Path(sha); !ok || p != paths[0] {
		t.Errorf("Path after Ensure: %q %v", p, ok)
	}
	if parts := partFiles(t, ts.Dir()); len(parts) > 0 {
		t.Errorf("partial files left: %v", parts)
	}
	if _, err := ts.Ensure(context.Background(), f, sha); err != nil || len(f.calls()) != 1 {
		t.Errorf("Ensure of a held table: %v after %d fetches, want none more", err, len(f.calls()))
	}
}

// TestEnsureRefusesWrongBytes: bytes that are not the table, or chunks
// that break the stream's offsets, are an ErrTableCorrupt and leave no
// file, final or partial.
func TestEnsureRefusesWrongBytes(t *testing.T) {
	data, sha := tableOf(10_000, 2)
	for _, c := range []struct {
		name string
		data []byte
		edit func(m *pb.FetchTableResponse)
	}{
		{"one byte flipped", data, func(m *pb.FetchTableResponse) {
			if m.Offset == 4096 {
				m.Data[7] ^= 1
			}
		}},
		{"other table", func() []byte { b, _ := tableOf(10_000, 3); return b }(), nil},
		{"shorter table", data[:9_999], nil},
		{"offset skips", data, func(m *pb.FetchTableResponse) {
			if m.Offset == 4096 {
				m.Offset++
			}
		}},
		{"size changes", data, func(m *pb.FetchTableResponse) {
			if m.Offset > 0 {
				m.Size++
			}
		}},
		{"too many bytes", data, func(m *pb.FetchTableResponse) { m.Size = 100 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts, err := OpenTableStore(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			f := &fakeTables{data: c.data, chunk: 4096, edit: c.edit}
			if _, err := ts.Ensure(context.Background(), f, sha); !errors.Is(err, ErrTableCorrupt) {
				t.Fatalf("Ensure: %v, want ErrTableCorrupt", err)
			}
			if ents, _ := os.ReadDir(ts.Dir()); len(ents) > 0 {
				t.Errorf("left %d files behind, e.g. %s", len(ents), ents[0].Name())
			}
			if _, ok := ts.Path(sha); ok {
				t.Error("Path says the store has the table")
			}
		})
	}
}

// TestEnsureResumes: a fetch cut off mid-way keeps what arrived; the
// next Ensure asks for the rest only and ends with the whole table.
func TestEnsureResumes(t *testing.T) {
	ts, err := OpenTableStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data, sha := tableOf(50_000, 4)
	f := &fakeTables{data: data, chunk: 4096, breakAt: 3 * 4096}
	if _, err := ts.Ensure(context.Background(), f, sha); status.Code(err) != codes.Unavailable {
		t.Fatalf("first Ensure: %v, want the stream's Unavailable", err)
	}
	parts := partFiles(t, ts.Dir())
	if len(parts) != 1 {
		t.Fatalf("partial files %v, want one", parts)
	}
	if fi, err := os.Stat(parts[0]); err != nil || fi.Size() != 3*4096 {
		t.Fatalf("partial file: %v %v, want %d bytes", fi, err, 3*4096)
	}
	p, err := ts.Ensure(context.Background(), f, sha)
	if err != nil {
		t.Fatal(err)
	}
	if calls := f.calls(); len(calls) != 2 || calls[0] != 0 || calls[1] != 3*4096 {
		t.Errorf("offsets asked %v, want [0 %d]", calls, 3*4096)
	}
	if got, err := os.ReadFile(p); err != nil || !bytes.Equal(got, data) {
		t.Errorf("resumed file: %d bytes (%v), not the table", len(got), err)
	}
	if parts := partFiles(t, ts.Dir()); len(parts) > 0 {
		t.Errorf("partial files left: %v", parts)
	}
}

// TestEnsureErrors: a malformed hash is refused before any RPC; the
// coordinator's NotFound comes back as is; a cancelled caller returns.
func TestEnsureErrors(t *testing.T) {
	ts, err := OpenTableStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	_, sha := tableOf(10, 5)
	f := &fakeTables{err: status.Error(codes.NotFound, "no such table")}
	for _, bad := range []string{"", "../x", strings.ToUpper(sha), sha[:63] + "/"} {
		if _, err := ts.Ensure(context.Background(), f, bad); !errors.Is(err, ErrTableHash) {
			t.Errorf("Ensure(%q): %v, want ErrTableHash", bad, err)
		}
		if _, ok := ts.Path(bad); ok {
			t.Errorf("Path(%q) says yes", bad)
		}
	}
	if n := len(f.calls()); n != 0 {
		t.Errorf("%d fetches for malformed hashes", n)
	}
	if _, err := ts.Ensure(context.Background(), f, sha); status.Code(err) != codes.NotFound {
		t.Errorf("unknown table: %v, want NotFound", err)
	}
	if ents, _ := os.ReadDir(ts.Dir()); len(ents) > 0 {
		t.Errorf("a failed fetch left %s", ents[0].Name())
	}
	data, sha := tableOf(10, 6)
	held := &fakeTables{data: data, chunk: 4, hold: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ts.Ensure(ctx, held, sha); status.Code(err) != codes.Canceled {
		t.Errorf("cancelled: %v, want Canceled", err)
	}
}

// TestOpenTableStoreRemovesStaleParts: partial downloads older than a
// day go; fresh ones (a live worker's) and tables stay.
func TestOpenTableStoreRemovesStaleParts(t *testing.T) {
	dir := t.TempDir()
	_, sha := tableOf(1, 7)
	for name, age := range map[string]time.Duration{sha + ".aa.part": 25 * time.Hour, sha + ".bb.part": time.Hour, sha: 48 * time.Hour} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-age)
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := OpenTableStore(dir); err != nil {
		t.Fatal(err)
	}
	var names []string
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != strings.Join([]string{sha, sha + ".bb.part"}, ",") {
		t.Errorf("left %v, want the table and the fresh partial file", names)
	}
	if d := DefaultTableDir(); filepath.Base(d) != TableDirName {
		t.Errorf("DefaultTableDir %s does not end in %s", d, TableDirName)
	}
}

// recordingStream is a worker's side of the work stream that records
// what the worker sends.
type recordingStream struct {
	pb.WorkService_WorkClient
	mu   sync.Mutex
	sent []*pb.WorkRequest
	news chan struct{} // signalled after every Send
}

func (r *recordingStream) Send(m *pb.WorkRequest) error {
	r.mu.Lock()
	r.sent = append(r.sent, m)
	r.mu.Unlock()
	select {
	case r.news <- struct{}{}:
	default:
	}
	return nil
}

// waitSent waits until some sent message satisfies ok and returns it.
func (r *recordingStream) waitSent(t *testing.T, ok func(*pb.WorkRequest) bool) *pb.WorkRequest {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		r.mu.Lock()
		for _, m := range r.sent {
			if ok(m) {
				r.mu.Unlock()
				return m
			}
		}
		r.mu.Unlock()
		select {
		case <-r.news:
		case <-deadline:
			t.Fatal("the worker never sent the expected message")
		}
	}
}

// gateFixture is a worker that is not running (no exec loop: queued jobs
// stay queued) with a table store and a session over a recordingStream.
func gateFixture(t *testing.T, f *fakeTables, sha string) (*Worker, *session, *recordingStream) {
	t.Helper()
	ts, err := OpenTableStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w, err := newWorker(Options{Addr: "unused", Executor: Noop{}, Tables: ts})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recordingStream{news: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s := &session{stream: rec, flush: make(chan struct{}, 1), heartbeat: 5 * time.Millisecond, ctx: ctx, work: f, gate: newTableGate()}
	w.cur = s
	spec := &pb.SweepSpec{Scenarios: []*pb.Scenario{{Model: "table", Table: &pb.TableSource{Sha256: sha}}}}
	ts.noteTables(&pb.SweepSpecMessage{SweepId: "A", Spec: spec})
	return w, s, rec
}

func batch(sweep string, tokens ...uint64) *pb.JobBatch {
	b := &pb.JobBatch{SweepId: sweep}
	for _, tok := range tokens {
		b.Jobs = append(b.Jobs, &pb.Job{Job: int64(tok), Token: tok, Pipelines: []int32{0}})
	}
	return b
}

// queuedTokens returns the tokens of the worker's queued jobs.
func (w *Worker) queuedTokens() []uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []uint64
	for _, j := range w.queue {
		out = append(out, j.token)
	}
	return out
}

// TestGateHoldsASweepUntilItsTable: the jobs of a sweep whose table is
// missing wait (their leases heartbeated) until it is fetched, then are
// queued, less any lease revoked meanwhile; another sweep's jobs pass.
func TestGateHoldsASweepUntilItsTable(t *testing.T) {
	data, sha := tableOf(20_000, 8)
	f := &fakeTables{data: data, chunk: 4096, hold: make(chan struct{}), started: make(chan struct{}, 1)}
	w, s, rec := gateFixture(t, f, sha)
	if !w.gateJobs(s, batch("A", 1, 2, 3)) {
		t.Fatal("a batch of a sweep whose table is missing was not held")
	}
	<-f.started
	if w.gateJobs(s, batch("B", 9)) {
		t.Fatal("a batch of a sweep without a table was held")
	}
	if q := w.queuedTokens(); len(q) != 0 {
		t.Fatalf("queued %v while the table is being fetched", q)
	}
	rec.waitSent(t, func(m *pb.WorkRequest) bool { return len(m.GetHeartbeat().GetTokens()) == 3 })
	s.gate.revoke([]uint64{2})
	close(f.hold)
	w.waitFor(10*time.Second, func() bool { return len(w.queuedTokens()) > 0 })
	if q := w.queuedTokens(); len(q) != 2 || q[0] != 1 || q[1] != 3 {
		t.Fatalf("queued %v, want [1 3] (2 was revoked)", q)
	}
	if _, ok := w.opts.Tables.Path(sha); !ok {
		t.Error("jobs queued before the table is in the store")
	}
	if w.gateJobs(s, batch("A", 4)) {
		t.Error("a batch of a sweep whose table is here was held")
	}
}

// TestGateFailsJobsWhenTheFetchFails: if the table cannot be fetched,
// every job of the batch is returned as failed with the reason, so that
// it goes elsewhere; nothing is queued.
func TestGateFailsJobsWhenTheFetchFails(t *testing.T) {
	_, sha := tableOf(10, 9)
	f := &fakeTables{err: status.Error(codes.NotFound, "table not found")}
	w, s, rec := gateFixture(t, f, sha)
	if !w.gateJobs(s, batch("A", 5, 6)) {
		t.Fatal("batch not held")
	}
	m := rec.waitSent(t, func(m *pb.WorkRequest) bool { return m.GetResults() != nil })
	rs := m.GetResults().GetResults()
	if len(rs) != 2 {
		t.Fatalf("%d results, want 2", len(rs))
	}
	for i, r := range rs {
		if r.GetToken() != uint64(5+i) || r.GetSweepId() != "A" || !strings.Contains(r.GetError(), "table not found") {
			t.Errorf("result %d: %v", i, r)
		}
	}
	if q := w.queuedTokens(); len(q) != 0 {
		t.Errorf("queued %v after a failed fetch", q)
	}
}
