package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrNoWriter is returned when WriteFile is given a nil write function.
var ErrNoWriter = errors.New("atomicfile: nil write function")

// WriteFile writes path atomically: write receives a buffered writer on
// a temporary file created in the same directory as path; when write
// returns nil the buffer is flushed, the file is fsynced, given mode
// perm, closed and renamed over path, and the directory is fsynced so
// the rename survives a crash. If any step fails the temporary file is
// removed, path is left untouched and the error is returned wrapped
// (an error from write itself is returned wrapped as is, so errors.Is
// sees through it). The directory must already exist.
func WriteFile(path string, perm fs.FileMode, write func(io.Writer) error) (err error) {
	if write == nil {
		return ErrNoWriter
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("atomicfile: create temporary file for %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriter(tmp)
	if err := write(bw); err != nil {
		return fmt.Errorf("atomicfile: write %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("atomicfile: flush %s: %w", path, err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return fmt.Errorf("atomicfile: chmod %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("atomicfile: fsync %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("atomicfile: close %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("atomicfile: rename into %s: %w", path, err)
	}
	return syncDir(dir)
}

// syncDir fsyncs a directory so that a rename inside it is durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("atomicfile: open directory %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("atomicfile: fsync directory %s: %w", dir, err)
	}
	return nil
}
