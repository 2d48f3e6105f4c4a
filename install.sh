#!/usr/bin/env bash
# Installs what Cuadra needs and builds it: Bun (through npm, where missing), the libraries pinned in
# bun.lock, and the executable dist/cuadra.
#
#   ./install.sh                         build dist/cuadra in this folder
#   sudo ./install.sh --system [--name "Bodega Rosa"]
#                                        also install /usr/local/bin/cuadra, create /var/lib/cuadra,
#                                        create the shop there once (its keys print here), and run
#                                        Cuadra as a systemd service, whose settings (port, public
#                                        address, language) are in /etc/default/cuadra
#
# Running it again is harmless: it skips what is already done, never creates a second shop and never
# changes /etc/default/cuadra once written (the service's unit file is written anew: it holds no settings).
# Never asks questions, so it also runs unattended (CI).
set -euo pipefail

cd "$(dirname "$0")"
REPO_DIR=$(pwd)

SYSTEM=0
SHOP_NAME="My shop"
BIN_DIR=${CUADRA_BIN_DIR:-/usr/local/bin}
SYSTEM_DATA_DIR=${CUADRA_SYSTEM_DATA_DIR:-/var/lib/cuadra}
UNIT_DIR=${CUADRA_UNIT_DIR:-/etc/systemd/system}
SETTINGS_FILE=${CUADRA_DEFAULTS_FILE:-/etc/default/cuadra}
SERVICE_USER=cuadra
REINSTALL=0

say() { printf '==> %s\n' "$*"; }
note() { printf '    %s\n' "$*"; }
fail() {
  printf '\nCuadra could not be installed: %s\n' "$1" >&2
  shift
  for line in "$@"; do printf '  %s\n' "$line" >&2; done
  exit 1
}

usage() {
  cat <<'EOF'
Usage: ./install.sh [--system] [--name "Shop name"]

  (no options)   install Bun if missing, install libraries, build ./dist/cuadra
  --system       also install /usr/local/bin/cuadra, create /var/lib/cuadra and a
                 systemd service "cuadra" (run as root: sudo ./install.sh --system)
  --name NAME    name of the shop created on the first --system install (default "My shop")
  -h, --help     show this help
EOF
}

# ---- the service (step 4's end), as functions: test/install-service.test.ts sources this file and calls them

# The options of 'cuadra serve' that a unit written by an older install.sh had in its ExecStart=
# (a port or public address edited there by hand), so that the first settings file keeps them.
options_of_old_unit() {
  local unit="$UNIT_DIR/cuadra.service" line word skip=0
  local -a words kept=()
  [ -f "$unit" ] || return 0
  line=$(sed -n 's/^ExecStart=//p' "$unit" | head -n 1)
  case "$line" in *CUADRA_SERVE_OPTIONS*) return 0 ;; esac
  read -r -a words <<<"$line"
  [ "${words[1]:-}" = serve ] || return 0
  for word in "${words[@]:2}"; do
    if [ "$skip" = 1 ]; then
      skip=0
      continue
    fi
    case "$word" in
      --data-dir) skip=1 ;; # the service's own, kept in the unit
      --data-dir=* | --no-init) ;;
      *) kept+=("$word") ;;
    esac
  done
  printf '%s' "${kept[*]}"
}

settings_template() {
  cat <<EOF
# Settings of the Cuadra service. The service (cuadra.service) reads this file each time it starts.
# install.sh wrote it once and never changes it: edit it, then apply the change with
#   sudo systemctl restart cuadra
# Lines that start with # are comments.

# Options of 'cuadra serve', separated by spaces (all of them: cuadra serve --help):
#   --port 9443              the port phones and browsers connect to (default 8443)
#   --public-url https://caja.example.pe
#                            the address phones should use, when they reach this computer by a name
#                            or through a proxy rather than by its address on the shop's network
#   --host 192.168.1.20      listen on this one address only (default: all of this computer's)
#   --tls-cert /etc/cuadra/cert.pem --tls-key /etc/cuadra/key.pem
#                            your own certificate instead of the self-signed one; the files must be
#                            readable by the service's user ($OWNER), and not under /home
#   --tls off                plain HTTP, only behind a proxy that does HTTPS
#   --no-mdns                do not announce the box on the local network
# No value may contain a space. The data folder ($SYSTEM_DATA_DIR) is set by the service itself.
# For example:
#   CUADRA_SERVE_OPTIONS="--port 9443 --public-url https://caja.example.pe"
CUADRA_SERVE_OPTIONS="$1"

# Language of Cuadra's messages: es_PE.UTF-8 (Spanish) or en_US.UTF-8 (English).
LANG=es_PE.UTF-8

# Time zone of the times in Cuadra's messages. Without it, the computer's own (see: timedatectl);
# remove the # when that is not Peru's:
#TZ=America/Lima
EOF
}

