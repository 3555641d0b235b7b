package store

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	storev1 "github.com/misslab/misslab/proto/misslab/store/v1"
)

var update = flag.Bool("update", false, "rewrite testdata/records.golden and testdata/keys.golden")

// goldenSweep is a simulated sweep with settings, an external method and
// the Bayes oracle, submitted at a fixed time.
func goldenSweep() SweepRecord {
	sc := quadratic(0.2)
	sc2 := sc
	sc2.Mechanism, sc2.Columns = "mnar", []int{0, 2}
	return SweepRecord{ID: strings.Repeat("5e", 32), Cancelled: true,
		Submitted: time.Date(2026, 11, 28, 19, 40, 1, 123456789, time.UTC),
		Spec: &Sweep{Name: "figure3", Seed: 1, Repetitions: 30, Scenarios: []Scenario{sc, sc2},
			Pipelines: []Pipeline{
				{Name: "tree/mia", Settings: []Setting{{Key: "cp", Value: 0.01}, {Key: "minbucket", Value: 7}}},
				{Name: "hgb/native", Methods: []Method{{Name: "hgb", Kind: "learner", AcceptsMissing: true, ID: strings.Repeat("3f", 32)}}},
				{Name: "bayes/oracle"},
			}}}
}

// classPipeline names an external learner that declares classification
// (Method.Tasks, field 5 of the stored Method) behind an external imputer.
func classPipeline() Pipeline {
	return Pipeline{Name: "logit/iterative", Methods: []Method{
		{Name: "logit", Kind: "learner", Tasks: "regression,classification", ID: strings.Repeat("4c", 32)},
		{Name: "iterative", Kind: "imputer", ID: strings.Repeat("1d", 32)}}}
}

// goldenRecords are one record of every kind with its bucket and key.
func goldenRecords(t *testing.T) []struct {
	name        string
	bucket, key []byte
	msg         proto.Message
} {
	sw := goldenSweep()
	tab := tableSweep(t)
	tab.Scenarios[1].Table = &Table{SHA256: tab.Scenarios[0].Table.SHA256, Format: "csv", Name: "other name.csv",
		Target: "Ozone", Folds: 3, Features: tab.Scenarios[0].Table.Features}
	swMsg, err := sweepMessage(sw)
	must(t, err)
	tabMsg, err := sweepMessage(SweepRecord{ID: strings.Repeat("7a", 32), Spec: tab, Submitted: time.Unix(1, 0)})
	must(t, err)
	dk, tk := NewDrawKey(1, sw.Spec.Scenarios[0]), NewDrawKey(9, tab.Scenarios[0])
	pk := NewPipeKey(sw.Spec.Pipelines[1])
	cp := classPipeline()
	cpk := NewPipeKey(cp)
	rk := resultKey(dk, 3, pk)
	payload := math.Float64frombits(0x7ff8000000000abc)
	return []struct {
		name        string
		bucket, key []byte
		msg         proto.Message
	}{
		{"sweep", bucketSweeps, []byte(sw.ID), swMsg},
		{"table-sweep", bucketSweeps, []byte(strings.Repeat("7a", 32)), tabMsg},
		{"draw", bucketDraws, dk[:], drawMessage(1, sw.Spec.Scenarios[0])},
		{"binary-draw", bucketDraws, dk[:], drawMessage(1, binaryScenario())},
		{"table-draw", bucketDraws, tk[:], drawMessage(9, tab.Scenarios[0])},
		{"pipeline", bucketPipelines, pk[:], pipelineMessage(sw.Spec.Pipelines[1])},
		{"class-pipeline", bucketPipelines, cpk[:], pipelineMessage(cp)},
		{"result", bucketResults, rk, resultMessage(Result{R2: 0.75, MSE: math.Copysign(0, -1), FitSeconds: 5e-324,
			PredictSeconds: math.MaxFloat64, Root: "M3", RootThreshold: math.Inf(-1), MAE: 0.1 + 0.2,
			ImputeRMSETrain: payload, ImputeRMSETest: math.NaN()})},
		{"failed-result", bucketResults, rk, resultMessage(Result{ErrKind: "method-crash", ErrMsg: "exit 3: \xff\xfe not UTF-8",
			ImputeRMSETrain: math.NaN(), ImputeRMSETest: math.NaN()})},
		{"class-result", bucketResults, rk, resultMessage(Result{R2: math.NaN(), MSE: math.NaN(), MAE: math.NaN(),
			FitSeconds: 0.25, PredictSeconds: 0.125, ImputeRMSETrain: 0.5, ImputeRMSETest: math.NaN(),
			Class: &ClassScores{LogLoss: 0.5, Brier: 0.125, AUC: 0.875, AUCHandTill: 0.875, Accuracy: 0.75,
				BalancedAccuracy: 0.7, ECE: 0.05, Reliability: []CalibrationBin{{}, {Count: 3, Correct: 2, Confidence: 1.75},
					{Count: 300, Correct: 299, Confidence: 299.5}}}})},
		{"failure", bucketFailures, failureKey(sw.ID, 17), failureMessage("worker w1: lease expired")},
		{"table", bucketTables, []byte(strings.Repeat("ab", 32)), &storev1.TableEntry{Size: 1147, Name: []byte("air.csv"), AddedUnix: 1795902001}},
		{"lease-key", bucketMeta, keyLeaseKey, &storev1.LeaseKey{Key: bytes.Repeat([]byte{0x42}, 32)}},
		{"fp-class", bucketMeta, keyFPClass, &storev1.FPClass{Class: "amd64 go1.26.8 scores/1"}},
		{"counts", bucketMeta, keyCounts, countsMessage(map[string]uint64{"results": 36, "sweeps": 3, "tables": 2})},
		{"history", bucketMeta, keyHistory, &storev1.History{Migrations: []*storev1.Migration{{From: "misslab-store/1",
			To: "misslab-store/2", AtUnix: 1795902001, Backup: "misslab.db.schema-1.20261128T194001.000000000Z.bak", Build: "(devel)"}}}},
	}
}

