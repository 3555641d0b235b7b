package table

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
)

// Format is the on-disk format of a table.
type Format string

// The formats Read understands.
const (
	CSV     Format = "csv"     // RFC 4180 text with a header line
	Parquet Format = "parquet" // Apache Parquet, flat schema
)

// FormatOf tells the format from path's extension, case-insensitively:
// ".csv" is CSV, ".parquet" and ".pq" are Parquet. Any other extension is
// an error wrapping ErrFormat.
func FormatOf(path string) (Format, error) {
	ext := filepath.Ext(path)
	switch strings.ToLower(ext) {
	case ".csv":
		return CSV, nil
	case ".parquet", ".pq":
		return Parquet, nil
	}
	return "", errorf(ErrFormat, "%s: unknown table format %q (want .csv, .parquet or .pq)", filepath.Base(path), ext)
}

// DefaultNA lists the CSV cells that mean NA when Options.NA is nil.
var DefaultNA = []string{"", "NA", "NaN", "?"}

// Options says how to read a table. The zero value reads every column as
// numeric with DefaultNA and the format told by the file name.
type Options struct {
	// Format of the bytes; "" means FormatOf the name (or path).
	Format Format
	// NA lists the CSV cells that mean NA, matched exactly against the
	// cell with leading and trailing ASCII spaces and tabs removed; nil
	// means DefaultNA, an empty non-nil slice means no cell is NA. Parquet
	// NA is a null (or a NaN float).
	NA []string
	// Drop names columns that are not parsed at all (their bytes are still
	// hashed). Names are case-sensitive.
	Drop []string
	// Categorical names columns read as text levels (a CSV cell without
	// its leading and trailing spaces and tabs; a Parquet string, or a
	// number or boolean written as by strconv); every other kept column
	// must be numeric. A name in both Drop and Categorical is an
	// ErrColumn.
	Categorical []string
}

// Kind is how a column was read.
type Kind int

// The kinds of column.
const (
	Numeric     Kind = iota + 1 // Column.Num holds the values
	Categorical                 // Column.Codes and Column.Levels hold the values
)

// String returns "numeric" or "categorical".
func (k Kind) String() string {
	switch k {
	case Numeric:
		return "numeric"
	case Categorical:
		return "categorical"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Table is what was read, column-major.
type Table struct {
	Name     string   // base name of the file, for messages
	SHA256   string   // hex SHA-256 of every byte of the file (lowercase, 64 digits)
	Size     int64    // bytes in the file
	Rows     int      // data rows (a CSV header excluded)
	Columns  []Column // kept columns in file order (dropped ones excluded)
	AllNames []string // every column name in file order, dropped included
}

// Column is one kept column of a Table. Exactly one of Num (Numeric) or
// Codes with Levels (Categorical) is set, with one entry per row.
type Column struct {
	Name string
	Kind Kind
	// Num holds a numeric column's values, NaN for NA. Other values are
	// always finite.
	Num []float64
	// Codes holds a categorical column's values as indices into Levels,
	// -1 for NA.
	Codes []int32
	// Levels are the distinct non-NA values of a categorical column,
	// sorted by byte order, so that codes do not depend on row order.
	Levels []string
}

// NA counts the column's NA cells.
func (c Column) NA() int {
	n := 0
	if c.Kind == Categorical {
		for _, v := range c.Codes {
			if v < 0 {
				n++
			}
		}
		return n
	}
	for _, v := range c.Num {
		if math.IsNaN(v) {
			n++
		}
	}
	return n
}

// column returns the kept column called name, or nil.
func (t *Table) column(name string) *Column {
	for i := range t.Columns {
		if t.Columns[i].Name == name {
			return &t.Columns[i]
		}
	}
	return nil
}