# Writes $SETTINGS_FILE only when there is none: the merchant's settings survive every re-install.
write_settings_file() {
  local carried
  if [ -e "$SETTINGS_FILE" ]; then
    say "Kept your settings in $SETTINGS_FILE (install.sh never changes that file)."
    return 0
  fi
  carried=$(options_of_old_unit)
  say "Writing the service's settings to $SETTINGS_FILE (port, public address, language): change them there."
  mkdir -p "$(dirname "$SETTINGS_FILE")"
  settings_template "$carried" >"$SETTINGS_FILE.new"
  chmod 0644 "$SETTINGS_FILE.new"
  mv -f "$SETTINGS_FILE.new" "$SETTINGS_FILE"
  if [ -n "$carried" ]; then note "It keeps the options your service had: $carried"; fi
}

# The unit holds no settings (they are in $SETTINGS_FILE), so it is written anew each time.
# \$CUADRA_SERVE_OPTIONS as a word of its own: systemd splits its value at spaces into zero or more
# arguments (systemd.service(5), "Command lines"); an empty or missing value gives none.
write_service_unit() {
  local user_lines=""
  if [ "$OWNER" != root ]; then user_lines="User=$OWNER
Group=$OWNER"; fi
  say "Writing the service $UNIT_DIR/cuadra.service."
  mkdir -p "$UNIT_DIR"
  cat >"$UNIT_DIR/cuadra.service" <<EOF
[Unit]
Description=Cuadra: payment confirmation for the shop
After=network-online.target
Wants=network-online.target

[Service]
Type=simple
$user_lines
Environment=NODE_ENV=production
# The merchant's settings: written once by install.sh, never overwritten.
EnvironmentFile=-$SETTINGS_FILE
ExecStart=$BIN_DIR/cuadra serve --data-dir $SYSTEM_DATA_DIR --no-init \$CUADRA_SERVE_OPTIONS
Restart=on-failure
RestartSec=2
TimeoutStopSec=10
NoNewPrivileges=yes
PrivateTmp=yes
ProtectSystem=full
ProtectHome=yes
ReadWritePaths=$SYSTEM_DATA_DIR

[Install]
WantedBy=multi-user.target
EOF
}

# Settings first: the unit is rewritten after them, so a hand-edited old unit can still be read.
install_service() {
  write_settings_file
  write_service_unit
  systemctl daemon-reload
  systemctl enable cuadra.service >/dev/null 2>&1 || fail "systemd could not enable the service." "See: systemctl status cuadra"
  # restart (not start) so that a second install runs the new binary and reads the settings again
  systemctl restart cuadra.service || fail "the service did not start." "See why with: journalctl -u cuadra -n 50"
  say "Cuadra is running as the service 'cuadra' (starts by itself when the computer starts)."
  note "Address: https://<this computer's address>:8443 (or the --port in $SETTINGS_FILE)   Documentation: https://<address>:8443/docs"
  note "Settings: $SETTINGS_FILE; after changing them: sudo systemctl restart cuadra"
  note "Status: systemctl status cuadra     Logs: journalctl -u cuadra -f"
}

# Sourced (by the tests): the functions above, nothing run.
if (return 0 2>/dev/null); then return 0; fi

while [ $# -gt 0 ]; do
  case "$1" in
    --system) SYSTEM=1 ;;
    --name)
      if [ $# -lt 2 ] || [ -z "$2" ]; then fail "--name needs the shop's name." 'Example: sudo ./install.sh --system --name "Bodega Rosa"'; fi
      SHOP_NAME=$2
      shift
      ;;
    --name=*) SHOP_NAME=${1#--name=} ;;
    -h | --help)
      usage
      exit 0
      ;;
    *)
      usage >&2
      fail "unknown option '$1'." "Run ./install.sh --help to see the options."
      ;;
  esac
  shift
