package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/misslab/misslab/internal/atomicfile"
	storev1 "github.com/misslab/misslab/proto/misslab/store/v1"
)

// Sentinel errors of the table store (see PutTable and TablePath).
var (
	// ErrBadTableHash: a table hash is not 64 lowercase hex digits (a
	// crafted hash such as "../x" never becomes a path).
	ErrBadTableHash = errors.New("store: malformed table hash")
	// ErrTableMismatch: the bytes given to PutTable do not have the
	// announced size or SHA-256; nothing was kept.
	ErrTableMismatch = errors.New("store: table bytes do not match the announced size or hash")
	// ErrNoTable: the store holds no table of that hash, or its file is
	// missing or has the wrong size (a damaged table, which an upload of
	// the same table replaces).
	ErrNoTable = errors.New("store: table not found")
)

// TablesDir is the directory, inside a data directory, of the table files
// (one per table, named by its SHA-256).
const TablesDir = "tables"

// tableChunk is the size of one read of PutTable.
const tableChunk = 1 << 20

// CheckTableHash returns an error wrapping ErrBadTableHash unless sha is a
// hex SHA-256 in lowercase (64 characters of 0-9a-f).
func CheckTableHash(sha string) error {
	if !isTableHash(sha) {
		return fmt.Errorf("%w: %.80q is not 64 lowercase hex digits", ErrBadTableHash, sha)
	}
	return nil
}

// tablesDir is the directory of the table files: next to the bbolt file.
func (s *Store) tablesDir() string { return filepath.Join(s.dataDir, TablesDir) }

// PutTable keeps the table read from r, whose SHA-256 (lowercase hex) and
// size in bytes the caller announces, as the file tables/<wantSHA> of the
// data directory, and records it. If the store already holds an intact
// copy it returns existed=true without reading r. Otherwise it copies r
// in chunks of 1 MiB (never the whole table in memory) into a temporary
// file of the tables directory while hashing, and, if the size and hash
// match, fsyncs and renames it into place before recording it; a crash
// leaves either no table or a whole one.
//
// Errors wrap ErrBadTableHash for a malformed wantSHA, ErrTableMismatch
// when the bytes differ from the announcement (more bytes than wantSize
// stop the copy at once), ErrWrite when the file or its record cannot be
// written, ctx's error when ctx ends, and come as is from r; in every
// case nothing of the upload is left behind.
func (s *Store) PutTable(ctx context.Context, r io.Reader, wantSHA string, wantSize int64, name string) (existed bool, err error) {
	if err := CheckTableHash(wantSHA); err != nil {
		return false, err
	}
	if wantSize < 0 {
		return false, fmt.Errorf("%w: size %d is negative", ErrTableMismatch, wantSize)
	}
	if _, ok := s.HasTable(wantSHA); ok {
		return true, nil
	}
	if err := s.makeTablesDir(); err != nil {
		return false, err
	}
	path := filepath.Join(s.tablesDir(), wantSHA)
	err = atomicfile.WriteFile(path, 0o600, func(w io.Writer) error {
		return copyVerified(ctx, w, r, wantSHA, wantSize)
	})
	if err != nil {
		if !errors.Is(err, ErrTableMismatch) && !errors.Is(err, ErrWrite) && ctx.Err() == nil && !errors.Is(err, errRead) {
			err = fmt.Errorf("%w: %w", ErrWrite, err) // fsync, rename: the disk's
		}
		return false, fmt.Errorf("store: table %s: %w", shortID(wantSHA), err)
	}
	rec := &storev1.TableEntry{Size: wantSize, Name: bs(truncate(name, 255)), AddedUnix: time.Now().Unix()}
	err = s.update(func(w *wtx) error { return w.put(bucketTables, []byte(wantSHA), rec) })
	if err != nil {
		_ = os.Remove(path)
		return false, fmt.Errorf("%w: record table %s: %w", ErrWrite, shortID(wantSHA), err)
	}
	return false, nil
}

// makeTablesDir creates the tables directory if needed and, when it does,
// fsyncs the data directory so that the new directory survives a crash.
func (s *Store) makeTablesDir() error {
	dir := s.tablesDir()
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%w: create %s: %w", ErrWrite, dir, err)
	}
	d, err := os.Open(filepath.Dir(dir))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrWrite, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("%w: fsync %s: %w", ErrWrite, filepath.Dir(dir), err)
	}
	return nil
}

