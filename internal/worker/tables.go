package worker

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/misslab/misslab/internal/sim"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// Errors of the table store.
var (
	// ErrTableHash: a table hash is not 64 lowercase hex digits (a crafted
	// hash such as "../x" never becomes a path).
	ErrTableHash = errors.New("worker: malformed table hash")
	// ErrTableCorrupt: the bytes the coordinator sent are not the table
	// asked for (their SHA-256 or size differs, or the stream broke its
	// own offsets); the partial file was deleted.
	ErrTableCorrupt = errors.New("worker: fetched table does not match its hash")
)

// TableDirName is the subdirectory of the user's cache directory that
// DefaultTableDir names.
const TableDirName = "misslab-tables"

// staleParts is the age after which OpenTableStore deletes a partial
// download: none of a live worker's is that old (each chunk written
// touches it).
const staleParts = 24 * time.Hour

// TableStore is a worker's local, content-addressed copy of the tables it
// fetched from the coordinator: the file <dir>/<sha256> holds the bytes
// whose SHA-256 is sha256, verified before they got that name. Its
// methods are safe for concurrent use; several TableStores (processes)
// may share a directory, each downloading into partial files of its own.
type TableStore struct {
	dir string
	tag string // names this TableStore's partial files: <sha>.<tag>.part

	mu      sync.Mutex
	flights map[string]*flight  // downloads in progress, by hash
	sweeps  map[string][]string // sweep id → the hashes of its tables (see noteTables)
}

// flight is one download that concurrent Ensure calls share.
type flight struct {
	done      chan struct{}
	path      string
	err       error
	cancelled bool // the leader's context had ended: others try again
}

// DefaultTableDir is the directory OpenTableStore("") uses: TableDirName
// inside os.UserCacheDir(), or inside os.TempDir() when there is no cache
// directory.
func DefaultTableDir() string {
	base, err := os.UserCacheDir()
	if err != nil || base == "" {
		base = os.TempDir()
	}
	return filepath.Join(base, TableDirName)
}

// OpenTableStore opens (creating it if needed) the table store in dir, or
// in DefaultTableDir() when dir is empty. It deletes partial downloads
// older than 24 h, which no live worker is writing.
func OpenTableStore(dir string) (*TableStore, error) {
	if dir == "" {
		dir = DefaultTableDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("worker: table directory: %w", err)
	}
	var tag [8]byte
	if _, err := rand.Read(tag[:]); err != nil {
		return nil, fmt.Errorf("worker: table store: %w", err)
	}
	t := &TableStore{dir: dir, tag: hex.EncodeToString(tag[:]), flights: map[string]*flight{}, sweeps: map[string][]string{}}
	t.removeStaleParts(time.Now().Add(-staleParts))
	return t, nil
}

func (t *TableStore) removeStaleParts(before time.Time) {
	ents, _ := os.ReadDir(t.dir)
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && strings.HasSuffix(e.Name(), ".part") && fi.ModTime().Before(before) {
			_ = os.Remove(filepath.Join(t.dir, e.Name()))
		}
	}
}

// Dir returns the store's directory.
func (t *TableStore) Dir() string { return t.dir }

// checkTableHash returns an error wrapping ErrTableHash unless sha is 64
// lowercase hex digits (sim.IsTableHash).
func checkTableHash(sha string) error {
	if !sim.IsTableHash(sha) {
		return fmt.Errorf("%w: %.80q is not 64 lowercase hex digits", ErrTableHash, sha)
	}
	return nil
}

// Path returns the path of table sha and true when the store holds it,
// "" and false otherwise (also for a malformed sha).
func (t *TableStore) Path(sha string) (string, bool) {
	if checkTableHash(sha) != nil {
		return "", false
	}
	p := filepath.Join(t.dir, sha)
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	return p, true
}

// Ensure returns the path of table sha, fetching it from the coordinator
// through c first if the store lacks it. Concurrent calls for the same
// table share one download. A download goes into a partial file that a
// later call resumes (FetchTableRequest.offset) after a broken stream; the
// whole file's SHA-256 is checked before it takes its final name.
// Errors wrap ErrTableHash for a malformed sha, ErrTableCorrupt when the
// bytes received are not the table (the partial file is deleted), or are
// the RPC's (a status: NotFound when the coordinator lacks the table) or
// the disk's; ctx ending stops the download and Ensure.
func (t *TableStore) Ensure(ctx context.Context, c pb.WorkServiceClient, sha string) (string, error) {
	if err := checkTableHash(sha); err != nil {
		return "", err
	}
	for {
		if p, ok := t.Path(sha); ok {
			return p, nil
		}
		t.mu.Lock()
		f := t.flights[sha]
		lead := f == nil
		if lead {
			f = &flight{done: make(chan struct{})}
			t.flights[sha] = f
		}
		t.mu.Unlock()
		if lead {
			f.path, f.err = t.fetch(ctx, c, sha)
			f.cancelled = f.err != nil && ctx.Err() != nil
			t.mu.Lock()
			delete(t.flights, sha)
			t.mu.Unlock()
			close(f.done)
			return f.path, f.err
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-f.done:
		}
		if !f.cancelled {
			return f.path, f.err
		}
	}
}

