package table

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// hashBufSize is the read size of HashFile and of the hashing half of
// ReadFile.
const hashBufSize = 1 << 20

// Read reads a table from r, named name (a file name, used for messages
// and, when opt.Format is "", for FormatOf). It hashes every byte of r. CSV
// is streamed; Parquet needs random access, so r is read into memory first.
// Errors wrap ErrFormat or ErrColumn and name the file, and for a cell the
// 1-based data row (and the file line for CSV) and the column; when ctx
// ends first, the error is ctx's.
func Read(ctx context.Context, r io.Reader, name string, opt Options) (*Table, error) {
	base := filepath.Base(name)
	format, err := formatFor(name, opt)
	if err != nil {
		return nil, err
	}
	h := &countingHash{Hash: sha256.New()}
	var t *Table
	switch format {
	case CSV:
		t, err = readCSV(ctx, r, h, base, opt, sizeOf(r))
	default:
		var data []byte
		if data, err = io.ReadAll(io.TeeReader(r, h)); err != nil {
			return nil, errorf(ErrFormat, "%s: %w", base, err)
		}
		t, err = readParquet(ctx, bytes.NewReader(data), int64(len(data)), base, opt)
	}
	if err != nil {
		return nil, err
	}
	t.SHA256, t.Size = hex.EncodeToString(h.Sum(nil)), h.n
	return t, nil
}

// ReadFile reads the table at path, with the format from opt.Format or,
// when that is "", FormatOf(path). The file is hashed concurrently with
// parsing, through the same open file. Errors are those of Read.
func ReadFile(ctx context.Context, path string, opt Options) (*Table, error) {
	base := filepath.Base(path)
	format, err := formatFor(path, opt)
	if err != nil {
		return nil, err
	}
	f, size, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := hashAsync(ctx, f)
	var t *Table
	if format == CSV {
		t, err = readCSV(ctx, io.NewSectionReader(f, 0, 1<<62), nil, base, opt, size)
	} else {
		t, err = readParquet(ctx, f, size, base, opt)
	}
	if err != nil {
		cancel()
		<-done
		return nil, err
	}
	s := <-done
	if s.err != nil {
		return nil, errorf(ErrFormat, "%s: %w", base, s.err)
	}
	if format == Parquet && s.size != size {
		return nil, errorf(ErrFormat, "%s: the file changed while it was read (%d bytes, then %d)", base, size, s.size)
	}
	t.SHA256, t.Size = s.hex, s.size
	return t, nil
}

// openFile opens path for reading and returns its size; errors wrap
// ErrFormat and name the file.
func openFile(path string) (*os.File, int64, error) {
	base := filepath.Base(path)
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, errorf(ErrFormat, "%s: %w", base, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, errorf(ErrFormat, "%s: %w", base, err)
	}
	return f, st.Size(), nil
}

// fileSum is the result of hashing a file.
type fileSum struct {
	hex  string
	size int64
	err  error
}

// hashAsync hashes f from its start in a goroutine, through ReadAt so
// that the file's offset is left alone, stopping early if ctx ends.
func hashAsync(ctx context.Context, f io.ReaderAt) <-chan fileSum {
	done := make(chan fileSum, 1)
	go func() {
		s, n, err := hashReader(ctx, io.NewSectionReader(f, 0, 1<<62))
		done <- fileSum{s, n, err}
	}()
	return done
}

// HashFile returns the hex SHA-256 of the file at path and its size in
// bytes, reading it once in 1 MiB blocks. Errors wrap ErrFormat and the
// *fs.PathError.
func HashFile(path string) (sum string, size int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, errorf(ErrFormat, "%s: %w", filepath.Base(path), err)
	}
	defer f.Close()
	sum, size, err = hashReader(context.Background(), f)
	if err != nil {
		return "", 0, errorf(ErrFormat, "%s: %w", filepath.Base(path), err)
	}
	return sum, size, nil
}

// hashReader hashes r to its end, checking ctx between blocks.
func hashReader(ctx context.Context, r io.Reader) (string, int64, error) {
	h := sha256.New()
	buf := make([]byte, hashBufSize)
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return "", n, err
		}
		k, err := r.Read(buf)
		h.Write(buf[:k])
		n += int64(k)
		if err == io.EOF {
			return hex.EncodeToString(h.Sum(nil)), n, nil
		}
		if err != nil {
			return "", n, err
		}
	}
}

// formatFor is opt.Format, or the format told by name.
func formatFor(name string, opt Options) (Format, error) {
	switch opt.Format {
	case "":
		return FormatOf(name)
	case CSV, Parquet:
		return opt.Format, nil
	}
	return "", errorf(ErrFormat, "%s: unknown table format %q (want %q or %q)", filepath.Base(name), opt.Format, CSV, Parquet)
}

// countingHash is a hash that remembers how many bytes it was given.
type countingHash struct {
	hash.Hash
	n int64
}

func (c *countingHash) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return c.Hash.Write(p)
}

// sizeOf is the size of r when r tells it (a *bytes.Reader, a regular
// *os.File), else 0; it only sizes the columns before they are read.
func sizeOf(r io.Reader) int64 {
	switch v := r.(type) {
	case interface{ Size() int64 }:
		return v.Size()
	case interface{ Stat() (fs.FileInfo, error) }:
		if st, err := v.Stat(); err == nil && st.Mode().IsRegular() {
			return st.Size()
		}
	}
	return 0
}
