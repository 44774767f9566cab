#!/bin/bash
export PYTHONUNBUFFERED=1
C=.capture; W=/tmp/cap2; rm -rf $W; mkdir -p $W
exec > >(tee $OUT/capture2.log) 2>&1
date -u; nvidia-smi -L
echo "=== jax transformer (XLA_PYTHON_CLIENT_PREALLOCATE=false)"
XLA_PYTHON_CLIENT_PREALLOCATE=false timeout 200 python3 $C/jax_tfm_capture.py $W/jax_tfm 5 || echo FAILED jax tfm
(cd $W && tar czf $OUT/jax_tfm_steps_noprealloc.logdir.tar.gz jax_tfm) || echo FAILED tar
echo "=== torch scheduled trace"
timeout 150 python3 $C/torch_trace_sched.py $W/tb || echo FAILED torch sched
f=$(ls $W/tb/*.pt.trace.json.gz | head -1); echo "handler wrote: $f"; cp "$f" $OUT/torch_mlp_sched.pt.trace.json.gz || echo FAILED cp
ls -la $OUT; echo DONE
