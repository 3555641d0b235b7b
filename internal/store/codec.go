package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"
	"time"

	"google.golang.org/protobuf/proto"

	storev1 "github.com/misslab/misslab/proto/misslab/store/v1"
)

// This file is the one place where the store's record types become bytes
// and back: each value is a message of proto/misslab/store/v1 (encoded
// deterministically) followed by a 4-byte frame, the big-endian CRC-32C
// (Castagnoli) of the bucket's name, a zero byte, the key and the
// message. The CRC detects every change of up to 32 consecutive bits, so
// any single damaged byte of a value or its key, including a key whose
// damage moved its record elsewhere in the bucket, is reported on read,
// never returned as data. testdata/records.golden pins the bytes.

// frameLen is the length of a value's frame (its CRC-32C).
const frameLen = 4

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errFrame is the cause of a value whose frame does not match.
var errFrame = errors.New("checksum mismatch")

// checksum returns the CRC-32C of bucket, a zero byte, key and payload.
func checksum(bucket, key, payload []byte) uint32 {
	c := crc32.Update(0, castagnoli, bucket)
	c = crc32.Update(c, castagnoli, []byte{0})
	c = crc32.Update(c, castagnoli, key)
	return crc32.Update(c, castagnoli, payload)
}

// frame returns payload followed by its frame.
func frame(bucket, key, payload []byte) []byte {
	return binary.BigEndian.AppendUint32(payload, checksum(bucket, key, payload))
}

// unframe returns the payload of value v stored under key in bucket, or
// errFrame (wrapped) if the frame does not match.
func unframe(bucket, key, v []byte) ([]byte, error) {
	if len(v) < frameLen {
		return nil, fmt.Errorf("%w: %d bytes, shorter than a frame", errFrame, len(v))
	}
	payload := v[:len(v)-frameLen]
	if binary.BigEndian.Uint32(v[len(payload):]) != checksum(bucket, key, payload) {
		return nil, errFrame
	}
	return payload, nil
}

// marshal encodes m deterministically, framed for bucket and key.
func marshal(bucket, key []byte, m proto.Message) ([]byte, error) {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		return nil, err
	}
	return frame(bucket, key, b), nil
}

// unmarshal checks value v's frame and decodes its message into m.
func unmarshal(bucket, key, v []byte, m proto.Message) error {
	payload, err := unframe(bucket, key, v)
	if err != nil {
		return err
	}
	if err := proto.Unmarshal(payload, m); err != nil {
		return fmt.Errorf("does not decode: %w", err)
	}
	return nil
}

// sweepMessage converts a sweep record (its id is the key, not a field).
func sweepMessage(rec SweepRecord) (*storev1.Sweep, error) {
	sw := rec.Spec
	m := &storev1.Sweep{Name: bs(sw.Name), Seed: sw.Seed, Repetitions: int64(sw.Repetitions),
		Cancelled: rec.Cancelled, SubmittedUnixNano: rec.Submitted.UnixNano()}
	if len(sw.Scenarios) > 0 && sw.Scenarios[0].Table != nil {
		m.Table = tableMessage(sw.Scenarios[0].Table)
	}
	for i, sc := range sw.Scenarios {
		if (sc.Table == nil) != (m.Table == nil) {
			return nil, fmt.Errorf("store: sweep %s: scenario %d and scenario 0 do not both read a table", shortID(rec.ID), i)
		}
		sm := scenarioMessage(sc)
		if sc.Table != nil && !sameTable(sc.Table, sw.Scenarios[0].Table) {
			sm.ReadsTable, sm.Table = false, tableMessage(sc.Table)
		}
		m.Scenarios = append(m.Scenarios, sm)
	}
	for _, p := range sw.Pipelines {
		m.Pipelines = append(m.Pipelines, pipelineMessage(p))
	}
	return m, nil
}

// sweepRecord converts a decoded sweep stored under id.
func sweepRecord(id string, m *storev1.Sweep) (SweepRecord, error) {
	sw := &Sweep{Name: string(m.GetName()), Seed: m.GetSeed(), Repetitions: int(m.GetRepetitions())}
	var table *Table
	if m.Table != nil {
		table = tableRecord(m.GetTable())
	}
	for i, s := range m.GetScenarios() {
		if s.GetReadsTable() && table == nil {
			return SweepRecord{}, fmt.Errorf("scenario %d reads the sweep's table, but the sweep has none", i)
		}
		sw.Scenarios = append(sw.Scenarios, scenarioRecord(s, table))
	}
	for _, p := range m.GetPipelines() {
		sw.Pipelines = append(sw.Pipelines, pipelineRecord(p))
	}
	return SweepRecord{ID: id, Spec: sw, Cancelled: m.GetCancelled(),
		Submitted: time.Unix(0, m.GetSubmittedUnixNano()).UTC()}, nil
}

