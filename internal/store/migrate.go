package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"
	"google.golang.org/protobuf/proto"

	"github.com/misslab/misslab/internal/atomicfile"
	storev1 "github.com/misslab/misslab/proto/misslab/store/v1"
)

// Migration says what one step of a schema migration did.
type Migration struct {
	From, To string // schema versions, e.g. "misslab-store/1" and "misslab-store/2"
	// Backup is the path of the copy of the file written before the
	// migration began (the file as it was, consistent), "" when the
	// migrated file was a temporary copy (OpenReadOnly, Check).
	Backup string
	// Records counts the records the step rewrote, per bucket.
	Records map[string]int
}

// migrationStep converts, inside the migration's transaction, a file of
// schema n to schema n+1, returning the records it rewrote per bucket.
type migrationStep func(tx *bolt.Tx) (map[string]int, error)

// migrations holds the step from each older schema number to the next;
// a file is taken from its schema to SchemaVersion one step after the
// other, all in one transaction.
var migrations = map[int]migrationStep{
	1: migrateV1,
}

// Migrations returns the schema migrations this Store's open applied,
// oldest first; nil when the file was of SchemaVersion already.
func (s *Store) Migrations() []Migration { return s.migrated }

// migrate takes the open file from schema number from to SchemaVersion:
// it writes a backup copy beside the file (unless opts.noBackup), then
// runs every step and records each in meta "history", in one write
// transaction, so that a failure or crash leaves the file as it was. A
// failed migration removes its backup (the file is unchanged) and
// returns an error wrapping ErrCorrupt when a record does not decode, or
// ErrWrite.
func (s *Store) migrate(from int) error {
	backup := ""
	if !s.opts.noBackup {
		var err error
		if backup, err = s.backup(from); err != nil {
			return err
		}
	}
	var steps []Migration
	err := s.boltWrite(func(tx *bolt.Tx) error {
		steps = steps[:0]
		for n := from; n < currentSchema; n++ {
			m, err := runStep(tx, n, backup)
			if err != nil {
				return err
			}
			steps = append(steps, m)
		}
		return checkSchema(tx, s.path)
	})
	if err != nil {
		if backup != "" {
			_ = os.Remove(backup)
		}
		if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrSchema) {
			err = fmt.Errorf("%w: %w", ErrWrite, err)
		}
		return fmt.Errorf("store: migrate %s from %s%d to %s (the file is unchanged): %w", s.path, schemaPrefix, from, SchemaVersion, err)
	}
	s.migrated = steps
	return nil
}

// runStep runs the migration from schema n to n+1 in tx and records it.
func runStep(tx *bolt.Tx, n int, backup string) (Migration, error) {
	step := migrations[n]
	if step == nil {
		return Migration{}, fmt.Errorf("%w: no migration from %s%d", ErrSchema, schemaPrefix, n)
	}
	m := Migration{From: schemaPrefix + strconv.Itoa(n), To: schemaPrefix + strconv.Itoa(n+1), Backup: backup}
	var err error
	if m.Records, err = step(tx); err != nil {
		return m, err
	}
	if err := tx.Bucket(bucketMeta).Put(keySchema, []byte(m.To)); err != nil {
		return m, err
	}
	return m, appendHistory(tx, m)
}

// appendHistory adds m to meta "history".
func appendHistory(tx *bolt.Tx, m Migration) error {
	var h storev1.History
	if _, err := get(tx, bucketMeta, keyHistory, &h); err != nil {
		return fmt.Errorf("%w: meta history: %w", ErrCorrupt, err)
	}
	backup := ""
	if m.Backup != "" {
		backup = filepath.Base(m.Backup)
	}
	h.Migrations = append(h.Migrations, &storev1.Migration{From: m.From, To: m.To, AtUnix: time.Now().Unix(),
		Backup: backup, Build: buildVersion()})
	v, err := marshal(bucketMeta, keyHistory, &h)
	if err != nil {
		return err
	}
	return tx.Bucket(bucketMeta).Put(keyHistory, v)
}

// buildVersion names the running build for the history: the main
// module's version and its VCS revision when the binary records them.
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			v += " " + s.Value
		}
	}
	return v
}

