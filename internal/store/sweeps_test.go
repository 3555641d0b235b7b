package store

import (
	"bytes"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
	"google.golang.org/protobuf/proto"

	storev1 "github.com/misslab/misslab/proto/misslab/store/v1"
)

// bigSweep returns a sweep of n scenarios (distinct missing rates) with
// one repetition and one pipeline.
func bigSweep(t testing.TB, n int) *Sweep {
	t.Helper()
	rates := make([]float64, n)
	for i := range rates {
		rates[i] = float64(i) / float64(n)
	}
	return testSweep(t, rates, 1, "tree/mia")
}

func countKeys(t *testing.T, s *Store, bucket []byte) int {
	t.Helper()
	n := 0
	must(t, s.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucket).ForEach(func(_, _ []byte) error { n++; return nil })
	}))
	return n
}

// TestPutSweepLetsResultsCommitBetweenChunks: while PutSweep stores a
// sweep of 100,000 scenarios, a result batch of the Writer commits
// between two of its transactions, before the sweep record exists. (When
// PutSweep was one transaction the batch waited for all of it.)
func TestPutSweepLetsResultsCommitBetweenChunks(t *testing.T) {
	if testing.Short() {
		t.Skip("stores 100,000 scenarios")
	}
	s, _ := openTest(t, Options{NoSync: true})
	small := testSweep(t, []float64{0.123456}, 1, "tree/mia")
	smallID := put(t, s, small)
	big := bigSweep(t, 100_000)
	id := testHash(big)

	committed := make(chan error, 1)
	w := s.NewWriter(WriterOptions{MaxBatch: 1, MaxDelay: time.Millisecond}, func(_ []Record, err error) { committed <- err })
	defer w.Close()
	var chunks []int
	var between struct {
		done       int   // draws stored when the batch committed
		err        error // the batch's commit error
		recordSeen bool  // whether the big sweep's record existed then
	}
	s.chunkDone = func(done, total int) {
		chunks = append(chunks, done)
		if done != drawChunk {
			return
		}
		must(t, w.Enqueue(record(smallID, small, 0, 0)))
		select {
		case between.err = <-committed:
			between.done = done
			_, err := s.Sweep(id)
			between.recordSeen = err == nil
		case <-time.After(20 * time.Second):
			t.Error("a result batch could not commit between two PutSweep transactions")
		}
	}
	must(t, s.PutSweep(SweepRecord{ID: id, Spec: big, Submitted: time.Now()}))

	if between.done != drawChunk || between.err != nil || between.recordSeen {
		t.Errorf("result batch: committed after %d draws, err %v, sweep record already there: %v; want after %d, nil, false",
			between.done, between.err, between.recordSeen, drawChunk)
	}
	if len(chunks) != 20 || chunks[19] != 100_000 {
		t.Errorf("draw transactions ended at %v, want 20 of 5,000", chunks)
	}
	if n := countKeys(t, s, bucketDraws); n != 100_001 {
		t.Errorf("%d draws stored, want 100,001", n)
	}
	if rec, err := s.Sweep(id); err != nil || len(rec.Spec.Scenarios) != 100_000 {
		t.Errorf("big sweep after PutSweep: %v", err)
	}
	if _, ok, err := s.Lookup(small, 0, 0); !ok || err != nil {
		t.Errorf("the batch committed between chunks is not stored: %v %v", ok, err)
	}
}

// TestPutSweepFailingPartWay: a PutSweep that fails after some draw
// transactions leaves draws but no sweep record; the next PutSweep of the
// same sweep completes it.
func TestPutSweepFailingPartWay(t *testing.T) {
	var calls, failAt atomic.Int32
	diskFull := errors.New("no space left on device")
	s, _ := openTest(t, Options{NoSync: true, WriteHook: func() error {
		if calls.Add(1) == failAt.Load() {
			return diskFull
		}
		return nil
	}})
	sw := bigSweep(t, 2*drawChunk+2000) // three draw transactions, then the record
	id := testHash(sw)
	failAt.Store(3)
	err := s.PutSweep(SweepRecord{ID: id, Spec: sw})
	if !errors.Is(err, ErrWrite) || !errors.Is(err, diskFull) {
		t.Fatalf("PutSweep with a full disk at its third transaction: %v, want ErrWrite", err)
	}
	if _, err := s.Sweep(id); !errors.Is(err, ErrNotFound) {
		t.Errorf("sweep record after the failure: %v, want ErrNotFound", err)
	}
	if n := countKeys(t, s, bucketDraws); n != 2*drawChunk {
		t.Errorf("%d draws after the failure, want the %d of the first two transactions", n, 2*drawChunk)
	}
	failAt.Store(0)
	must(t, s.PutSweep(SweepRecord{ID: id, Spec: sw}))
	if n := countKeys(t, s, bucketDraws); n != len(sw.Scenarios) {
		t.Errorf("%d draws after the retry, want %d", n, len(sw.Scenarios))
	}
	if _, err := s.Sweep(id); err != nil {
		t.Errorf("sweep record after the retry: %v", err)
	}
}

// TestSetCancelledWritesOnlyTheFlag: cancelling rewrites the sweep record
// alone, byte for byte but the flag, in one transaction (not the draws
// of PutSweep's transactions), and writes nothing when the flag is
// already set.
func TestSetCancelledWritesOnlyTheFlag(t *testing.T) {
	var writes atomic.Int32
	s, _ := openTest(t, Options{NoSync: true, WriteHook: func() error { writes.Add(1); return nil }})
	sw := bigSweep(t, 2*drawChunk+1)
	id := put(t, s, sw)
	stored := func() (v []byte, txid int) {
		must(t, s.view(func(tx *bolt.Tx) error {
			v, txid = bytes.Clone(tx.Bucket(bucketSweeps).Get([]byte(id))), tx.ID()
			return nil
		}))
		return v, txid
	}
	before, _ := stored()
	writes.Store(0)
	must(t, s.SetCancelled(id[:10], true))
	after, txid := stored()
	if n := writes.Load(); n != 1 {
		t.Errorf("SetCancelled took %d write transactions, want 1", n)
	}
	var old, got storev1.Sweep
	must(t, unmarshal(bucketSweeps, []byte(id), before, &old))
	must(t, unmarshal(bucketSweeps, []byte(id), after, &got))
	if old.Cancelled = true; !proto.Equal(&old, &got) {
		t.Errorf("record after SetCancelled differs from the old one beyond the flag")
	}
	rec, err := s.Sweep(id)
	if err != nil || !rec.Cancelled || len(rec.Spec.Scenarios) != len(sw.Scenarios) || testHash(rec.Spec) != id {
		t.Errorf("record after SetCancelled: cancelled %v, %v", rec.Cancelled, err)
	}
	must(t, s.SetCancelled(id, true))
	if _, again := stored(); again != txid {
		t.Errorf("setting the flag it already had committed transaction %d", again)
	}
	must(t, s.SetCancelled(id, false))
	if rec, _ := s.Sweep(id); rec.Cancelled {
		t.Error("SetCancelled(false) left the sweep cancelled")
	}
	if err := s.SetCancelled("zz", true); !errors.Is(err, ErrNotFound) || errors.Is(err, ErrWrite) {
		t.Errorf("SetCancelled of an unknown sweep: %v, want ErrNotFound", err)
	}
}
