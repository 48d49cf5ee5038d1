#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test: a kernel WARNING fails the run even if the test passes;
# the same words in test output do not.
set -euo pipefail
echo "WARNING: not a kernel warning, just test output"
echo "WARNING: CPU: 0 PID: 1 at fake" >/dev/kmsg
exit 0