// backup writes a consistent copy of the file, as it is before a
// migration from schema number from, beside it: FileName.schema-N.
// <UTC time>.bak, through a temporary file that is fsynced and renamed
// into place. It returns the backup's path.
func (s *Store) backup(from int) (string, error) {
	path := fmt.Sprintf("%s.schema-%d.%s.bak", s.path, from, time.Now().UTC().Format("20060102T150405.000000000Z"))
	err := s.view(func(tx *bolt.Tx) error {
		return atomicfile.WriteFile(path, 0o644, func(w io.Writer) error {
			_, err := tx.WriteTo(w)
			return err
		})
	})
	if err != nil {
		return "", fmt.Errorf("%w: back up %s before migrating it: %w", ErrWrite, s.path, err)
	}
	return path, nil
}

// History returns the schema migrations recorded in the file, oldest
// first (including those of earlier opens). Errors wrap ErrCorrupt.
func (s *Store) History() ([]Migration, error) {
	var out []Migration
	err := s.view(func(tx *bolt.Tx) error {
		var h storev1.History
		if _, err := get(tx, bucketMeta, keyHistory, &h); err != nil {
			return s.recordError("the migration history", err)
		}
		out = historyOf(&h)
		return nil
	})
	return out, err
}

// rewriteChunk is the most records rewrite converts before putting them:
// bbolt's cursors must be repositioned after a put.
const rewriteChunk = 4096

// rewrite replaces every record of bucket name by convert's message for
// it (framed), in key order, and returns how many it rewrote. A record
// convert refuses, or a nested bucket, is an error wrapping ErrCorrupt.
func rewrite(tx *bolt.Tx, name []byte, convert func(k, v []byte) (proto.Message, error)) (int, error) {
	b := tx.Bucket(name)
	if b == nil {
		return 0, fmt.Errorf("%w: the file lacks bucket %s", ErrCorrupt, name)
	}
	type kv struct{ k, v []byte }
	n, after := 0, []byte(nil)
	for {
		c := b.Cursor()
		k, v := c.First()
		if after != nil {
			if k, v = c.Seek(after); bytes.Equal(k, after) {
				k, v = c.Next()
			}
		}
		var chunk []kv
		for ; k != nil && len(chunk) < rewriteChunk; k, v = c.Next() {
			if v == nil {
				return n, fmt.Errorf("%w: %s: key %s holds a bucket, not a record", ErrCorrupt, name, keyText(name, k))
			}
			m, err := convert(k, v)
			if err != nil {
				return n, fmt.Errorf("%w: %s: record %s: %w", ErrCorrupt, name, keyText(name, k), err)
			}
			nv, err := marshal(name, k, m)
			if err != nil {
				return n, fmt.Errorf("%s: record %s: %w", name, keyText(name, k), err)
			}
			chunk = append(chunk, kv{bytes.Clone(k), nv})
		}
		if len(chunk) == 0 {
			return n, nil
		}
		for _, e := range chunk {
			if err := b.Put(e.k, e.v); err != nil {
				return n, err
			}
		}
		n += len(chunk)
		after = chunk[len(chunk)-1].k
	}
}

// historyOf converts meta "history" (Records is not kept there).
func historyOf(h *storev1.History) []Migration {
	var out []Migration
	for _, m := range h.GetMigrations() {
		out = append(out, Migration{From: m.GetFrom(), To: m.GetTo(), Backup: m.GetBackup()})
	}
	return out
}

// openMigratedCopy opens, read-only, a migrated copy of the store file
// at path (of an older schema), whose tables are in dir: the file is
// copied into a temporary directory, migrated there without a backup,
// and reopened read-only; Close removes the copy.
func openMigratedCopy(dir, path string) (*Store, error) {
	tmp, err := os.MkdirTemp("", "misslab-migrate-")
	if err != nil {
		return nil, fmt.Errorf("store: migrate a copy of %s: %w", path, err)
	}
	fail := func(err error) (*Store, error) {
		os.RemoveAll(tmp)
		return nil, err
	}
	if err := copyFile(filepath.Join(tmp, FileName), path); err != nil {
		return fail(fmt.Errorf("store: copy %s to migrate it: %w", path, err))
	}
	w, err := Open(tmp, Options{noBackup: true, NoSync: true})
	if err != nil {
		return fail(fmt.Errorf("store: a copy of %s does not migrate: %w", path, err))
	}
	steps := w.Migrations()
	w.Close()
	db, err := boltOpen(filepath.Join(tmp, FileName), 0o444, bolt.Options{ReadOnly: true, Timeout: 5 * time.Second})
	if err != nil {
		return fail(err)
	}
	return &Store{db: db, path: path, dataDir: dir, migrated: steps, cleanup: func() { os.RemoveAll(tmp) }}, nil
}

// copyFile copies the file src to a new file dst.
func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
