package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const manifests = "../kubernetes"

func TestShippedManifestsAreValid(t *testing.T) {
	b, err := Load(manifests)
	if err != nil {
		t.Fatal(err)
	}
	if p := b.Check(); len(p) > 0 {
		t.Fatalf("problems:\n%s", strings.Join(p, "\n"))
	}
	kinds := map[string]int{}
	for _, o := range b.Objects {
		kinds[o.GVK.Kind]++
	}
	for _, k := range []string{"Namespace", "Secret", "Service", "StatefulSet", "Deployment", "HorizontalPodAutoscaler", "NetworkPolicy"} {
		if kinds[k] == 0 {
			t.Errorf("no %s among the manifests (have %v)", k, kinds)
		}
	}
}

// mutate copies the manifests into a temporary directory with old
// replaced by new in file, and returns the directory.
func mutate(t *testing.T, file, old, new string) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(manifests)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(manifests, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		if e.Name() == file {
			if !strings.Contains(s, old) {
				t.Fatalf("%s does not contain %q", file, old)
			}
			s, found = strings.Replace(s, old, new, 1), true
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if !found {
		t.Fatalf("no file %s", file)
	}
	return dir
}

func TestBrokenManifestsAreCaught(t *testing.T) {
	cases := []struct {
		name, file, old, new, want string
	}{
		{"misspelt field", "worker.yaml", "terminationGracePeriodSeconds:", "terminationGracePeriod:", `unknown field "spec.template.spec.terminationGracePeriod"`},
		{"wrong type", "hpa.yaml", "maxReplicas: 20", "maxReplicas: twenty", "does not match its schema"},
		{"unknown kind", "hpa.yaml", "kind: HorizontalPodAutoscaler", "kind: HorizontalPodScaler", "unknown kind"},
		{"duplicate key", "worker.yaml", "  replicas: 2\n", "  replicas: 2\n  replicas: 3\n", "does not match its schema"},
		{"selector mismatch", "worker.yaml", "    matchLabels:\n      app.kubernetes.io/name: misslab-worker", "    matchLabels:\n      app.kubernetes.io/name: misslab-workers", "does not match the template's labels"},
		{"probe on a missing port", "coordinator.yaml", "          livenessProbe:\n            grpc:\n              port: 7421", "          livenessProbe:\n            grpc:\n              port: 7422", "grpc port 7422 is not a port of the container"},
		{"named port missing", "worker.yaml", "              path: /healthz\n              port: metrics", "              path: /healthz\n              port: metric", `no container port named "metric"`},
		{"service target missing", "coordinator.yaml", "      targetPort: health", "      targetPort: healthz", "target healthz is not a container port"},
		{"no such secret", "worker.yaml", "            secretName: misslab-token", "            secretName: misslab-tokens", `no Secret "misslab-tokens"`},
		{"no such secret key", "worker.yaml", "              - key: ca.crt", "              - key: ca.pem", `has no key "ca.pem"`},
		{"unmounted volume", "coordinator.yaml", "            - name: token\n              mountPath", "            - name: tokens\n              mountPath", `mounts volume "tokens"`},
		{"request over limit", "worker.yaml", "              memory: 160Mi", "              memory: 1Gi", "memory request 1Gi exceeds its limit 512Mi"},
		{"no cpu request", "worker.yaml", "            requests:\n              cpu: \"2\"\n", "            requests:\n", "needs both a request and a limit of cpu"},
		{"root", "worker.yaml", "        runAsUser: 65532", "        runAsUser: 0", "non-root"},
		{"hpa target missing", "hpa.yaml", "    name: misslab-worker", "    name: misslab-workers", "scaleTargetRef Deployment misslab-workers"},
		{"not headless", "coordinator.yaml", "  clusterIP: None", "  clusterIP: \"\"", "is not a headless Service"},
		{"bad name", "worker.yaml", "  name: misslab-worker\n  namespace", "  name: Misslab_Worker\n  namespace", "name: a lowercase RFC 1123"},
		{"other namespace", "hpa.yaml", "  namespace: misslab", "  namespace: default", `namespace "default"`},
		{"kustomization resource missing", "kustomization.yaml", "  - hpa.yaml", "  - hpa.yml", "resource hpa.yml"},
		{"network policy port", "networkpolicy.yaml", "        - port: metrics", "        - port: prometheus", "ingress port prometheus is not a container port"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := mutate(t, c.file, c.old, c.new)
			b, err := Load(dir)
			var got string
			if err != nil {
				got = err.Error()
			} else {
				got = strings.Join(b.Check(), "\n")
			}
			if !strings.Contains(got, c.want) {
				t.Fatalf("want a problem with %q, got:\n%s", c.want, got)
			}
		})
	}
}
