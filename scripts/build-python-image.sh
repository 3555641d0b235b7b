#!/usr/bin/env bash
# build-python-image.sh [IMAGE]
#
# Builds the Python worker image (default misslab-py:dev, or $IMAGE_PY):
# the static misslab worker plus the shipped scikit-learn methods
# (examples/methods, at /methods, declared by deploy/python/methods.hcl),
# FROM scratch, without any registry. Its Python is this machine's: the
# installed Debian packages python3, python3-numpy and python3-sklearn and
# the closure of their installed dependencies, copied file by file (as
# `dpkg -L` lists them, symlinks and modes kept; no docs, man pages or
# locales) into a root file system, with the BLAS/LAPACK alternatives the
# host selected, the dynamic loader's cache (ldconfig -r), a /tmp with
# mode 1777 and a user 65532, which the image runs as.
#
# Idempotent and cached: the root file system is staged once per package
# set (out/python-image/rootfs-<key>, the key hashing this script and the
# packages with their versions) and imported once as the image
# misslab-py-rootfs:<key>; a rerun only rebuilds the worker and the thin
# top layer. Installs python3-sklearn (scripts/install-methods-deps.sh)
# when /usr/bin/python3 cannot import scikit-learn. Needs dpkg, tar,
# ldconfig, go and docker.
set -euo pipefail

self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
cd "$(dirname "$self")/.."
image=${1:-${IMAGE_PY:-misslab-py:dev}}
out=out/python-image
# libc-bin adds /sbin/ldconfig, which Python's ctypes.util.find_library
# runs: without it threadpoolctl finds no library and silently limits no
# thread pool, and the adapters' results would depend on the core count.
roots=(python3 python3-numpy python3-sklearn libc-bin)
# Packages left out of the closure although a root depends on them:
# python3-pythran is scipy's build-time compiler (it pulls g++, binutils,
# boost and the -dev packages); scipy's compiled modules never import it.
prune=" python3-pythran "
# Paths of the packages not copied, not needed to run: documentation, and
# the test suites of numpy, scipy and scikit-learn (a sixth of the size).
skip='^/usr/share/(doc|doc-base|man|info|locale|lintian|bug|menu|bash-completion|zsh|gdb)(/|$)'
skip+='|^/usr/lib/python3/dist-packages/(numpy|scipy|sklearn)/(.*/)?tests(/|$)'

log() { echo "build-python-image: $*" >&2; }

if ! /usr/bin/python3 -c 'import numpy, sklearn' >/dev/null 2>&1; then
	log "scikit-learn missing for /usr/bin/python3: installing"
	bash scripts/install-methods-deps.sh
fi

