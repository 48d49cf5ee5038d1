#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test: a skip is reported with the test's reason.
. "$FT_REPO/selftests/lib.sh"
skip_all "needs a flux capacitor"