done

if [ "$SYSTEM" = 1 ] && [ "$(id -u)" != 0 ]; then
  fail "--system writes to $BIN_DIR, $SYSTEM_DATA_DIR and the system's services, which needs the administrator." \
    "Run it again with sudo:  sudo ./install.sh --system"
fi

case "$(uname -m)" in
  x86_64 | amd64 | aarch64 | arm64) ;;
  *)
    fail "this computer's processor ($(uname -m)) is not supported: Cuadra runs on 64-bit systems (x86-64 or ARM64)." \
      "On a Raspberry Pi, install Raspberry Pi OS (64-bit) and try again."
    ;;
esac

# ---- 1. Bun

bun_works() { "$1" --version >/dev/null 2>&1; }

# Puts a working bun on PATH for the rest of this script; returns 1 if there is none.
find_bun() {
  local candidate dir
  if command -v bun >/dev/null 2>&1 && bun_works bun; then return 0; fi
  for candidate in "$HOME/.bun/bin/bun" "$(npm prefix -g 2>/dev/null)/bin/bun"; do
    if [ -x "$candidate" ] && bun_works "$candidate"; then
      dir=$(dirname "$candidate")
      export PATH="$dir:$PATH"
      return 0
    fi
  done
  return 1
}

# npm 11 may skip bun's postinstall script ("install scripts were skipped"). If the installed bun then
# does not run, run that script by hand, else use the binary of the platform package directly.
repair_bun() {
  local prefix=$1 pkg bin
  pkg="$prefix/lib/node_modules/bun"
  [ -d "$pkg" ] || return 1
  if [ -f "$pkg/install.js" ]; then
    note "Bun's setup script did not run; running it now."
    (cd "$pkg" && node install.js) >/dev/null 2>&1 || true
    if bun_works "$prefix/bin/bun"; then return 0; fi
  fi
  for bin in "$pkg"/node_modules/@oven/bun-linux-*/bin/bun "$prefix"/lib/node_modules/@oven/bun-linux-*/bin/bun; do
    if [ -x "$bin" ] && bun_works "$bin"; then
      mkdir -p "$prefix/bin"
      ln -sf "$bin" "$prefix/bin/bun"
      return 0
    fi
  done
  return 1
}

install_bun() {
  command -v npm >/dev/null 2>&1 ||
    fail "Bun is not installed, and npm (which installs it) is not either." \
      "On Debian or Ubuntu: sudo apt-get install -y nodejs npm" \
      "Then run ./install.sh again."
  say "Installing Bun with npm (npm install -g bun); this takes a minute."
  local prefix global
  global=$(npm prefix -g)
  if mkdir -p "$global/lib" "$global/bin" 2>/dev/null && [ -w "$global/lib" ] && [ -w "$global/bin" ] && npm install -g bun; then
    prefix=$global
  else
    # Not allowed to write npm's global folder (not root): install for this user instead.
    prefix="$HOME/.bun"
    note "Installing Bun for you only, in $prefix (installing it for all users needs sudo)."
    npm install -g --prefix "$prefix" bun ||
      fail "npm could not install Bun." \
        "Check that this computer is connected to the internet, then run ./install.sh again." \
        "If it keeps failing, install Bun by hand with: sudo npm install -g bun"
  fi
  if ! bun_works "$prefix/bin/bun"; then
    repair_bun "$prefix" ||
      fail "Bun was downloaded but does not start." \
        "Try: sudo npm install -g --allow-scripts=bun bun   (or: sudo npm install -g --foreground-scripts bun)" \
        "then run ./install.sh again."
  fi
  export PATH="$prefix/bin:$PATH"
  bun_works bun || fail "Bun was installed in $prefix/bin but does not run." "Run $prefix/bin/bun --version to see why."
  if [ "$prefix" = "$HOME/.bun" ]; then
    note "Bun is in $prefix/bin, which your terminal does not search yet. To use 'bun' yourself, run:"
    note "  export PATH=\"$prefix/bin:\$PATH\"   (add that line to ~/.profile to keep it)"
  fi
}

if find_bun; then
  say "Bun $(bun --version) is installed ($(command -v bun))."
