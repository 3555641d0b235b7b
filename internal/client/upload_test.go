package client_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/misslab/misslab/internal/client"
	"github.com/misslab/misslab/internal/server"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// serve serves srv on a loopback port until the test ends and returns a
// connection to it.
func serve(t *testing.T, srv *grpc.Server) *grpc.ClientConn {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// coordinator starts a coordinator on a temporary data directory and
// counts the UploadTable streams it serves.
func coordinator(t *testing.T) (*server.Coordinator, *grpc.ClientConn, *atomic.Int32) {
	t.Helper()
	var uploads atomic.Int32
	count := func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
		if info.FullMethod == pb.SweepService_UploadTable_FullMethodName {
			uploads.Add(1)
		}
		return h(srv, ss)
	}
	coord, err := server.Open(context.Background(), t.TempDir(), server.Options{Stream: []grpc.StreamServerInterceptor{count}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { coord.Close() })
	return coord, serve(t, coord.GRPCServer()), &uploads
}

// writeTable writes n reproducible pseudo-random bytes to a file and
// returns its path, the bytes and their SHA-256 (crypto/sha256).
func writeTable(t *testing.T, n int, seed uint64) (string, []byte, string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 11))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	path := filepath.Join(t.TempDir(), "table.csv")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return path, b, hex.EncodeToString(sum[:])
}

// TestUploadTable: the coordinator ends up with the file's bytes under
// their SHA-256; a table it holds is not sent again.
func TestUploadTable(t *testing.T) {
	for _, n := range []int{0, 1, client.UploadChunkBytes, 2*client.UploadChunkBytes + 3} {
		coord, conn, uploads := coordinator(t)
		path, data, want := writeTable(t, n, uint64(n))
		sha, size, err := client.UploadTable(context.Background(), conn, path)
		if err != nil || sha != want || size != int64(n) {
			t.Fatalf("%d bytes: got %s %d %v, want %s %d", n, sha, size, err, want, n)
		}
		stored, err := coord.Store().TablePath(sha)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(stored); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d bytes: the coordinator holds %d bytes (%v), not the file", n, len(got), err)
		}
		sha2, size2, err := client.UploadTable(context.Background(), conn, path)
		if err != nil || sha2 != want || size2 != int64(n) {
			t.Fatalf("%d bytes, again: %s %d %v", n, sha2, size2, err)
		}
		if got := uploads.Load(); got != 1 {
			t.Errorf("%d bytes: %d UploadTable streams, want 1 (the second call only asks)", n, got)
		}
	}
}

func TestUploadTableMissingFile(t *testing.T) {
	_, conn, uploads := coordinator(t)
	_, _, err := client.UploadTable(context.Background(), conn, filepath.Join(t.TempDir(), "none.csv"))
	if !errors.Is(err, fs.ErrNotExist) || uploads.Load() != 0 {
		t.Errorf("missing file: %v after %d uploads, want ErrNotExist before any", err, uploads.Load())
	}
}

// liar is a SweepService that confirms tables it was not sent.
type liar struct {
	pb.UnimplementedSweepServiceServer
	stat *pb.StatTableResponse
}

func (l *liar) StatTable(context.Context, *pb.StatTableRequest) (*pb.StatTableResponse, error) {
	return l.stat, nil
}

func (l *liar) UploadTable(stream pb.SweepService_UploadTableServer) error {
	m, err := stream.Recv()
	if err != nil {
		return err
	}
	return stream.SendAndClose(&pb.UploadTableResponse{Sha256: m.GetSha256(), Size: m.GetSize() + 1})
}

// TestUploadTableChecksTheAnswer: a coordinator that confirms another
// size, or holds another size under the hash, is an ErrTableAnswer.
func TestUploadTableChecksTheAnswer(t *testing.T) {
	path, _, _ := writeTable(t, 100, 1)
	for _, stat := range []*pb.StatTableResponse{{}, {Present: true, Size: 99}} {
		srv := grpc.NewServer()
		pb.RegisterSweepServiceServer(srv, &liar{stat: stat})
		conn := serve(t, srv)
		if _, _, err := client.UploadTable(context.Background(), conn, path); !errors.Is(err, client.ErrTableAnswer) {
			t.Errorf("stat %v: %v, want ErrTableAnswer", stat, err)
		}
	}
}
