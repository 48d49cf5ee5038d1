#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test: a failing test must fail the run.
echo "this test fails on purpose"
exit 1
