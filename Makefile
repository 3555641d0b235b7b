# misslab — every command a newcomer or CI needs lives here.
# `make run` runs the quickstart experiment; `make test` runs every check CI runs.

GO       ?= go
PKGS     := ./...
RUN_OUT  ?= out/quickstart
BENCHTIME ?= 1s

.PHONY: all build test vet fmt-check unit run bench fuzz tidy clean proto proto-check grpcurl-check
.PHONY: e2e paper paper-ci realdata

all: build

build:
	$(GO) build $(PKGS)

## test: the single command CI runs (.ci/run): formatting, vet, generated
## gRPC code in sync, grpcurl against a live coordinator, every test
## with the race detector, the quickstart end to end (e2e), every paper
## grid at CI size with its report checked (paper-ci), the Kubernetes
## manifests validated, the Slurm scripts against a real Slurm started on
## this machine (slurm-test; needs root), and the cluster across real
## containers with its faults, security, load and Python method workers
## (compose-test; needs the Docker engine).
test: fmt-check vet proto-check grpcurl-check unit e2e paper-ci k8s-validate slurm-test compose-test

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go') | grep -v '\.pb\.go$$' || true); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

## unit installs what the shipped external methods need first
## (python3-sklearn, r-cran-rpart; scripts/install-methods-deps.sh) and
## requires it, so that their tests (examples/methods: the adapters, and
## R's rpart against tree/surrogate end to end) run instead of skipping.
unit: methods-deps
	MISSLAB_REQUIRE_METHODS=1 $(GO) test -race -count=1 -timeout 45m $(PKGS)

## methods-deps: Debian's python3-numpy, python3-sklearn, r-base-core and
## r-cran-rpart, for the shipped methods of examples/methods (never a
## runtime requirement of misslab itself).
.PHONY: methods-deps byom
methods-deps:
	bash scripts/install-methods-deps.sh

## byom: examples/byom.hcl, misslab's pipelines beside the shipped
## scikit-learn and R methods (docs/METHODS.md), results in out/byom.
## /usr/bin comes first on the methods' PATH so that python3 is Debian's,
## which has scikit-learn.
byom: methods-deps
	PATH=/usr/bin:$$PATH $(GO) run ./cmd/coordinator run examples/byom.hcl --methods examples/methods/methods.hcl --out out/byom

## unit-short: the quick check while developing (about 2 min on 2 cores):
## every package's tests with -short, which skips the tests over ~5 s
## (Monte Carlo, golden fixtures at scale, the crash test); `unit`, and so
## CI, runs them all.
.PHONY: unit-short
unit-short:
	$(GO) test -short -count=1 $(PKGS)

## e2e: the quickstart at 3 repetitions from grid file to report, checked
## in headless Chromium (scripts/e2e.sh; installs chromium if missing).
e2e:
	bash scripts/e2e.sh

## paper-ci: every paper grid (Figures 3-5, appendix, stumps, Propositions
## 1-2) at 2 repetitions, each report checked for its figures (~3 min on
## 2 cores); paper: the same at full size (about 8.4 CPU-hours by the plan, 4.2 h on 2 cores), in out/paper.
PAPER_CI_OUT  ?= out/paper-ci
PAPER_CI_REPS ?= 2
paper-ci: # from scratch, so stored results of older code are never reused
	rm -rf $(PAPER_CI_OUT)
	bash scripts/paper-figures.sh --reps $(PAPER_CI_REPS) --out $(PAPER_CI_OUT)

paper:
	bash scripts/paper-figures.sh --full --out out/paper

## run: the quickstart experiment on all cores, results in $(RUN_OUT).
run:
	$(GO) run ./cmd/coordinator run examples/quickstart.hcl --out $(RUN_OUT)

## realdata: the shipped real tables (examples/data) under repeated
## 5-fold cross-validation, results and reports in out/realdata.
realdata:
	$(GO) run ./cmd/coordinator run examples/realdata.hcl --out out/realdata

