#!/usr/bin/env bash
# Creates (or replaces) the Secrets deploy/kubernetes mounts, from a
# directory written by `make ca` (or your own CA's files with the same
# names): misslab-token (key token) and misslab-tls (tls.crt, tls.key,
# ca.crt), in namespace misslab. Nothing secret passes on a command line:
# kubectl reads the files.
#
#   scripts/deploy-k8s-secrets.sh [DIR] [NAMESPACE]   (default deploy/certs misslab)
set -euo pipefail
dir=${1:-deploy/certs} ns=${2:-misslab}
for f in token server.pem server-key.pem ca.pem; do
	[ -s "$dir/$f" ] || { echo "deploy-k8s-secrets: $dir/$f missing (run make ca)" >&2; exit 1; }
done
kubectl get namespace "$ns" >/dev/null 2>&1 || kubectl create namespace "$ns"
kubectl -n "$ns" create secret generic misslab-token --from-file=token="$dir/token" \
	--dry-run=client -o yaml | kubectl apply -f -
kubectl -n "$ns" create secret generic misslab-tls --type=kubernetes.io/tls \
	--from-file=tls.crt="$dir/server.pem" --from-file=tls.key="$dir/server-key.pem" --from-file=ca.crt="$dir/ca.pem" \
	--dry-run=client -o yaml | kubectl apply -f -
echo "deploy-k8s-secrets: misslab-token and misslab-tls applied in namespace $ns"
