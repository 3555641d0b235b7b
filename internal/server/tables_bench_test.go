package server_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/misslab/misslab/internal/client"
	"github.com/misslab/misslab/internal/server"
	"github.com/misslab/misslab/internal/worker"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// benchTableBytes is the size of the benchmarks' table: 256 MiB per op.
const benchTableBytes = 256 << 20

// BenchmarkTableUpload uploads a 256 MiB file to a coordinator over
// loopback gRPC (client.UploadTable: hash, StatTable, stream, the
// coordinator's hash check, fsync and rename) on a fresh data directory
// each op. It reports MB/s and the peak heap in use and peak RSS growth
// during the ops.
func BenchmarkTableUpload(b *testing.B) {
	path := filepath.Join(b.TempDir(), "t.bin")
	writeRandomFile(b, path, benchTableBytes)
	b.SetBytes(benchTableBytes)
	mem := watchMemory(b)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		c := startCluster(b, b.TempDir(), server.Options{})
		cc := dialRawWorker(b, c.addr).conn
		b.StartTimer()
		if _, _, err := client.UploadTable(context.Background(), cc, path); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		c.close()
		b.StartTimer()
	}
	b.StopTimer()
	mem.report(b)
}

// BenchmarkTableFetch fetches a 256 MiB table from a coordinator into a
// fresh worker TableStore each op (FetchTable stream, write, SHA-256 of
// the whole file, fsync, rename). It reports MB/s and the peak heap in
// use and peak RSS growth during the ops.
func BenchmarkTableFetch(b *testing.B) {
	path := filepath.Join(b.TempDir(), "t.bin")
	sha := writeRandomFile(b, path, benchTableBytes)
	c := startCluster(b, b.TempDir(), server.Options{})
	cc := dialRawWorker(b, c.addr).conn
	if _, _, err := client.UploadTable(context.Background(), cc, path); err != nil {
		b.Fatal(err)
	}
	wc := pb.NewWorkServiceClient(cc)
	b.SetBytes(benchTableBytes)
	mem := watchMemory(b)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		ts, err := worker.OpenTableStore(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := ts.Ensure(context.Background(), wc, sha); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	mem.report(b)
}

// BenchmarkTableSHA256 is the floor of both: hashing 256 MiB in memory,
// 1 MiB at a time.
func BenchmarkTableSHA256(b *testing.B) {
	buf := bytes.Repeat([]byte{0x5a}, 1<<20)
	b.SetBytes(benchTableBytes)
	for range b.N {
		h := sha256.New()
		for range benchTableBytes / len(buf) {
			h.Write(buf)
		}
		_ = h.Sum(nil)
	}
}

// memWatch follows the heap in use and the process's peak RSS.
type memWatch struct {
	heap    func() uint64
	rssBase int64 // VmHWM after resetting it, bytes; -1 when unknown
}

// watchMemory starts sampling the heap (see watchHeap) and resets the
// kernel's peak-RSS mark (Linux: /proc/self/clear_refs), so that report
// can give the growth of both.
func watchMemory(b *testing.B) *memWatch {
	m := &memWatch{rssBase: -1}
	if os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil {
		m.rssBase = vmHWM()
	}
	m.heap = watchHeap(b)
	return m
}

func (m *memWatch) report(b *testing.B) {
	b.ReportMetric(float64(m.heap())/(1<<20), "peak-heap-MiB")
	if m.rssBase >= 0 {
		if hwm := vmHWM(); hwm >= 0 {
			b.ReportMetric(float64(hwm-m.rssBase)/(1<<20), "peak-rss-growth-MiB")
		}
	}
}

// vmHWM returns the process's peak resident set in bytes (Linux), or -1.
func vmHWM() int64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return -1
			}
			return kb << 10
		}
	}
	return -1
}
