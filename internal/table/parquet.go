package table

import (
	"context"
	"encoding/binary"
	"io"
	"math"
	"strconv"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// pqValueBatch is the number of values read at once on the general path.
const pqValueBatch = 1024

// pqColumn reads one kept top-level leaf column of a Parquet file.
type pqColumn struct {
	file     string
	b        *builder
	leaf     int          // index among the file's leaf columns
	maxDef   byte         // definition level of a non-null value
	phys     parquet.Kind // physical type
	unsigned bool         // INT(n, unsigned) logical type
	scale    float64      // 10^scale of a DECIMAL, else 1
	text     bool         // BYTE_ARRAY read as text
	vals     []parquet.Value
	scratch  []byte
}

// readParquet reads a Parquet file of size bytes from ra. The parquet
// library panics on some damaged files; that becomes an ErrFormat.
func readParquet(ctx context.Context, ra io.ReaderAt, size int64, file string, opt Options) (t *Table, err error) {
	defer func() {
		if r := recover(); r != nil {
			t, err = nil, errorf(ErrFormat, "%s: damaged parquet file (%v)", file, r)
		}
	}()
	pf, cols, names, err := openParquet(ra, size, file, opt)
	if err != nil {
		return nil, err
	}
	if pf.NumRows() < 0 || pf.NumRows() > math.MaxInt32 {
		return nil, errorf(ErrFormat, "%s: the file claims %d rows", file, pf.NumRows())
	}
	if err := refuseLZ4(pf, cols, file); err != nil {
		return nil, err
	}
	rows := int(pf.NumRows())
	if err := readRowGroups(ctx, pf, cols, min(rows, int(size))); err != nil {
		return nil, err
	}
	t = &Table{Name: file, Rows: rows, AllNames: names, Columns: make([]Column, len(cols))}
	for i, c := range cols {
		if n := c.len(); n != rows {
			return nil, errorf(ErrFormat, "%s: column %q has %d values but the file has %d rows", file, c.b.name, n, rows)
		}
		t.Columns[i] = c.b.column()
	}
	return t, nil
}

// openParquet checks a Parquet file's frame, reads its footer and plans
// its kept columns, decoding no page. Callers recover the library's
// panics on damaged files.
func openParquet(ra io.ReaderAt, size int64, file string, opt Options) (*parquet.File, []*pqColumn, []string, error) {
	if err := checkFrame(ra, size, file); err != nil {
		return nil, nil, nil, err
	}
	pf, err := parquet.OpenFile(ra, size, parquet.SkipBloomFilters(true), parquet.SkipPageIndex(true),
		parquet.ReadBufferSize(1<<20))
	if err != nil {
		return nil, nil, nil, errorf(ErrFormat, "%s: not a readable parquet file: %w", file, err)
	}
	cols, names, err := pqPlan(pf, file, opt)
	if err != nil {
		return nil, nil, nil, err
	}
	return pf, cols, names, nil
}

// readRowGroups reads the kept columns of every row group, after
// reserving room for reserve rows. A damaged file may claim many rows, so
// the caller reserves no more than one per byte of the file; the columns
// grow past that if they must.
func readRowGroups(ctx context.Context, pf *parquet.File, cols []*pqColumn, reserve int) error {
	for _, c := range cols {
		c.b.reserve(reserve)
	}
	for _, rg := range pf.RowGroups() {
		chunks := rg.ColumnChunks()
		for _, c := range cols {
			if err := c.readChunk(ctx, chunks[c.leaf]); err != nil {
				return err
			}
		}
	}
	return nil
}

// pqPlan checks the schema against opt and returns the kept columns and
// every top-level column name.
func pqPlan(pf *parquet.File, file string, opt Options) ([]*pqColumn, []string, error) {
	fields := pf.Schema().Fields()
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name()
	}
	all, err := plan(file, names, opt)
	if err != nil {
		return nil, nil, err
	}
	var cols []*pqColumn
	for i, b := range all {
		if b == nil {
			continue
		}
		c, err := newPQColumn(pf.Schema(), fields[i], file, b)
		if err != nil {
			return nil, nil, err
		}
		cols = append(cols, c)
	}
	return cols, names, nil
}

