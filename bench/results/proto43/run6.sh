#!/usr/bin/env bash
# Call 6 (session 43): call 5 again (run5.sh) with the bundle of 4f2ce5e, the
# rule raising the work-items only (at most two vectors a work-item) over
# rows of 4, 7, 8, 15, 16, 31 and 32 whole vectors: the same cases, then the
# whole suite one file a process.
exec bash "$(dirname "${BASH_SOURCE[0]}")/run5.sh"
