#!/bin/sh
# Stands in for the `hermit` executable in the SeedSearch unit tests: it takes the `run` arguments that
# SeedSearch passes and decides the exit status from --seed alone, so the expected failures are known.
# Without --seed (the baseline) it succeeds; seeds divisible by 7 fail; seed 1000 never finishes.
seed=""
for argument in "$@"; do
    case "$argument" in
        --seed=*) seed="${argument#--seed=}" ;;
        --) break ;;
    esac
done
if [ -z "$seed" ]; then
    echo "baseline"
    exit 0
fi
if [ "$seed" -eq 1000 ]; then
    exec sleep 100
fi
if [ $((seed % 7)) -eq 0 ]; then
    echo "seed $seed failed"
    echo "diagnostics for seed $seed" >&2
    exit 1
fi
echo "seed $seed passed"
exit 0
