package server_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/misslab/misslab/internal/auth"
	"github.com/misslab/misslab/internal/client"
	"github.com/misslab/misslab/internal/server"
	"github.com/misslab/misslab/internal/worker"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// randomTable returns n reproducible pseudo-random bytes and their hex
// SHA-256 (crypto/sha256, the reference).
func randomTable(n int, seed uint64) ([]byte, string) {
	b := make([]byte, n)
	_, _ = rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8)}).Read(b)
	sum := sha256.Sum256(b)
	return b, hex.EncodeToString(sum[:])
}

// uploadRaw streams data under the announced hash and size, chunk bytes
// per message, and returns the coordinator's answer.
func uploadRaw(ctx context.Context, cc grpc.ClientConnInterface, sha string, size int64, data []byte, chunk int) (*pb.UploadTableResponse, error) {
	stream, err := pb.NewSweepServiceClient(cc).UploadTable(ctx)
	if err != nil {
		return nil, err
	}
	m := &pb.UploadTableRequest{Sha256: sha, Size: size, Name: "t.csv"}
	for first := true; first || len(data) > 0; first = false {
		n := min(chunk, len(data))
		m.Data, data = data[:n], data[n:]
		if err := stream.Send(m); err != nil {
			break // the coordinator answered early; CloseAndRecv says how
		}
		m = &pb.UploadTableRequest{}
	}
	return stream.CloseAndRecv()
}

// fetchAll reads FetchTable from offset to the end, checking that every
// message carries the size and its place and at most 1 MiB.
func fetchAll(t *testing.T, cc grpc.ClientConnInterface, sha string, offset int64) ([]byte, error) {
	t.Helper()
	stream, err := pb.NewWorkServiceClient(cc).FetchTable(context.Background(), &pb.FetchTableRequest{Sha256: sha, Offset: offset})
	if err != nil {
		return nil, err
	}
	var out []byte
	for {
		m, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if m.GetOffset() != offset+int64(len(out)) || len(m.GetData()) > server.FetchChunkBytes {
			t.Errorf("chunk at %d of %d bytes, want one at %d of at most %d", m.GetOffset(), len(m.GetData()),
				offset+int64(len(out)), server.FetchChunkBytes)
		}
		out = append(out, m.GetData()...)
		if m.GetSize() != offset+int64(len(out)) && len(m.GetData()) < server.FetchChunkBytes {
			t.Errorf("short chunk before the end (%d bytes at %d of %d)", len(m.GetData()), m.GetOffset(), m.GetSize())
		}
	}
}

// TestUploadThenFetch: what is uploaded is fetched byte for byte, from
// any offset; a second upload of it is answered without its bytes.
func TestUploadThenFetch(t *testing.T) {
	c := startCluster(t, t.TempDir(), server.Options{})
	cc := dialRawWorker(t, c.addr).conn
	data, sha := randomTable(3*server.FetchChunkBytes+123, 1)
	resp, err := uploadRaw(context.Background(), cc, sha, int64(len(data)), data, 100_000)
	if err != nil || resp.GetExisted() || resp.GetSha256() != sha || resp.GetSize() != int64(len(data)) {
		t.Fatalf("upload: %v %v", resp, err)
	}
	st, err := c.client.StatTable(context.Background(), &pb.StatTableRequest{Sha256: sha})
	if err != nil || !st.GetPresent() || st.GetSize() != int64(len(data)) {
		t.Fatalf("stat: %v %v", st, err)
	}
	for _, off := range []int64{0, 1, server.FetchChunkBytes, int64(len(data)) - 1, int64(len(data))} {
		got, err := fetchAll(t, cc, sha, off)
		if err != nil || !bytes.Equal(got, data[off:]) {
			t.Errorf("fetch from %d: %d bytes (%v), want the table's last %d", off, len(got), err, int64(len(data))-off)
		}
	}
	// Held already: answered at once, whatever follows the first message.
	resp, err = uploadRaw(context.Background(), cc, sha, int64(len(data)), nil, 1)
	if err != nil || !resp.GetExisted() || resp.GetSize() != int64(len(data)) {
		t.Errorf("second upload: %v %v, want existed", resp, err)
	}
}