// checkFrame checks the magic numbers at both ends of the file and that
// the footer length fits in it, before the parquet library trusts that
// length with an allocation. Encrypted files ("PARE") are refused.
func checkFrame(ra io.ReaderAt, size int64, file string) error {
	var head, tail [8]byte
	if size >= 12 {
		if _, err := ra.ReadAt(head[:4], 0); err != nil {
			return errorf(ErrFormat, "%s: %w", file, err)
		}
		if _, err := ra.ReadAt(tail[:], size-8); err != nil {
			return errorf(ErrFormat, "%s: %w", file, err)
		}
	}
	switch footer := int64(binary.LittleEndian.Uint32(tail[:4])); {
	case string(tail[4:]) == "PARE":
		return errorf(ErrFormat, "%s: encrypted parquet files are not supported", file)
	case size < 12 || string(head[:4]) != "PAR1" || string(tail[4:]) != "PAR1":
		return errorf(ErrFormat, "%s: not a parquet file (no PAR1 magic number at both ends)", file)
	case footer > size-12:
		return errorf(ErrFormat, "%s: damaged parquet file (a footer of %d bytes in a file of %d)", file, footer, size)
	}
	return nil
}

// refuseLZ4 refuses kept columns compressed with LZ4_RAW: the parquet
// library's LZ4 decoder doubles its buffer without end on a damaged page,
// which would exhaust memory instead of failing.
func refuseLZ4(pf *parquet.File, cols []*pqColumn, file string) error {
	for _, rg := range pf.Metadata().RowGroups {
		for _, c := range cols {
			if c.leaf < len(rg.Columns) && rg.Columns[c.leaf].MetaData.Codec == format.Lz4Raw {
				return errorf(ErrFormat, "%s: column %q is compressed with LZ4_RAW, which this reader does not read "+
					"(a damaged LZ4 page would exhaust memory); rewrite the file with snappy, gzip or zstd", file, c.b.name)
			}
		}
	}
	return nil
}

// newPQColumn says how the top-level field f is read, or why it cannot be.
func newPQColumn(schema *parquet.Schema, f parquet.Field, file string, b *builder) (*pqColumn, error) {
	bad := func(why string) error {
		return errorf(ErrColumn, "%s: column %q %s", file, b.name, why)
	}
	if !f.Leaf() {
		return nil, bad("is nested (a group of columns); drop it")
	}
	if f.Repeated() {
		return nil, bad("is repeated (a list of values per row); drop it")
	}
	leaf, _ := schema.Lookup(f.Name())
	c := &pqColumn{file: file, b: b, leaf: leaf.ColumnIndex, maxDef: byte(leaf.MaxDefinitionLevel),
		phys: f.Type().Kind(), scale: 1, vals: make([]parquet.Value, pqValueBatch)}
	unsupported := bad("has parquet type " + f.Type().String() + ", which is neither a number nor text; convert it or drop the column")
	if lt := f.Type().LogicalType(); lt != nil && lt.Value != nil {
		switch v := lt.Value.(type) {
		case *format.StringType, *format.EnumType:
			c.text = c.phys == parquet.ByteArray
		case *format.IntType:
			c.unsigned = !v.IsSigned
		case *format.DecimalType:
			if c.phys != parquet.Int32 && c.phys != parquet.Int64 {
				return nil, unsupported
			}
			c.scale = math.Pow10(int(v.Scale))
		default:
			return nil, unsupported
		}
	}
	switch c.phys {
	case parquet.Boolean, parquet.Int32, parquet.Int64, parquet.Float, parquet.Double:
	case parquet.ByteArray:
		c.text = true
	default:
		return nil, unsupported
	}
	if c.text && b.kind != Categorical {
		return nil, bad("holds text (parquet " + f.Type().String() + "); list the column in categorical or drop")
	}
	return c, nil
}

// len is the number of rows read so far.
func (c *pqColumn) len() int {
	if c.b.kind == Numeric {
		return len(c.b.num)
	}
	return len(c.b.codes)
}

// readChunk appends the values of one column chunk.
func (c *pqColumn) readChunk(ctx context.Context, cc parquet.ColumnChunk) error {
	pages := cc.Pages()
	defer pages.Close()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		page, err := pages.ReadPage()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return errorf(ErrFormat, "%s: column %q near row %d: %w", c.file, c.b.name, c.len()+1, err)
		}
		err = c.page(page)
		parquet.Release(page)
		if err != nil {
			return err
		}
	}
}

// page appends one page, straight from its typed data when the page is
// numeric, read as numbers and not dictionary-encoded, value by value
// otherwise.
func (c *pqColumn) page(p parquet.Page) error {
	if c.b.kind == Numeric && p.Dictionary() == nil {
		data, defs, want := p.Data(), p.DefinitionLevels(), p.NumValues()-p.NumNulls()
		switch c.phys {
		case parquet.Double:
			if v := data.Double(); int64(len(v)) == want {
				return expand(c, defs, v, func(x float64) float64 { return x })
			}
		case parquet.Float:
			if v := data.Float(); int64(len(v)) == want {
				return expand(c, defs, v, func(x float32) float64 { return float64(x) })
			}
		case parquet.Int32:
			if v := data.Int32(); int64(len(v)) == want {
				return expand(c, defs, v, c.int32Value)
			}
		case parquet.Int64:
			if v := data.Int64(); int64(len(v)) == want {
				return expand(c, defs, v, c.int64Value)
			}
		}
	}
	return c.values(p.Values())
}

