package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// ErrCorrupt: the store file is damaged (a page, a meta page or a stored
// value does not decode) or is empty although it existed. The error names
// the file and the ways out: `coordinator check --data DIR` for a full
// report, then a backup, a fresh store (results are recomputed bit for
// bit), or bbolt's own tools. Once a Store has met damage, every later
// call fails with the same error.
var ErrCorrupt = errors.New("store: file is damaged")

// corruptError is an error wrapping ErrCorrupt: what is wrong with the
// store file at path, and how to recover.
func corruptError(path, what string) error { return &damageError{path: path, what: what} }

type damageError struct{ path, what string }

func (e *damageError) Error() string {
	return fmt.Sprintf("%v: %s: %s; run `coordinator check --data %s` for a full report, then restore %s "+
		"from a backup, or move it aside and submit the grids again (results are recomputed bit for bit), "+
		"or try to salvage what is readable with bbolt's tools (`bbolt check %s`, `bbolt compact -o NEW %s`)",
		ErrCorrupt, e.path, e.what, filepath.Dir(e.path), FileName, e.path, e.path)
}

func (e *damageError) Unwrap() error { return ErrCorrupt }

// recordError is the error, wrapping ErrCorrupt, of a stored record that
// fails its frame or does not decode; what names the record (its sweep,
// scenario, repetition and pipeline where known).
func (s *Store) recordError(what string, err error) error {
	return corruptError(s.path, what+" is damaged ("+err.Error()+")")
}

// damage returns what is wrong according to err: the problem alone if
// err is a damageError, else err's text.
func damage(err error) string {
	if d := (*damageError)(nil); errors.As(err, &d) {
		return d.what
	}
	return err.Error()
}

// emptyFileError is the error for an existing store file of 0 bytes.
func emptyFileError(path string) error {
	return fmt.Errorf("%w: %s is empty (0 bytes), probably a store truncated by a full disk or a failed copy; "+
		"restore it from a backup, or delete it deliberately to start an empty store", ErrCorrupt, path)
}

// boltOpen opens the bbolt file at path. A damaged file makes bbolt
// return an error or panic; both become an error wrapping ErrCorrupt
// (after a panic the file descriptor, and so the lock, is released; the
// memory map of the failed open is not, bbolt keeps no handle to it).
// A lock held by another process (bolt.ErrTimeout) is returned as is.
func boltOpen(path string, mode os.FileMode, o bolt.Options) (db *bolt.DB, err error) {
	var f *os.File
	o.OpenFile = func(name string, flag int, perm os.FileMode) (*os.File, error) {
		var err error
		f, err = os.OpenFile(name, flag, perm)
		return f, err
	}
	defer func() {
		if r := recover(); r != nil {
			if f != nil {
				f.Close()
			}
			db, err = nil, corruptError(path, fmt.Sprintf("bbolt failed opening it: %v", r))
		}
	}()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	db, err = bolt.Open(path, mode, &o)
	switch {
	case errors.Is(err, berrors.ErrInvalid) || errors.Is(err, berrors.ErrChecksum) || errors.Is(err, berrors.ErrVersionMismatch):
		return nil, corruptError(path, fmt.Sprintf("bbolt cannot open it: %v", err))
	case err != nil && strings.Contains(err.Error(), "file size too small"): // bbolt has no sentinel for it
		return nil, corruptError(path, fmt.Sprintf("the file has %d bytes, fewer than a bbolt file's two meta pages "+
			"(truncated, or not a store)", fileSize(path)))
	}
	return db, err
}

// fileSize returns the size of the file at path, -1 if it cannot tell.
func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return -1
	}
	return fi.Size()
}