func scenarioMessage(sc Scenario) *storev1.Scenario {
	return &storev1.Scenario{Model: sc.Model, D: int64(sc.D), Rho: sc.Rho, Noise: sc.Noise,
		NTrain: int64(sc.NTrain), NTest: int64(sc.NTest), Mechanism: sc.Mechanism, Rate: sc.Rate,
		Columns: ints64(sc.Columns), Eta: sc.Eta, ReadsTable: sc.Table != nil,
		Task: sc.Task, Scale: sc.Scale, Threshold: sc.Threshold}
}

func scenarioRecord(m *storev1.Scenario, table *Table) Scenario {
	sc := Scenario{Model: m.GetModel(), D: int(m.GetD()), Rho: m.GetRho(), Noise: m.GetNoise(),
		NTrain: int(m.GetNTrain()), NTest: int(m.GetNTest()), Mechanism: m.GetMechanism(), Rate: m.GetRate(),
		Eta: m.GetEta(), Task: m.GetTask(), Scale: m.GetScale(), Threshold: m.GetThreshold()}
	if len(m.GetColumns()) > 0 {
		sc.Columns = make([]int, len(m.GetColumns()))
		for i, c := range m.GetColumns() {
			sc.Columns[i] = int(c)
		}
	}
	switch {
	case m.Table != nil:
		sc.Table = tableRecord(m.GetTable())
	case m.GetReadsTable():
		sc.Table = table
	}
	return sc
}

func ints64(v []int) []int64 {
	if len(v) == 0 {
		return nil
	}
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}

func tableMessage(t *Table) *storev1.Table {
	return &storev1.Table{Sha256: t.SHA256, Format: t.Format, Name: bs(t.Name), Target: bs(t.Target),
		Drop: bss(t.Drop), Categorical: bss(t.Categorical), Na: bss(t.NA), Folds: int64(t.Folds),
		TestFraction: t.TestFraction, Features: bss(t.Features)}
}

func tableRecord(m *storev1.Table) *Table {
	return &Table{SHA256: m.GetSha256(), Format: m.GetFormat(), Name: string(m.GetName()), Target: string(m.GetTarget()),
		Drop: strs(m.GetDrop()), Categorical: strs(m.GetCategorical()), NA: strs(m.GetNa()), Folds: int(m.GetFolds()),
		TestFraction: m.GetTestFraction(), Features: strs(m.GetFeatures())}
}

// sameTable reports whether two tables are stored the same.
func sameTable(a, b *Table) bool {
	return a == b || proto.Equal(tableMessage(a), tableMessage(b))
}

func pipelineMessage(p Pipeline) *storev1.Pipeline {
	m := &storev1.Pipeline{Name: p.Name}
	for _, s := range p.Settings {
		m.Settings = append(m.Settings, &storev1.Setting{Key: s.Key, Value: s.Value})
	}
	slices.SortFunc(m.Settings, func(a, b *storev1.Setting) int {
		switch {
		case a.Key < b.Key:
			return -1
		case a.Key > b.Key:
			return 1
		}
		return 0
	})
	for _, x := range p.Methods {
		m.Methods = append(m.Methods, &storev1.Method{Name: x.Name, Kind: x.Kind, AcceptsMissing: x.AcceptsMissing, Id: x.ID, Tasks: x.Tasks})
	}
	return m
}

func pipelineRecord(m *storev1.Pipeline) Pipeline {
	p := Pipeline{Name: m.GetName()}
	for _, s := range m.GetSettings() {
		p.Settings = append(p.Settings, Setting{Key: s.GetKey(), Value: s.GetValue()})
	}
	for _, x := range m.GetMethods() {
		p.Methods = append(p.Methods, Method{Name: x.GetName(), Kind: x.GetKind(), AcceptsMissing: x.GetAcceptsMissing(), ID: x.GetId(),
			Tasks: x.GetTasks()})
	}
	return p
}

func drawMessage(seed uint64, sc Scenario) *storev1.Draw {
	m := &storev1.Draw{Seed: seed, Scenario: scenarioMessage(sc)}
	if sc.Table != nil {
		m.Table = tableMessage(sc.Table)
	}
	return m
}

