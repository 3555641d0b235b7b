package store

import (
	"fmt"
	"strconv"
	"strings"
)

// The whole on-disk layout of schema misslab-store/2 lives here; the
// values are the messages of proto/misslab/store/v1, each framed with a
// CRC-32C of bucket, key and bytes (codec.go). Every bucket is top-level.
//
//	meta      "schema"                      → SchemaVersion, plain text, unframed
//	meta      "counts"                      → Counts: records per data bucket
//	meta      "lease-key"                   → LeaseKey: 32 random bytes, made once
//	meta      "fp-class"                    → FPClass of the stored results
//	meta      "history"                     → History of the schema migrations
//	sweeps    sweep id (64 hex bytes)       → Sweep
//	draws     DrawKey (16)                  → Draw {seed, scenario, table}
//	pipelines PipeKey (8)                   → Pipeline
//	results   DrawKey | unit u32 BE | PipeKey (28) → Result
//	failures  sweep id (64) | job u64 BE    → Failure {last error text}
//	tables    SHA-256 (64 lowercase hex)    → TableEntry {size, name, added}
//
// A table's bytes are not in the bbolt file: they are the file
// tables/<sha256> in the data directory (next to FileName), written before
// its record (temporary file, fsync, rename; see PutTable).
//
// A result's key depends only on (seed, scenario canonical encoding,
// unit, pipeline canonical encoding; keys.go), never on the sweep or file
// it came from, so overlapping sweeps share results pipeline by pipeline.
// Sweep progress is not stored: it is recomputed from results and
// failures when a sweep is loaded, so a crash loses nothing but the
// uncommitted batch.
//
// Integrity: every value but the schema's is framed, and meta "counts"
// holds how many records each data bucket has, updated in the same
// transaction as the records. Every open walks the file's pages
// (verify.go) and checks each value's frame and each bucket's count, so a
// damaged byte anywhere in a reachable page is reported (ErrCorrupt),
// never read as data, and a record lost from a page is noticed.
//
// Schema history: misslab-store/1 kept JSON encodings of the
// coordinator's domain types and unframed values (migrate_v1.go reads
// it); Open migrates an older file forward (migrate.go).
var (
	bucketMeta      = []byte("meta")
	bucketSweeps    = []byte("sweeps")
	bucketDraws     = []byte("draws")
	bucketPipelines = []byte("pipelines")
	bucketResults   = []byte("results")
	bucketFailures  = []byte("failures")
	bucketTables    = []byte("tables")

	// dataBuckets are the buckets whose records meta "counts" counts, in
	// the order of Counts.buckets (sorted by name).
	dataBuckets = [][]byte{bucketDraws, bucketFailures, bucketPipelines, bucketResults, bucketSweeps, bucketTables}
	allBuckets  = append([][]byte{bucketMeta}, dataBuckets...)

	keySchema   = []byte("schema")
	keyCounts   = []byte("counts")
	keyLeaseKey = []byte("lease-key")
	keyFPClass  = []byte("fp-class")
	keyHistory  = []byte("history")
)

// schemaPrefix is the part of a schema version before its number.
const schemaPrefix = "misslab-store/"

// SchemaVersion is the schema this build writes. Open migrates a file of
// an older schema to it (see migrations) and refuses one of a newer
// schema with ErrSchema, naming both.
const SchemaVersion = schemaPrefix + "2"

// schemaNumber returns the number of schema version v ("misslab-store/2"
// → 2), or false if v is not a schema version.
func schemaNumber(v string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(v, schemaPrefix))
	if err != nil || !strings.HasPrefix(v, schemaPrefix) || n < 1 || strconv.Itoa(n) != v[len(schemaPrefix):] {
		return 0, false
	}
	return n, true
}

// currentSchema is SchemaVersion's number.
var currentSchema, _ = schemaNumber(SchemaVersion)

// schemaError is the ErrSchema error for a file whose schema this build
// cannot open: v is what the file holds.
func schemaError(path, v string) error {
	n, ok := schemaNumber(v)
	switch {
	case !ok:
		return fmt.Errorf("%w: %s holds schema %.80q, which no misslab writes (this build reads %s and older)", ErrSchema, path, v, SchemaVersion)
	case n > currentSchema:
		return fmt.Errorf("%w: %s has schema %s, written by a newer misslab; this build reads up to %s: use that newer build, "+
			"or a data directory of its own for this one", ErrSchema, path, v, SchemaVersion)
	}
	return fmt.Errorf("%w: %s has schema %s, older than this build's %s: open it read-write once (coordinator serve or run) to migrate it",
		ErrSchema, path, v, SchemaVersion)
}
