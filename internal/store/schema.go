package store

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/sim"
)

// The whole on-disk layout lives in this file. Every bucket is top-level.
//
//	meta      "schema"                      → SchemaVersion
//	meta      "lease-key"                   → 32 random bytes, made once (see LeaseKey)
//	meta      "fp-class"                    → floating-point class of the stored results
//	                                          (see FPClass; absent before it was recorded)
//	sweeps    sweep id (64 hex bytes)       → JSON sweepRecord
//	draws     DrawKey (16)                  → JSON drawRecord {seed, scenario}
//	pipelines PipeKey (8)                   → JSON grid.Pipeline
//	results   DrawKey | rep u32 BE | PipeKey (28) → encoded Result (version 3;
//	                                                 versions 1 and 2 still decode,
//	                                                 see decodeResult)
//	failures  sweep id (64) | job u64 BE    → last error text
//	tables    SHA-256 (64 lowercase hex)    → JSON tableRecord {size, name, added}
//
// A table's bytes are not in the bbolt file: they are the file
// tables/<sha256> in the data directory (next to FileName), written before
// its record (temporary file, fsync, rename; see PutTable). The tables
// bucket is the one bucket not made on open: the first PutTable creates it,
// and every reader takes a missing bucket for "no table", so a store from
// before tables opens (also read-only) unchanged and SchemaVersion stays.
//
// A result's key depends only on (seed, scenario canonical encoding,
// repetition, pipeline canonical name), never on the sweep or file it
// came from, so overlapping sweeps share results pipeline by pipeline.
// Sweep progress is not stored: it is recomputed from results and
// failures when a sweep is loaded, so a crash loses nothing but the
// uncommitted batch.
var (
	bucketMeta      = []byte("meta")
	bucketSweeps    = []byte("sweeps")
	bucketDraws     = []byte("draws")
	bucketPipelines = []byte("pipelines")
	bucketResults   = []byte("results")
	bucketFailures  = []byte("failures")
	bucketTables    = []byte("tables") // made by the first PutTable, not in allBuckets

	allBuckets = [][]byte{bucketMeta, bucketSweeps, bucketDraws, bucketPipelines, bucketResults, bucketFailures}

	keySchema   = []byte("schema")
	keyLeaseKey = []byte("lease-key")
	keyFPClass  = []byte("fp-class")
)

// SchemaVersion is written once into a new store; Open refuses a store
// with any other value (ErrSchema) rather than misread it.
const SchemaVersion = "misslab-store/1"

// resultVersion is the first byte of every encoded Result. Version 2 adds
// the root split after the error message, version 3 the MAE and the two
// imputation RMSEs after the root threshold; versions 1 and 2 are still
// read.
const resultVersion = 3

// DrawKey identifies the data a job draws: SHA-256 of the seed and the
// scenario's canonical encoding, truncated to 16 bytes.
type DrawKey [16]byte

// PipeKey identifies a pipeline: SHA-256 of its canonical name, truncated
// to 8 bytes.
type PipeKey [8]byte

// NewDrawKey returns the key of (seed, scenario).
func NewDrawKey(seed uint64, sc sim.Scenario) DrawKey {
	h := sha256.Sum256([]byte("seed=" + strconv.FormatUint(seed, 10) + "\x00" + sc.Canonical()))
	var k DrawKey
	copy(k[:], h[:])
	return k
}

// NewPipeKey returns the key of a pipeline.
func NewPipeKey(p grid.Pipeline) PipeKey {
	h := sha256.Sum256([]byte(p.Canonical()))
	var k PipeKey
	copy(k[:], h[:])
	return k
}

const (
	jobKeyLen    = 16 + 4
	resultKeyLen = jobKeyLen + 8
	sweepIDLen   = 64
)

func jobKey(d DrawKey, rep int) []byte {
	k := make([]byte, jobKeyLen, resultKeyLen)
	copy(k, d[:])
	binary.BigEndian.PutUint32(k[16:], uint32(rep))
	return k
}

func resultKey(d DrawKey, rep int, p PipeKey) []byte {
	return append(jobKey(d, rep), p[:]...)
}