// openWalked opens the store file at r.Path read-only (a shared lock: it
// waits up to 5 s for a writer to let go) and walks its pages, filling r;
// it fails with an error wrapping ErrCorrupt if any reachable page is
// damaged, since bbolt would panic on such a file, possibly where nothing
// can recover. Records whose frames fail are listed in r.Damaged, not
// refused: the pages that hold them are sound.
func openWalked(r *Report) (*bolt.DB, error) {
	db, err := boltOpen(r.Path, 0o444, bolt.Options{ReadOnly: true, Timeout: 5 * time.Second})
	if err != nil {
		return nil, err
	}
	if err = walkFile(r, db.Info().PageSize); err != nil {
		err = fmt.Errorf("store: check %s: %w", r.Path, err)
	} else if !r.OK() {
		err = r.corrupt()
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// openChecked is openWalked that also refuses a file with a damaged
// record, naming what it is (see describeDamaged), or with a bucket whose
// records differ from meta "counts".
func openChecked(r *Report) (*bolt.DB, error) {
	db, err := openWalked(r)
	if err != nil || len(r.Damaged) == 0 && len(r.countProblems) == 0 {
		return db, err
	}
	s := &Store{db: db, path: r.Path}
	if err := s.view(func(tx *bolt.Tx) error { r.contentProblems(tx); return nil }); err != nil {
		db.Close()
		return nil, err
	}
	db.Close()
	return nil, r.corrupt()
}

// view runs fn in a read transaction; a bbolt panic (a damaged page met
// after Open) becomes an error wrapping ErrCorrupt.
func (s *Store) view(fn func(*bolt.Tx) error) (err error) {
	if err := s.damaged(); err != nil {
		return err
	}
	defer s.recoverDamage(&err)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	return s.db.View(fn)
}

// update runs fn in a write transaction, after the write hook; a bbolt
// panic becomes an error wrapping ErrCorrupt.
func (s *Store) update(fn func(*wtx) error) error {
	return s.write(func(w *wtx) error {
		if s.opts.WriteHook != nil {
			if err := s.opts.WriteHook(); err != nil {
				return err
			}
		}
		return fn(w)
	})
}

// write runs fn in a write transaction without the write hook, then
// updates meta "counts" (see wtx).
func (s *Store) write(fn func(*wtx) error) error {
	return s.boltWrite(func(tx *bolt.Tx) error {
		w := &wtx{tx: tx, delta: map[string]int64{}}
		if err := fn(w); err != nil {
			return err
		}
		return w.finish()
	})
}

// boltWrite runs fn in a bbolt write transaction. It does what
// bolt.DB.Update does except on a panic: Update's deferred rollback would
// rebuild the free list by walking the (damaged) file on a goroutine of
// its own, where the next panic kills the process; boltWrite rolls back
// without that walk and marks the store damaged.
func (s *Store) boltWrite(fn func(*bolt.Tx) error) (err error) {
	if err := s.damaged(); err != nil {
		return err
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	tx, err := s.db.Begin(true)
	if err != nil {
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			if tx.DB() != nil {
				rollbackAfterPanic(tx)
			}
			err = s.markDamaged(r)
		}
	}()
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// rollbackAfterPanic releases a write transaction that panicked; if that
// panics too, the transaction stays open (the store is marked damaged and
// refuses every call anyway).
func rollbackAfterPanic(tx *bolt.Tx) {
	defer func() { _ = recover() }()
	_ = tx.Rollback()
}

// recoverDamage, deferred, turns a panic into an error wrapping
// ErrCorrupt (see markDamaged); a panic of a caller's callback goes on.
func (s *Store) recoverDamage(err *error) {
	if r := recover(); r != nil {
		*err = s.markDamaged(r)
	}
}

// callerPanic carries a panic raised by a caller's callback (a ScanFuncs
// func, a ResultFunc, the writer of ExportCSV) through the recovery of
// the transaction it ran in, which raises it again: only the store's and
// bbolt's own panics mean a damaged file.
type callerPanic struct{ v any }

// rethrow, deferred in a wrapper of a caller's callback, marks its panic
// as the caller's.
func rethrow() {
	if r := recover(); r != nil {
		panic(callerPanic{r})
	}
}

// guarded returns f with each func marking its panics as the caller's.
func (f ScanFuncs) guarded() ScanFuncs {
	g := f
	if f.Done != nil {
		g.Done = func(job int) { defer rethrow(); f.Done(job) }
	}
	if f.Partial != nil {
		g.Partial = func(job int, missing []int) { defer rethrow(); f.Partial(job, missing) }
	}
	if f.Failed != nil {
		g.Failed = func(job int, msg string) { defer rethrow(); f.Failed(job, msg) }
	}
	return g
}

// guarded returns fn marking its panics as the caller's.
func (fn ResultFunc) guarded() ResultFunc {
	return func(job, scenario, rep, pipeline int, r Result) error {
		defer rethrow()
		return fn(job, scenario, rep, pipeline, r)
	}
}

// callerWriter is an io.Writer of a caller whose panics are the caller's.
type callerWriter struct{ w io.Writer }

func (c callerWriter) Write(p []byte) (int, error) {
	defer rethrow()
	return c.w.Write(p)
}

// asCaller, deferred in a method that also calls a caller's callback
// outside a transaction, raises a marked panic of the caller as it was.
func asCaller() {
	if r := recover(); r != nil {
		if c, ok := r.(callerPanic); ok {
			r = c.v
		}
		panic(r)
	}
}

// markDamaged records that a transaction met damage (bbolt panicked with
// r; memory faults, such as SIGBUS on a page past a truncated end, panic
// too while SetPanicOnFault is armed) and returns the error: a store that
// met a damaged page refuses every later call rather than read or write
// around it.
func (s *Store) markDamaged(r any) error {
	if c, ok := r.(callerPanic); ok {
		panic(c.v)
	}
	e := corruptError(s.path, fmt.Sprintf("bbolt: %v", r))
	s.broken.CompareAndSwap(nil, &e)
	return *s.broken.Load()
}

func (s *Store) damaged() error {
	if p := s.broken.Load(); p != nil {
		return *p
	}
	return nil
}
