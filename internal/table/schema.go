package table

import (
	"context"
	"path/filepath"
)

// Schema reads only a Parquet file's frame and footer and returns its
// kept columns (names and kinds as Read would give them, without values;
// Rows is the footer's row count): what a coordinator needs to check a
// sweep against an uploaded Parquet table without decoding its pages,
// which the parquet library does with allocations a damaged or hostile
// file can inflate. A column type that Read would refuse is refused here
// too. Errors are those of ReadFile; a CSV file is ErrFormat (read a CSV
// with ReadFile: its scanner's memory is bounded per record).
func Schema(ctx context.Context, path string, opt Options) (t *Table, err error) {
	base := filepath.Base(path)
	format, err := formatFor(path, opt)
	if err != nil {
		return nil, err
	}
	if format != Parquet {
		return nil, errorf(ErrFormat, "%s: Schema reads Parquet files only", base)
	}
	f, size, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	defer func() {
		if r := recover(); r != nil {
			t, err = nil, errorf(ErrFormat, "%s: damaged parquet file (%v)", base, r)
		}
	}()
	pf, cols, names, err := openParquet(f, size, base, opt)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t = &Table{Name: base, Size: size, Rows: int(pf.NumRows()), AllNames: names}
	for _, c := range cols {
		t.Columns = append(t.Columns, Column{Name: c.b.name, Kind: c.b.kind})
	}
	return t, nil
}
