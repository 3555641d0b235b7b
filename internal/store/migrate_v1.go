package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
	"google.golang.org/protobuf/proto"

	storev1 "github.com/misslab/misslab/proto/misslab/store/v1"
)

// This file reads schema misslab-store/1, frozen here as it was written by
// every release up to 24d2bfc (testdata/v1 holds a data directory of that
// release), and converts it to schema 2. Schema 1 stored the JSON of the
// coordinator's domain types, which had no JSON tags: the structs below
// spell their field names as they were, and must never change.
//
//	meta      "schema" → "misslab-store/1"; "lease-key" → 32 raw bytes;
//	          "fp-class" → the class as raw text (both may be absent)
//	sweeps    id → JSON v1SweepRecord
//	draws     DrawKey → JSON v1Draw
//	pipelines PipeKey → JSON v1Pipeline
//	results   key → a result of value version 1, 2 or 3 (decodeV1Result)
//	failures  key → the last error as raw text
//	tables    sha → JSON v1TableEntry (the bucket may be absent)
//
// Keys are the same in both schemas; the migration checks that every
// draw's and pipeline's key is the one its content derives, so a record
// whose conversion lost anything the keys depend on is refused.

type v1SweepRecord struct {
	ID        string    `json:"id"`
	Spec      *v1Sweep  `json:"spec"`
	Cancelled bool      `json:"cancelled"`
	Submitted time.Time `json:"submitted"`
}

type v1Sweep struct {
	Name        string
	Seed        uint64
	Repetitions int
	Scenarios   []v1Scenario
	Pipelines   []v1Pipeline
	TableFile   json.RawMessage // always null in a stored sweep
}

type v1Scenario struct {
	Model         string
	D             int
	Rho, Noise    float64
	NTrain, NTest int
	Mechanism     string
	Rate          float64
	Columns       []int
	Eta           float64
	Table         *v1Table
}

type v1Table struct {
	SHA256, Format, Name, Target string
	Drop, Categorical, NA        []string
	Folds                        int
	TestFraction                 float64
	Features                     []string
}

type v1Pipeline struct {
	Name     string
	Settings map[string]float64
	Methods  []v1Method
}

type v1Method struct {
	Name           string
	Kind           string
	AcceptsMissing bool
	ID             string
}

type v1Draw struct {
	Seed     uint64     `json:"seed"`
	Scenario v1Scenario `json:"scenario"`
}

type v1TableEntry struct {
	Size  int64  `json:"size"`
	Name  string `json:"name"`
	Added int64  `json:"added"`
}

// migrateV1 converts every record of a schema-1 file in place.
func migrateV1(tx *bolt.Tx) (map[string]int, error) {
	if _, err := tx.CreateBucketIfNotExists(bucketTables); err != nil {
		return nil, err
	}
	converters := []struct {
		bucket  []byte
		convert func(k, v []byte) (proto.Message, error)
	}{
		{bucketSweeps, v1SweepMessage}, {bucketDraws, v1DrawMessage}, {bucketPipelines, v1PipelineMessage},
		{bucketResults, v1ResultMessage}, {bucketFailures, v1FailureMessage}, {bucketTables, v1TableEntryMessage},
	}
	counts, done := map[string]uint64{}, map[string]int{}
	for _, c := range converters {
		n, err := rewrite(tx, c.bucket, c.convert)
		if err != nil {
			return nil, err
		}
		counts[string(c.bucket)], done[string(c.bucket)] = uint64(n), n
	}
	n, err := v1Meta(tx)
	if err != nil {
		return nil, err
	}
	done[string(bucketMeta)] = n
	return done, writeCounts(tx, counts)
}