// TestTableRefusals: malformed hashes, bytes that are not the announced
// table, bad sizes and offsets, unknown tables; nothing is kept.
func TestTableRefusals(t *testing.T) {
	c := startCluster(t, t.TempDir(), server.Options{})
	cc := dialRawWorker(t, c.addr).conn
	data, sha := randomTable(5000, 2)
	other, otherSHA := randomTable(5000, 3)
	ctx := context.Background()
	uploads := []struct {
		name string
		sha  string
		size int64
		data []byte
		code codes.Code
	}{
		{"crafted hash", "../../etc/passwd", 4, []byte("root"), codes.InvalidArgument},
		{"upper-case hash", strings.ToUpper(sha), int64(len(data)), data, codes.InvalidArgument},
		{"wrong bytes", sha, int64(len(other)), other, codes.InvalidArgument},
		{"too short", sha, int64(len(data)), data[:len(data)-1], codes.InvalidArgument},
		{"too long", sha, int64(len(data)) - 1, data, codes.InvalidArgument},
		{"negative size", sha, -1, data, codes.InvalidArgument},
		{"beyond the limit", sha, server.MaxTableBytes + 1, data, codes.InvalidArgument},
	}
	for _, u := range uploads {
		if _, err := uploadRaw(ctx, cc, u.sha, u.size, u.data, 1000); status.Code(err) != u.code {
			t.Errorf("upload, %s: %v, want %v", u.name, err, u.code)
		}
	}
	stream, err := pb.NewSweepServiceClient(cc).UploadTable(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stream.CloseAndRecv(); status.Code(err) != codes.InvalidArgument {
		t.Errorf("upload without a message: %v, want InvalidArgument", err)
	}
	for _, h := range []string{sha, otherSHA} {
		if st, err := c.client.StatTable(ctx, &pb.StatTableRequest{Sha256: h}); err != nil || st.GetPresent() {
			t.Errorf("stat of a refused table: %v %v, want absent", st, err)
		}
		if _, err := fetchAll(t, cc, h, 0); status.Code(err) != codes.NotFound {
			t.Errorf("fetch of an unknown table: %v, want NotFound", err)
		}
	}
	if files, _ := os.ReadDir(filepath.Join(c.dir, "tables")); len(files) > 0 {
		t.Errorf("refused uploads left %d files", len(files))
	}
	if _, err := c.client.StatTable(ctx, &pb.StatTableRequest{Sha256: "../x"}); status.Code(err) != codes.InvalidArgument {
		t.Errorf("stat of a crafted hash: %v, want InvalidArgument", err)
	}
	if _, err := fetchAll(t, cc, "../x", 0); status.Code(err) != codes.InvalidArgument {
		t.Errorf("fetch of a crafted hash: %v, want InvalidArgument", err)
	}
	if _, err := uploadRaw(ctx, cc, sha, int64(len(data)), data, 1000); err != nil {
		t.Fatal(err)
	}
	for _, off := range []int64{-1, int64(len(data)) + 1} {
		if _, err := fetchAll(t, cc, sha, off); status.Code(err) != codes.OutOfRange {
			t.Errorf("fetch from %d: %v, want OutOfRange", off, err)
		}
	}
	if _, err := uploadRaw(ctx, cc, sha, int64(len(data))+1, nil, 1); status.Code(err) != codes.InvalidArgument {
		t.Errorf("held table announced with another size: %v, want InvalidArgument", err)
	}
}

// TestTableRPCsNeedCredentials: the access policy covers the table RPCs
// like every other.
func TestTableRPCsNeedCredentials(t *testing.T) {
	c := startCluster(t, t.TempDir(), securedOptions(auth.NewPolicy(auth.PolicyOptions{Tokens: []string{testToken}, Cluster: "fig3"})))
	path := filepath.Join(t.TempDir(), "t.csv")
	data, sha := randomTable(10_000, 4)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	anon := dialRawWorker(t, c.addr).conn
	ctx := context.Background()
	if _, err := c.client.StatTable(ctx, &pb.StatTableRequest{Sha256: sha}); status.Code(err) != codes.Unauthenticated {
		t.Errorf("stat without a token: %v", err)
	}
	if _, _, err := client.UploadTable(ctx, anon, path); status.Code(err) != codes.Unauthenticated {
		t.Errorf("upload without a token: %v", err)
	}
	if _, err := uploadRaw(ctx, anon, sha, int64(len(data)), data, 1000); status.Code(err) != codes.Unauthenticated {
		t.Errorf("raw upload without a token: %v", err)
	}
	if _, err := fetchAll(t, anon, sha, 0); status.Code(err) != codes.Unauthenticated {
		t.Errorf("fetch without a token: %v", err)
	}
	cl := dialWith(t, c.addr, auth.Credentials{Token: testToken, Cluster: "fig3"})
	if got, _, err := client.UploadTable(ctx, cl, path); err != nil || got != sha {
		t.Fatalf("upload with the token: %s %v", got, err)
	}
	if got, err := fetchAll(t, cl, sha, 0); err != nil || !bytes.Equal(got, data) {
		t.Errorf("fetch with the token: %d bytes, %v", len(got), err)
	}
	if _, err := fetchAll(t, dialWith(t, c.addr, auth.Credentials{Token: testToken, Cluster: "fig4"}), sha, 0); status.Code(err) != codes.PermissionDenied {
		t.Errorf("fetch for another cluster: %v, want PermissionDenied", err)
	}
}

// dialWith returns a plaintext connection to addr that sends creds.
func dialWith(t *testing.T, addr string, creds auth.Credentials) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithPerRPCCredentials(creds))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// TestGiBTable: a 1 GiB table goes from a client's file to the
// coordinator and on to a worker's table store, verified at each end,
// with no message-size error and without either side holding it in
// memory (the heap stays far below the table's size).
func TestGiBTable(t *testing.T) {
	if testing.Short() {
		t.Skip("moves 1 GiB three times")
	}
	const size = 1 << 30
	path := filepath.Join(t.TempDir(), "big.bin")
	sha := writeRandomFile(t, path, size)
	c := startCluster(t, t.TempDir(), server.Options{})
	cc := dialRawWorker(t, c.addr).conn
	peak := watchHeap(t)
	start := time.Now()
	got, n, err := client.UploadTable(context.Background(), cc, path)
	if err != nil || got != sha || n != size {
		t.Fatalf("upload: %s %d %v", got, n, err)
	}
	up := time.Since(start)
	ts, err := worker.OpenTableStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	p, err := ts.Ensure(context.Background(), pb.NewWorkServiceClient(cc), sha)
	if err != nil {
		t.Fatal(err)
	}
	down := time.Since(start)
	if fi, err := os.Stat(p); err != nil || fi.Size() != size {
		t.Fatalf("fetched file: %v %v", fi, err)
	}
	heap := peak()
	t.Logf("1 GiB: upload %v (%.0f MB/s), fetch %v (%.0f MB/s), peak heap in use %.0f MiB", up, size/up.Seconds()/1e6,
		down, size/down.Seconds()/1e6, float64(heap)/(1<<20))
	if heap > 256<<20 {
		t.Errorf("peak heap %d MiB: the table was held in memory", heap>>20)
	}
}

