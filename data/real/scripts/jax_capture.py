"""Record a JAX (GPU) memory profile: small MLP, manual SGD, jit'd step.
usage: jax_capture.py LOGDIR STEPS {steps|nosteps}"""
import os, sys, time, json
logdir, nsteps, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
import jax, jax.numpy as jnp
import jaxlib
print("jax", jax.__version__, "jaxlib", getattr(jaxlib, "__version__", "?"))
print("devices", jax.devices())

used = {}
opts = None
try:
    opts = jax.profiler.ProfileOptions()
    for k, v in (("host_tracer_level", 2), ("python_tracer_level", 0), ("device_tracer_level", 1)):
        try:
            setattr(opts, k, v); used[k] = getattr(opts, k)
        except Exception as e:
            used[k] = "unset: %r" % (e,)
    for k in dir(opts):
        if not k.startswith("_"):
            try:
                v = getattr(opts, k)
                if not callable(v):
                    used.setdefault(k, v if isinstance(v, (int, float, str, bool)) else repr(v))
            except Exception:
                pass
except Exception as e:
    opts = None
    used["ProfileOptions"] = "unavailable: %r" % (e,)
print("profile options:", json.dumps(used, default=str))

D_IN, H, D_OUT, B = 512, 1024, 10, 256
LR = 0.05

def init(key):
    sizes = [D_IN, H, H, D_OUT]
    params = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        key, k = jax.random.split(key)
        params.append((jax.random.normal(k, (a, b), jnp.float32) / jnp.sqrt(a),
                       jnp.zeros((b,), jnp.float32)))
    return params

def forward(params, x):
    for w, b in params[:-1]:
        x = jax.nn.relu(x @ w + b)
    w, b = params[-1]
    return x @ w + b

def loss_fn(params, x, y):
    logits = forward(params, x)
    logp = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.sum(logp * jax.nn.one_hot(y, D_OUT), axis=-1))

@jax.jit
def make_batch(key):
    k1, k2, k3 = jax.random.split(key, 3)
    x = jax.random.normal(k1, (B, D_IN), jnp.float32)
    y = jax.random.randint(k2, (B,), 0, D_OUT)
    return x, y, k3

def _step(params, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    params = jax.tree_util.tree_map(lambda p, g: p - LR * g, params, grads)
    return params, loss

train_step = jax.jit(_step, donate_argnums=(0,))

key = jax.random.PRNGKey(0)
params = init(key)
# warm-up (compile outside the capture)
x, y, key = make_batch(key)
params, loss = train_step(params, x, y)
loss.block_until_ready()
print("warm-up loss", float(loss))

kw = {}
if opts is not None:
    kw["profiler_options"] = opts
t0 = time.time()
try:
    ctx = jax.profiler.trace(logdir, **kw)
except TypeError as e:
    print("jax.profiler.trace rejected profiler_options:", e, "-> defaults")
    ctx = jax.profiler.trace(logdir)
with ctx:
    for i in range(nsteps):
        if mode == "steps":
            with jax.profiler.StepTraceAnnotation("train", step_num=i):
                x, y, key = make_batch(key)
                params, loss = train_step(params, x, y)
                l = float(loss)
        else:
            x, y, key = make_batch(key)
            params, loss = train_step(params, x, y)
            l = float(loss)
        print("step", i, "loss", l)
print("capture took %.2fs" % (time.time() - t0))
for root, dirs, files in os.walk(logdir):
    for f in files:
        p = os.path.join(root, f)
        print("  ", p, os.path.getsize(p))
