package table

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

// benchShape is 10^6 rows × 50 numeric columns, or 10^5 rows under -short.
func benchShape() (rows, cols int) {
	if testing.Short() {
		return 100_000, 50
	}
	return 1_000_000, 50
}

// benchValue is the value of a cell: NaN (NA) for 1 cell in 100, else a
// normal draw with 8 significant digits as written in the CSV.
func benchValue(r *rand.Rand) float64 {
	if r.IntN(100) == 0 {
		return nan
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(r.NormFloat64()*100, 'g', 8, 64), 64)
	return v
}

// writeBenchCSV writes the benchmark table as CSV, "NA" for NA.
func writeBenchCSV(b *testing.B, path string, rows, cols int) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	r := rand.New(rand.NewPCG(1, 2))
	line := []byte{}
	for j := range cols {
		line = fmt.Appendf(line, "c%02d,", j)
	}
	for i := range rows + 1 {
		line[len(line)-1] = '\n'
		w.Write(line)
		if i == rows {
			break
		}
		line = line[:0]
		for range cols {
			if v := benchValue(r); v != v {
				line = append(line, "NA,"...)
			} else {
				line = append(strconv.AppendFloat(line, v, 'g', -1, 64), ',')
			}
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}

// writeBenchParquet writes the same table as Parquet: optional DOUBLE
// columns, snappy, row groups of 2^17 rows.
func writeBenchParquet(b *testing.B, path string, rows, cols int) {
	group := parquet.Group{}
	for j := range cols {
		group[fmt.Sprintf("c%02d", j)] = parquet.Optional(parquet.Compressed(parquet.Leaf(parquet.DoubleType), &parquet.Snappy))
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := parquet.NewWriter(f, parquet.NewSchema("bench", group), parquet.MaxRowsPerRowGroup(1<<17))
	r := rand.New(rand.NewPCG(1, 2))
	batch := make([]parquet.Row, 0, 1024)
	for i := range rows {
		row := make(parquet.Row, cols)
		for j := range row {
			if v := benchValue(r); v != v {
				row[j] = parquet.NullValue().Level(0, 0, j)
			} else {
				row[j] = parquet.DoubleValue(v).Level(0, 1, j)
			}
		}
		if batch = append(batch, row); len(batch) == cap(batch) || i == rows-1 {
			if _, err := w.WriteRows(batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}

// heapPeak samples the bytes of heap spans in use (HeapInuse) every
// millisecond until stopped, and reports the highest value seen.
type heapPeak struct {
	stop chan struct{}
	done chan uint64
}

func startHeapPeak() *heapPeak {
	h := &heapPeak{stop: make(chan struct{}), done: make(chan uint64)}
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
		peak := uint64(0)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64()+s[1].Value.Uint64())
			select {
			case <-h.stop:
				h.done <- peak
				return
			case <-t.C:
			}
		}
	}()
	return h
}

func (h *heapPeak) end() uint64 {
	close(h.stop)
	return <-h.done
}

// benchRead reads the file at path b.N times, reporting MB/s of file,
// the peak HeapInuse over the reads (in MB, after a GC before each) and
// the size of the values read.
func benchRead(b *testing.B, path string, rows, cols int) {
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	var peak uint64
	var tab *Table
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		tab = nil
		runtime.GC()
		h := startHeapPeak()
		b.StartTimer()
		if tab, err = ReadFile(context.Background(), path, Options{}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		peak = max(peak, h.end())
		b.StartTimer()
	}
	if tab.Rows != rows || len(tab.Columns) != cols {
		b.Fatalf("read %d×%d", tab.Rows, len(tab.Columns))
	}
	b.ReportMetric(float64(peak)/1e6, "peak-heap-MB")
	b.ReportMetric(float64(8*rows*cols)/1e6, "values-MB")
}

var benchFiles sync.Map // "csv"/"parquet" + shape → path, shared by the benchmarks of one run

// benchFile writes the benchmark table in the format once per run, into the
// first benchmark's b.TempDir().
func benchFile(b *testing.B, format string) (path string, rows, cols int) {
	rows, cols = benchShape()
	key := fmt.Sprintf("%s-%d", format, rows)
	if p, ok := benchFiles.Load(key); ok {
		if _, err := os.Stat(p.(string)); err == nil {
			return p.(string), rows, cols
		}
	}
	path = filepath.Join(b.TempDir(), "bench."+format)
	if format == "csv" {
		writeBenchCSV(b, path, rows, cols)
	} else {
		writeBenchParquet(b, path, rows, cols)
	}
	benchFiles.Store(key, path)
	return path, rows, cols
}

func BenchmarkReadCSV1e6x50(b *testing.B) {
	path, rows, cols := benchFile(b, "csv")
	benchRead(b, path, rows, cols)
}

func BenchmarkReadParquet1e6x50(b *testing.B) {
	path, rows, cols := benchFile(b, "parquet")
	benchRead(b, path, rows, cols)
}

// BenchmarkHashFile is the I/O floor: SHA-256 of the CSV file.
func BenchmarkHashFile(b *testing.B) {
	path, _, _ := benchFile(b, "csv")
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	for b.Loop() {
		if _, _, err := HashFile(path); err != nil {
			b.Fatal(err)
		}
	}
}
