#!/usr/bin/env bash
# OpenZeppelin Contracts' own test suite (v5.7.0, Hardhat 2, ethers v6, hardhat-chai-matchers) run
# unmodified against `npx hardhat node` and against hardhat-preconf with Hardhat's semantics
# (automine), each as Hardhat's `localhost` network and in estimate mode (a network name that
# hardhat-ethers does not take for Hardhat's, so that it estimates every transaction). Prints
# passed/failed per run and the tests that pass on Hardhat's node but not here. Not part of
# `npm test`: a run takes tens of minutes (thousands of tests over HTTP).
#
#   scripts/peer-suite/run.sh [--oz DIR] [--work DIR] [--modes "localhost estimate"] [--nodes "hardhat preconf"]
#                             [--only "test/token test/access"]
#
# --oz DIR    an OpenZeppelin Contracts checkout (any state: v5.7.0 is checked out into a copy);
#             without it v5.7.0 is cloned from GitHub.
# --work DIR  where the copy, the compiler and the logs go (default: /tmp/peer-suite). The copy,
#             its node_modules and the compiled artifacts are kept there and reused by later runs
#             (Hardhat's compile cache: a second run compiles nothing unless EVM changes).
# --only P    run only the test files under these paths of the OpenZeppelin checkout (files or
#             directories); the logs of such a run are named after them (e.g. hardhat-localhost-test_token,
#             or hardhat-localhost-subset-<digest> for a long list).
#
# Logs, per EVM version, node and mode, in $work/logs/$EVM: <node>-<mode>.log (mocha's
# json-stream output: one line per finished test, `tail -f` it to follow a run), .tests (one line
# per test: passed|failed, file, full title, then `pending <count>`); node-<node>.log, compile.log.
# It needs Node 22 (hardhat-preconf's engines); this repository's `node` dev dependency is used
# when installed. Example, from this repository (OpenZeppelin's source in ../openzeppelin-contracts):
#
#   nice -n 10 scripts/peer-suite/run.sh --oz ../openzeppelin-contracts --work /tmp/peer-suite \
#     --nodes "hardhat preconf" --modes localhost > /tmp/peer-suite.out 2>&1 &
# PEER_PORT   the port both nodes serve on (default 18545).
# EVM         the EVM version to compile for and run on both nodes (default osaka: OpenZeppelin's
#             default, Hardhat's and hardhat-preconf's `dev`; EVM=prague for the earlier fork).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
oz_source=""
work=/tmp/peer-suite
modes="localhost estimate"
nodes="hardhat preconf"
only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --oz) oz_source=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --modes) modes=$2; shift 2 ;;
    --nodes) nodes=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
export EVM=${EVM:-osaka}
[ -x "$repo/node_modules/node/bin/node" ] && export PATH="$repo/node_modules/node/bin:$PATH"
tag=v5.7.0
oz=$work/openzeppelin-contracts
logs=$work/logs/$EVM
mkdir -p "$logs"

if [ ! -d "$oz/.git" ]; then
  if [ -n "$oz_source" ]; then git clone -q "$oz_source" "$oz"; else git clone -q https://github.com/OpenZeppelin/openzeppelin-contracts.git "$oz"; fi
fi
git -C "$oz" checkout -q "$tag"
# Its dev dependencies as its package-lock pins them (Hardhat 2.28.5 and its plugins); no install scripts.
[ -d "$oz/node_modules/hardhat" ] || (cd "$oz" && npm ci --ignore-scripts --no-audit --no-fund)

# The compiler the config asks for, as the npm `solc` package (solcjs): Hardhat 2 would download it.
# (its default version, from the `compiler` option of its config; COMPILER overrides it, as in its config)
solc_version=${COMPILER:-$(sed -n "/compiler: {/,/}/s/.*default: '\([0-9.]*\)'.*/\1/p" "$oz/hardhat.config.js")}
solc_dir=$work/solc-$solc_version
[ -f "$solc_dir/node_modules/solc/soljson.js" ] || npm install --prefix "$solc_dir" --no-audit --no-fund --ignore-scripts "solc@$solc_version"
export PEER_SOLC_DIR=$solc_dir
cp "$here/hardhat.peer.config.cjs" "$oz/hardhat.peer.config.cjs"
started=$SECONDS
(cd "$oz" && npx hardhat --config hardhat.peer.config.cjs compile) > "$logs/compile.log" 2>&1
echo "compiled for $EVM ($((SECONDS - started)) s; log: $logs/compile.log)"

