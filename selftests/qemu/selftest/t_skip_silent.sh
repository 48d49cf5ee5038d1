#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Harness self-test: exit 4 without a reason is a failure, not a skip.
exit 4
