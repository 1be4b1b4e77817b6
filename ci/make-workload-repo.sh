#!/bin/sh
# Turns the staged CPU workload into a git repository, so the embedded default's
# aorta_auto_clone exercises a real `git clone` exactly as on a cluster.
set -eu
dir=$1
cd "$dir"
rm -rf .git
git init -q
git add -A
git -c user.name=aorta_suite -c user.email=aorta_suite@localhost commit -q -m "aorta_suite CPU workload"