port=${PEER_PORT:-18545}
export PEER_URL=http://127.0.0.1:$port
node_pid=""
stop_node() {
  if [ -n "$node_pid" ]; then kill "$node_pid" 2> /dev/null || true; wait "$node_pid" 2> /dev/null || true; node_pid=""; fi
}
trap stop_node EXIT

rpc_up() { curl -s -o /dev/null -H 'content-type: application/json' --data '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' "$PEER_URL"; }

# Each node is started as the node process itself (no npx or tsx wrapper in between), so that
# stopping it stops the node and frees the port for the next run.
start_node() {
  if rpc_up; then echo "something already serves $PEER_URL: stop it or set PEER_PORT" >&2; exit 1; fi
  case "$1" in
    hardhat) (cd "$oz" && exec node node_modules/hardhat/internal/cli/cli.js --config hardhat.peer.config.cjs node --port "$port") > "$logs/node-$1.log" 2>&1 & ;;
    preconf) (cd "$repo" && exec node --import tsx scripts/peer-suite/node.ts --port "$port" --hardfork "$EVM" --allow-unlimited-contract-size) > "$logs/node-$1.log" 2>&1 & ;;
  esac
  node_pid=$!
  for _ in $(seq 1 120); do
    rpc_up && return 0
    kill -0 "$node_pid" 2> /dev/null || break
    sleep 1
  done
  echo "the $1 node did not start: $logs/node-$1.log" >&2
  exit 1
}

# The test files of --only (Hardhat 2's `test` task takes files, not directories), and the suffix of
# the logs' names that tells such a run from a whole one.
files=()
suffix=""
if [ -n "$only" ]; then
  for p in $only; do
    while IFS= read -r f; do files+=("$f"); done < <(cd "$oz" && find "$p" -name '*.test.js' | sort)
  done
  suffix=-$(echo "$only" | tr ' /' '__')
  # (a long list is named by a digest of it: a file name has at most 255 bytes)
  [ ${#suffix} -le 80 ] || suffix=-subset-$(echo "$only" | md5sum | cut -c1-8)
  [ ${#files[@]} -gt 0 ] || { echo "no test files under $only in $oz" >&2; exit 2; }
fi

# One run: mocha's json-stream report, then one line per test: its state, file and full title.
run_suite() {
  local node=$1 mode=$2 out=$logs/$1-$2$suffix started=$SECONDS
  start_node "$node"
  (cd "$oz" && PEER_REPORT=1 npx hardhat --config hardhat.peer.config.cjs test --no-compile --network "$mode" "${files[@]}" > "$out.log" 2>&1) || true
  stop_node
  node "$here/results.mjs" "$oz" "$out.log" > "$out.tests" || echo "no report from mocha: $out.log" >&2
  echo "$node $mode$suffix: $(grep -ac '^passed' "$out.tests" || true) passed / $(grep -ac '^failed' "$out.tests" || true) failed / $(sed -n "s/^pending //p" "$out.tests") pending ($((SECONDS - started)) s)"
}

# The passed tests of a run, comparable across runs: some titles hold a number or an address the
# test draws at random (test/utils/CAIP.test.js, test/utils/math/Math.test.js), which are masked.
passes() { grep -a '^passed' "$1" | sed -E 's/0x[0-9a-fA-F]{16,}/0x<random>/g; s/[0-9]{12,}/<random>/g' | sort; }

for mode in $modes; do
  for node in $nodes; do run_suite "$node" "$mode"; done
  if [ -f "$logs/hardhat-$mode$suffix.tests" ] && [ -f "$logs/preconf-$mode$suffix.tests" ]; then
    echo "passing on npx hardhat node, not on hardhat-preconf ($mode$suffix):"
    comm -23 <(passes "$logs/hardhat-$mode$suffix.tests") <(passes "$logs/preconf-$mode$suffix.tests") | sed 's/^passed /  /'
  fi
done