// fetch downloads table sha into this store's partial file, resuming
// after what it already holds, verifies it and gives it its final name.
func (t *TableStore) fetch(ctx context.Context, c pb.WorkServiceClient, sha string) (string, error) {
	part := filepath.Join(t.dir, sha+"."+t.tag+".part")
	f, err := os.OpenFile(part, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return "", fmt.Errorf("worker: table %s: %w", sha[:12], err)
	}
	defer f.Close()
	h := sha256.New()
	off, err := io.Copy(h, f) // what an earlier attempt fetched: resumed, not fetched again
	if err != nil {
		return "", fmt.Errorf("worker: table %s: %w", sha[:12], err)
	}
	size, err := receive(ctx, c, sha, off, f, h)
	if err != nil {
		held, _ := f.Seek(0, io.SeekEnd)
		if held == 0 || errors.Is(err, ErrTableCorrupt) || status.Code(err) == codes.OutOfRange {
			_ = os.Remove(part) // nothing, or not a prefix of the table: start again from 0
		}
		return "", fmt.Errorf("worker: table %s (%d bytes held): %w", sha[:12], held, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != sha {
		_ = os.Remove(part)
		return "", fmt.Errorf("%w: %s: received %d bytes whose SHA-256 is %s", ErrTableCorrupt, sha[:12], size, got)
	}
	return t.publish(f, part, sha)
}

// receive appends the bytes of table sha from off on to f, hashing them
// into h, and returns the table's size.
func receive(ctx context.Context, c pb.WorkServiceClient, sha string, off int64, f io.Writer, h io.Writer) (int64, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.FetchTable(ctx, &pb.FetchTableRequest{Sha256: sha, Offset: off})
	if err != nil {
		return 0, err
	}
	size := int64(-1)
	for {
		m, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
		if size < 0 {
			size = m.GetSize()
		}
		data := m.GetData()
		if m.GetOffset() != off || m.GetSize() != size || int64(len(data)) > size-off {
			return 0, fmt.Errorf("%w: chunk at %d of %d bytes (%d of them), want one at %d of %d", ErrTableCorrupt,
				m.GetOffset(), m.GetSize(), len(data), off, size)
		}
		if _, err := f.Write(data); err != nil {
			return 0, err
		}
		h.Write(data)
		off += int64(len(data))
	}
	if size < 0 || off != size {
		return 0, fmt.Errorf("worker: the fetch stream ended at byte %d of %d", off, size)
	}
	return size, nil
}

// publish fsyncs the verified partial file and renames it to the table's
// name (atomically: a reader sees no table or the whole one).
func (t *TableStore) publish(f *os.File, part, sha string) (string, error) {
	if err := f.Sync(); err != nil {
		return "", fmt.Errorf("worker: table %s: fsync: %w", sha[:12], err)
	}
	if err := f.Close(); err != nil { // before the rename, which some systems refuse on an open file
		return "", fmt.Errorf("worker: table %s: %w", sha[:12], err)
	}
	final := filepath.Join(t.dir, sha)
	if err := os.Rename(part, final); err != nil {
		return "", fmt.Errorf("worker: table %s: %w", sha[:12], err)
	}
	if d, err := os.Open(t.dir); err == nil {
		_ = d.Sync() // the rename's durability; a lost rename only costs a fetch
		d.Close()
	}
	return final, nil
}

// noteTables remembers the tables a sweep's scenarios read (in practice
// one), so that its job batches, in this session or a later one (the spec
// is sent once per worker), wait for them. A nil store does nothing.
func (t *TableStore) noteTables(m *pb.SweepSpecMessage) {
	if t == nil {
		return
	}
	var shas []string
	for _, sc := range m.GetSpec().GetScenarios() {
		if sha := sc.GetTable().GetSha256(); sha != "" && !slices.Contains(shas, sha) {
			shas = append(shas, sha)
		}
	}
	if len(shas) == 0 {
		return
	}
	t.mu.Lock()
	t.sweeps[m.GetSweepId()] = shas
	t.mu.Unlock()
}

// missing returns the tables of a sweep that the store lacks.
func (t *TableStore) missing(sweepID string) []string {
	t.mu.Lock()
	shas := t.sweeps[sweepID]
	t.mu.Unlock()
	var out []string
	for _, sha := range shas {
		if _, ok := t.Path(sha); !ok {
			out = append(out, sha)
		}
	}
	return out
}

// tableGate holds, for one session, the job batches of sweeps whose
// tables are being fetched: their leases are heartbeated meanwhile, and
// a lease the coordinator revokes is dropped.
type tableGate struct {
	mu      sync.Mutex
	revoked map[uint64]bool   // tokens of parked jobs that were revoked
	parked  map[uint64]bool   // tokens of parked jobs
	proofs  map[uint64][]byte // renewed proofs of parked jobs
}

func newTableGate() *tableGate {
	return &tableGate{revoked: map[uint64]bool{}, parked: map[uint64]bool{}, proofs: map[uint64][]byte{}}
}

// renew keeps the fresh proofs of parked jobs among leases, for unpark.
func (g *tableGate) renew(leases []*pb.Renewal) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, r := range leases {
		if g.parked[r.GetToken()] {
			g.proofs[r.GetToken()] = r.GetProof()
		}
	}
}

// revoke drops the parked jobs among tokens (a Cancel from the coordinator).
func (g *tableGate) revoke(tokens []uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, tok := range tokens {
		if g.parked[tok] {
			g.revoked[tok] = true
		}
	}
}

// park registers the jobs of b and returns their tokens.
func (g *tableGate) park(b *pb.JobBatch) []uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	tokens := make([]uint64, len(b.GetJobs()))
	for i, j := range b.GetJobs() {
		tokens[i] = j.GetToken()
		g.parked[j.GetToken()] = true
	}
	return tokens
}

