#!/usr/bin/env bash
# Installs redis-keylint for action.yml. For a released tag (`uses: ...@vX.Y.Z`, the
# version in Cargo.toml) it downloads that release's archive for the runner, checks it
# against its .sha256, and unpacks it; for any other ref (a branch, a commit, an
# unreleased tag) the release cannot match the code, so it builds that ref from source
# with `cargo install`. Prints nothing but progress; adds the binary's directory to
# GITHUB_PATH.
#
# Inputs (environment): ACTION_PATH, ACTION_REF, RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP,
# GITHUB_PATH; REDIS_KEYLINT_RELEASES (the releases download URL, overridable for tests).
set -euo pipefail

: "${ACTION_PATH:?}" "${RUNNER_OS:?}" "${RUNNER_ARCH:?}" "${RUNNER_TEMP:?}" "${GITHUB_PATH:?}"
releases="${REDIS_KEYLINT_RELEASES:-https://github.com/redis-keylint/redis-keylint/releases/download}"
root="$RUNNER_TEMP/redis-keylint"
bin="$root/bin"

version="$(sed -n '/^\[workspace\.package\]/,/^\[/s/^version *= *"\([^"]*\)".*/\1/p' "$ACTION_PATH/Cargo.toml")"
if [ -z "$version" ]; then
    echo "::error::no version in $ACTION_PATH/Cargo.toml" >&2
    exit 1
fi

case "$RUNNER_OS/$RUNNER_ARCH" in
    Linux/X64) target=x86_64-unknown-linux-musl ;;
    Linux/ARM64) target=aarch64-unknown-linux-musl ;;
    macOS/X64) target=x86_64-apple-darwin ;;
    macOS/ARM64) target=aarch64-apple-darwin ;;
    Windows/X64) target=x86_64-pc-windows-msvc ;;
    *) target="" ;;
esac

from_source() {
    echo "redis-keylint: $1; building $ACTION_PATH with cargo install"
    cargo install --locked --path "$ACTION_PATH" --root "$root"
    echo "$bin" >> "$GITHUB_PATH"
}

if [ "${ACTION_REF:-}" != "v$version" ]; then
    from_source "ref '${ACTION_REF:-}' is not the release v$version"
    exit 0
fi
if [ -z "$target" ]; then
    from_source "no prebuilt binary for $RUNNER_OS $RUNNER_ARCH"
    exit 0
fi

case "$target" in
    *windows*) archive="redis-keylint-$target.zip" exe=redis-keylint.exe ;;
    *) archive="redis-keylint-$target.tar.gz" exe=redis-keylint ;;
esac
url="$releases/v$version/$archive"
tmp="$RUNNER_TEMP/redis-keylint-download"
rm -rf "$tmp" && mkdir -p "$tmp" "$bin"
echo "redis-keylint: downloading $url"
curl --fail --silent --show-error --location --retry 3 --output "$tmp/$archive" "$url"
curl --fail --silent --show-error --location --retry 3 --output "$tmp/$archive.sha256" "$url.sha256"
if command -v sha256sum > /dev/null; then
    (cd "$tmp" && sha256sum --check --strict "$archive.sha256")
else
    (cd "$tmp" && shasum -a 256 --check "$archive.sha256")
fi
case "$archive" in
    *.zip) (cd "$tmp" && unzip -q "$archive") ;;
    *) tar -xzf "$tmp/$archive" -C "$tmp" ;;
esac
mv "$tmp/redis-keylint-$target/$exe" "$bin/$exe"
chmod +x "$bin/$exe"
echo "$bin" >> "$GITHUB_PATH"
"$bin/$exe" --version