// v1Meta converts meta "lease-key" and "fp-class" (raw in schema 1) and
// returns how many it converted.
func v1Meta(tx *bolt.Tx) (int, error) {
	m := tx.Bucket(bucketMeta)
	var recs []struct {
		key []byte
		msg proto.Message
	}
	if k := m.Get(keyLeaseKey); k != nil {
		if len(k) != leaseKeyLen {
			return 0, fmt.Errorf("%w: the lease key has %d bytes, want %d", ErrCorrupt, len(k), leaseKeyLen)
		}
		recs = append(recs, struct {
			key []byte
			msg proto.Message
		}{keyLeaseKey, &storev1.LeaseKey{Key: bytes.Clone(k)}})
	}
	if c := m.Get(keyFPClass); c != nil {
		recs = append(recs, struct {
			key []byte
			msg proto.Message
		}{keyFPClass, &storev1.FPClass{Class: string(c)}})
	}
	for _, r := range recs {
		v, err := marshal(bucketMeta, r.key, r.msg)
		if err != nil {
			return 0, err
		}
		if err := m.Put(r.key, v); err != nil {
			return 0, err
		}
	}
	return len(recs), nil
}

// strictJSON decodes v into out, refusing unknown fields and trailing
// data: a damaged name in a record is an error, not a zero field.
func strictJSON(v []byte, out any) error {
	d := json.NewDecoder(bytes.NewReader(v))
	d.DisallowUnknownFields()
	if err := d.Decode(out); err != nil {
		return err
	}
	if d.More() {
		return errors.New("data after the JSON value")
	}
	return nil
}

func v1SweepMessage(k, v []byte) (proto.Message, error) {
	var r v1SweepRecord
	if err := strictJSON(v, &r); err != nil {
		return nil, err
	}
	if r.ID != string(k) || r.Spec == nil {
		return nil, fmt.Errorf("the record has id %.12q and a spec: %v", r.ID, r.Spec != nil)
	}
	sw := &Sweep{Name: r.Spec.Name, Seed: r.Spec.Seed, Repetitions: r.Spec.Repetitions}
	for _, sc := range r.Spec.Scenarios {
		sw.Scenarios = append(sw.Scenarios, sc.record())
	}
	for _, p := range r.Spec.Pipelines {
		sw.Pipelines = append(sw.Pipelines, p.record())
	}
	submitted := r.Submitted
	if submitted.IsZero() {
		submitted = time.Unix(0, 0)
	}
	return sweepMessage(SweepRecord{ID: r.ID, Spec: sw, Cancelled: r.Cancelled, Submitted: submitted})
}

func (s v1Scenario) record() Scenario {
	sc := Scenario{Model: s.Model, D: s.D, Rho: s.Rho, Noise: s.Noise, NTrain: s.NTrain, NTest: s.NTest,
		Mechanism: s.Mechanism, Rate: s.Rate, Columns: s.Columns, Eta: s.Eta}
	if t := s.Table; t != nil {
		sc.Table = &Table{SHA256: t.SHA256, Format: t.Format, Name: t.Name, Target: t.Target, Drop: t.Drop,
			Categorical: t.Categorical, NA: t.NA, Folds: t.Folds, TestFraction: t.TestFraction, Features: t.Features}
	}
	return sc
}

func (p v1Pipeline) record() Pipeline {
	out := Pipeline{Name: p.Name}
	for _, k := range slices.Sorted(maps.Keys(p.Settings)) {
		out.Settings = append(out.Settings, Setting{Key: k, Value: p.Settings[k]})
	}
	for _, m := range p.Methods {
		out.Methods = append(out.Methods, Method{Name: m.Name, Kind: m.Kind, AcceptsMissing: m.AcceptsMissing, ID: m.ID})
	}
	return out
}

func v1DrawMessage(k, v []byte) (proto.Message, error) {
	var d v1Draw
	if err := strictJSON(v, &d); err != nil {
		return nil, err
	}
	sc := d.Scenario.record()
	if dk := NewDrawKey(d.Seed, sc); !bytes.Equal(dk[:], k) {
		return nil, fmt.Errorf("its content derives key %x", dk)
	}
	return drawMessage(d.Seed, sc), nil
}