// unpark forgets the jobs of b and returns those not revoked meanwhile,
// with the proofs renewed meanwhile.
func (g *tableGate) unpark(b *pb.JobBatch) *pb.JobBatch {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := &pb.JobBatch{SweepId: b.GetSweepId()}
	for _, j := range b.GetJobs() {
		tok := j.GetToken()
		if p, ok := g.proofs[tok]; ok {
			j.Proof = p
		}
		if !g.revoked[tok] {
			out.Jobs = append(out.Jobs, j)
		}
		delete(g.parked, tok)
		delete(g.revoked, tok)
		delete(g.proofs, tok)
	}
	return out
}

// gateJobs holds a batch of a sweep whose tables this worker lacks until
// they are fetched (on a goroutine of the session's tasks, which the
// session waits for when it ends; it goes on receiving meanwhile) and
// reports whether it did; the jobs of other sweeps pass at once.
func (w *Worker) gateJobs(s *session, b *pb.JobBatch) bool {
	t := w.opts.Tables
	if t == nil {
		return false // the executor reports the missing table store
	}
	shas := t.missing(b.GetSweepId())
	if len(shas) == 0 {
		return false
	}
	tokens := s.gate.park(b)
	s.tasks.Go(func() { w.awaitTables(s, t, shas, b, tokens) })
	return true
}

// awaitTables fetches the tables of a parked batch, heartbeating its
// leases, then queues its jobs; if a fetch fails, each job is returned as
// failed (a delivery that counts: it goes to another worker, and a table
// no worker can fetch fails the job with this error). If the session ends
// first the batch is dropped: the coordinator takes its leases back.
func (w *Worker) awaitTables(s *session, t *TableStore, shas []string, b *pb.JobBatch, tokens []uint64) {
	ctx, cancel := context.WithCancel(s.ctx)
	var beats sync.WaitGroup
	beats.Go(func() { s.gate.heartbeat(ctx, s, tokens) })
	var err error
	for _, sha := range shas {
		if _, err = t.Ensure(ctx, s.work, sha); err != nil {
			break
		}
	}
	cancel()
	beats.Wait()
	kept := s.gate.unpark(b)
	if s.ctx.Err() != nil || len(kept.GetJobs()) == 0 {
		return
	}
	if err == nil {
		if rel := w.addJobs(kept); len(rel) > 0 {
			_ = s.send(&pb.WorkRequest{Msg: &pb.WorkRequest_Release{Release: &pb.Release{Tokens: rel}}})
		}
		return
	}
	w.log.Error("cannot fetch a sweep's table; failing its jobs here", "sweep", b.GetSweepId(), "jobs", len(kept.GetJobs()), "error", err)
	msg := truncate("worker " + w.opts.ID + ": " + err.Error())
	rs := make([]*pb.JobResult, len(kept.GetJobs()))
	for i, j := range kept.GetJobs() {
		rs[i] = &pb.JobResult{Token: j.GetToken(), SweepId: b.GetSweepId(), Job: j.GetJob(), Error: msg}
	}
	_ = s.send(&pb.WorkRequest{Msg: &pb.WorkRequest_Results{Results: &pb.ResultBatch{Results: rs}}})
}

// heartbeat extends the leases of parked jobs (tokens, less those
// revoked meanwhile) every heartbeat interval until ctx ends: the
// session's sender heartbeats only the jobs the worker holds.
func (g *tableGate) heartbeat(ctx context.Context, s *session, tokens []uint64) {
	tick := time.NewTicker(s.heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		g.mu.Lock()
		live := slices.DeleteFunc(slices.Clone(tokens), func(tok uint64) bool { return g.revoked[tok] })
		g.mu.Unlock()
		if s.send(&pb.WorkRequest{Msg: &pb.WorkRequest_Heartbeat{Heartbeat: &pb.Heartbeat{Tokens: live}}}) != nil {
			return
		}
	}
}
