# apt-ensure.sh, sourced by the install-*.sh scripts: the one way this
# project installs Debian packages.
#
# apt_ensure NAME WHAT CHECK PACKAGE...
#   Runs the shell function CHECK; when it fails, installs the packages
#   with apt-get (as root, or through sudo -n; no recommends; apt-get
#   update only when the first attempt fails) and runs CHECK again.
#   NAME prefixes the messages, WHAT says what CHECK looks for. Returns
#   non-zero, saying why, when CHECK still fails.
apt_ensure() {
	local name=$1 what=$2 check=$3
	shift 3
	if "$check"; then
		echo "$name: $what already there" >&2
		return 0
	fi
	local sudo=()
	if [[ $(id -u) -ne 0 ]]; then
		if ! command -v sudo >/dev/null 2>&1; then
			echo "$name: $what missing, and neither root nor sudo is available to install it" >&2
			return 1
		fi
		sudo=(sudo -n)
	fi
	echo "$name: installing $* with apt-get" >&2
	export DEBIAN_FRONTEND=noninteractive
	if ! "${sudo[@]}" apt-get install -y --no-install-recommends "$@"; then
		"${sudo[@]}" apt-get update
		"${sudo[@]}" apt-get install -y --no-install-recommends "$@"
	fi
	if ! "$check"; then
		echo "$name: $what still missing after apt-get install" >&2
		return 1
	fi
	echo "$name: OK" >&2
}