# closure prints the installed packages the roots need (Pre-Depends and
# Depends; of alternatives "a | b", the first installed one or an
# installed provider of a virtual package), one per line, sorted.
closure() {
	local -A inst prov want
	local st name provides p deps g a
	while read -r st name; do [[ $st == ii ]] && inst[$name]=1; done \
		< <(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n')
	while IFS='|' read -r name provides; do
		[[ ${inst[$name]:-} ]] || continue
		IFS=',' read -ra ps <<<"$provides"
		for p in "${ps[@]}"; do
			p=${p%%(*} && p=${p// /}
			[[ -z $p || ${prov[$p]:-} ]] || prov[$p]=$name
		done
	done < <(dpkg-query -W -f='${Package}|${Provides}\n')
	local queue=("$@" "${extra[@]}")
	while ((${#queue[@]})); do
		p=${queue[0]} && queue=("${queue[@]:1}")
		[[ ${want[$p]:-} || $prune == *" $p "* ]] && continue
		[[ ${inst[$p]:-} ]] || { log "package $p is not installed"; return 1; }
		want[$p]=1
		deps=$(dpkg-query -W -f='${Pre-Depends}, ${Depends}' "$p")
		IFS=',' read -ra groups <<<"$deps"
		for g in "${groups[@]}"; do
			IFS='|' read -ra alts <<<"$g"
			for a in "${alts[@]}"; do
				a=${a%%(*} && a=${a// /} && a=${a%%:*}
				[[ $a ]] || continue
				if [[ ${inst[$a]:-} ]]; then queue+=("$a") && break; fi
				if [[ ${prov[$a]:-} ]]; then queue+=("${prov[$a]}") && break; fi
			done
		done
	done
	printf '%s\n' "${!want[@]}" | sort
}

# The BLAS and LAPACK the host's numpy and scipy load are whatever the
# host's alternatives select (OpenBLAS, typically): add the packages of
# the selected values of the alternatives of the closure's libraries, so
# that the container computes exactly as the host does.
extra=()
while read -r name _ value; do
	[[ $name =~ ^(libblas|liblapack)\.so\.3- ]] && extra+=("$(dpkg-query -S "$value" | cut -d: -f1)")
done < <(update-alternatives --get-selections)
pkgs=$(closure "${roots[@]}")
versions=$(dpkg-query -W -f='${Package}=${Version}\n' $pkgs)
key=$(
	{
		cat "$self" deploy/python/Dockerfile.rootfs | sha256sum
		echo "$versions"
	} | sha256sum | cut -c1-16
)
rootfs=$out/rootfs-$key
base=misslab-py-rootfs:$key
log "$(wc -l <<<"$pkgs") packages, key $key"

stage() {
	local tmp=$out/rootfs-$key.tmp list=$out/files-$key
	rm -rf "$tmp" && mkdir -p "$tmp"
	# Every file the packages list, the merged-/usr directories (/lib,
	# /bin...) written under /usr; directories before their contents.
	for p in $pkgs; do dpkg -L "$p"; done | grep '^/' | grep -Ev "$skip" |
		sed -E 's#^/(bin|sbin|lib|lib32|lib64|libx32)(/|$)#/usr/\1\2#' | grep -Ev '^/(\.|usr/?)$' | sort -u >"$list"
	# Python's compiled modules of the listed directories (made by the
	# packages' postinst, so unlisted): imports need not recompile.
	grep -E '\.py$' "$list" | xargs -r dirname | sort -u | sed 's#$#/__pycache__#' |
		while read -r d; do [[ -d $d ]] && find "$d" -maxdepth 1; done >>"$list"
	# The alternatives' symlinks whose selected value is staged.
	while read -r name _ value; do
		grep -qxF "$value" "$list" || continue
		update-alternatives --query "$name" | sed -n 's/^Link: //p'
		echo "/etc/alternatives/$name"
	done < <(update-alternatives --get-selections) >>"$list"
	sort -u -o "$list" "$list"
	tar -C / --no-recursion --null -cf - -T <(sed 's#^/##' "$list" | tr '\n' '\0') | tar -C "$tmp" -xpf -
	for d in bin sbin lib lib64; do [[ -e $tmp/usr/$d ]] && ln -sfn "usr/$d" "$tmp/$d"; done
	mkdir -p "$tmp/etc/ld.so.conf.d" "$tmp/tmp" "$tmp/var/tmp" "$tmp/usr/local/bin"
	chmod 1777 "$tmp/tmp" "$tmp/var/tmp"
	cp /etc/ld.so.conf "$tmp/etc/"
	cp /etc/ld.so.conf.d/*.conf "$tmp/etc/ld.so.conf.d/"
	/sbin/ldconfig -r "$tmp"
	printf 'root:x:0:0:root:/root:/usr/sbin/nologin\nnonroot:x:65532:65532:nonroot:/tmp:/usr/sbin/nologin\n' >"$tmp/etc/passwd"
	printf 'root:x:0:\nnonroot:x:65532:\n' >"$tmp/etc/group"
	echo "$versions" >"$tmp/etc/misslab-py-packages"
	rm -rf "$rootfs" && mv "$tmp" "$rootfs"
}

start=$SECONDS
if [[ -d $rootfs ]]; then
	log "reusing the staged root file system $rootfs"
else
	mkdir -p "$out"
	rm -rf "$out"/rootfs-* "$out"/files-* # other package sets
	stage
	log "staged $(du -sh "$rootfs" | cut -f1) in $rootfs ($((SECONDS - start))s)"
fi
if ! docker image inspect "$base" >/dev/null 2>&1; then
	ctx=$out/ctx-rootfs
	rm -rf "$ctx" && mkdir -p "$ctx"
	tar -C "$rootfs" --numeric-owner --owner=0 --group=0 -cf "$ctx/rootfs.tar" .
	cp deploy/python/Dockerfile.rootfs "$ctx/Dockerfile"
	docker build -q -t "$base" "$ctx" >/dev/null
	rm -rf "$ctx"
	log "built $base"
fi

ctx=$out/ctx
rm -rf "$ctx" && mkdir -p "$ctx/methods" "$ctx/tables"
CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$ctx/worker" ./cmd/worker
cp examples/methods/misslab_method.py examples/methods/misslab_classify.py examples/methods/sklearn_*.py "$ctx/methods/"
cp deploy/python/methods.hcl "$ctx/methods/"
cp deploy/python/Dockerfile "$ctx/"
docker build -q --build-arg "BASE=$base" -t "$image" "$ctx" >/dev/null
# The image's python3 loads scikit-learn, and threadpoolctl sees its
# OpenMP and BLAS pools (which the adapters limit to one thread).
check='import sklearn.ensemble, threadpoolctl
apis = {i["internal_api"] for i in threadpoolctl.threadpool_info()}
assert {"openmp", "openblas"} <= apis, apis'
docker run --rm --entrypoint /usr/bin/python3 "$image" -c "$check" ||
	{ log "$image: python3 cannot load scikit-learn or threadpoolctl sees no thread pool"; exit 1; }
for old in $(docker images misslab-py-rootfs --format '{{.Tag}}'); do # other package sets
	[[ $old == "$key" ]] || docker rmi "misslab-py-rootfs:$old" >/dev/null 2>&1 || true
done
log "built $image ($(docker image inspect -f '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1/1e6}')) in $((SECONDS - start))s"
