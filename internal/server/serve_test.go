package server_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/misslab/misslab/internal/server"
)

// TestServeDirRefusesListenersItCannotBind: a health or metrics address
// that is taken is an error at start, naming the listener, and nothing is
// served.
func TestServeDirRefusesListenersItCannotBind(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer taken.Close()
	for _, c := range []struct {
		name string
		opts server.Options
	}{
		{"health", server.Options{HealthListen: taken.Addr().String()}},
		{"metrics", server.Options{MetricsListen: taken.Addr().String()}},
	} {
		served := false
		err := server.ServeDir(context.Background(), "127.0.0.1:0", t.TempDir(), c.opts, func(net.Addr) error {
			served = true
			return nil
		})
		if err == nil || !strings.Contains(err.Error(), c.name+" listener") || served {
			t.Errorf("%s address taken: %v (served: %v), want an error at start naming the listener", c.name, err, served)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for a logger and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServeDirRunsItsServersAsOneGroup: the gRPC, health and metrics
// servers run until ctx ends, then all stop and ServeDir returns nil.
func TestServeDirRunsItsServersAsOneGroup(t *testing.T) {
	var logs syncBuffer
	opts := server.Options{HealthListen: "127.0.0.1:0", MetricsListen: "127.0.0.1:0",
		Logger: hclog.New(&hclog.LoggerOptions{Output: &logs, Level: hclog.Info})}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	addrs := make(chan net.Addr, 1)
	go func() {
		done <- server.ServeDir(ctx, "127.0.0.1:0", t.TempDir(), opts, func(a net.Addr) error { addrs <- a; return nil })
	}()
	select {
	case <-addrs:
	case err := <-done:
		t.Fatalf("ServeDir: %v", err)
	}
	m := regexp.MustCompile(`serving metrics: addr=(http://\S+/metrics)`).FindStringSubmatch(logs.String())
	if m == nil {
		t.Fatalf("no metrics address logged:\n%s", logs.String())
	}
	resp, err := http.Get(m[1])
	must(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "misslab_") {
		t.Errorf("metrics page lacks misslab's metrics:\n%.300s", body)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeDir after ctx ended: %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeDir did not return after ctx ended")
	}
	if _, err := http.Get(m[1]); err == nil {
		t.Error("the metrics server still answers after ServeDir returned")
	}
}

// TestCloseIsIdempotent: Close called twice, also concurrently, closes
// once and returns the same result.
func TestCloseIsIdempotent(t *testing.T) {
	c, err := server.Open(context.Background(), t.TempDir(), server.Options{})
	must(t, err)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = c.Close() }()
	}
	wg.Wait()
	for _, err := range errs {
		if !errors.Is(err, errs[0]) {
			t.Errorf("Close results %v differ", errs)
		}
	}
	if err := c.Close(); err != errs[0] {
		t.Errorf("a later Close: %v, want %v", err, errs[0])
	}
}
