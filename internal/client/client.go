package client

import (
	"context"
	"fmt"
	"io"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/wire"
	pb "github.com/misslab/misslab/proto/misslab/v1"
)

// LoadGrid parses and validates a grid file (see grid.ParseFile) and,
// when reps > 0, shrinks every sweep to reps repetitions.
func LoadGrid(path string, reps int) (*grid.File, error) {
	f, err := grid.ParseFile(path, grid.ParseOptions{})
	if err != nil {
		return nil, err
	}
	if reps > 0 {
		return f.WithRepetitions(reps)
	}
	return f, nil
}

// Client talks to a coordinator's SweepService.
type Client struct {
	conn *grpc.ClientConn
	pb.SweepServiceClient
}

// Dial returns a client of the coordinator at addr (host:port). It is
// plaintext unless opts bring transport credentials (TLS) of their own;
// opts may also add per-call credentials (a token).
//
// An RPC that cannot reach the coordinator, or that it refuses at the
// transport, token or cluster check, fails with an error that says why
// in plain words and what to do, the gRPC status kept inside (see
// DialConfig for a TLS client's).
func Dial(addr string, opts ...grpc.DialOption) (*Client, error) {
	return dial(addr, explainer{addr: addr}, opts...)
}

// dial is Dial with its explainer.
func dial(addr string, e explainer, opts ...grpc.DialOption) (*Client, error) {
	base := append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(wire.MaxMessageBytes), grpc.MaxCallSendMsgSize(wire.MaxMessageBytes))},
		e.interceptors()...)
	conn, err := grpc.NewClient(addr, append(base, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	return &Client{conn: conn, SweepServiceClient: pb.NewSweepServiceClient(conn)}, nil
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// SubmitFile submits every sweep of f and returns their ids in file order.
// A table sweep's table is uploaded first (only when the coordinator
// lacks it), and the upload must hash to the table the grid parser read:
// a file edited in between is refused rather than submitted.
func (c *Client) SubmitFile(ctx context.Context, f *grid.File) ([]string, error) {
	var ids []string
	for _, sw := range f.Sweeps {
		if err := c.uploadTable(ctx, sw); err != nil {
			return ids, fmt.Errorf("submit sweep %q: %w", sw.Name, err)
		}
		resp, err := c.Submit(ctx, &pb.SubmitRequest{Spec: wire.SpecToProto(sw)})
		if err != nil {
			return ids, fmt.Errorf("submit sweep %q: %w", sw.Name, err)
		}
		ids = append(ids, resp.GetSweepId())
	}
	return ids, nil
}

// uploadTable sends a table sweep's file to the coordinator.
func (c *Client) uploadTable(ctx context.Context, sw *grid.Sweep) error {
	if !sw.IsTable() {
		return nil
	}
	want := sw.Scenarios[0].Table.SHA256
	if sw.TableFile == nil {
		return fmt.Errorf("table %s: no local file to upload", sw.Scenarios[0].Table.Name)
	}
	sha, _, err := UploadTable(ctx, c.conn, sw.TableFile.Path)
	if err != nil {
		return fmt.Errorf("upload table %s: %w", sw.TableFile.Path, err)
	}
	if sha != want {
		return fmt.Errorf("table %s changed since the grid was read (sha256 %s, read as %s)", sw.TableFile.Path, sha, want)
	}
	return nil
}

// Statuses returns the status of each sweep id.
func (c *Client) Statuses(ctx context.Context, ids []string) ([]*pb.SweepStatus, error) {
	out := make([]*pb.SweepStatus, 0, len(ids))
	for _, id := range ids {
		resp, err := c.Status(ctx, &pb.StatusRequest{SweepId: id})
		if err != nil {
			return nil, err
		}
		out = append(out, resp.GetSweeps()...)
	}
	return out, nil
}

// Follow polls the sweeps every interval, feeding p, until every one is
// complete or cancelled (returns nil) or ctx ends (returns ctx.Err()).
func (c *Client) Follow(ctx context.Context, ids []string, interval time.Duration, p *Progress) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		sts, err := c.Statuses(ctx, ids)
		if err != nil {
			return err
		}
		finished := p.Update(sts)
		if finished {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// Retry puts the jobs of sweep id (an id, unique prefix or name) that
// failed for good back to run again and returns the sweep's status and
// how many jobs were put back; the coordinator's errors come back as gRPC
// statuses (NotFound for an unknown sweep).
func (c *Client) Retry(ctx context.Context, id string) (*pb.SweepStatus, int64, error) {
	resp, err := c.SweepServiceClient.Retry(ctx, &pb.RetryRequest{SweepId: id})
	if err != nil {
		return nil, 0, err
	}
	return resp.GetStatus(), resp.GetRetried(), nil
}

// Export writes the tidy CSV of a sweep to w.
func (c *Client) Export(ctx context.Context, id string, w io.Writer) error {
	return c.export(ctx, &pb.ExportRequest{SweepId: id}, w)
}

// ExportFolds writes the fold assignment of table sweep id as CSV
// (repetition,fold,row, 1-based; see split.WriteCSV), so that a user can
// rerun the exact splits in R or Python.
func (c *Client) ExportFolds(ctx context.Context, id string, w io.Writer) error {
	return c.export(ctx, &pb.ExportRequest{SweepId: id, Folds: true}, w)
}

func (c *Client) export(ctx context.Context, req *pb.ExportRequest, w io.Writer) error {
	stream, err := c.SweepServiceClient.Export(ctx, req)
	if err != nil {
		return err
	}
	for {
		m, err := stream.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := w.Write(m.GetCsv()); err != nil {
			return err
		}
	}
}