## bench: speed and memory targets (see the closing notes of each issue).
## `make references` first installs the R and Python packages that some
## benchmarks time side by side (a missing one is skipped with a note).
.PHONY: references
references:
	bash scripts/install-references.sh

bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) $(PKGS)

## simulate: the scheduler driven by simulated fleets of 10 to 10,000
## workers over the paper's grids (about 2 min), printing the table of
## docs/BENCHMARKS.md ("The cluster at scale").
.PHONY: simulate
simulate:
	MISSLAB_SIMULATE=1 $(GO) test -count=1 -timeout 20m -run TestSimulateFleet -v ./internal/sched/

tidy:
	$(GO) mod tidy

clean:
	rm -rf out

## proto: regenerate proto/misslab/v1 from its .proto with buf (built from
## tools/go.mod, never a downloaded binary) and the protoc-gen-go tools of go.mod.
BUF := $(GO) tool -modfile=tools/go.mod buf

proto:
	$(BUF) lint
	$(BUF) generate

## proto-check: fail if the committed generated code is out of date.
proto-check: proto
	@if [ -n "$$(git status --porcelain -- proto/)" ]; then git status --short -- proto/; git diff -- proto/ | head -40; \
		echo "generated code in proto/ is stale: run make proto and commit"; exit 1; fi

## grpcurl-check: start a coordinator and query it with grpcurl (list, describe, status).
grpcurl-check:
	bash scripts/grpcurl-check.sh

## Deployment (issue #7; docs/OPERATIONS.md). No registry is needed: the
## image is FROM scratch around static binaries built here.
IMAGE ?= misslab:dev
CERTS ?= deploy/certs
.PHONY: image ca compose-test load-test k8s-validate

## image: one image with /coordinator and /worker, built FROM scratch.
image:
	rm -rf out/image && mkdir -p out/image/data out/image/tables
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags='-s -w' -o out/image/ ./cmd/coordinator ./cmd/worker
	cp deploy/Dockerfile out/image/
	docker build -q -t $(IMAGE) out/image

## ca: a development CA, server and client certificates and a token in
## $(CERTS) (keys readable by the containers' user; not for production).
ca:
	$(GO) run ./deploy/devca --out $(CERTS) --key-mode 0644

## compose-test: the cluster, its faults and its security across real
## containers (needs Docker and docker-compose), then the load test.
compose-test: image image-py
	MISSLAB_IMAGE=$(IMAGE) MISSLAB_PY_IMAGE=$(IMAGE_PY) $(GO) test -tags compose -count=1 -timeout 15m -v ./deploy/compose/

## image-py: the Python worker image (worker + shipped scikit-learn methods on
## this machine's Debian python3), FROM scratch; cached per package set.
IMAGE_PY ?= misslab-py:dev
.PHONY: image-py
image-py:
	bash scripts/build-python-image.sh $(IMAGE_PY)

## load-test: the load test alone (32 worker containers, no-op jobs).
load-test: image
	MISSLAB_IMAGE=$(IMAGE) $(GO) test -tags compose -count=1 -timeout 10m -v -run Load ./deploy/compose/

## slurm-test: deploy/slurm's sweep.sbatch and workers.sbatch against a real
## Slurm (Debian's slurmctld, slurmd, munge; scripts/install-slurm.sh) that
## the test starts on this machine as root (~3 min): scores bit-identical to
## coordinator run, scancel, requeue and a time limit drained in time.
.PHONY: slurm-deps slurm-test
slurm-deps:
	bash scripts/install-slurm.sh
slurm-test: slurm-deps
	$(GO) test -tags slurm -count=1 -timeout 10m -v ./deploy/slurm/

## k8s-validate: strict schema and cross-reference checks of deploy/kubernetes.
k8s-validate:
	cd deploy/k8svalidate && $(GO) test -count=1 ./... && $(GO) run . ../kubernetes
