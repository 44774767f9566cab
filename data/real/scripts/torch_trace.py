"""Record a PyTorch profiler (Kineto) trace with memory events: small MLP, Adam, CUDA.
usage: torch_trace.py OUT.pt.trace.json STEPS"""
import sys, time, torch
out, nsteps = sys.argv[1], int(sys.argv[2])
from torch.profiler import profile, ProfilerActivity
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
step(); torch.cuda.synchronize()  # warm-up outside the capture
t0 = time.time()
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
             profile_memory=True, record_shapes=True, with_stack=True) as prof:
    for i in range(nsteps):
        l = step()
        print("step", i, "loss", float(l))
        prof.step()
torch.cuda.synchronize()
print("capture took %.2fs" % (time.time() - t0))
prof.export_chrome_trace(out)
import os; print(out, os.path.getsize(out))
