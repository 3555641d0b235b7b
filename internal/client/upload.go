package client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"google.golang.org/grpc"

	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// ErrTableAnswer is wrapped by UploadTable's error when the coordinator's
// answer names another table (hash or size) than the one sent.
var ErrTableAnswer = errors.New("client: the coordinator's answer does not match the table")

// UploadChunkBytes is the most table bytes one UploadTableRequest carries:
// 1 MiB.
const UploadChunkBytes = 1 << 20

// UploadTable makes sure the coordinator behind conn holds the table in
// the file at path, and returns the table's identity: the lowercase hex
// SHA-256 of its bytes and its size in bytes. It hashes the file
// (streaming), asks the coordinator (StatTable) and, only if the table is
// missing there, streams it in chunks of UploadChunkBytes; the file is
// never whole in memory. Errors come from reading the file, from the RPCs
// as gRPC statuses (InvalidArgument when the file changed between hashing
// and sending, so the coordinator's check failed), or wrap ErrTableAnswer
// when the coordinator confirms another hash or size.
func UploadTable(ctx context.Context, conn grpc.ClientConnInterface, path string) (sha string, size int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, fmt.Errorf("upload table: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if size, err = io.Copy(h, f); err != nil {
		return "", 0, fmt.Errorf("upload table: hash %s: %w", path, err)
	}
	sha = hex.EncodeToString(h.Sum(nil))
	c := pb.NewSweepServiceClient(conn)
	st, err := c.StatTable(ctx, &pb.StatTableRequest{Sha256: sha})
	if err != nil {
		return "", 0, fmt.Errorf("upload table %s: %w", path, err)
	}
	if st.GetPresent() {
		if st.GetSize() != size {
			return "", 0, fmt.Errorf("%w: %s has %d bytes, the coordinator's table of that hash %d", ErrTableAnswer, path, size, st.GetSize())
		}
		return sha, size, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", 0, fmt.Errorf("upload table: %w", err)
	}
	resp, err := sendTable(ctx, c, f, &pb.UploadTableRequest{Sha256: sha, Size: size, Name: filepath.Base(path)})
	if err != nil {
		return "", 0, fmt.Errorf("upload table %s: %w", path, err)
	}
	if resp.GetSha256() != sha || resp.GetSize() != size {
		return "", 0, fmt.Errorf("%w: sent %s (%d bytes), confirmed %q (%d bytes)", ErrTableAnswer, sha, size, resp.GetSha256(), resp.GetSize())
	}
	return sha, size, nil
}

// sendTable streams r after first's fields, UploadChunkBytes per message,
// and returns the coordinator's answer. The coordinator may answer before
// reading everything (it already holds the table, or refuses it): Send
// then says io.EOF and the answer, or the refusal, comes from CloseAndRecv.
func sendTable(ctx context.Context, c pb.SweepServiceClient, r io.Reader, first *pb.UploadTableRequest) (*pb.UploadTableResponse, error) {
	ctx, cancel := context.WithCancel(ctx) // a read error cancels the upload: nothing is kept
	defer cancel()
	stream, err := c.UploadTable(ctx)
	if err != nil {
		return nil, err
	}
	m := first
	for {
		buf := make([]byte, UploadChunkBytes) // a new one each time: Send may keep the message
		n, rerr := io.ReadFull(r, buf)
		m.Data = buf[:n]
		if n > 0 || m == first {
			if err := stream.Send(m); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return nil, err
			}
		}
		if errors.Is(rerr, io.EOF) || errors.Is(rerr, io.ErrUnexpectedEOF) {
			break
		}
		if rerr != nil {
			return nil, rerr
		}
		m = &pb.UploadTableRequest{}
	}
	return stream.CloseAndRecv()
}
