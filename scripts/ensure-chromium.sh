#!/bin/sh
# Makes sure a Chromium for the browser tests is installed: Debian's `chromium` package
# (Playwright's own browser downloads are not needed). Installs it with apt-get when missing;
# prints why it cannot otherwise. CHROMIUM_PATH overrides the browser used (/usr/bin/chromium).
set -eu
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$CHROMIUM" ]; then
  echo "$CHROMIUM"
  exit 0
fi
fail() {
  echo "Chromium is not installed at $CHROMIUM and could not be installed: $1." >&2
  echo "Install it (Debian/Ubuntu: sudo apt-get install -y chromium) or set CHROMIUM_PATH to a Chromium or Chrome binary." >&2
  exit 1
}
command -v apt-get >/dev/null 2>&1 || fail "apt-get is not available on this system"
if [ "$(id -u)" -eq 0 ]; then SUDO=""; elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"; else fail "installing needs root (run as root, or allow passwordless sudo)"; fi
echo "Installing Chromium (apt-get install chromium)..." >&2
$SUDO apt-get update >&2 || fail "apt-get update failed"
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y chromium >&2 || fail "apt-get install chromium failed"
[ -x "$CHROMIUM" ] || fail "the chromium package did not install $CHROMIUM"
echo "$CHROMIUM"