func failureKey(sweepID string, job int) []byte {
	k := make([]byte, 0, sweepIDLen+8)
	k = append(k, sweepID...)
	return binary.BigEndian.AppendUint64(k, uint64(job))
}

// Result is the stored outcome of one pipeline on one job. ErrKind is
// empty on success; otherwise the numbers are zero and ErrMsg says why.
//
// MAE is the mean absolute error on the test set, in the target's units.
// ImputeRMSETrain and ImputeRMSETest are the RMSE of the imputed values
// on the training and test sets (each column standardised by its training
// sd), NaN when not applicable (the pipeline does not impute, or no
// imputed entry has a known truth). A result stored before version 3 reads
// back with MAE 0 (what a worker that does not measure it sends) and both
// imputation RMSEs NaN.
type Result struct {
	R2, MSE                         float64
	FitSeconds, PredictSeconds      float64 // wall-clock seconds
	ErrKind, ErrMsg                 string
	Root                            string  // a tree's first split variable ("X1"), or empty
	RootThreshold                   float64 // its threshold
	MAE                             float64 // mean absolute error on the test set
	ImputeRMSETrain, ImputeRMSETest float64 // NaN: not applicable
}

// maxErrText bounds the error text kept per result, so a worker cannot
// bloat the store with one message.
const maxErrText = 4096

func encodeResult(r Result) []byte {
	kind, msg, root := truncate(r.ErrKind, 64), truncate(r.ErrMsg, maxErrText), truncate(r.Root, 64)
	b := make([]byte, 0, 1+64+3*binary.MaxVarintLen64+len(kind)+len(msg)+len(root))
	b = append(b, resultVersion)
	for _, v := range []float64{r.R2, r.MSE, r.FitSeconds, r.PredictSeconds} {
		b = binary.BigEndian.AppendUint64(b, math.Float64bits(v))
	}
	for _, s := range []string{kind, msg, root} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	for _, v := range []float64{r.RootThreshold, r.MAE, r.ImputeRMSETrain, r.ImputeRMSETest} {
		b = binary.BigEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

// errCorrupt is the error of a result value that does not decode.
var errCorrupt = fmt.Errorf("%w: a result value does not decode", ErrCorrupt)

// tailFloats is the number of float64s after the strings, by version.
var tailFloats = [resultVersion + 1]int{1: 0, 2: 1, 3: 4}

// decodeResult reads a Result of any version: version 1 has no root split
// (two strings, nothing after them), version 2 the root and its threshold,
// version 3 also MAE and the imputation RMSEs. Before version 3, MAE is 0
// and the imputation RMSEs are NaN (not measured).
func decodeResult(b []byte) (Result, error) {
	if len(b) < 33 || b[0] < 1 || b[0] > resultVersion {
		return Result{}, fmt.Errorf("%w (%d bytes)", errCorrupt, len(b))
	}
	v := b[0]
	var f [4]float64
	for i := range f {
		f[i] = math.Float64frombits(binary.BigEndian.Uint64(b[1+8*i:]))
	}
	rest := b[33:]
	strs := make([]string, 3)
	if v == 1 {
		strs = strs[:2]
	}
	for i := range strs {
		n, w := binary.Uvarint(rest)
		if w <= 0 || uint64(len(rest)-w) < n {
			return Result{}, errCorrupt
		}
		strs[i] = string(rest[w : w+int(n)])
		rest = rest[w+int(n):]
	}
	r := Result{R2: f[0], MSE: f[1], FitSeconds: f[2], PredictSeconds: f[3], ErrKind: strs[0], ErrMsg: strs[1],
		ImputeRMSETrain: math.NaN(), ImputeRMSETest: math.NaN()}
	if v == 1 {
		return r, nil // as before version 2, bytes after the strings are not checked
	}
	if len(rest) != 8*tailFloats[v] {
		return Result{}, errCorrupt
	}
	var tail [4]float64
	for i := range tailFloats[v] {
		tail[i] = math.Float64frombits(binary.BigEndian.Uint64(rest[8*i:]))
	}
	r.Root, r.RootThreshold = strs[2], tail[0]
	if v >= 3 {
		r.MAE, r.ImputeRMSETrain, r.ImputeRMSETest = tail[1], tail[2], tail[3]
	}
	return r, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
