/* style_tpu: a JAX training job on a TPU host with D devices
 * (tests/generate_xspace --style tpu).
 *
 * Lines, sorted by name: "python3" (the main thread: per step `train`
 * with _r=1 and step_num around `PjitFunction(train_step)` around
 * `TpuLoadedExecutable::Execute`, the producer _pt=5/_p=ctx of the step),
 * K "tpu_executor/<k>" lines (per step and device a `TpuExecuteProgram`,
 * consumer _ct=5/_c=ctx, around the device's memory events; device d runs
 * on line (d + step) mod K, so one device's events are spread over lines
 * and file order is not time order) and "tpu_transfer" (input batches
 * copied to each device, nested in nothing: in no step).
 *
 * Memory events as the TPU runtime writes them (XProf's golden TPU
 * output): memory id from index_on_host, a stack (bytes_reserved) of
 * about 1.96 GB, allocations with tf_op "dummy", data type 0 (INVALID)
 * and XLA shapes such as `s32[1,2048]{1,0:T(1,128)}`, deallocations with
 * none of the three, fragmentation in the 1e-9 range. The capture starts
 * and ends inside steps, as in style tf-gpu; device 0's last program
 * needs more memory than any before it. Each execution is recorded
 * for the device planes' Steps, XLA Modules and XLA Ops lines. */
#include "config.h"

#include "tests/formats/xspace/xspace_gen/styles.h"

#define TPU_CONTEXT_TYPE 5
#define TPU_MAX_DEVICES 64
#define TPU_MAX_BUFFERS 100000

struct tpu_job {
    struct job *job;
    uint32_t main_line, transfer_line;
    uint32_t executors[MAX_THREADS];
    int64_t executor_count;
    int64_t devices;
    struct allocator allocators[TPU_MAX_DEVICES];
    int64_t buffers; /* activations per execution */
    int64_t buffer_bytes[TPU_MAX_BUFFERS];
    uint32_t buffer_shapes[TPU_MAX_BUFFERS];
    int64_t steps;
    int64_t step_num_base;
    int64_t unique_peak_step;
    uint32_t module_name;
    uint64_t random;
};

static const char *const tpu_shapes[] = {
    "s32[1,2048]{1,0:T(1,128)}",
    "bf16[2048,4096]{1,0:T(8,128)(2,1)}",
    "f32[]{:T(128)}",
    "bf16[8,2048,1024]{2,1,0:T(8,128)(2,1)}",
    "f32[4096]{0:T(1024)}",
    "bf16[1024,4096]{0,1:T(8,128)(2,1)}",
};

static const int64_t tpu_shape_bytes[] = {8192, 16777216, 512, 33554432, 16384, 8388608};

static void tpu_memory(struct tpu_job *tpu, uint32_t line, struct allocator *allocator,
                       struct block *block, bool allocation, uint32_t shape)
{
    struct memory_annotation annotation = {0};
    if (allocation) {
        annotation.op = string_c("dummy");
        annotation.data_type = 0;
        annotation.has_data_type = true;
        annotation.shape = shape;
    } else {
        allocator_release(allocator, block);
    }
    job_memory_event(tpu->job, line, allocator, block, allocation, &annotation);
    if (!allocation)
        *block = (struct block){0};
}

static int64_t tpu_context(int64_t step)
{
    return INT64_C(0x0300000000000000) + (step + 10) * 104729;
}

/* Device d's program for one step: its activations come and go; the
 * input batch copied before is freed at the end. */
