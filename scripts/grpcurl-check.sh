#!/usr/bin/env bash
# Starts a coordinator on a temporary data directory and checks, with
# grpcurl and no .proto files at hand, that server reflection lists and
# describes the misslab.v1 services, that the standard health service
# answers SERVING, and that SweepService/Status answers.
# grpcurl is built from tools/go.mod (never a downloaded binary).
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
tmp=$(mktemp -d)
pid=
cleanup() {
	if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT

$GO build -o "$tmp/" ./cmd/coordinator
$GO build -modfile=tools/go.mod -o "$tmp/" github.com/fullstorydev/grpcurl/cmd/grpcurl
grpcurl="$tmp/grpcurl"

fail() { echo "grpcurl-check: $*" >&2; exit 1; }

# Port 0: the kernel picks a free port and the coordinator writes it to
# its address file once listening (no port is freed and then reused).
"$tmp/coordinator" serve --listen 127.0.0.1:0 --addr-file "$tmp/addr" --data "$tmp/data" --log-level warn &
pid=$!
for _ in $(seq 300); do
	[ -s "$tmp/addr" ] && break
	kill -0 "$pid" 2>/dev/null || fail "the coordinator exited before listening"
	sleep 0.1
done
[ -s "$tmp/addr" ] || fail "the coordinator wrote no address in 30 s"
addr=$(cat "$tmp/addr")
expect() { # expect NAME PATTERN OUTPUT
	grep -q -- "$2" <<<"$3" || fail "$1: output lacks '$2':"$'\n'"$3"
}

out=$("$grpcurl" -plaintext "$addr" list)
for svc in misslab.v1.SweepService misslab.v1.WorkService grpc.health.v1.Health grpc.reflection.v1.ServerReflection; do
	expect list "$svc" "$out"
done
out=$("$grpcurl" -plaintext "$addr" describe misslab.v1.SweepService)
expect describe "rpc Submit ( .misslab.v1.SubmitRequest ) returns ( .misslab.v1.SubmitResponse )" "$out"
expect describe "rpc Watch ( .misslab.v1.WatchRequest ) returns ( stream .misslab.v1.WatchResponse )" "$out"
out=$("$grpcurl" -plaintext "$addr" describe misslab.v1.WorkRequest)
expect describe-message "hello" "$out"
out=$("$grpcurl" -plaintext "$addr" grpc.health.v1.Health/Check)
expect health '"status": "SERVING"' "$out"
out=$("$grpcurl" -plaintext -d '{"service":"misslab.v1.WorkService"}' "$addr" grpc.health.v1.Health/Check)
expect health-work '"status": "SERVING"' "$out"
out=$("$grpcurl" -plaintext -d '{}' "$addr" misslab.v1.SweepService/Status)
expect status '{' "$out"
out=$("$grpcurl" -plaintext -d '{"sweep_id":"feedbeef"}' "$addr" misslab.v1.SweepService/Status 2>&1 || true)
expect status-notfound "NotFound" "$out"
echo "grpcurl-check: 7 passed, 0 failed"