// countsMessage is the Counts message writeCounts writes.
func countsMessage(counts map[string]uint64) *storev1.Counts {
	m := &storev1.Counts{}
	for _, b := range dataBuckets {
		m.Buckets = append(m.Buckets, &storev1.BucketCount{Bucket: string(b), Records: counts[string(b)]})
	}
	return m
}

// TestRecordsGolden pins the bytes of every kind of stored value,
// frame included: a change to the encoding, to the store's messages or
// to the conversion of its record types fails here, and no change to a
// domain type can (the store does not import one).
func TestRecordsGolden(t *testing.T) {
	var b strings.Builder
	for _, r := range goldenRecords(t) {
		v, err := marshal(r.bucket, r.key, r.msg)
		must(t, err)
		fmt.Fprintf(&b, "%s %s %x %x\n", r.name, r.bucket, r.key, v)
	}
	golden(t, "records.golden", b.String())
}

// TestKeysGolden pins the canonical encodings and the keys they derive:
// changing either changes where every result is stored.
func TestKeysGolden(t *testing.T) {
	var b strings.Builder
	sw := goldenSweep()
	scs := append(sw.Spec.Scenarios, tableSweep(t).Scenarios...)
	multi := tableSweep(t).Scenarios[1]
	multi.Task = "multiclass"
	scs = append(scs, binaryScenario(), multi)
	for _, sc := range scs {
		k := NewDrawKey(sw.Spec.Seed, sc)
		fmt.Fprintf(&b, "draw %x %s\n", k, sc.Canonical())
	}
	for _, p := range sw.Spec.Pipelines {
		k := NewPipeKey(p)
		fmt.Fprintf(&b, "pipe %x %s\n", k, p.Canonical())
	}
	golden(t, "keys.golden", b.String())
}

// golden compares got with testdata/name (rewritten with -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		must(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	must(t, err)
	if got != string(want) {
		t.Errorf("%s differs (a change of the on-disk format needs a schema migration; -update rewrites it):\n got:\n%s\nwant:\n%s", path, got, want)
	}
}

