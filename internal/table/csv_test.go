package table

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var nan = math.NaN()

// sameFloats says whether a and b hold the same values bit for bit, any
// NaN matching any NaN.
func sameFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.IsNaN(a[i]) != math.IsNaN(b[i]) ||
			!math.IsNaN(a[i]) && math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// diffTables describes the first difference between two tables, ignoring
// SHA256 and Size; "" when they agree.
func diffTables(a, b *Table) string {
	switch {
	case a.Name != b.Name || a.Rows != b.Rows:
		return "name or rows: " + a.Name + "/" + b.Name + " " + strconv.Itoa(a.Rows) + "/" + strconv.Itoa(b.Rows)
	case strings.Join(a.AllNames, "\x00") != strings.Join(b.AllNames, "\x00"):
		return "AllNames: " + strings.Join(a.AllNames, ",") + " vs " + strings.Join(b.AllNames, ",")
	case len(a.Columns) != len(b.Columns):
		return "number of columns"
	}
	for i, ca := range a.Columns {
		cb := b.Columns[i]
		switch {
		case ca.Name != cb.Name || ca.Kind != cb.Kind:
			return "column " + ca.Name + ": name or kind"
		case !sameFloats(ca.Num, cb.Num):
			return "column " + ca.Name + ": values " + fmtFloats(ca.Num) + " vs " + fmtFloats(cb.Num)
		case (ca.Num == nil) != (cb.Num == nil) || (ca.Codes == nil) != (cb.Codes == nil):
			return "column " + ca.Name + ": which of Num and Codes is set"
		case strings.Join(ca.Levels, "\x00") != strings.Join(cb.Levels, "\x00") || len(ca.Levels) != len(cb.Levels):
			return "column " + ca.Name + ": levels " + strconv.Quote(strings.Join(ca.Levels, "|")) + " vs " + strconv.Quote(strings.Join(cb.Levels, "|"))
		case fmtCodes(ca.Codes) != fmtCodes(cb.Codes):
			return "column " + ca.Name + ": codes " + fmtCodes(ca.Codes) + " vs " + fmtCodes(cb.Codes)
		}
	}
	return ""
}

