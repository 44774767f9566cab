"""PyTorch profiler trace with a schedule (ProfilerStep#N markers) written by
tensorboard_trace_handler(use_gzip=True). usage: torch_trace_sched.py OUTDIR"""
import sys, time, torch, os
outdir = sys.argv[1]
from torch.profiler import profile, ProfilerActivity, schedule, tensorboard_trace_handler
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
    return loss.detach()
sch = schedule(wait=1, warmup=1, active=3, repeat=1)
print("schedule: wait=1 warmup=1 active=3 repeat=1; 6 steps")
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], schedule=sch,
             on_trace_ready=tensorboard_trace_handler(outdir, use_gzip=True),
             profile_memory=True, record_shapes=True, with_stack=True) as prof:
    for i in range(6):
        l = step()
        print("step", i, "loss", float(l))
        prof.step()
for f in os.listdir(outdir): print(f, os.path.getsize(os.path.join(outdir, f)))
