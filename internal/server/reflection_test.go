package server_test

import (
	"context"
	"slices"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	rpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/misslab/misslab/internal/server"
)

// TestReflectionListsAndDescribesServices does what `grpcurl list` and
// `grpcurl describe` do, with no .proto file at hand: the services come
// from server reflection (scripts/grpcurl-check.sh runs grpcurl itself).
func TestReflectionListsAndDescribesServices(t *testing.T) {
	c := startCluster(t, t.TempDir(), server.Options{})
	conn, err := grpc.NewClient(c.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	must(t, err)
	defer conn.Close()
	stream, err := rpb.NewServerReflectionClient(conn).ServerReflectionInfo(context.Background())
	must(t, err)
	must(t, stream.Send(&rpb.ServerReflectionRequest{MessageRequest: &rpb.ServerReflectionRequest_ListServices{}}))
	resp, err := stream.Recv()
	must(t, err)
	var names []string
	for _, s := range resp.GetListServicesResponse().GetService() {
		names = append(names, s.GetName())
	}
	for _, want := range []string{"misslab.v1.SweepService", "misslab.v1.WorkService", "grpc.health.v1.Health"} {
		if !slices.Contains(names, want) {
			t.Errorf("services %v lack %s", names, want)
		}
	}
	must(t, stream.Send(&rpb.ServerReflectionRequest{MessageRequest: &rpb.ServerReflectionRequest_FileContainingSymbol{
		FileContainingSymbol: "misslab.v1.SweepService"}}))
	resp, err = stream.Recv()
	must(t, err)
	files := resp.GetFileDescriptorResponse().GetFileDescriptorProto()
	if len(files) == 0 {
		t.Fatalf("no descriptor: %v", resp)
	}
	var fd descriptorpb.FileDescriptorProto
	must(t, proto.Unmarshal(files[0], &fd))
	var methods []string
	for _, s := range fd.GetService() {
		for _, m := range s.GetMethod() {
			methods = append(methods, s.GetName()+"/"+m.GetName())
		}
	}
	want := []string{"SweepService/Submit", "SweepService/Status", "SweepService/Watch", "SweepService/Cancel", "SweepService/Retry",
		"SweepService/Export", "SweepService/UploadTable", "SweepService/StatTable", "WorkService/Work", "WorkService/FetchTable"}
	if !slices.Equal(methods, want) {
		t.Fatalf("methods %v, want %v", methods, want)
	}
	dialRawWorker(t, c.addr).healthy(t)
}
