package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tableBytes returns n reproducible pseudo-random bytes and their hex
// SHA-256 (computed by crypto/sha256, the reference).
func tableBytes(n int, seed uint64) ([]byte, string) {
	rng := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	sum := sha256.Sum256(b)
	return b, hex.EncodeToString(sum[:])
}

// refuseReader fails the test if anything reads it.
type refuseReader struct{ t *testing.T }

func (r refuseReader) Read([]byte) (int, error) {
	r.t.Error("PutTable read the bytes of a table it already holds")
	return 0, io.ErrUnexpectedEOF
}

// dirFiles lists the names in dir (nil if it does not exist).
func dirFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	must(t, err)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// TestPutTableRoundTrip: a table is kept byte for byte under its hash, a
// second upload is answered without reading, and a reopened store (also
// read-only) still has it.
func TestPutTableRoundTrip(t *testing.T) {
	s, dir := openTest(t, Options{})
	data, sha := tableBytes(3<<20+17, 1) // more than three chunks
	existed, err := s.PutTable(context.Background(), bytes.NewReader(data), sha, int64(len(data)), "iris.csv")
	if err != nil || existed {
		t.Fatalf("first put: existed %v, %v", existed, err)
	}
	existed, err = s.PutTable(context.Background(), refuseReader{t}, sha, int64(len(data)), "again.csv")
	if err != nil || !existed {
		t.Fatalf("second put: existed %v, %v; want existed", existed, err)
	}
	check := func(s *Store) {
		t.Helper()
		if size, ok := s.HasTable(sha); !ok || size != int64(len(data)) {
			t.Fatalf("HasTable: %d %v, want %d true", size, ok, len(data))
		}
		path, err := s.TablePath(sha)
		must(t, err)
		if want := filepath.Join(dir, TablesDir, sha); path != want {
			t.Errorf("path %s, want %s", path, want)
		}
		got, err := os.ReadFile(path)
		must(t, err)
		if !bytes.Equal(got, data) {
			t.Error("the stored file differs from the uploaded bytes")
		}
	}
	check(s)
	if files := dirFiles(t, filepath.Join(dir, TablesDir)); len(files) != 1 {
		t.Errorf("tables directory holds %v, want only the table", files)
	}
	empty, emptySHA := tableBytes(0, 2)
	if _, err := s.PutTable(context.Background(), bytes.NewReader(empty), emptySHA, 0, "empty.csv"); err != nil {
		t.Fatalf("empty table: %v", err)
	}
	must(t, s.Close())
	s2, err := Open(dir, Options{})
	must(t, err)
	check(s2)
	must(t, s2.Close())
	ro, err := OpenReadOnly(dir)
	must(t, err)
	defer ro.Close()
	check(ro)
	if size, ok := ro.HasTable(emptySHA); !ok || size != 0 {
		t.Errorf("empty table: %d %v, want 0 true", size, ok)
	}
}

// TestStoreWithoutTables: a store that never held a table (as one made
// before tables existed) has none, also opened read-only.
func TestStoreWithoutTables(t *testing.T) {
	s, dir := openTest(t, Options{})
	must(t, s.Close())
	ro, err := OpenReadOnly(dir)
	must(t, err)
	defer ro.Close()
	_, sha := tableBytes(10, 3)
	if _, ok := ro.HasTable(sha); ok {
		t.Error("HasTable on a store without tables says yes")
	}
	if _, err := ro.TablePath(sha); !errors.Is(err, ErrNoTable) {
		t.Errorf("TablePath: %v, want ErrNoTable", err)
	}
}

// errReader returns its bytes, then err.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		return n, e.err
	}
	return n, err
}

// TestPutTableRefusesAndLeavesNothing: bytes that differ from their
// announcement, a reader that fails and a cancelled context keep nothing:
// no table, no file, no record.
func TestPutTableRefusesAndLeavesNothing(t *testing.T) {
	data, sha := tableBytes(2<<20+5, 4)
	other, _ := tableBytes(len(data), 5)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	readFail := errors.New("connection reset")
	for _, c := range []struct {
		name string
		ctx  context.Context
		r    io.Reader
		size int64
		want error
	}{
		{"wrong bytes", context.Background(), bytes.NewReader(other), int64(len(data)), ErrTableMismatch},
		{"short", context.Background(), bytes.NewReader(data[:len(data)-1]), int64(len(data)), ErrTableMismatch},
		{"long", context.Background(), bytes.NewReader(append(data, 0)), int64(len(data)), ErrTableMismatch},
		{"announced smaller", context.Background(), bytes.NewReader(data), 10, ErrTableMismatch},
		{"negative size", context.Background(), bytes.NewReader(data), -1, ErrTableMismatch},
		{"reader fails", context.Background(), &errReader{bytes.NewReader(data[:100]), readFail}, int64(len(data)), readFail},
		{"cancelled", cancelled, bytes.NewReader(data), int64(len(data)), context.Canceled},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, dir := openTest(t, Options{})
			existed, err := s.PutTable(c.ctx, c.r, sha, c.size, "t.csv")
			if !errors.Is(err, c.want) || existed {
				t.Fatalf("existed %v, err %v; want %v", existed, err, c.want)
			}
			if files := dirFiles(t, filepath.Join(dir, TablesDir)); len(files) > 0 {
				t.Errorf("left %v behind", files)
			}
			if _, ok := s.HasTable(sha); ok {
				t.Error("HasTable says yes")
			}
			if _, err := s.TablePath(sha); !errors.Is(err, ErrNoTable) {
				t.Errorf("TablePath: %v, want ErrNoTable", err)
			}
		})
	}
}