// TestRecordsRoundTrip: every record type converts to its message and
// back unchanged, floats bit for bit and text byte for byte.
func TestRecordsRoundTrip(t *testing.T) {
	sw := goldenSweep()
	for _, rec := range []SweepRecord{sw, {ID: strings.Repeat("7a", 32), Spec: tableSweep(t), Submitted: time.Unix(1, 5).UTC()}} {
		m, err := sweepMessage(rec)
		must(t, err)
		got, err := sweepRecord(rec.ID, roundTrip(t, m).(*storev1.Sweep))
		must(t, err)
		if !sameSweep(got, rec) {
			t.Errorf("sweep round trip:\n got %+v\nwant %+v", got.Spec, rec.Spec)
		}
	}
	for _, p := range append(goldenSweep().Spec.Pipelines, classPipeline()) {
		if got := pipelineRecord(roundTrip(t, pipelineMessage(p)).(*storev1.Pipeline)); !reflect.DeepEqual(got, p) {
			t.Errorf("pipeline round trip:\n got %+v\nwant %+v", got, p)
		}
	}
	for _, r := range goldenRecords(t) {
		if res, ok := r.msg.(*storev1.Result); ok {
			back := resultMessage(resultRecord(roundTrip(t, res).(*storev1.Result)))
			if !proto.Equal(back, res) || math.Float64bits(back.ImputeRmseTrain) != math.Float64bits(res.ImputeRmseTrain) ||
				math.Float64bits(back.Mse) != math.Float64bits(res.Mse) {
				t.Errorf("%s: result round trip changed it: %v, want %v", r.name, back, res)
			}
		}
	}
}

// sameSweep compares two records field by field (tables by value).
func sameSweep(a, b SweepRecord) bool {
	return a.ID == b.ID && a.Cancelled == b.Cancelled && a.Submitted.Equal(b.Submitted) && reflect.DeepEqual(a.Spec, b.Spec)
}

// roundTrip encodes m and decodes it into a new message of its type.
func roundTrip(t *testing.T, m proto.Message) proto.Message {
	t.Helper()
	v, err := marshal([]byte("b"), []byte("k"), m)
	must(t, err)
	out := m.ProtoReflect().New().Interface()
	must(t, unmarshal([]byte("b"), []byte("k"), v, out))
	return out
}

// TestFrameDetectsEveryByte: changing any byte of a value, of its key or
// of its bucket's name is an error, never another value.
func TestFrameDetectsEveryByte(t *testing.T) {
	for _, r := range goldenRecords(t) {
		v, err := marshal(r.bucket, r.key, r.msg)
		must(t, err)
		for i := range v {
			for _, mask := range []byte{0x01, 0x80, 0xff} {
				bad := bytes.Clone(v)
				bad[i] ^= mask
				if _, err := unframe(r.bucket, r.key, bad); !errors.Is(err, errFrame) {
					t.Fatalf("%s: byte %d ^ %#x of the value: %v, want errFrame", r.name, i, mask, err)
				}
			}
		}
		for i := range r.key {
			k := bytes.Clone(r.key)
			k[i] ^= 0x01
			if _, err := unframe(r.bucket, k, v); !errors.Is(err, errFrame) {
				t.Fatalf("%s: byte %d of the key: %v, want errFrame", r.name, i, err)
			}
		}
		if _, err := unframe([]byte("other"), r.key, v); !errors.Is(err, errFrame) {
			t.Errorf("%s read from another bucket: %v, want errFrame", r.name, err)
		}
		if _, err := unframe(r.bucket, r.key, v[:3]); !errors.Is(err, errFrame) {
			t.Errorf("%s cut to 3 bytes: %v, want errFrame", r.name, err)
		}
	}
}

// TestGoldenFilesListEveryRecordKind: the golden file has a line per
// record kind (so a new kind cannot be added without pinning it).
func TestGoldenFilesListEveryRecordKind(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "records.golden"))
	must(t, err)
	defer f.Close()
	kinds := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		kinds[strings.Fields(sc.Text())[0]] = true
	}
	for _, want := range []string{"sweep", "draw", "pipeline", "result", "failure", "table", "lease-key", "fp-class", "counts", "history"} {
		if !kinds[want] {
			t.Errorf("records.golden has no %s record", want)
		}
	}
}

// binaryScenario is the quadratic model's binary task.
func binaryScenario() Scenario {
	sc := quadratic(0.2)
	sc.Noise, sc.Task, sc.Scale, sc.Threshold = 0, "binary", 0.782, 4.196736642916117
	return sc
}
