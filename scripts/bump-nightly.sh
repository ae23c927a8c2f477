#!/usr/bin/env bash
# Moves the release toolchain's pin (scripts/release-toolchain.sh) to another dated nightly and
# shows what it does to the shipped `.wasm` files:
#
#   bash scripts/bump-nightly.sh nightly-YYYY-MM-DD
#
# 1. installs that nightly (minimal profile, rust-src, the wasm32 target); nothing is changed if
#    it cannot be installed;
# 2. builds the package with the current pin and records the host and server `.wasm` sizes
#    (gzip -9);
# 3. rewrites the pin, rebuilds with the new nightly and prints old and new sizes side by side,
#    then runs scripts/size-budget.mjs;
# 4. if anything fails after the pin was rewritten (the build, or a build that fell back to
#    stable), restores release-toolchain.sh as it was and exits non-zero.
#
# The new pin is left uncommitted: review the sizes, update docs/SIZE.md if they moved, commit.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
pin_file=scripts/release-toolchain.sh

usage() {
  echo "usage: bash scripts/bump-nightly.sh nightly-YYYY-MM-DD" >&2
  exit 2
}
[ "$#" -eq 1 ] || usage
new="$1"
[[ "$new" =~ ^nightly-([0-9]{4}-[0-9]{2}-[0-9]{2})$ ]] || usage
day="${BASH_REMATCH[1]}"
# A real calendar day (date -d accepts 2026-02-30 as nothing), and not in the future.
[ "$(date -u -d "$day" +%F 2>/dev/null || true)" = "$day" ] || {
  echo "bump-nightly: $day is not a calendar date" >&2
  exit 2
}
[ "$day" \< "$(date -u -d tomorrow +%F)" ] || {
  echo "bump-nightly: $new is in the future" >&2
  exit 2
}

# The pin as written in the file (not an environment override).
unset RELEASE_TOOLCHAIN
. "$pin_file"
old="$RELEASE_TOOLCHAIN"
grep -qx "RELEASE_TOOLCHAIN=\"$old\"" "$pin_file" || {
  echo "bump-nightly: cannot find the line RELEASE_TOOLCHAIN=\"$old\" in $pin_file" >&2
  exit 1
}
if [ "$new" = "$old" ]; then
  echo "bump-nightly: $new is already the pin"
  exit 0
fi

echo "bump-nightly: installing $new"
if ! rustup toolchain install "$new" --profile minimal --component rust-src \
  --target wasm32-unknown-unknown; then
  echo "bump-nightly: could not install $new; $pin_file is unchanged" >&2
  exit 1
fi

# gzip -9 sizes of the host, server and lists browser `.wasm` files, after a build by toolchain $1.
sizes() {
  local built
  built="$(cat pkg/.toolchain 2>/dev/null || true)"
  if [ "$built" != "$1" ]; then
    echo "bump-nightly: pkg/ was built by '${built:-?}', not $1" >&2
    return 1
  fi
  host=$(gzip -9 -n -c pkg/web/mcp_result_cache_bg.wasm | wc -c)
  server=$(gzip -9 -n -c pkg/server-web/mcp_result_cache_bg.wasm | wc -c)
  lists=$(gzip -9 -n -c pkg/lists-web/mcp_result_cache_bg.wasm | wc -c)
}

echo "bump-nightly: building with the current pin, $old"
if ! bash scripts/build.sh || ! sizes "$old"; then
  echo "bump-nightly: the build with the current pin $old failed (is it installed? 'npm run setup'); $pin_file is unchanged" >&2
  exit 1
fi
old_host=$host old_server=$server old_lists=$lists

backup="$(mktemp)"
cp "$pin_file" "$backup"
restore() {
  cp "$backup" "$pin_file"
  rm -f "$backup"
  echo "bump-nightly: restored $pin_file (the pin stays $old)" >&2
}
trap 'restore; exit 1' ERR INT TERM
sed -i "s/^RELEASE_TOOLCHAIN=\"$old\"\$/RELEASE_TOOLCHAIN=\"$new\"/" "$pin_file"
grep -qx "RELEASE_TOOLCHAIN=\"$new\"" "$pin_file"

echo "bump-nightly: building with $new"
bash scripts/build.sh
sizes "$new"
trap - ERR INT TERM
rm -f "$backup"

printf '\nbump-nightly: .wasm bytes gzip -9\n'
printf '  %-8s %10s %10s %8s\n' entry "$old" "$new" change
printf '  %-8s %10s %10s %+8d\n' host "$old_host" "$host" "$((host - old_host))"
printf '  %-8s %10s %10s %+8d\n' server "$old_server" "$server" "$((server - old_server))"
printf '  %-8s %10s %10s %+8d\n' lists "$old_lists" "$lists" "$((lists - old_lists))"
echo
node scripts/size-budget.mjs || true
echo "bump-nightly: $pin_file now pins $new (uncommitted)"
