package table

import (
	"bytes"
	"context"
	"encoding/csv"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

// pqRow covers the supported types, nulls and the codecs: DOUBLE, INT32,
// INT64, FLOAT, BOOLEAN, strings, unsigned and decimal integers, a
// dictionary-encoded double; snappy, gzip and zstd.
type pqRow struct {
	D    *float64 `parquet:"d,optional,snappy"`
	I32  *int32   `parquet:"i32,optional,gzip"`
	I64  int64    `parquet:"i64,zstd"`
	F    *float32 `parquet:"f,optional,zstd"`
	B    *bool    `parquet:"b,optional,snappy"`
	S    *string  `parquet:"s,optional,dict,zstd"`
	U    uint32   `parquet:"u,snappy"`
	Dec  *int64   `parquet:"dec,optional,decimal(2:12),gzip"`
	DD   float64  `parquet:"dd,dict"`
	Code int32    `parquet:"code"`
}

var pqWords = []string{"red", "green, blue", `say "hi"`, "two\nlines", "é"}

// pqRows draws n rows, about one value in five null.
func pqRows(r *rand.Rand, n int) []pqRow {
	null := func() bool { return r.IntN(5) == 0 }
	rows := make([]pqRow, n)
	for i := range rows {
		x := &rows[i]
		if !null() {
			v := r.NormFloat64() * 1e3
			x.D = &v
		}
		if !null() {
			v := r.Int32() - 1<<30
			x.I32 = &v
		}
		x.I64 = r.Int64N(1<<52) - 1<<51
		if !null() {
			v := float32(r.NormFloat64())
			x.F = &v
		}
		if !null() {
			v := r.IntN(2) == 1
			x.B = &v
		}
		if !null() {
			x.S = &pqWords[r.IntN(len(pqWords))]
		}
		x.U = r.Uint32()
		if !null() {
			v := r.Int64N(2e6) - 1e6
			x.Dec = &v
		}
		x.DD = float64(r.IntN(4)) / 4
		x.Code = int32(r.IntN(3) + 8)
	}
	return rows
}

// writeParquet writes rows with several row groups and pages.
func writeParquet(t testing.TB, path string, rows []pqRow, opts ...parquet.WriterOption) {
	t.Helper()
	var b bytes.Buffer
	opts = append(opts, parquet.MaxRowsPerRowGroup(64), parquet.PageBufferSize(64))
	w := parquet.NewGenericWriter[pqRow](&b, opts...)
	for i := 0; i < len(rows); i += 5 {
		if _, err := w.Write(rows[i:min(i+5, len(rows))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeCSV writes the same rows as CSV with encoding/csv and strconv,
// NA for null.
func writeCSV(t testing.TB, path string, rows []pqRow) {
	t.Helper()
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write([]string{"d", "i32", "i64", "f", "b", "s", "u", "dec", "dd", "code"})
	for _, x := range rows {
		rec := []string{"NA", "NA", strconv.FormatInt(x.I64, 10), "NA", "NA", "NA",
			strconv.FormatUint(uint64(x.U), 10), "NA", strconv.FormatFloat(x.DD, 'g', -1, 64), strconv.Itoa(int(x.Code))}
		if x.D != nil {
			rec[0] = strconv.FormatFloat(*x.D, 'g', -1, 64)
		}
		if x.I32 != nil {
			rec[1] = strconv.Itoa(int(*x.I32))
		}
		if x.F != nil {
			rec[3] = strconv.FormatFloat(float64(*x.F), 'g', -1, 64)
		}
		if x.B != nil {
			rec[4] = map[bool]string{false: "0", true: "1"}[*x.B]
		}
		if x.S != nil {
			rec[5] = *x.S
		}
		if x.Dec != nil {
			rec[7] = decimalString(*x.Dec, 2)
		}
		w.Write(rec)
	}
	w.Flush()
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// decimalString writes unscaled × 10^-scale exactly, e.g. -105, 2 → "-1.05".
func decimalString(unscaled int64, scale int) string {
	sign := ""
	if unscaled < 0 {
		sign, unscaled = "-", -unscaled
	}
	s := strconv.FormatInt(unscaled, 10)
	for len(s) <= scale {
		s = "0" + s
	}
	return sign + s[:len(s)-scale] + "." + s[len(s)-scale:]
}

func TestParquetMatchesCSV(t *testing.T) {
	dir := t.TempDir()
	rows := pqRows(rand.New(rand.NewPCG(11, 1)), 200)
	writeCSV(t, filepath.Join(dir, "t.csv"), rows)
	writeParquet(t, filepath.Join(dir, "v2.parquet"), rows)
	writeParquet(t, filepath.Join(dir, "v1.pq"), rows, parquet.DataPageVersion(1))
	opts := []Options{
		{Categorical: []string{"s"}},
		{Categorical: []string{"s", "code"}, Drop: []string{"f", "dd"}},
		{Drop: []string{"s"}},
	}
	for _, opt := range opts {
		want, err := ReadFile(context.Background(), filepath.Join(dir, "t.csv"), opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"v2.parquet", "v1.pq"} {
			got, err := ReadFile(context.Background(), filepath.Join(dir, f), opt)
			if err != nil {
				t.Fatal(err)
			}
			want.Name = f
			if d := diffTables(got, want); d != "" {
				t.Fatalf("%s %+v: %s", f, opt, d)
			}
			checkHash(t, filepath.Join(dir, f), got)
		}
	}
	// The file really has several row groups, and nulls.
	f, _ := os.Open(filepath.Join(dir, "v2.parquet"))
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	if len(pf.RowGroups()) < 3 {
		t.Errorf("%d row groups", len(pf.RowGroups()))
	}
	if n := countPages(t, pf.RowGroups()[0].ColumnChunks()[0]); n < 3 {
		t.Errorf("%d pages in the first column chunk", n)
	}
}

// TestParquetValues checks a few values against the rows written.
func TestParquetValues(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.parquet")
	rows := pqRows(rand.New(rand.NewPCG(12, 1)), 40)
	writeParquet(t, path, rows)
	tab, err := ReadFile(context.Background(), path, Options{Categorical: []string{"s"}})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Rows != 40 || len(tab.Columns) != 10 {
		t.Fatalf("%d rows, %d columns", tab.Rows, len(tab.Columns))
	}
	for i, x := range rows {
		wantB := nan
		if x.B != nil && *x.B {
			wantB = 1
		} else if x.B != nil {
			wantB = 0
		}
		wantU, wantDec := float64(x.U), nan
		if x.Dec != nil {
			wantDec, _ = strconv.ParseFloat(decimalString(*x.Dec, 2), 64)
		}
		s := tab.Columns[5]
		gotS := "<NA>"
		if s.Codes[i] >= 0 {
			gotS = s.Levels[s.Codes[i]]
		}
		wantS := "<NA>"
		if x.S != nil {
			wantS = *x.S
		}
		if !sameFloats([]float64{tab.Columns[4].Num[i], tab.Columns[6].Num[i], tab.Columns[7].Num[i]},
			[]float64{wantB, wantU, wantDec}) || gotS != wantS {
			t.Fatalf("row %d: b, u, dec, s = %v %v %v %q, want %v %v %v %q", i, tab.Columns[4].Num[i],
				tab.Columns[6].Num[i], tab.Columns[7].Num[i], gotS, wantB, wantU, wantDec, wantS)
		}
	}
}

func TestParquetStreamMatchesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.parquet")
	writeParquet(t, path, pqRows(rand.New(rand.NewPCG(13, 1)), 30))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Drop: []string{"s"}}
	a, err := Read(context.Background(), bytes.NewReader(b), path, opt)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ReadFile(context.Background(), path, opt)
	if err != nil {
		t.Fatal(err)
	}
	if d := diffTables(a, c); d != "" || a.SHA256 != c.SHA256 || a.Size != c.Size {
		t.Errorf("%s; %s %d vs %s %d", d, a.SHA256, a.Size, c.SHA256, c.Size)
	}
	checkHash(t, path, a)
}

type nestedRow struct {
	A float64 `parquet:"a"`
	N struct {
		X int32 `parquet:"x"`
	} `parquet:"n"`
	Z float64 `parquet:"z"`
}

type repeatedRow struct {
	A float64 `parquet:"a"`
	L []int32 `parquet:"l"`
}

type timeRow struct {
	A  float64   `parquet:"a"`
	At time.Time `parquet:"at"`
}

type infRow struct {
	A *float64 `parquet:"a,optional"`
}

// writeAny writes rows of any struct type to dir/name.
func writeAny[T any](t *testing.T, dir, name string, rows []T) string {
	t.Helper()
	var b bytes.Buffer
	w := parquet.NewGenericWriter[T](&b)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestParquetErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.parquet")
	writeParquet(t, good, pqRows(rand.New(rand.NewPCG(14, 1)), 20))
	nested := writeAny(t, dir, "nested.parquet", []nestedRow{{A: 1, Z: 5}, {A: 2, Z: 6}})
	repeated := writeAny(t, dir, "repeated.parquet", []repeatedRow{{A: 1, L: []int32{1, 2}}})
	timed := writeAny(t, dir, "time.parquet", []timeRow{{A: 1, At: time.Unix(0, 0)}})
	one, inf := 1.0, math.Inf(-1)
	infs := writeAny(t, dir, "inf.parquet", []infRow{{&one}, {nil}, {&inf}})
	b, _ := os.ReadFile(good)
	trunc := filepath.Join(dir, "trunc.parquet")
	os.WriteFile(trunc, b[:len(b)/2], 0o644)
	cut := filepath.Join(dir, "cut.parquet")
	os.WriteFile(cut, append(bytes.Clone(b[:4]), b[len(b)/2:]...), 0o644)
	long := filepath.Join(dir, "long.parquet")
	os.WriteFile(long, append(bytes.Clone(b[:len(b)-8]), 0xff, 0xff, 0xff, 0x7f, 'P', 'A', 'R', '1'), 0o644)
	garbage := filepath.Join(dir, "garbage.parquet")
	os.WriteFile(garbage, []byte("a,b\n1,2\n"), 0o644)
	tests := []struct {
		path string
		opt  Options
		kind error
		msg  string // the whole message, or its start when it ends in "…"
	}{
		{good, Options{}, ErrColumn, `good.parquet: column "s" holds text (parquet STRING); list the column in categorical or drop`},
		{good, Options{Categorical: []string{"S"}}, ErrColumn,
			`good.parquet: categorical names column "S", which the table does not have (did you mean "s"?)`},
		{nested, Options{}, ErrColumn, `nested.parquet: column "n" is nested (a group of columns); drop it`},
		{repeated, Options{}, ErrColumn, `repeated.parquet: column "l" is repeated (a list of values per row); drop it`},
		{timed, Options{}, ErrColumn,
			`time.parquet: column "at" has parquet type TIMESTAMP(isAdjustedToUTC=true,unit=NANOS), which is neither a number nor text; convert it or drop the column`},
		{infs, Options{}, ErrColumn, `inf.parquet: row 3, column "a": -Inf is not a finite number; NA must be a parquet null`},
		{trunc, Options{}, ErrFormat, `trunc.parquet: not a parquet file (no PAR1 magic number at both ends)`},
		{cut, Options{Categorical: []string{"s"}}, ErrFormat, `cut.parquet: …`},
		{long, Options{}, ErrFormat, `long.parquet: damaged parquet file (a footer of 2147483647 bytes in a file of ` +
			strconv.Itoa(len(b)) + `)`},
		{garbage, Options{}, ErrFormat, `garbage.parquet: not a parquet file (no PAR1 magic number at both ends)`},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.path), func(t *testing.T) {
			_, err := ReadFile(context.Background(), tt.path, tt.opt)
			msg := tt.msg
			if prefix, ok := strings.CutSuffix(msg, "…"); ok && err != nil && strings.HasPrefix(err.Error(), prefix) {
				msg = err.Error()
			}
			checkErr(t, err, tt.kind, msg)
		})
	}
	// Dropped, the nested column is not read.
	tab, err := ReadFile(context.Background(), nested, Options{Drop: []string{"n"}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(tab.AllNames, ",") != "a,n,z" || len(tab.Columns) != 2 || tab.Columns[1].Name != "z" ||
		!sameFloats(tab.Columns[1].Num, []float64{5, 6}) {
		t.Errorf("names %v, columns %+v", tab.AllNames, tab.Columns)
	}
}

func countPages(t *testing.T, cc parquet.ColumnChunk) int {
	pages := cc.Pages()
	defer pages.Close()
	for n := 0; ; n++ {
		_, err := pages.ReadPage()
		if err == io.EOF {
			return n
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

type lz4Row struct {
	A float64 `parquet:"a,lz4"`
	B float64 `parquet:"b"`
}

// TestParquetLZ4: LZ4_RAW columns are refused, unless dropped.
func TestParquetLZ4(t *testing.T) {
	path := writeAny(t, t.TempDir(), "lz4.parquet", []lz4Row{{1, 2}, {3, 4}})
	_, err := ReadFile(context.Background(), path, Options{})
	checkErr(t, err, ErrFormat, `lz4.parquet: column "a" is compressed with LZ4_RAW, which this reader does not read `+
		`(a damaged LZ4 page would exhaust memory); rewrite the file with snappy, gzip or zstd`)
	tab, err := ReadFile(context.Background(), path, Options{Drop: []string{"a"}})
	if err != nil || !sameFloats(tab.Columns[0].Num, []float64{2, 4}) {
		t.Fatalf("%v, %+v", err, tab)
	}
}
