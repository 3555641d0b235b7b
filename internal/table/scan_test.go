package table

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

// scanAll reads every record with the scanner, starting from a buffer of
// bufSize bytes and reading through wrap(r).
func scanAll(in []byte, bufSize int, wrap func(io.Reader) io.Reader) ([][]string, error) {
	s := newScanner(wrap(bytes.NewReader(in)), nil)
	s.buf = make([]byte, bufSize)
	var out [][]string
	for {
		rec, err := s.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		r := make([]string, len(rec))
		for i, f := range rec {
			r[i] = string(f)
		}
		out = append(out, r)
	}
}

// stdAll reads every record with encoding/csv (any number of fields per
// record), after removing a leading UTF-8 BOM, which encoding/csv keeps.
func stdAll(in []byte) ([][]string, error) {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(in, utf8BOM)))
	r.FieldsPerRecord = -1
	var out [][]string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, rec)
	}
}

// sameAsStd fails unless the scanner and encoding/csv return the same
// records and fail on the same inputs, for several buffer sizes and
// read patterns.
func sameAsStd(t *testing.T, in []byte) {
	t.Helper()
	want, wantErr := stdAll(in)
	readers := map[string]func(io.Reader) io.Reader{
		"whole":   func(r io.Reader) io.Reader { return r },
		"onebyte": iotest.OneByteReader,
		"half":    iotest.HalfReader,
	}
	for _, size := range []int{1, 7, scanBufSize} {
		for name, wrap := range readers {
			got, err := scanAll(in, size, wrap)
			if (err != nil) != (wantErr != nil) {
				t.Fatalf("%q (buffer %d, %s): error %v, encoding/csv says %v", in, size, name, err, wantErr)
			}
			if err == nil && !equalRecords(got, want) {
				t.Fatalf("%q (buffer %d, %s):\n got %q\nwant %q", in, size, name, got, want)
			}
		}
	}
}

func equalRecords(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.Join(a[i], "\x00") != strings.Join(b[i], "\x00") || len(a[i]) != len(b[i]) {
			return false
		}
	}
	return true
}

var scanCases = []string{
	"", "\n", "\r\n", "\r", "a", "a\n", "a\r", "a\r\r", "a\r\n", "a\rb\n", "\r\r\n",
	"a,b\nc,d\n", "a,b\n\n\nc,d", "a,,\n,,\n", ",", " , ",
	`"a","b"` + "\n", `"a,b",c`, `"a""b"`, `""`, `"",""`, `"a` + "\n" + `b"`, "\"a\r\nb\"\r\n",
	"\"a\n\nb\"\n", "\"a\"\r", "\"a\"\r\nx", "\"a\n", "\"a", `"a"b`, `a"b`, `a,"b`, "\"a\",\n", "\"a\r\"",
	"\xef\xbb\xbfa,b\n1,2\n", "\xef\xbb\xbf", "\xef\xbb", "x\xef\xbb\xbf",
	"\"a\"\xff", "\xff,\"\xfe\"", " \"a\"", "\"\"\"\"", "a,\"\"\"\n\"\"\",b",
}

func TestScannerMatchesEncodingCSV(t *testing.T) {
	for _, c := range scanCases {
		sameAsStd(t, []byte(c))
	}
	for _, f := range []string{"airquality.csv", "good/bom_crlf.csv", "good/custom_na.csv", "good/no_final_newline.csv",
		"bad/shifted.csv", "bad/open_quote.csv", "bad/bare_quote.csv"} {
		b, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		sameAsStd(t, b)
	}
}

func TestScannerLines(t *testing.T) {
	in := "h\n\"a\nb\"\n\r\n\nc\n\"d\r\n\r\ne\"\nf"
	s := newScanner(strings.NewReader(in), nil)
	var lines []int
	for {
		_, err := s.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, s.recLine)
	}
	if want := []int{1, 2, 6, 7, 10}; !equalInts(lines, want) {
		t.Errorf("record lines %v, want %v", lines, want)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestScannerLimit: a quote left open stops the scanner at maxRecord
// instead of buffering the whole input.
func TestScannerLimit(t *testing.T) {
	r := io.MultiReader(strings.NewReader("a\n\""), io.LimitReader(zeros{}, maxRecord+1),
		iotest.ErrReader(errors.New("read past the limit")))
	s := newScanner(r, nil)
	if _, err := s.next(); err != nil {
		t.Fatal(err)
	}
	_, err := s.next()
	var se *scanError
	if !errors.As(err, &se) || se.line != 2 {
		t.Fatalf("err = %v, want a scanError on line 2", err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// FuzzScanCSV: the scanner agrees with encoding/csv on every input.
func FuzzScanCSV(f *testing.F) {
	for _, c := range scanCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		sameAsStd(t, in)
	})
}

// FuzzReadCSV: Read never panics and, when it reads, every column has
// one value per row.
func FuzzReadCSV(f *testing.F) {
	for _, c := range scanCases {
		f.Add([]byte(c), "")
	}
	for _, p := range []string{"airquality.csv", "good/bom_crlf.csv", "good/custom_na.csv", "bad/shifted.csv"} {
		b, err := os.ReadFile(filepath.Join("testdata", p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, "label")
		f.Add(b, "note")
	}
	f.Fuzz(func(t *testing.T, in []byte, categorical string) {
		var opt Options
		if categorical != "" {
			opt.Categorical = []string{categorical}
		}
		tab, err := Read(context.Background(), bytes.NewReader(in), "f.csv", opt)
		if err != nil {
			if !errors.Is(err, ErrFormat) && !errors.Is(err, ErrColumn) {
				t.Fatalf("error %v wraps no sentinel", err)
			}
			return
		}
		if len(tab.Columns) != len(tab.AllNames) || len(tab.SHA256) != 64 || tab.Size != int64(len(in)) {
			t.Fatalf("%d columns, %d names, hash %q, size %d", len(tab.Columns), len(tab.AllNames), tab.SHA256, tab.Size)
		}
		for _, c := range tab.Columns {
			n := len(c.Num)
			if c.Kind == Categorical {
				n = len(c.Codes)
				for _, k := range c.Codes {
					if int(k) >= len(c.Levels) || k < -1 {
						t.Fatalf("column %q: code %d with %d levels", c.Name, k, len(c.Levels))
					}
				}
			}
			if n != tab.Rows {
				t.Fatalf("column %q has %d values, table has %d rows", c.Name, n, tab.Rows)
			}
		}
	})
}

// TestScannerEmptyLines: a long run of empty lines is skipped without
// growing the buffer.
func TestScannerEmptyLines(t *testing.T) {
	n := 3 * scanBufSize
	s := newScanner(strings.NewReader(strings.Repeat("\r\n", n)+"a\n"), nil)
	rec, err := s.next()
	if err != nil || len(rec) != 1 || string(rec[0]) != "a" || s.recLine != n+1 || len(s.buf) != scanBufSize {
		t.Fatalf("record %q, %v, line %d, buffer %d", rec, err, s.recLine, len(s.buf))
	}
}