// expand appends vals, with NA where the definition levels say null.
func expand[T any](c *pqColumn, defs []byte, vals []T, conv func(T) float64) error {
	if len(defs) == 0 {
		for _, v := range vals {
			if err := c.addNumber(conv(v)); err != nil {
				return err
			}
		}
		return nil
	}
	k := 0
	for _, d := range defs {
		if d != c.maxDef {
			c.b.num = append(c.b.num, math.NaN())
			continue
		}
		if k == len(vals) {
			return errorf(ErrFormat, "%s: column %q near row %d: a page has fewer values than its levels say",
				c.file, c.b.name, c.len()+1)
		}
		if err := c.addNumber(conv(vals[k])); err != nil {
			return err
		}
		k++
	}
	return nil
}

// values appends a page value by value.
func (c *pqColumn) values(vr parquet.ValueReader) error {
	for {
		n, err := vr.ReadValues(c.vals)
		for _, v := range c.vals[:n] {
			if err := c.addValue(v); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return errorf(ErrFormat, "%s: column %q near row %d: %w", c.file, c.b.name, c.len()+1, err)
		}
		if n == 0 {
			return errorf(ErrFormat, "%s: column %q near row %d: a page reader made no progress", c.file, c.b.name, c.len()+1)
		}
	}
}

// addValue appends one value of any supported type.
func (c *pqColumn) addValue(v parquet.Value) error {
	switch {
	case v.IsNull():
		c.b.addNA()
		return nil
	case c.text:
		c.b.addLevel(v.ByteArray())
		return nil
	}
	var x float64
	switch v.Kind() {
	case parquet.Boolean:
		if x = 0; v.Boolean() {
			x = 1
		}
	case parquet.Int32:
		x = c.int32Value(v.Int32())
	case parquet.Int64:
		x = c.int64Value(v.Int64())
	case parquet.Float:
		x = float64(v.Float())
	case parquet.Double:
		x = v.Double()
	default:
		return errorf(ErrFormat, "%s: column %q near row %d: a %v value in a %v column",
			c.file, c.b.name, c.len()+1, v.Kind(), c.phys)
	}
	if c.b.kind == Categorical {
		c.addNumberLevel(v, x)
		return nil
	}
	return c.addNumber(x)
}

// addNumber appends x to a numeric column: NaN is NA, ±Inf an error.
func (c *pqColumn) addNumber(x float64) error {
	if math.IsInf(x, 0) {
		return errorf(ErrColumn, "%s: row %d, column %q: %v is not a finite number; NA must be a parquet null",
			c.file, len(c.b.num)+1, c.b.name, x)
	}
	c.b.num = append(c.b.num, x)
	return nil
}

// addNumberLevel appends the number x, read from v, to a categorical
// column as text: booleans as "false" and "true", integers in decimal,
// floats and decimals in the shortest form that reads back exactly; NaN
// is NA.
func (c *pqColumn) addNumberLevel(v parquet.Value, x float64) {
	s := c.scratch[:0]
	switch k := v.Kind(); {
	case math.IsNaN(x):
		c.b.addNA()
		return
	case k == parquet.Boolean:
		s = strconv.AppendBool(s, v.Boolean())
	case k == parquet.Float:
		s = strconv.AppendFloat(s, x, 'g', -1, 32)
	case k == parquet.Double || c.scale != 1:
		s = strconv.AppendFloat(s, x, 'g', -1, 64)
	case k == parquet.Int32 && c.unsigned:
		s = strconv.AppendUint(s, uint64(uint32(v.Int32())), 10)
	case k == parquet.Int32:
		s = strconv.AppendInt(s, int64(v.Int32()), 10)
	case c.unsigned:
		s = strconv.AppendUint(s, uint64(v.Int64()), 10)
	default:
		s = strconv.AppendInt(s, v.Int64(), 10)
	}
	c.scratch = s
	c.b.addLevel(s)
}

func (c *pqColumn) int32Value(v int32) float64 {
	if c.unsigned {
		return float64(uint32(v)) / c.scale
	}
	return float64(v) / c.scale
}

func (c *pqColumn) int64Value(v int64) float64 {
	if c.unsigned {
		return float64(uint64(v)) / c.scale
	}
	return float64(v) / c.scale
}
