"""JAX tiny transformer (2 layers, d=256, 4 heads, seq 128, batch 16), manual SGD,
jit'd step, StepTraceAnnotation per step. usage: jax_tfm_capture.py LOGDIR STEPS"""
import os, sys, time, json
logdir, nsteps = sys.argv[1], int(sys.argv[2])
import jax, jax.numpy as jnp
print("jax", jax.__version__, "XLA_PYTHON_CLIENT_PREALLOCATE", os.environ.get("XLA_PYTHON_CLIENT_PREALLOCATE"))
opts = jax.profiler.ProfileOptions(); opts.host_tracer_level = 2; opts.python_tracer_level = 0
print("profile options: host_tracer_level=%d python_tracer_level=%d" % (opts.host_tracer_level, opts.python_tracer_level))
V, D, HEADS, L, T, B, LR = 1000, 256, 4, 2, 128, 16, 0.01
def dense(k, a, b): return jax.random.normal(k, (a, b), jnp.float32) / jnp.sqrt(a)
def init(key):
    ks = jax.random.split(key, 2 + 4 * L)
    p = {"emb": dense(ks[0], V, D), "out": dense(ks[1], D, V), "layers": []}
    for i in range(L):
        k = ks[2 + 4 * i: 6 + 4 * i]
        p["layers"].append({"qkv": dense(k[0], D, 3 * D), "o": dense(k[1], D, D),
                            "w1": dense(k[2], D, 4 * D), "w2": dense(k[3], 4 * D, D)})
    return p
def ln(x): return (x - x.mean(-1, keepdims=True)) / jnp.sqrt(x.var(-1, keepdims=True) + 1e-5)
def fwd(p, tok):
    x = p["emb"][tok]
    mask = jnp.tril(jnp.ones((T, T), bool))
    for lp in p["layers"]:
        q, k, v = jnp.split(ln(x) @ lp["qkv"], 3, -1)
        sh = lambda t: t.reshape(B, T, HEADS, D // HEADS).transpose(0, 2, 1, 3)
        q, k, v = sh(q), sh(k), sh(v)
        a = jnp.where(mask, q @ k.transpose(0, 1, 3, 2) / jnp.sqrt(D // HEADS), -1e9)
        a = jax.nn.softmax(a, -1) @ v
        x = x + a.transpose(0, 2, 1, 3).reshape(B, T, D) @ lp["o"]
        x = x + jax.nn.gelu(ln(x) @ lp["w1"]) @ lp["w2"]
    return ln(x) @ p["out"]
def loss_fn(p, tok):
    logits = fwd(p, tok)
    logp = jax.nn.log_softmax(logits[:, :-1])
    return -jnp.mean(jnp.take_along_axis(logp, tok[:, 1:, None], -1))
@jax.jit
def batch(key):
    k1, k2 = jax.random.split(key)
    return jax.random.randint(k1, (B, T), 0, V), k2
def _step(p, tok):
    l, g = jax.value_and_grad(loss_fn)(p, tok)
    return jax.tree_util.tree_map(lambda a, b: a - LR * b, p, g), l
step = jax.jit(_step, donate_argnums=(0,))
key = jax.random.PRNGKey(0); params = init(key)
tok, key = batch(key); params, l = step(params, tok); print("warm-up loss", float(l))
with jax.profiler.trace(logdir, profiler_options=opts):
    for i in range(nsteps):
        with jax.profiler.StepTraceAnnotation("train", step_num=i):
            tok, key = batch(key)
            params, l = step(params, tok)
            print("step", i, "loss", float(l))
for r, d, fs in os.walk(logdir):
    for f in fs: print("  ", os.path.join(r, f), os.path.getsize(os.path.join(r, f)))