func fmtFloats(x []float64) string {
	s := make([]string, len(x))
	for i, v := range x {
		s[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return "[" + strings.Join(s, " ") + "]"
}

func fmtCodes(x []int32) string {
	s := make([]string, len(x))
	for i, v := range x {
		s[i] = strconv.Itoa(int(v))
	}
	return "[" + strings.Join(s, " ") + "]"
}

func num(name string, v ...float64) Column { return Column{Name: name, Kind: Numeric, Num: v} }

func cat(name string, levels []string, codes ...int32) Column {
	return Column{Name: name, Kind: Categorical, Codes: codes, Levels: levels}
}

func TestReadGoodCSV(t *testing.T) {
	tests := []struct {
		file string
		opt  Options
		want Table
	}{
		{"bom_crlf.csv", Options{Categorical: []string{"label"}}, Table{Rows: 5,
			AllNames: []string{"x", "y", "label"},
			Columns: []Column{
				num("x", 1.5, nan, nan, nan, nan),
				num("y", 2, -300, nan, 4, 0.001),
				cat("label", []string{"a, b", `say "hi"`, "two\nlines"}, 0, 2, -1, 1, 0),
			}}},
		{"bom_crlf.csv", Options{Drop: []string{"label", "x"}}, Table{Rows: 5,
			AllNames: []string{"x", "y", "label"},
			Columns:  []Column{num("y", 2, -300, nan, 4, 0.001)}}},
		{"custom_na.csv", Options{NA: []string{"-999", "missing"}, Categorical: []string{"c"}}, Table{Rows: 5,
			AllNames: []string{"v", "c"},
			Columns: []Column{
				num("v", nan, 2.25, nan, math.Copysign(0, -1), 7),
				cat("c", []string{"", "NA", "x"}, 1, 0, 2, -1, 1),
			}}},
		{"no_final_newline.csv", Options{}, Table{Rows: 2, AllNames: []string{"a", "b"},
			Columns: []Column{num("a", 1, 3), num("b", 2, 4)}}},
		{"header_only.csv", Options{Categorical: []string{"b"}}, Table{Rows: 0, AllNames: []string{"a", "b", "c"},
			Columns: []Column{num("a"), {Name: "b", Kind: Categorical, Codes: []int32{}, Levels: []string{}}, num("c")}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", "good", tt.file)
			got, err := ReadFile(context.Background(), path, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			tt.want.Name = tt.file
			for i, c := range tt.want.Columns {
				if c.Kind == Numeric && c.Num == nil {
					tt.want.Columns[i].Num = []float64{}
				}
			}
			if d := diffTables(got, &tt.want); d != "" {
				t.Fatal(d)
			}
			checkHash(t, path, got)
		})
	}
}

// checkHash compares the table's SHA256 and Size with crypto/sha256 of
// the file's bytes.
func checkHash(t *testing.T, path string, got *Table) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	if got.SHA256 != hex.EncodeToString(sum[:]) || got.Size != int64(len(b)) {
		t.Fatalf("SHA256 %s size %d, want %x %d", got.SHA256, got.Size, sum, len(b))
	}
}

// TestAirquality reads R's airquality data set (written by R's write.csv)
// and checks it against encoding/csv + strconv.ParseFloat, against R's NA
// counts, and its hash against sha256sum.
func TestAirquality(t *testing.T) {
	path := filepath.Join("testdata", "airquality.csv")
	got, err := ReadFile(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Output of `sha256sum testdata/airquality.csv` when the file was committed.
	const sha256sum = "2c30fd88f946fb033340b1058465fcf791944d031d3f1c6d653515b7be5a74b3"
	if got.SHA256 != sha256sum || got.Size != 2902 {
		t.Errorf("SHA256 %s size %d, want %s 2902", got.SHA256, got.Size, sha256sum)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := &Table{Name: "airquality.csv", Rows: len(recs) - 1, AllNames: recs[0]}
	for j, n := range recs[0] {
		c := num(n)
		for _, r := range recs[1:] {
			v := nan
			if r[j] != "NA" {
				if v, err = strconv.ParseFloat(r[j], 64); err != nil {
					t.Fatal(err)
				}
			}
			c.Num = append(c.Num, v)
		}
		want.Columns = append(want.Columns, c)
	}
	if d := diffTables(got, want); d != "" {
		t.Fatal(d)
	}
	// colSums(is.na(airquality)) in R.
	for i, n := range []int{37, 7, 0, 0, 0, 0} {
		if got.Columns[i].NA() != n {
			t.Errorf("%s: %d NA, R says %d", got.Columns[i].Name, got.Columns[i].NA(), n)
		}
	}
}

func TestReadBadCSV(t *testing.T) {
	notClosed := "a quoted field starting on this line is not closed by the end of the file"
	tests := []struct {
		file string
		opt  Options
		kind error
		msg  string
	}{
		{"bad/month_text.csv", Options{}, ErrColumn,
			`month_text.csv: row 12 (line 13), column "Month": "May" is not a number; list the column in categorical or drop`},
		{"bad/shifted.csv", Options{Categorical: []string{"note"}}, ErrColumn,
			`shifted.csv: row 3 (line 6), column "v": "abc" is not a number; list the column in categorical or drop`},
		{"bad/ragged.csv", Options{}, ErrFormat, `ragged.csv: line 3 (row 2) has 2 fields, but the header has 3`},
		{"bad/inf.csv", Options{}, ErrColumn,
			`inf.csv: row 2 (line 3), column "a": "-Inf" is not a finite number; NA must be written as one of "", "NA", "NaN" or "?"`},
		{"bad/nan_lower.csv", Options{NA: []string{"NA"}}, ErrColumn,
			`nan_lower.csv: row 1 (line 2), column "a": "nan" is not a finite number; NA must be written as one of "NA"`},
		{"bad/nan_lower.csv", Options{NA: []string{}}, ErrColumn,
			`nan_lower.csv: row 1 (line 2), column "a": "nan" is not a finite number; this table has no NA strings (Options.NA is empty)`},
		{"bad/huge.csv", Options{}, ErrColumn, `huge.csv: row 1 (line 2), column "a": "1e999" is too large for a 64-bit float`},
		{"bad/bare_quote.csv", Options{}, ErrFormat,
			`bare_quote.csv: line 2: byte 4: a quote in a field that does not start with one (quote the field and double the quote)`},
		{"bad/open_quote.csv", Options{}, ErrFormat, `open_quote.csv: line 2: ` + notClosed},
		{"bad/after_quote.csv", Options{}, ErrFormat, `after_quote.csv: line 2: byte 6: text after the closing quote of a field`},
		{"bad/dup_header.csv", Options{}, ErrColumn, `dup_header.csv: column name "x" appears twice in the header (columns 1 and 3)`},
		{"bad/empty_name.csv", Options{}, ErrColumn, `empty_name.csv: column 2 has no name in the header`},
		{"bad/empty.csv", Options{}, ErrFormat, `empty.csv: the file is empty; a header line naming the columns is needed`},
		{"airquality.csv", Options{Drop: []string{"day"}}, ErrColumn,
			`airquality.csv: drop names column "day", which the table does not have (did you mean "Day"?)`},
		{"airquality.csv", Options{Categorical: []string{"Mnth"}}, ErrColumn,
			`airquality.csv: categorical names column "Mnth", which the table does not have (did you mean "Month"?)`},
		{"airquality.csv", Options{Categorical: []string{"Station"}}, ErrColumn,
			`airquality.csv: categorical names column "Station", which the table does not have`},
		{"airquality.csv", Options{Drop: []string{"Month"}, Categorical: []string{"Month"}}, ErrColumn,
			`airquality.csv: column "Month" is listed in both drop and categorical`},
		{"airquality.csv", Options{Format: "xlsx"}, ErrFormat, `airquality.csv: unknown table format "xlsx" (want "csv" or "parquet")`},
		{"missing.csv", Options{}, ErrFormat, `missing.csv: open testdata/missing.csv: no such file or directory`},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, err := ReadFile(context.Background(), filepath.Join("testdata", tt.file), tt.opt)
			checkErr(t, err, tt.kind, tt.msg)
		})
	}
}

// checkErr checks err's message and that it wraps kind and no other
// sentinel of the package.
func checkErr(t *testing.T, err, kind error, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %q", msg)
	}
	if err.Error() != msg {
		t.Errorf("error\n%s\nwant\n%s", err, msg)
	}
	for _, s := range []error{ErrFormat, ErrColumn, ErrTarget} {
		if errors.Is(err, s) != (s == kind) {
			t.Errorf("errors.Is(err, %v) = %v", s, errors.Is(err, s))
		}
	}
}

// TestReadStreamMatchesFile: Read from an io.Reader (hashed in line) and
// ReadFile (hashed concurrently) agree, including the hash.
func TestReadStreamMatchesFile(t *testing.T) {
	for _, f := range []string{"airquality.csv", "good/bom_crlf.csv"} {
		path := filepath.Join("testdata", f)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		opt := Options{Categorical: []string{"label"}}
		if f == "airquality.csv" {
			opt = Options{}
		}
		a, err := Read(context.Background(), bytes.NewReader(b), path, opt)
		if err != nil {
			t.Fatal(err)
		}
		c, err := ReadFile(context.Background(), path, opt)
		if err != nil {
			t.Fatal(err)
		}
		if d := diffTables(a, c); d != "" || a.SHA256 != c.SHA256 || a.Size != c.Size {
			t.Errorf("%s: %s; %s %d vs %s %d", f, d, a.SHA256, a.Size, c.SHA256, c.Size)
		}
	}
}

func TestFormatOf(t *testing.T) {
	tests := []struct {
		path string
		want Format
		err  string
	}{
		{"data/a.csv", CSV, ""},
		{"A.CSV", CSV, ""},
		{"x.Parquet", Parquet, ""},
		{"x.pq", Parquet, ""},
		{"x.csv.gz", "", `x.csv.gz: unknown table format ".gz" (want .csv, .parquet or .pq)`},
		{"noext", "", `noext: unknown table format "" (want .csv, .parquet or .pq)`},
	}
	for _, tt := range tests {
		got, err := FormatOf(tt.path)
		if tt.err != "" {
			checkErr(t, err, ErrFormat, tt.err)
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("FormatOf(%q) = %q, %v, want %q", tt.path, got, err, tt.want)
		}
	}
}

func TestHashFile(t *testing.T) {
	path := filepath.Join("testdata", "airquality.csv")
	sum, n, err := HashFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	want := sha256.Sum256(b)
	if sum != hex.EncodeToString(want[:]) || n != int64(len(b)) {
		t.Errorf("HashFile = %s %d, want %x %d", sum, n, want, len(b))
	}
	_, _, err = HashFile(filepath.Join("testdata", "nope.csv"))
	checkErr(t, err, ErrFormat, "nope.csv: open testdata/nope.csv: no such file or directory")
}

// TestCanceled: a canceled context stops reading with its error.
func TestCanceled(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("a,b\n")
	for i := range 5000 {
		b.WriteString(strconv.Itoa(i) + ",1\n")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Read(ctx, &b, "c.csv", Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestReadSizing: columns are sized from the first rows and the file
// size; rows longer or shorter later still read right, without much
// spare capacity left.
func TestReadSizing(t *testing.T) {
	for _, longFirst := range []bool{true, false} {
		var b bytes.Buffer
		b.WriteString("v,pad\n")
		n := 20000
		for i := range n {
			pad := "x"
			if (i < sampleRows) == longFirst {
				pad = strings.Repeat("y", 200)
			}
			b.WriteString(strconv.Itoa(i) + "," + pad + "\n")
		}
		path := filepath.Join(t.TempDir(), "s.csv")
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		tab, err := ReadFile(context.Background(), path, Options{Drop: []string{"pad"}})
		if err != nil {
			t.Fatal(err)
		}
		v := tab.Columns[0].Num
		for i, x := range v {
			if x != float64(i) {
				t.Fatalf("row %d: %v", i, x)
			}
		}
		if len(v) != n || cap(v) > n+n/16 {
			t.Errorf("long rows first %v: len %d cap %d", longFirst, len(v), cap(v))
		}
	}
}
