#!/usr/bin/env bash
# Measures what deploy/kubernetes sizes its requests from: runs the
# quickstart grid on a compose cluster (real learners) and samples, every
# 2 s, the coordinator's and each worker's CPU seconds and peak resident
# memory from their Prometheus metrics, plus the cgroup's peak memory.
#
#   scripts/deploy-measure.sh [WORKERS] [PARALLEL] [REPS]   (default 2 2 10)
#
# Needs the image (make image) and Docker; brings its own dev CA and
# tears everything down on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
workers=${1:-2} parallel=${2:-2} reps=${3:-10}
project=mlmeasure
tmp=$(mktemp -d)
compose() { docker-compose -p "$project" -f deploy/compose/docker-compose.yml "$@"; }
cleanup() { compose down -v -t 5 >/dev/null 2>&1 || true; rm -rf "$tmp"; }
trap cleanup EXIT
go run ./deploy/devca --out "$tmp/certs" --key-mode 0644 >/dev/null
chmod 755 "$tmp/certs"
go build -o "$tmp/" ./cmd/coordinator
export MISSLAB_CERTS=$tmp/certs MISSLAB_PORT=0 MISSLAB_METRICS_PORT=0 MISSLAB_EXECUTOR=experiment MISSLAB_PARALLEL=$parallel
compose up -d --scale worker="$workers" >/dev/null 2>&1
addr=$(compose port coordinator 7420) maddr=$(compose port coordinator 9090)
client=(--addr "$addr" --tls-ca "$tmp/certs/ca.pem" --token-file "$tmp/certs/token" --cluster misslab)
for i in $(seq 300); do # wait for the coordinator to answer (30 s at most)
	"$tmp/coordinator" status "${client[@]}" >/dev/null 2>&1 && break
	[ "$i" -lt 300 ] || { echo "deploy-measure: the coordinator did not answer in 30 s" >&2; exit 1; }
	sleep 0.1
done
"$tmp/coordinator" submit examples/quickstart.hcl --reps "$reps" --detach "${client[@]}" >/dev/null
metric() { curl -s "http://$1/metrics" | awk -v m="$2" '$1 == m { print $2 }'; }
ips=()
for c in $(docker ps -q --filter "label=com.docker.compose.project=$project" --filter label=com.docker.compose.service=worker); do
	ips+=("$(docker inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$c"):9090")
done
cid=$(docker ps -q --filter "label=com.docker.compose.project=$project" --filter label=com.docker.compose.service=coordinator)
start=$(date +%s.%N) crss=0 wrss=0
while ! "$tmp/coordinator" status "${client[@]}" | grep -q complete; do
	r=$(metric "$maddr" process_resident_memory_bytes); crss=$(awk -v a="$crss" -v b="${r:-0}" 'BEGIN{print (b>a)?b:a}')
	for ip in "${ips[@]}"; do
		r=$(metric "$ip" process_resident_memory_bytes); wrss=$(awk -v a="$wrss" -v b="${r:-0}" 'BEGIN{print (b>a)?b:a}')
	done
	sleep 2
done
secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN{print e-s}')
ccpu=$(metric "$maddr" process_cpu_seconds_total)
wcpu=0
for ip in "${ips[@]}"; do wcpu=$(awk -v a="$wcpu" -v b="$(metric "$ip" process_cpu_seconds_total)" 'BEGIN{print a+b}'); done
cpeak=$(cat "/sys/fs/cgroup/memory/docker/$(docker inspect -f '{{.Id}}' "$cid")/memory.max_usage_in_bytes" 2>/dev/null || echo 0)
wpeak=0
for c in $(docker ps -q --filter "label=com.docker.compose.project=$project" --filter label=com.docker.compose.service=worker); do
	p=$(cat "/sys/fs/cgroup/memory/docker/$(docker inspect -f '{{.Id}}' "$c")/memory.max_usage_in_bytes" 2>/dev/null || echo 0)
	wpeak=$(awk -v a="$wpeak" -v b="$p" 'BEGIN{print (b>a)?b:a}')
done
awk -v w="$workers" -v p="$parallel" -v r="$reps" -v s="$secs" -v cc="$ccpu" -v cr="$crss" -v cp="$cpeak" \
	-v wc="$wcpu" -v wr="$wrss" -v wp="$wpeak" 'BEGIN {
	printf "quickstart --reps %d (%d jobs) on %d workers x %d slots: %.0f s\n", r, 3*r, w, p, s
	printf "coordinator: %.2f CPU s (%.3f cores), peak RSS %.1f MiB, cgroup peak %.1f MiB\n", cc, cc/s, cr/1048576, cp/1048576
	printf "workers: %.1f CPU s (%.2f cores), peak RSS of one worker %.1f MiB (%.1f MiB per slot), cgroup peak %.1f MiB\n", wc, wc/s, wr/1048576, wr/1048576/p, wp/1048576
}'