// errRead marks an error of the caller's reader in copyVerified.
var errRead = errors.New("read table")

// copyVerified copies r to w in chunks, checking ctx before each, and
// fails unless exactly wantSize bytes whose SHA-256 is wantSHA came.
func copyVerified(ctx context.Context, w io.Writer, r io.Reader, wantSHA string, wantSize int64) error {
	h := sha256.New()
	buf := make([]byte, tableChunk)
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		k, rerr := r.Read(buf)
		if n += int64(k); n > wantSize {
			return fmt.Errorf("%w: more than the announced %d bytes", ErrTableMismatch, wantSize)
		}
		h.Write(buf[:k])
		if _, err := w.Write(buf[:k]); err != nil {
			return fmt.Errorf("%w: %w", ErrWrite, err)
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return fmt.Errorf("%w: %w", errRead, rerr)
		}
	}
	if n != wantSize {
		return fmt.Errorf("%w: %d bytes, announced %d", ErrTableMismatch, n, wantSize)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != wantSHA {
		return fmt.Errorf("%w: SHA-256 %s, announced %s", ErrTableMismatch, got, wantSHA)
	}
	return nil
}

// TablePath returns the path of the file of table sha, to be opened for
// reading only. The error wraps ErrBadTableHash for a malformed sha and
// ErrNoTable when the store has no record of it, or has one but the file
// is missing or its size differs from the recorded one: a damaged table
// is reported absent (so that HasTable says no and an upload of the same
// bytes replaces the file), never served. Content damage that keeps the
// size is not looked for here (it would cost a hash of the whole file);
// a worker's check of the SHA-256 of what it fetched finds it.
func (s *Store) TablePath(sha string) (string, error) {
	path, _, err := s.table(sha)
	return path, err
}

// HasTable returns the size in bytes of table sha and true when the store
// holds an intact copy (see TablePath), and 0, false otherwise (also for
// a malformed sha or an unreadable store).
func (s *Store) HasTable(sha string) (size int64, ok bool) {
	_, size, err := s.table(sha)
	return size, err == nil
}

// table returns the path and size of an intact table (see TablePath).
func (s *Store) table(sha string) (path string, size int64, err error) {
	if err := CheckTableHash(sha); err != nil {
		return "", 0, err
	}
	rec, ok, err := s.tableEntry(sha)
	if err != nil {
		return "", 0, err
	}
	if !ok {
		return "", 0, fmt.Errorf("%w: %s", ErrNoTable, sha)
	}
	path = filepath.Join(s.tablesDir(), sha)
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return "", 0, fmt.Errorf("%w: %s is recorded but its file is unreadable: %w", ErrNoTable, shortID(sha), err)
	case !fi.Mode().IsRegular() || fi.Size() != rec.GetSize():
		return "", 0, fmt.Errorf("%w: %s is damaged: its file has %d bytes, recorded %d", ErrNoTable, shortID(sha), fi.Size(), rec.GetSize())
	}
	return path, rec.GetSize(), nil
}

// tableEntry reads the record of a table (ok false: none). Errors wrap
// ErrCorrupt for a damaged record.
func (s *Store) tableEntry(sha string) (rec *storev1.TableEntry, ok bool, err error) {
	rec = &storev1.TableEntry{}
	err = s.view(func(tx *bolt.Tx) error {
		var err error
		if ok, err = get(tx, bucketTables, []byte(sha), rec); err == nil && rec.GetSize() < 0 {
			err = fmt.Errorf("a size of %d bytes", rec.GetSize())
		}
		if err != nil {
			return s.recordError("the record of table "+shortID(sha), err)
		}
		return nil
	})
	return rec, ok && err == nil, err
}

// removeStaleUploads deletes the temporary files of uploads that a
// coordinator killed mid-upload left in the tables directory. Open calls
// it once it holds the bbolt file's lock, so no other process of this
// store is writing one.
func (s *Store) removeStaleUploads() {
	stale, _ := filepath.Glob(filepath.Join(s.tablesDir(), ".*.tmp-*"))
	for _, p := range stale {
		_ = os.Remove(p)
	}
}

// isTableHash reports whether sha is 64 lowercase hex digits.
func isTableHash(sha string) bool {
	if len(sha) != 64 {
		return false
	}
	for i := range len(sha) {
		if c := sha[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
