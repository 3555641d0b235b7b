package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/misslab/misslab/internal/store"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// MaxTableBytes bounds the size of a table UploadTable accepts: 64 GiB.
const MaxTableBytes int64 = 64 << 30

// FetchChunkBytes is the most table bytes one FetchTableResponse carries:
// 1 MiB.
const FetchChunkBytes = 1 << 20

// StatTable says whether the coordinator holds an intact copy of a table,
// and its size in bytes. A malformed hash is InvalidArgument.
//
// The table RPCs return errors wrapping the store's table errors and the
// server's; errors.go maps them (ErrBadTableHash, ErrTableMismatch and
// ErrProtocol to InvalidArgument, ErrNoTable to NotFound, ErrOutOfRange to
// OutOfRange), as every RPC's.
func (s *sweepService) StatTable(_ context.Context, req *pb.StatTableRequest) (*pb.StatTableResponse, error) {
	if err := store.CheckTableHash(req.GetSha256()); err != nil {
		return nil, err
	}
	size, ok := s.c.st.HasTable(req.GetSha256())
	return &pb.StatTableResponse{Present: ok, Size: size}, nil
}

// UploadTable stores the table the client streams. The first message must
// carry a valid sha256 and a size in [0, MaxTableBytes] (else
// InvalidArgument); a table already held is answered existed=true at once,
// without reading further messages (a held table of another size is
// InvalidArgument). Otherwise the data of every message, in order, go to
// store.PutTable through a reader over the stream, so that the table is
// never whole in memory; bytes whose size or SHA-256 differ from the
// announcement are InvalidArgument and nothing is kept.
func (s *sweepService) UploadTable(stream pb.SweepService_UploadTableServer) error {
	first, err := stream.Recv()
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: upload table: no message", ErrProtocol)
	}
	if err != nil {
		return err
	}
	sha, size := first.GetSha256(), first.GetSize()
	if err := store.CheckTableHash(sha); err != nil {
		return err
	}
	if size < 0 || size > MaxTableBytes {
		return fmt.Errorf("%w: upload table %s: size %d outside [0, %d]", ErrProtocol, short(sha), size, MaxTableBytes)
	}
	if held, ok := s.c.st.HasTable(sha); ok {
		if held != size {
			return fmt.Errorf("%w: upload table %s: announced %d bytes, the held table has %d", store.ErrTableMismatch, short(sha), size, held)
		}
		return stream.SendAndClose(&pb.UploadTableResponse{Sha256: sha, Size: size, Existed: true})
	}
	r := &uploadReader{stream: stream, buf: first.GetData()}
	existed, err := s.c.st.PutTable(stream.Context(), r, sha, size, first.GetName())
	if err != nil {
		s.c.log.Warn("table upload refused", "table", short(sha), "size", size, "error", err)
		return err
	}
	s.c.log.Info("table uploaded", "table", short(sha), "name", first.GetName(), "size", size, "existed", existed)
	return stream.SendAndClose(&pb.UploadTableResponse{Sha256: sha, Size: size, Existed: existed})
}

// uploadReader reads the data of an upload's messages in order; the
// client's end of the stream is io.EOF.
type uploadReader struct {
	stream pb.SweepService_UploadTableServer
	buf    []byte // what is left of the current message
}

// Read implements io.Reader.
func (u *uploadReader) Read(p []byte) (int, error) {
	for len(u.buf) == 0 {
		m, err := u.stream.Recv()
		if err != nil {
			return 0, err
		}
		u.buf = m.GetData()
	}
	n := copy(p, u.buf)
	u.buf = u.buf[n:]
	return n, nil
}

// FetchTable streams the table req names from req.offset to its end, in
// chunks of FetchChunkBytes; every message carries the table's size and
// where its data start. An offset equal to the size gets one message
// without data. A malformed hash is InvalidArgument, a table the
// coordinator lacks NotFound, an offset outside [0, size] OutOfRange.
func (s *workService) FetchTable(req *pb.FetchTableRequest, stream pb.WorkService_FetchTableServer) error {
	path, err := s.c.st.TablePath(req.GetSha256())
	if err != nil {
		return err
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) { // removed since TablePath looked
		return fmt.Errorf("%w: %s: %w", store.ErrNoTable, short(req.GetSha256()), err)
	}
	if err != nil {
		return fmt.Errorf("table %s: %w", short(req.GetSha256()), err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("table %s: %w", short(req.GetSha256()), err)
	}
	size, off := fi.Size(), req.GetOffset()
	if off < 0 || off > size {
		return fmt.Errorf("%w: table %s: offset %d outside [0, %d]", ErrOutOfRange, short(req.GetSha256()), off, size)
	}
	for {
		buf := make([]byte, min(FetchChunkBytes, size-off)) // a new one each time: Send may keep the message
		n, err := f.ReadAt(buf, off)
		if n < len(buf) {
			return fmt.Errorf("table %s: read at %d: %w", short(req.GetSha256()), off, err)
		}
		if err := stream.Send(&pb.FetchTableResponse{Size: size, Offset: off, Data: buf}); err != nil {
			return err
		}
		if off += int64(n); off >= size {
			return nil
		}
	}
}
