"""Record a PyTorch CUDA caching-allocator memory snapshot (pickle).
usage: torch_snapshot.py OUT.pickle STEPS [stacks]"""
import sys, time, torch, pickle
out, nsteps = sys.argv[1], int(sys.argv[2])
stacks = sys.argv[3] if len(sys.argv) > 3 else None
print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))
torch.manual_seed(0)
dev = "cuda"
model = torch.nn.Sequential(
    torch.nn.Linear(512, 1024), torch.nn.ReLU(),
    torch.nn.Linear(1024, 1024), torch.nn.ReLU(),
    torch.nn.Linear(1024, 10)).to(dev)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
lossf = torch.nn.CrossEntropyLoss()
def step():
    x = torch.randn(256, 512, device=dev)
    y = torch.randint(0, 10, (256,), device=dev)
    opt.zero_grad(set_to_none=True)
    loss = lossf(model(x), y)
    loss.backward()
    opt.step()
    return loss
step(); torch.cuda.synchronize()
kw = {"max_entries": 100000}
if stacks:
    kw["stacks"] = stacks
print("_record_memory_history kwargs:", kw)
torch.cuda.memory._record_memory_history(**kw)
for i in range(nsteps):
    l = step()
    print("step", i, "loss", float(l))
torch.cuda.synchronize()
t0 = time.time()
torch.cuda.memory._dump_snapshot(out)
print("dump took %.2fs" % (time.time() - t0))
torch.cuda.memory._record_memory_history(enabled=None)
import os; print(out, os.path.getsize(out))
with open(out, "rb") as f:
    head = f.read(2)
print("pickle header bytes", head.hex(), "pickle.DEFAULT_PROTOCOL", pickle.DEFAULT_PROTOCOL)