static void tpu_execute(struct tpu_job *tpu, int64_t step, int64_t device, struct block *input)
{
    struct job *job = tpu->job;
    struct allocator *allocator = &tpu->allocators[device];
    uint32_t line = tpu->executors[(uint64_t)(device + step + 1) % (uint64_t)tpu->executor_count];
    int64_t start = job->now_ps;
    uint32_t program = job_open(job, line, job_event_key(job, "TpuExecuteProgram"));
    /* --ties no: one step holds an extra buffer through its whole
     * program, so its peak is higher than every other step's. */
    struct block extra = {0};
    /* Device 0's program in the last, partial step needs 2 MiB more (a
     * new input shape): its running peak grows after its last transfer,
     * the last of its events in file order, so XProf's lifetime peak (the
     * last visited event's) is below the latest event's. */
    bool grows = step == tpu->steps && device == 0;
    if (step == tpu->unique_peak_step || grows) {
        extra = allocator_allocate(allocator, grows ? 2 << 20 : 1 << 20);
        tpu_memory(tpu, line, allocator, &extra, true, tpu->buffer_shapes[0]);
    }
    static struct block live[TPU_MAX_BUFFERS];
    for (int64_t i = 0; i < tpu->buffers; i++) {
        live[i] = allocator_allocate(allocator, tpu->buffer_bytes[i]);
        tpu_memory(tpu, line, allocator, &live[i], true, tpu->buffer_shapes[i]);
        /* Temporaries go at once; about half of the buffers live on. */
        if (i % 2 == 1) {
            job_advance_ns(job, 3);
            tpu_memory(tpu, line, allocator, &live[i], false, 0);
        }
    }
    for (int64_t i = tpu->buffers - 1; i >= 0; i--)
        if (live[i].size != 0)
            tpu_memory(tpu, line, allocator, &live[i], false, 0);
    if (extra.size != 0)
        tpu_memory(tpu, line, allocator, &extra, false, 0);
    if (input->size != 0)
        tpu_memory(tpu, line, allocator, input, false, 0);
    struct stat_item stats[2] = {stat_int64(job_stat_key(job, "_ct"), TPU_CONTEXT_TYPE),
                                 stat_int64(job_stat_key(job, "_c"), tpu_context(step))};
    if (job_close(job, program, stats, 2))
        job_record_launch(job, (struct launch){.start_ps = start,
                                               .end_ps = job->now_ps,
                                               .name = tpu->module_name,
                                               .device = (int32_t)device,
                                               .step_num = tpu->step_num_base + step});
}

static void tpu_step(struct tpu_job *tpu, int64_t step)
{
    struct job *job = tpu->job;
    job_advance_ns(job, 500);
    /* The transfers of this step's batches, one per device. */
    static struct block inputs[TPU_MAX_DEVICES];
    for (int64_t d = 0; d < tpu->devices; d++) {
        inputs[d] = allocator_allocate(&tpu->allocators[d], 8192);
        tpu_memory(tpu, tpu->transfer_line, &tpu->allocators[d], &inputs[d], true,
                   string_c(tpu_shapes[0]));
    }
    uint32_t marker = 0;
    if (job->options.markers)
        marker = job_open(job, tpu->main_line, job_event_key(job, "train"));
    uint32_t pjit = job_open(job, tpu->main_line, job_event_key(job, "PjitFunction(train_step)"));
    uint32_t execute =
        job_open(job, tpu->main_line, job_event_key(job, "TpuLoadedExecutable::Execute"));
    if (job->options.odd)
        odd_step_extras(job, tpu->main_line, &tpu->allocators[0]);
    for (int64_t d = 0; d < tpu->devices; d++) {
        /* The capture starts half-way through the programs of the step
         * before the first marker, and ends after the first program of
         * the step after the last one. */
        if (step == -1 && d == tpu->devices / 2)
            job->capture_start_ps = job->now_ps;
        if (step == tpu->steps && d == (tpu->devices > 1 ? 1 : 0))
            job->capture_end_ps = job->now_ps;
        tpu_execute(tpu, step, d, &inputs[d]);
    }
    struct stat_item producer[2] = {stat_int64(job_stat_key(job, "_pt"), TPU_CONTEXT_TYPE),
                                    stat_int64(job_stat_key(job, "_p"), tpu_context(step))};
    job_close(job, execute, producer, 2);
    job_close(job, pjit, NULL, 0);
    if (job->options.while_loop) {
        uint32_t loop = job_open(job, tpu->main_line, job_event_key(job, "WhileOp-EvalCond"));
        job_close(job, loop, NULL, 0);
    }
    if (job->options.markers) {
        struct stat_item stats[2] = {stat_int64(job_stat_key(job, "_r"), 1),
                                     stat_int64(job_stat_key(job, "step_num"),
                                                tpu->step_num_base + step)};
        job_close(job, marker, stats, 2);
    }
    job_flush(job);
}