// writeRandomFile writes size bytes to path and returns their SHA-256:
// one block of 1 MiB of pseudo-random bytes, repeated with the block's
// number in its first 8 bytes, so that every block differs (a chunk out
// of place changes the hash) and the race detector need not instrument
// a generator for every byte.
func writeRandomFile(t testing.TB, path string, size int64) string {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	_, _ = rand.NewChaCha8([32]byte{9}).Read(buf)
	h := sha256.New()
	for i, left := uint64(0), size; left > 0; i, left = i+1, left-int64(len(buf)) {
		binary.LittleEndian.PutUint64(buf, i)
		b := buf[:min(left, int64(len(buf)))]
		h.Write(b)
		if _, err := f.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// watchHeap samples the heap in use (MemStats.HeapInuse, read through
// runtime/metrics, which does not stop the world as ReadMemStats does)
// every 10 ms until the returned function is called, which returns the
// largest sample.
func watchHeap(t testing.TB) func() uint64 {
	runtime.GC()
	stop, done := make(chan struct{}), make(chan uint64)
	go func() {
		var peak uint64
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64()+s[1].Value.Uint64())
			select {
			case <-stop:
				done <- peak
				return
			case <-tick.C:
			}
		}
	}()
	var once bool
	end := func() uint64 {
		if once {
			return 0
		}
		once = true
		close(stop)
		return <-done
	}
	t.Cleanup(func() { end() })
	return end
}