else
  install_bun
  say "Bun $(bun --version) installed ($(command -v bun))."
fi

# ---- 2. Libraries, exactly as pinned in bun.lock

say "Installing Cuadra's libraries (bun install --frozen-lockfile)."
if ! bun install --frozen-lockfile; then
  fail "the libraries could not be installed." \
    "Check that this computer is connected to the internet, then run ./install.sh again." \
    "If bun said the lockfile needs changes: bun.lock no longer matches package.json; a developer must run 'bun install' and commit bun.lock."
fi

# ---- 3. The executable

say "Building dist/cuadra (bun run build)."
bun run build || fail "building dist/cuadra failed (see the messages above)." "Report them to whoever gave you Cuadra."
"$REPO_DIR/dist/cuadra" version >/dev/null || fail "dist/cuadra was built but does not start." "Run ./dist/cuadra version to see why."
say "Built $REPO_DIR/dist/cuadra ($("$REPO_DIR/dist/cuadra" version))."

if [ "$SYSTEM" = 0 ]; then
  cat <<EOF

Done. Start Cuadra with:

  ./dist/cuadra serve

It keeps its data in ./cuadra-data; the first start creates your shop and prints its keys
and an activation code for the first phone. To install it as a service instead:
  sudo ./install.sh --system
EOF
  exit 0
fi

# ---- 4. --system: binary, data dir, shop, service

say "Installing $BIN_DIR/cuadra."
mkdir -p "$BIN_DIR"
# Copy beside it, then rename: replaces the file even while the service runs the old one.
install -m 0755 "$REPO_DIR/dist/cuadra" "$BIN_DIR/.cuadra.new"
mv -f "$BIN_DIR/.cuadra.new" "$BIN_DIR/cuadra"

OWNER=root
if id "$SERVICE_USER" >/dev/null 2>&1; then
  OWNER=$SERVICE_USER
elif command -v useradd >/dev/null 2>&1; then
  say "Creating the system user '$SERVICE_USER' that runs the service."
  nologin=$(command -v nologin || echo /usr/sbin/nologin)
  useradd --system --home-dir "$SYSTEM_DATA_DIR" --no-create-home --shell "$nologin" "$SERVICE_USER"
  OWNER=$SERVICE_USER
else
  note "No 'useradd' here: the service will run as root."
fi

say "Preparing the data folder $SYSTEM_DATA_DIR."
mkdir -p "$SYSTEM_DATA_DIR"
chmod 0700 "$SYSTEM_DATA_DIR"

tenants=$("$BIN_DIR/cuadra" tenant list --json --data-dir "$SYSTEM_DATA_DIR") ||
  fail "could not read $SYSTEM_DATA_DIR." "Check that the disk is not full and the folder is not damaged."
if [ "$tenants" = "[]" ]; then
  say "Creating the shop \"$SHOP_NAME\". Its keys are shown only now: copy them somewhere safe."
  echo
  "$BIN_DIR/cuadra" init --name "$SHOP_NAME" --data-dir "$SYSTEM_DATA_DIR"
  echo
else
  say "The shop already exists in $SYSTEM_DATA_DIR (its keys were shown at the first install)."
  REINSTALL=1
fi
chown -R "$OWNER:" "$SYSTEM_DATA_DIR"
# Commands on the data dir run as the service's user, so that files they create stay readable by it.
AS_OWNER="sudo"
[ "$OWNER" = root ] || AS_OWNER="sudo -u $OWNER"

if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
  install_service
else
  say "systemd is not running on this computer, so no service was set up."
  note "Start Cuadra yourself (for example from the computer's start-up script):"
  note "  NODE_ENV=production $BIN_DIR/cuadra serve --data-dir $SYSTEM_DATA_DIR --no-init"
fi
note "Commands for the shop take --data-dir $SYSTEM_DATA_DIR; run them as the service's user, e.g.:"
note "  $AS_OWNER cuadra tenant list --data-dir $SYSTEM_DATA_DIR"
if [ "$REINSTALL" = 1 ]; then
  note "  $AS_OWNER cuadra key create --tenant ID --env live --data-dir $SYSTEM_DATA_DIR    (a new key)"
  note "  $AS_OWNER cuadra code create --tenant ID --env live --data-dir $SYSTEM_DATA_DIR   (a code for another phone)"
fi
say "Done."
