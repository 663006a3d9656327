#! /bin/sh
# Generates ./configure and Makefile.in for ovs-iptun.
set -e
cd "$(dirname "$0")"
autoreconf --install --force