func v1PipelineMessage(k, v []byte) (proto.Message, error) {
	var p v1Pipeline
	if err := strictJSON(v, &p); err != nil {
		return nil, err
	}
	rec := p.record()
	if pk := NewPipeKey(rec); !bytes.Equal(pk[:], k) {
		return nil, fmt.Errorf("pipeline %s derives key %x", rec.Canonical(), pk)
	}
	return pipelineMessage(rec), nil
}

func v1ResultMessage(k, v []byte) (proto.Message, error) {
	if len(k) != resultKeyLen {
		return nil, fmt.Errorf("a key of %d bytes, want %d", len(k), resultKeyLen)
	}
	r, err := decodeV1Result(v)
	if err != nil {
		return nil, err
	}
	return resultMessage(r), nil
}

func v1FailureMessage(k, v []byte) (proto.Message, error) {
	if len(k) != sweepIDLen+8 {
		return nil, fmt.Errorf("a key of %d bytes, want %d", len(k), sweepIDLen+8)
	}
	return failureMessage(string(v)), nil
}

func v1TableEntryMessage(k, v []byte) (proto.Message, error) {
	var t v1TableEntry
	if err := strictJSON(v, &t); err != nil {
		return nil, err
	}
	if !isTableHash(string(k)) || t.Size < 0 {
		return nil, fmt.Errorf("table %.12q of %d bytes", k, t.Size)
	}
	return &storev1.TableEntry{Size: t.Size, Name: bs(t.Name), AddedUnix: t.Added}, nil
}

// v1ResultTail is the number of float64s after a schema-1 result's
// strings, by value version: version 1 has none (and two strings, not
// three), version 2 the root threshold, version 3 also the MAE and the
// two imputation RMSEs.
var v1ResultTail = [4]int{1: 0, 2: 1, 3: 4}

// decodeV1Result reads a schema-1 result value: a version byte (1, 2 or
// 3); R², MSE, fit and predict seconds as big-endian float64 bits; the
// error kind and message (and from version 2 the root) as
// uvarint-length-prefixed strings; then the tail floats. Before version 3,
// MAE is 0 and the imputation RMSEs NaN (not measured).
func decodeV1Result(b []byte) (Result, error) {
	if len(b) < 33 || b[0] < 1 || b[0] > 3 {
		return Result{}, fmt.Errorf("a value of %d bytes that is no result (version byte %d)", len(b), firstByte(b))
	}
	ver := b[0]
	var f [4]float64
	for i := range f {
		f[i] = math.Float64frombits(binary.BigEndian.Uint64(b[1+8*i:]))
	}
	rest, strs := b[33:], make([]string, 3)
	if ver == 1 {
		strs = strs[:2]
	}
	for i := range strs {
		n, w := binary.Uvarint(rest)
		if w <= 0 || uint64(len(rest)-w) < n {
			return Result{}, errors.New("a result whose strings run past its end")
		}
		strs[i] = string(rest[w : w+int(n)])
		rest = rest[w+int(n):]
	}
	r := Result{R2: f[0], MSE: f[1], FitSeconds: f[2], PredictSeconds: f[3], ErrKind: strs[0], ErrMsg: strs[1],
		ImputeRMSETrain: math.NaN(), ImputeRMSETest: math.NaN()}
	if ver == 1 {
		return r, nil // schema 1 never checked the bytes after a version-1 value's strings
	}
	if len(rest) != 8*v1ResultTail[ver] {
		return Result{}, fmt.Errorf("a version-%d result with %d bytes after its strings, want %d", ver, len(rest), 8*v1ResultTail[ver])
	}
	var tail [4]float64
	for i := range v1ResultTail[ver] {
		tail[i] = math.Float64frombits(binary.BigEndian.Uint64(rest[8*i:]))
	}
	r.Root, r.RootThreshold = strs[2], tail[0]
	if ver == 3 {
		r.MAE, r.ImputeRMSETrain, r.ImputeRMSETest = tail[1], tail[2], tail[3]
	}
	return r, nil
}

func firstByte(b []byte) int {
	if len(b) == 0 {
		return -1
	}
	return int(b[0])
}
