#!/usr/bin/env bash
# Serve a pre-confirming chain over HTTP and WebSocket, ask it something, stop it.
set -euo pipefail
npx preconf node --port 8545 &
server=$!
until curl -s -o /dev/null http://127.0.0.1:8545; do sleep 0.2; done

curl -s http://127.0.0.1:8545 -H 'Content-Type: application/json' \
  -d '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}'
echo

kill -TERM $server # the server stops and frees the port
wait $server || true
