package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// quadratic returns the paper's Model 1 scenario (d = 9, ρ = 0.5,
// σ = 0.1, n = 1000 each) with MCAR at rate on X1..X3.
func quadratic(rate float64) Scenario {
	return Scenario{Model: "quadratic", D: 9, Rho: 0.5, Noise: 0.1, NTrain: 1000, NTest: 1000,
		Mechanism: "mcar", Rate: rate, Columns: []int{0, 1, 2}}
}

func testSweep(t testing.TB, rates []float64, reps int, pipes ...string) *Sweep {
	t.Helper()
	sw := &Sweep{Name: "t", Seed: 42, Repetitions: reps}
	for _, r := range rates {
		sw.Scenarios = append(sw.Scenarios, quadratic(r))
	}
	for _, p := range pipes {
		sw.Pipelines = append(sw.Pipelines, Pipeline{Name: p})
	}
	return sw
}

// testHash is a sweep id for tests: SHA-256 of the seed, repetitions and
// canonical encodings, as the coordinator derives one.
func testHash(sw *Sweep) string {
	h := sha256.New()
	fmt.Fprintf(h, "seed=%d;reps=%d\n", sw.Seed, sw.Repetitions)
	for _, sc := range sw.Scenarios {
		h.Write([]byte(sc.Canonical() + "\n"))
	}
	for _, p := range sw.Pipelines {
		h.Write([]byte(p.Canonical() + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

func openTest(t testing.TB, opts Options) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, dir
}

// record builds the results of the given pipelines of job i; the values
// encode (job, pipeline) so that a test can check where each one landed.
func record(id string, sw *Sweep, job int, pipes ...int) Record {
	si, rep := sw.Job(job)
	r := Record{SweepID: id, Job: job, Draw: NewDrawKey(sw.Seed, sw.Scenarios[si]), Rep: rep}
	for _, p := range pipes {
		r.Pipes = append(r.Pipes, NewPipeKey(sw.Pipelines[p]))
		r.Results = append(r.Results, Result{R2: float64(job) + float64(p)/10, MSE: 1 / float64(job+1)})
	}
	return r
}

func put(t testing.TB, s *Store, sw *Sweep) string {
	t.Helper()
	id := testHash(sw)
	if err := s.PutSweep(SweepRecord{ID: id, Spec: sw, Submitted: time.Now()}); err != nil {
		t.Fatal(err)
	}
	return id
}

func scan(t *testing.T, s *Store, id string, sw *Sweep) (done []int, partial map[int][]int, failed map[int]string) {
	t.Helper()
	partial, failed = map[int][]int{}, map[int]string{}
	err := s.ScanSweep(id, sw, ScanFuncs{
		Done:    func(j int) { done = append(done, j) },
		Partial: func(j int, m []int) { partial[j] = m },
		Failed:  func(j int, m string) { failed[j] = m },
	})
	if err != nil {
		t.Fatal(err)
	}
	return done, partial, failed
}

// TestScanReconstructsProgress: progress comes from results alone, and an
// overlapping sweep with more pipelines sees the shared ones as stored.
func TestScanReconstructsProgress(t *testing.T) {
	s, _ := openTest(t, Options{})
	a := testSweep(t, []float64{0.1, 0.2, 0.3}, 2, "tree/mia", "tree/mean")
	ida := put(t, s, a)
	// jobs 0 and 4 complete, job 2 has only pipeline 1.
	if err := s.Commit([]Record{record(ida, a, 0, 0, 1), record(ida, a, 4, 0, 1), record(ida, a, 2, 1)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit([]Record{{SweepID: ida, Job: 5, Failure: "boom"}}); err != nil {
		t.Fatal(err)
	}
	done, partial, failed := scan(t, s, ida, a)
	if !equalInts(sorted(done), []int{0, 4}) || len(partial) != 1 || !equalInts(partial[2], []int{0}) || failed[5] != "boom" || len(failed) != 1 {
		t.Fatalf("done %v partial %v failed %v", done, partial, failed)
	}
	// Same scenarios, one more repetition, an extra pipeline: every stored
	// job becomes partial, missing only the new pipeline.
	b := testSweep(t, []float64{0.1, 0.2, 0.3}, 3, "tree/mean", "tree/mia", "svm/mean")
	idb := put(t, s, b)
	done, partial, failed = scan(t, s, idb, b)
	if len(done) != 0 || len(failed) != 0 || len(partial) != 3 || !equalInts(partial[0], []int{2}) || !equalInts(partial[2], []int{1, 2}) {
		t.Fatalf("overlap: done %v partial %v failed %v", done, partial, failed)
	}
	// A different seed shares nothing.
	c := testSweep(t, []float64{0.1, 0.2, 0.3}, 2, "tree/mia", "tree/mean")
	c.Seed = 7
	done, partial, _ = scan(t, s, put(t, s, c), c)
	if len(done)+len(partial) != 0 {
		t.Fatalf("other seed: done %v partial %v", done, partial)
	}
	// A later success clears the failure.
	if err := s.Commit([]Record{record(ida, a, 5, 0, 1)}); err != nil {
		t.Fatal(err)
	}
	if done, _, failed = scan(t, s, ida, a); len(failed) != 0 || len(done) != 3 {
		t.Fatalf("after retry: done %v failed %v", done, failed)
	}
	r, ok, err := s.Lookup(a, 4, 1)
	if err != nil || !ok || r.R2 != 4.1 || r.MSE != 0.2 {
		t.Fatalf("lookup job 4 pipeline 1: %+v %v %v", r, ok, err)
	}
}

func TestSweepLookupByPrefix(t *testing.T) {
	s, _ := openTest(t, Options{})
	sw := testSweep(t, []float64{0.1}, 1, "tree/mia")
	id := put(t, s, sw)
	for _, tc := range []struct {
		id   string
		want error
	}{{id, nil}, {id[:6], nil}, {"", ErrNotFound}, {"zz", ErrNotFound}} {
		rec, err := s.Sweep(tc.id)
		if !errors.Is(err, tc.want) || (err == nil && rec.ID != id) {
			t.Errorf("Sweep(%q) = %s, %v; want %v", tc.id, rec.ID, err, tc.want)
		}
	}
	// Two ids sharing a first hex digit make that digit ambiguous.
	for r := 0.2; ; r += 0.01 {
		other := testSweep(t, []float64{r}, 1, "tree/mia")
		if testHash(other)[0] == id[0] {
			put(t, s, other)
			break
		}
	}
	if _, err := s.Sweep(id[:1]); !errors.Is(err, ErrAmbiguous) {
		t.Errorf("one-digit prefix: %v, want ErrAmbiguous", err)
	}
	if err := s.SetCancelled(id, true); err != nil {
		t.Fatal(err)
	}
	if rec, _ := s.Sweep(id); !rec.Cancelled || rec.Spec.Scenarios[0].Canonical() != sw.Scenarios[0].Canonical() {
		t.Errorf("record after SetCancelled: %+v", rec)
	}
}

func TestSchemaVersionMismatchIsDetected(t *testing.T) {
	s, dir := openTest(t, Options{})
	if err := s.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(keySchema, []byte("misslab-store/99")) }); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Open(dir, Options{}); !errors.Is(err, ErrSchema) {
		t.Fatalf("open: %v, want ErrSchema", err)
	}
}

// TestWriterRetriesAndReportsWriteFailures simulates a full disk: a batch
// that fails is retried; one that keeps failing is reported whole and
// leaves earlier batches intact.
func TestWriterRetriesAndReportsWriteFailures(t *testing.T) {
	var failing atomic.Int32 // number of commits still to fail; -1 forever
	diskFull := errors.New("no space left on device")
	s, _ := openTest(t, Options{WriteHook: func() error {
		switch n := failing.Load(); {
		case n < 0:
			return diskFull
		case n > 0:
			failing.Add(-1)
			return diskFull
		}
		return nil
	}})
	sw := testSweep(t, []float64{0.1, 0.2}, 4, "tree/mia")
	id := put(t, s, sw)
	var mu sync.Mutex
	var reports []error
	w := s.NewWriter(WriterOptions{MaxBatch: 3, MaxDelay: time.Millisecond, Retries: 3, Backoff: time.Millisecond},
		func(recs []Record, err error) { mu.Lock(); reports = append(reports, err); mu.Unlock() })
	defer w.Close()
	ctx := context.Background()

	must(t, w.Enqueue(record(id, sw, 0, 0), record(id, sw, 1, 0)))
	must(t, w.Flush(ctx))
	failing.Store(2) // two failures, then success on the third attempt
	must(t, w.Enqueue(record(id, sw, 2, 0)))
	must(t, w.Flush(ctx))
	failing.Store(-1)
	must(t, w.Enqueue(record(id, sw, 3, 0), record(id, sw, 4, 0)))
	must(t, w.Flush(ctx))

	mu.Lock()
	defer mu.Unlock()
	if len(reports) != 3 || reports[0] != nil || reports[1] != nil || !errors.Is(reports[2], ErrWrite) || !errors.Is(reports[2], diskFull) {
		t.Fatalf("reports %v: want nil, nil (after retries), ErrWrite", reports)
	}
	done, _, _ := scan(t, s, id, sw)
	if !equalInts(sorted(done), []int{0, 1, 2}) {
		t.Fatalf("stored jobs %v, want [0 1 2]: the failed batch must leave nothing and keep the rest", done)
	}
	if n, _ := s.CountResults(); n != 3 {
		t.Fatalf("%d results stored, want 3", n)
	}
}

func TestExportCSVIsTidy(t *testing.T) {
	s, dir := openTest(t, Options{})
	sw := testSweep(t, []float64{0.1, 0.25}, 2, "tree/mia", "svm/mean")
	sw.Pipelines[1] = Pipeline{Name: "svm/mean", Settings: []Setting{{Key: "cost", Value: 2}}}
	id := put(t, s, sw)
	bad := record(id, sw, 1, 0, 1)
	bad.Results[1] = Result{ErrKind: "fit", ErrMsg: "did not converge"}
	must(t, s.Commit([]Record{record(id, sw, 0, 0, 1), bad, {SweepID: id, Job: 3, Failure: "lease expired"}}))
	path := filepath.Join(dir, "results.csv")
	must(t, s.ExportFile(path, id[:8]))
	raw, err := os.ReadFile(path)
	must(t, err)
	rows, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
	must(t, err)
	// jobs 0 and 1 (scenario 0 rep 0, scenario 1 rep 0) × 2 pipelines,
	// job 3 (scenario 1 rep 1) failed × 2 pipelines; 4 metrics each.
	if len(rows) != 1+3*2*4 {
		t.Fatalf("%d rows, want %d", len(rows), 1+3*2*4)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	var sawNA, sawFailed int
	for _, r := range rows[1:] {
		job := atoiT(t, r[col["rep"]])*2 + atoiT(t, r[col["scenario"]])
		if r[col["value"]] == "NA" {
			sawNA++
			if job == 3 && r[col["error"]] == "job: lease expired" {
				sawFailed++
			}
			continue
		}
		if r[col["metric"]] == "r2" {
			p := 0
			if r[col["pipeline"]] == "svm/mean{cost=2}" {
				p = 1
			}
			if v, _ := strconv.ParseFloat(r[col["value"]], 64); v != float64(job)+float64(p)/10 {
				t.Errorf("row %v: r2 %v, want %v", r, v, float64(job)+float64(p)/10)
			}
		}
		if r[col["rate"]] != "0.1" && r[col["rate"]] != "0.25" || r[col["columns"]] != "1;2;3" {
			t.Errorf("scenario columns of %v", r)
		}
	}
	if sawNA != 12 || sawFailed != 8 {
		t.Errorf("NA rows %d (want 4 pipeline error + 8 failed-job), failed-job rows %d", sawNA, sawFailed)
	}
}

func atoiT(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	must(t, err)
	return n
}

func sorted(x []int) []int {
	out := append([]int(nil), x...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
