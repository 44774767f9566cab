#!/bin/bash
# Runs on the device machine from the repo root. Writes flat files into $OUT.
export PYTHONUNBUFFERED=1
C=.capture
W=/tmp/cap; rm -rf $W; mkdir -p $W
LOG=$OUT/capture.log
exec > >(tee $LOG) 2>&1
echo "=== versions"; date -u; hostname; uname -a
which python3; python3 --version
nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
nvcc --version 2>/dev/null | tail -2
python3 -m pip list 2>/dev/null | grep -i -E 'jax|torch|tensorflow|protobuf|xla|tensorboard|xprof|kineto'
python3 -c "import tensorflow" 2>&1 | tail -1
python3 -c "import torch_xla" 2>&1 | tail -1
python3 -c "import torch;print('torch',torch.__version__,'cuda',torch.version.cuda,'cudnn',torch.backends.cudnn.version())"
python3 -c "import jax,jaxlib;print('jax',jax.__version__,'jaxlib',jaxlib.__version__);print(jax.devices())"
echo "=== jax steps"
timeout 150 python3 $C/jax_capture.py $W/jax_steps 6 steps || echo FAILED jax steps
(cd $W && tar czf $OUT/jax_mlp_steps.logdir.tar.gz jax_steps) || echo FAILED tar1
echo "=== jax nosteps"
timeout 150 python3 $C/jax_capture.py $W/jax_nosteps 3 nosteps || echo FAILED jax nosteps
(cd $W && tar czf $OUT/jax_mlp_nosteps.logdir.tar.gz jax_nosteps) || echo FAILED tar2
echo "=== torch trace"
timeout 120 python3 $C/torch_trace.py $W/torch_mlp.pt.trace.json 5 || echo FAILED torch trace
gzip -9 -c $W/torch_mlp.pt.trace.json > $OUT/torch_mlp.pt.trace.json.gz || echo FAILED gzip trace
echo "=== torch snapshot (default stacks)"
timeout 150 python3 $C/torch_snapshot.py $W/torch_mlp_snapshot.pickle 3 \
  || { echo FAILED snapshot default; timeout 100 python3 $C/torch_snapshot.py $W/torch_mlp_snapshot.pickle 3 python || echo FAILED snapshot python; }
gzip -9 -c $W/torch_mlp_snapshot.pickle > $OUT/torch_mlp_snapshot.pickle.gz || echo FAILED gzip pickle
echo "=== out"
ls -la $OUT
(cd $C && tar czf $OUT/capture_scripts.tar.gz *.py *.sh)
echo DONE