// TestCraftedTableHashes: a hash that is not 64 lowercase hex digits is
// refused everywhere and never becomes a path.
func TestCraftedTableHashes(t *testing.T) {
	s, dir := openTest(t, Options{})
	_, good := tableBytes(1, 6)
	for _, sha := range []string{"", "../x", "../" + good[3:], good[:63], good + "0", strings.ToUpper(good),
		good[:62] + "/x", good[:63] + "\x00", good[:60] + "..//", good[:63] + "g"} {
		if err := CheckTableHash(sha); !errors.Is(err, ErrBadTableHash) {
			t.Errorf("CheckTableHash(%q): %v, want ErrBadTableHash", sha, err)
		}
		if _, err := s.PutTable(context.Background(), strings.NewReader("x"), sha, 1, "x"); !errors.Is(err, ErrBadTableHash) {
			t.Errorf("PutTable(%q): %v, want ErrBadTableHash", sha, err)
		}
		if _, err := s.TablePath(sha); !errors.Is(err, ErrBadTableHash) {
			t.Errorf("TablePath(%q): %v, want ErrBadTableHash", sha, err)
		}
		if _, ok := s.HasTable(sha); ok {
			t.Errorf("HasTable(%q) says yes", sha)
		}
	}
	if err := CheckTableHash(good); err != nil {
		t.Errorf("a real hash is refused: %v", err)
	}
	if files := dirFiles(t, dir); len(files) != 1 || files[0] != FileName {
		t.Errorf("data directory holds %v, want only %s", files, FileName)
	}
}

// TestDamagedTable: a table whose file is missing or has the wrong size is
// absent, and uploading it again repairs it.
func TestDamagedTable(t *testing.T) {
	data, sha := tableBytes(1000, 8)
	for _, c := range []struct {
		name   string
		damage func(path string) error
	}{
		{"truncated", func(p string) error { return os.Truncate(p, 999) }},
		{"grown", func(p string) error { return os.WriteFile(p, append(data, 1), 0o600) }},
		{"removed", os.Remove},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _ := openTest(t, Options{})
			_, err := s.PutTable(context.Background(), bytes.NewReader(data), sha, int64(len(data)), "d.csv")
			must(t, err)
			path, err := s.TablePath(sha)
			must(t, err)
			must(t, c.damage(path))
			if _, err := s.TablePath(sha); !errors.Is(err, ErrNoTable) {
				t.Errorf("TablePath of a damaged table: %v, want ErrNoTable", err)
			}
			if _, ok := s.HasTable(sha); ok {
				t.Error("HasTable of a damaged table says yes")
			}
			existed, err := s.PutTable(context.Background(), bytes.NewReader(data), sha, int64(len(data)), "d.csv")
			if err != nil || existed {
				t.Fatalf("repair: existed %v, %v", existed, err)
			}
			if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, data) {
				t.Errorf("repaired file: %d bytes, %v", len(got), err)
			}
		})
	}
}

// An upload cut off by a crash leaves its temporary file; the next Open
// (holding the file lock, so no upload is running) removes it and keeps
// the tables.
func TestOpenRemovesStaleUploads(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("y,x\n1,2\n3,4\n")
	sum := sha256.Sum256(data)
	sha := hex.EncodeToString(sum[:])
	if _, err := s.PutTable(context.Background(), bytes.NewReader(data), sha, int64(len(data)), "t.csv"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	stale := filepath.Join(dir, TablesDir, "."+sha+".tmp-123")
	if err := os.WriteFile(stale, []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale upload still there: %v", err)
	}
	if _, ok := s.HasTable(sha); !ok {
		t.Error("the stored table was removed too")
	}
}