func resultMessage(r Result) *storev1.Result {
	m := &storev1.Result{R2: r.R2, Mse: r.MSE, FitSeconds: r.FitSeconds, PredictSeconds: r.PredictSeconds,
		ErrorKind: bs(truncate(r.ErrKind, maxKindText)), ErrorMessage: bs(truncate(r.ErrMsg, maxErrText)),
		Root: bs(truncate(r.Root, maxKindText)), RootThreshold: r.RootThreshold, Mae: r.MAE,
		ImputeRmseTrain: r.ImputeRMSETrain, ImputeRmseTest: r.ImputeRMSETest}
	if c := r.Class; c != nil {
		m.Class = &storev1.ClassScores{LogLoss: c.LogLoss, Brier: c.Brier, Auc: c.AUC, AucHandTill: c.AUCHandTill,
			Accuracy: c.Accuracy, BalancedAccuracy: c.BalancedAccuracy, Ece: c.ECE}
		for _, b := range c.Reliability {
			m.Class.Reliability = append(m.Class.Reliability,
				&storev1.CalibrationBin{Count: b.Count, Correct: b.Correct, Confidence: b.Confidence})
		}
	}
	return m
}

func resultRecord(m *storev1.Result) Result {
	r := Result{R2: m.GetR2(), MSE: m.GetMse(), FitSeconds: m.GetFitSeconds(), PredictSeconds: m.GetPredictSeconds(),
		ErrKind: string(m.GetErrorKind()), ErrMsg: string(m.GetErrorMessage()), Root: string(m.GetRoot()), RootThreshold: m.GetRootThreshold(),
		MAE: m.GetMae(), ImputeRMSETrain: m.GetImputeRmseTrain(), ImputeRMSETest: m.GetImputeRmseTest()}
	if c := m.GetClass(); c != nil {
		r.Class = &ClassScores{LogLoss: c.GetLogLoss(), Brier: c.GetBrier(), AUC: c.GetAuc(), AUCHandTill: c.GetAucHandTill(),
			Accuracy: c.GetAccuracy(), BalancedAccuracy: c.GetBalancedAccuracy(), ECE: c.GetEce()}
		for _, b := range c.GetReliability() {
			r.Class.Reliability = append(r.Class.Reliability,
				CalibrationBin{Count: b.GetCount(), Correct: b.GetCorrect(), Confidence: b.GetConfidence()})
		}
	}
	return r
}

// Text bounds of a stored result, so that a worker cannot bloat the store
// with one message: an error message keeps its first 4096 bytes, an error
// kind and a root name their first 64.
const (
	maxErrText  = 4096
	maxKindText = 64
)

// encodeResult returns the value of a result stored under key k (see
// resultcodec.go).
func encodeResult(k []byte, r Result) []byte {
	return frame(bucketResults, k, appendResult(make([]byte, 0, 128), r))
}

// decodeResult decodes the value v of results key k.
func decodeResult(k, v []byte) (Result, error) {
	payload, err := unframe(bucketResults, k, v)
	if err != nil {
		return Result{}, err
	}
	return parseResult(payload)
}

// bs returns s as the bytes of a text field, nil when empty.
func bs(s string) []byte {
	if s == "" {
		return nil
	}
	return []byte(s)
}

// bss returns v as a repeated text field.
func bss(v []string) [][]byte {
	if len(v) == 0 {
		return nil
	}
	out := make([][]byte, len(v))
	for i, s := range v {
		out[i] = []byte(s)
	}
	return out
}

// strs returns a repeated text field as strings, nil when empty.
func strs(v [][]byte) []string {
	if len(v) == 0 {
		return nil
	}
	out := make([]string, len(v))
	for i, b := range v {
		out[i] = string(b)
	}
	return out
}

// truncate returns s cut to at most n bytes.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// decodeFailure decodes the value v of failures key k: the job's last
// error.
func decodeFailure(k, v []byte) (string, error) {
	var m storev1.Failure
	if err := unmarshal(bucketFailures, k, v, &m); err != nil {
		return "", err
	}
	return string(m.GetMessage()), nil
}

// failureMessage is the stored form of a job's last error.
func failureMessage(msg string) *storev1.Failure {
	return &storev1.Failure{Message: bs(truncate(msg, maxErrText))}
}

// drawRecord converts a decoded draw: its seed and scenario.
func drawRecord(m *storev1.Draw) (uint64, Scenario) {
	var table *Table
	if m.Table != nil {
		table = tableRecord(m.GetTable())
	}
	return m.GetSeed(), scenarioRecord(m.GetScenario(), table)
}
