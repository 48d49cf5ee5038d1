#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lib.sh outside the QEMU harness (TAP, host only): the network defaults it
# derives, and peer / peer_lib / require_peer over ssh when FT_PEER_SSH is
# set.  A stub ssh first in PATH plays the remote side on this machine the
# way sshd does: the command line goes to bash -c, its standard input is a
# pipe that ends when the ssh client goes, its output comes back.  What is
# checked is what tests rely on with ftpeer: output, exit status, quoting,
# working directory, the peer's view of the network, timeouts, and a
# background peer command that ends when its client is killed.
set -euo pipefail

HERE=$(dirname "$(readlink -f "$0")")
LIB=$(readlink -f "$HERE/../lib.sh")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

. "$HERE/lib-tap.sh"
# check DESC WANT CMD...: CMD's output (stdout, then "rc=N") is WANT
check() {
	local desc=$1 want=$2 got

	shift 2
	got=$("$@" 2>"$T/err"; echo "rc=$?")
	if [ "$got" = "$want" ]; then
		ok "$desc"
	else
		nok "$desc"
		printf '# want: %q\n# got:  %q\n' "$want" "$got"
		sed 's/^/# stderr: /' "$T/err"
	fi
}

echo "TAP version 13"
echo "1..13"
mkdir -p "$T/bin" "$T/out"
cat >"$T/bin/ssh" <<'EOF'
#!/bin/bash
# stub: ssh [-o OPT]... HOST COMMAND, run here as sshd would run it
while [ $# -gt 0 ]; do
	case $1 in
	-o | -p | -l | -i) shift 2 ;;
	-*) shift ;;
	*) break ;;
	esac
done
host=$1
shift
[ "$host" != root@unreachable ] || { echo "ssh: connect: no route" >&2; exit 255; }
# the remote side reads a pipe only this process writes to: it ends when
# this "connection" does, killed or not
exec {conn}> >(exec bash -c "$*")
wait $!
EOF
chmod +x "$T/bin/ssh"

# in_lib CODE: CODE in a fresh bash that sourced lib.sh outside the harness
in_lib() {
	env -u FT_ROLE -u FT_PEER_CTL_IP -u FT_NETDEV -u FT_SELF_IP -u FT_PEER_IP \
		-u FT_BUILD PATH="$T/bin:$PATH" FT_OUT="$T/out" FT_PEER_SSH=root@127.0.0.1 \
		"${ENVS[@]}" bash -c '. "$1"; cd "$2"; eval "$3"' _ "$LIB" "$T" "$1"
}
ENVS=()

check "the netdev and address towards the peer are derived (lo, 127.0.0.1)" \
	"lo 127.0.0.1 127.0.0.1
rc=0" \
	in_lib 'echo $FT_NETDEV $FT_SELF_IP $FT_PEER_IP'
check "peer CMD: its output and exit status" "hello
rc=3" in_lib 'peer "echo hello; exit 3"'
check "peer: words are joined and parsed by sh there, as with ssh" "a|b|c d|rc=0" in_lib "peer printf \"'%s|'\" a b \"'c d'\""
check "peer: stdout and stderr stay apart" "out
rc=0" in_lib 'peer "echo out; echo err >&2" 2>/dev/null'
check "peer: runs in this working directory" "$T
rc=0" in_lib 'peer pwd'
check "peer: the peer's FT_PEER_IP is this node, its own netdev derived" \
	"127.0.0.1 lo
rc=0" in_lib 'peer "echo \$FT_PEER_IP \$FT_NETDEV"'
check "peer_lib FUNC: a lib.sh function on the peer" "# from the peer
rc=0" in_lib 'peer_lib log from the peer'
# (5 s: the remote sleep keeps the output open, so check waits for it)
check "peer -t 1: killed after 1 s, status 124" "rc=124" in_lib 'peer -t 1 sleep 5'
# a background peer command ends when its client is killed
bg_killed() {
	peer "echo \$\$ >$T/remote.pid; exec sleep 60" &
	local c=$! p

	wait_for 10 test -s "$T/remote.pid" || { echo "never started"; return; }
	p=$(cat "$T/remote.pid")
	kill "$c"
	wait "$c" 2>/dev/null
	if wait_for 10 sh -c "! kill -0 $p 2>/dev/null"; then echo gone; else echo "still running"; kill "$p"; fi
}
check "peer CMD &: killing the client ends the remote command" "gone
rc=0" in_lib "$(declare -f bg_killed); bg_killed"
check "require_peer: passes with a shared FT_OUT" "passed
rc=0" in_lib 'require_peer; echo passed'
ENVS=(FT_OUT=)
check "require_peer: skips (4) without a shared FT_OUT, saying so" \
	"1..0 # SKIP FT_OUT=(unset) is not a directory root@127.0.0.1 sees at the same path: two-node tests exchange captures through it
rc=4" in_lib 'require_peer; echo passed'
ENVS=(FT_PEER_SSH=root@unreachable FT_PEER_IP=127.0.0.1)
check "require_peer: skips (4) when ssh gets no answer" \
	"1..0 # SKIP FT_PEER_SSH=root@unreachable: no answer over ssh as root with a key (BatchMode)
rc=4" in_lib 'require_peer; echo passed'
ENVS=(FT_PEER_SSH=)
check "require_peer: skips (4) with no peer at all, naming FT_PEER_SSH" \
	"1..0 # SKIP no peer node: set FT_PEER_SSH=[user@]host (see selftests/qemu/README), or run via selftests/qemu/vm-test.sh
rc=4" in_lib 'require_peer; echo passed'
tap_totals
