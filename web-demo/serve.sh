#!/usr/bin/env bash
# Builds the WaRP frontier explorer (planner-core → wasm32 → wasm-bindgen) and
# serves it on http://127.0.0.1:${PORT:-8765}/www/ .
#   web-demo/serve.sh            build, then serve
#   web-demo/serve.sh --build    build only (what the tests use)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
target="${CARGO_TARGET_DIR:-$root/target}"
want="0.2.130"
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$want" ]; then
  echo "wasm-bindgen $want missing: cargo install wasm-bindgen-cli --version =$want" >&2
  cargo install wasm-bindgen-cli --version "=$want"
fi
rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown \
  || rustup target add wasm32-unknown-unknown
(cd "$root" && cargo build --target wasm32-unknown-unknown --release -p web-demo)
wasm-bindgen --target web --no-typescript --out-dir "$here/pkg" \
  "$target/wasm32-unknown-unknown/release/web_demo.wasm"
echo "built $here/pkg ($(wc -c < "$here/pkg/web_demo_bg.wasm") bytes of wasm)"
if [ "${1:-}" = "--build" ]; then exit 0; fi
port="${PORT:-8765}"
echo "serving http://127.0.0.1:$port/www/  (Ctrl-C to stop)"
cd "$here" && exec python3 -m http.server "$port" --bind 127.0.0.1