void style_tpu_run(struct job *job)
{
    static struct tpu_job tpu;
    tpu = (struct tpu_job){.job = job, .random = mix_seed(job->options.seed, 13)};
    const struct options *options = &job->options;
    tpu.devices = options->devices;
    tpu.executor_count = options->threads;
    tpu.steps = options->steps;
    int64_t per_execution = (options->memory_events > 0 ? options->memory_events : 800) /
                            ((options->steps + 1) * tpu.devices);
    /* Per execution: buffers allocations and frees, plus the input's. */
    tpu.buffers = (per_execution - 3) / 2;
    if (tpu.buffers < 1)
        tpu.buffers = 1;
    if (tpu.buffers > TPU_MAX_BUFFERS)
        tpu.buffers = TPU_MAX_BUFFERS;
    for (int64_t i = 0; i < tpu.buffers; i++) {
        uint64_t which = random_below(&tpu.random, 6);
        tpu.buffer_bytes[i] = tpu_shape_bytes[which];
        tpu.buffer_shapes[i] = string_c(tpu_shapes[which]);
        if (options->hostile && random_below(&tpu.random, 4) == 0)
            tpu.buffer_shapes[i] = hostile_string(tpu.buffer_shapes[i], random_next(&tpu.random));
    }
    tpu.step_num_base = 100 + (int64_t)random_below(&tpu.random, 100);
    tpu.unique_peak_step =
        options->ties ? -2 : (int64_t)random_below(&tpu.random, (uint64_t)options->steps);
    tpu.module_name = string_printf("jit_train_step(%llu)",
                                    (unsigned long long)(random_next(&tpu.random) >> 1));

    int64_t timestamp_ns = 51234 + (int64_t)random_below(&tpu.random, 10000);
    if (options->odd)
        odd_add_lines(job, timestamp_ns);
    tpu.main_line = job_add_host_line(job, 9000, string_c("python3"), timestamp_ns, false);
    for (int64_t k = 0; k < tpu.executor_count; k++)
        tpu.executors[k] = job_add_host_line(job, 9100 + k, string_printf("tpu_executor/%lld",
                                                                          (long long)k),
                                             timestamp_ns, false);
    tpu.transfer_line = job_add_host_line(job, 9050, string_c("tpu_transfer"), timestamp_ns,
                                          false);
    for (int64_t d = 0; d < tpu.devices; d++) {
        struct allocator *allocator = &tpu.allocators[d];
        /* --odd: one device's addresses are from 2^63 (uint64, address 0
         * for XProf). */
        uint64_t base = options->odd && d == tpu.devices - 1 ? UINT64_C(0x8000000000000000)
                                                              : UINT64_C(0x780000000) * (uint64_t)(d + 1);
        allocator_init(allocator, ALLOCATOR_TPU, 0, INT64_C(33014413312), base, 512);
        allocator->device_index = d;
        allocator->reserved = INT64_C(1962934272);
        allocator_preallocate(allocator, INT64_C(305938944) - INT64_C(16777216) * d);
    }

    job->now_ps = INT64_C(80000000000);
    job->capture_start_ps = INT64_MAX;
    job->capture_end_ps = INT64_MAX;
    for (int64_t step = -1; step <= tpu.steps; step++)
        tpu_step(&tpu, step);
    job_flush(job);
    for (int64_t d = 0; d < tpu.devices; d++)
        allocator_free(&tpu.allocators[d]);
}
