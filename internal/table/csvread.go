package table

import (
	"context"
	"errors"
	"io"
	"math"
	"strconv"
)

// sampleRows is the number of data rows after which a CSV reader with a
// size hint reserves room for the rows it expects.
const sampleRows = 1024

// csvReader reads the data rows of one CSV file into builders.
type csvReader struct {
	file string
	sc   *scanner
	cols []*builder // kept columns, file order
	na   []string
	row  int // data rows read so far
}

// readCSV reads CSV from r. h, if not nil, receives every byte read;
// sizeHint, if positive, is the input's size, used to size the columns.
func readCSV(ctx context.Context, r io.Reader, h io.Writer, file string, opt Options, sizeHint int64) (*Table, error) {
	rd := &csvReader{file: file, sc: newScanner(r, h), na: naList(opt)}
	header, err := rd.sc.next()
	if err == io.EOF {
		return nil, errorf(ErrFormat, "%s: the file is empty; a header line naming the columns is needed", file)
	}
	if err != nil {
		return nil, rd.scanErr(err)
	}
	names := make([]string, len(header))
	for i, f := range header {
		names[i] = string(trimSpace(f))
	}
	all, err := plan(file, names, opt)
	if err != nil {
		return nil, err
	}
	for _, b := range all {
		if b != nil {
			rd.cols = append(rd.cols, b)
		}
	}
	if err := rd.rows(ctx, len(names), sizeHint); err != nil {
		return nil, err
	}
	t := &Table{Name: file, Rows: rd.row, AllNames: names, Columns: make([]Column, len(rd.cols))}
	for i, b := range rd.cols {
		t.Columns[i] = b.column()
	}
	return t, nil
}

// rows reads every data row.
func (rd *csvReader) rows(ctx context.Context, width int, sizeHint int64) error {
	start := rd.sc.offset()
	for {
		fields, err := rd.sc.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return rd.scanErr(err)
		}
		rd.row++
		if len(fields) != width {
			return errorf(ErrFormat, "%s: line %d (row %d) has %d fields, but the header has %d",
				rd.file, rd.sc.recLine, rd.row, len(fields), width)
		}
		if rd.row%sampleRows == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if rd.row == sampleRows && sizeHint > 0 {
				rd.reserve(float64(sizeHint-start) / float64(rd.sc.offset()-start))
			}
		}
		for _, b := range rd.cols {
			if err := rd.cell(b, fields[b.field]); err != nil {
				return err
			}
		}
	}
}

// reserve makes room for about ratio times the rows read so far, plus 2%.
func (rd *csvReader) reserve(ratio float64) {
	n := int(ratio*1.02*float64(rd.row)) + sampleRows
	for _, b := range rd.cols {
		b.reserve(n)
	}
}

// cell adds one field to its column.
func (rd *csvReader) cell(b *builder, f []byte) error {
	f = trimSpace(f)
	for _, na := range rd.na {
		if len(na) == len(f) && na == string(f) {
			b.addNA()
			return nil
		}
	}
	if b.kind == Categorical {
		b.addLevel(f)
		return nil
	}
	v, err := parseNumber(f)
	switch {
	case errors.Is(err, strconv.ErrRange) && math.IsInf(v, 0):
		return rd.cellErr(b, f, "is too large for a 64-bit float")
	case err != nil:
		return rd.cellErr(b, f, "is not a number; list the column in categorical or drop")
	case math.IsInf(v, 0) || math.IsNaN(v):
		return rd.cellErr(b, f, "is not a finite number; "+naHint(rd.na))
	}
	b.num = append(b.num, v)
	return nil
}

func (rd *csvReader) cellErr(b *builder, f []byte, why string) error {
	return errorf(ErrColumn, "%s: row %d (line %d), column %q: %q %s",
		rd.file, rd.row, rd.sc.recLine, b.name, f, why)
}

// scanErr names the file in a scanner error.
func (rd *csvReader) scanErr(err error) error {
	var se *scanError
	if errors.As(err, &se) {
		return errorf(ErrFormat, "%s: %s", rd.file, se.Error())
	}
	return errorf(ErrFormat, "%s: %w", rd.file, err)
}

// trimSpace removes leading and trailing ASCII spaces and tabs.
func trimSpace(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	for j > i && (b[j-1] == ' ' || b[j-1] == '\t') {
		j--
	}
	return b[i:j]
}

// naHint says how NA is written, for messages.
func naHint(na []string) string {
	if len(na) == 0 {
		return "this table has no NA strings (Options.NA is empty)"
	}
	return "NA must be written as one of " + quoteList(na)
}
