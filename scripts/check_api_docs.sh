#!/usr/bin/env bash
# Builds the API reference (Doxyfile: the public headers under include/pcl_dise) into build/api
# and fails on any Doxygen warning: every public class, member and parameter is documented.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
mkdir -p build
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
( cat Doxyfile; echo "WARN_LOGFILE = $log"; echo "WARN_AS_ERROR = NO" ) | doxygen - > /dev/null
if [ -s "$log" ]; then
  cat "$log" >&2
  echo "check_api_docs: $(grep -c warning "$log") Doxygen warnings (see above)" >&2
  exit 1
fi
echo "check_api_docs: the API reference builds without a warning (build/api/html/index.html)"
