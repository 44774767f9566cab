/* style_jax_gpu: a JAX training loop on one GPU, shaped like the real
 * captures in data/real (FINDINGS-real-captures.md section 1)
 * (tests/generate_xspace --style jax-gpu).
 *
 * Lines, sorted by name: three CUPTI lines "Host Threads/<tid>" (OS thread
 * ids, the device lines' timestamp_ns), K "pjrt_async_work_runner/<id>"
 * lines, one "py_xla_callback/<id>" line, then two lines named "python3"
 * (the main thread, with its own timestamp_ns, then a helper). TraceMe
 * line ids are 64-bit, about half negative; their names end in the id;
 * every host line has display_name. The worker lines share a
 * timestamp_ns distinct from the main line's.
 *
 * Per step on the main line: `train` (_r=1, step_num) around two
 * `PjitFunction(...)` executions, each a chain PjRtCApiLoadedExecutable::
 * Execute (_c=0) > PJRT_LoadedExecutable_Execute (consumer) > ... linkage
 * (producer) > CommonPjRtLoadedExecutable::Execute (_pt=5, _p = a run id,
 * uint64 from 2^63, `_src` twice) > ExecuteHelperOnSingleDevice > [0]
 * ...Execute > `Build buffer allocations` > the GPU_0_bfc allocations;
 * donated inputs are freed under Execute, the batch directly under
 * `train`; CommonPjRtBuffer::ToLiteral produces for a `D2H Dispatch` on a
 * runner line. xla_gpu_host_bfc allocates on runner lines and frees on
 * the callback line, nested in nothing: no step for XProf.
 *
 * GPU_0_bfc: 12 stats per event (no tf_op, region or shape; id 0,
 * data_type 0, `_src`), a constant peak_bytes_in_use from before the
 * capture, heap back to the same level after every step, so every step
 * ties at the same maximum, reached once per step. */
#include "config.h"

#include <stdio.h>

#include "tests/formats/xspace/xspace_gen/styles.h"

#define JAX_CONTEXT_TYPE 5 /* ContextType::kPjRt */
#define JAX_MAX_PARAMS 200000

struct jax_job {
    struct job *job;
    uint32_t main_line, helper_line, callback_line;
    uint32_t runners[MAX_THREADS];
    int64_t runner_count;
    struct allocator gpu, host;
    int64_t params;
    int64_t param_bytes[JAX_MAX_PARAMS];
    struct block param_blocks[JAX_MAX_PARAMS];
    int64_t unique_peak_step;
    uint64_t random;
};

static int64_t jax_thread_id(struct jax_job *jax)
{
    int64_t id = (int64_t)(random_next(&jax->random) >> 1);
    return random_below(&jax->random, 2) ? -id : id;
}

static uint32_t jax_line(struct jax_job *jax, const char *prefix, int64_t id, int64_t timestamp)
{
    return job_add_host_line(jax->job, id, string_printf("%s/%lld", prefix, (long long)id),
                             timestamp, true);
}

static struct stat_item jax_source(struct job *job, const char *file)
{
    return job_string_stat(job, job_stat_key(job, "_src"), string_c(file));
}

static void jax_memory(struct jax_job *jax, uint32_t line, struct allocator *allocator,
                       struct block *block, bool allocation)
{
    struct memory_annotation annotation = {
        .has_data_type = true,  /* 0: the annotation has no type */
        .has_tf_step_id = true, /* 0: JAX has no TF step id */
    };
    if (!allocation)
        allocator_release(allocator, block);
    job_memory_event(jax->job, line, allocator, block, allocation, &annotation);
    if (!allocation)
        *block = (struct block){0};
}

/* One jitted execution: allocations of its outputs, a CUDA graph launch,
 * frees of the donated inputs. */
static void jax_execute(struct jax_job *jax, const char *function, int64_t step,
                        struct block *outputs, const int64_t *output_bytes, int64_t output_count,
                        struct block *donated, int64_t donated_count)
{
    struct job *job = jax->job;
    uint32_t line = jax->main_line;
    char name[160];
    snprintf(name, sizeof name, "PjitFunction(%s)", function);
    uint32_t pjit = job_open(job, line, job_event_key(job, name));
    uint32_t api = job_open(job, line, job_event_key(job, "PjRtCApiLoadedExecutable::Execute"));
    uint32_t execute = job_open(job, line, job_event_key(job, "PJRT_LoadedExecutable_Execute"));
    uint32_t linkage =
        job_open(job, line, job_event_key(job, "PJRT_LoadedExecutable_Execute linkage"));
    snprintf(name, sizeof name, "CommonPjRtLoadedExecutable::Execute (jit_%s)", function);
    uint32_t common = job_open(job, line, job_event_key(job, name));
    uint32_t helper = job_open(
        job, line, job_event_key(job, "CommonPjRtLoadedExecutable::ExecuteHelperOnSingleDevice"));
    uint32_t raw = job_open(
        job, line, job_event_key(job, "[0] PjRtStreamExecutorRawLoadedExecutable::Execute"));
    uint32_t build = job_open(job, line, job_event_key(job, "Build buffer allocations"));
    for (int64_t i = 0; i < output_count; i++) {
        outputs[i] = allocator_allocate(&jax->gpu, output_bytes[i]);
        jax_memory(jax, line, &jax->gpu, &outputs[i], true);
    }
    job_close(job, build, NULL, 0);
    uint64_t correlation_id = job->next_correlation_id++;
    int64_t start = job->now_ps;
    uint32_t launch = job_open(job, line, job_event_key(job, "cuGraphLaunch (CudaGraph:2)"));
    struct stat_item correlation = stat_uint64(job_stat_key(job, "correlation_id"),
                                               correlation_id);
    if (job_close(job, launch, &correlation, 1))
        job_record_launch(job, (struct launch){.start_ps = start,
                                               .end_ps = job->now_ps,
                                               .correlation_id = correlation_id,
                                               .name = string_printf("jit_%s", function)});
    for (int64_t i = 0; i < donated_count; i++)
        if (donated[i].size != 0)
            jax_memory(jax, line, &jax->gpu, &donated[i], false);
    job_close(job, raw, NULL, 0);
    job_close(job, helper, NULL, 0);
    /* A run id is negative as often as not; the host tracer writes it as
     * uint64 then. */
    int64_t run_id = (int64_t)random_next(&jax->random);
    struct stat_item common_stats[4] = {
        stat_int64(job_stat_key(job, "_pt"), JAX_CONTEXT_TYPE),
        run_id < 0 ? stat_uint64(job_stat_key(job, "_p"), (uint64_t)run_id)
                   : stat_int64(job_stat_key(job, "_p"), run_id),
        jax_source(job, "external/xla+/xla/pjrt/common_pjrt_client.cc"),
        jax_source(job, "external/xla+/xla/pjrt/se/pjrt_stream_executor_client.cc"),
    };
    job_close(job, common, common_stats, 4);
    int64_t link = INT64_C(1) << 40 | (step + 10) << 8 | (int64_t)output_count;
    struct stat_item linkage_stats[2] = {stat_int64(job_stat_key(job, "_pt"), JAX_CONTEXT_TYPE),
                                         stat_int64(job_stat_key(job, "_p"), link)};
    job_close(job, linkage, linkage_stats, 2);
    struct stat_item execute_stats[2] = {stat_int64(job_stat_key(job, "_ct"), JAX_CONTEXT_TYPE),
                                         stat_int64(job_stat_key(job, "_c"), link)};
    job_close(job, execute, execute_stats, 2);
    struct stat_item api_stats[2] = {stat_int64(job_stat_key(job, "_ct"), JAX_CONTEXT_TYPE),
                                     stat_int64(job_stat_key(job, "_c"), 0)};
    job_close(job, api, api_stats, 2);
    job_close(job, pjit, NULL, 0);
}

/* The loss comes back to the host: a producer on the main line, a
 * consumer on a runner line, and a pinned host buffer allocated there and
 * freed on the callback line, both nested in nothing. */
static void jax_fetch_loss(struct jax_job *jax, int64_t step)
{
    struct job *job = jax->job;
    int64_t literal = INT64_C(1) << 42 | (step + 10);
    uint32_t to_literal =
        job_open(job, jax->main_line, job_event_key(job, "CommonPjRtBuffer::ToLiteral"));
    uint32_t runner = jax->runners[(uint64_t)(step + 1) % (uint64_t)jax->runner_count];
    uint32_t zero_copy =
        job_open(job, runner, job_event_key(job, "PjRtBuffer::ToLiteralZeroCopyPath"));
    uint32_t dispatch = job_open(job, runner, job_event_key(job, "D2H Dispatch"));
    struct stat_item dispatch_stats[4] = {
        stat_int64(job_stat_key(job, "_ct"), JAX_CONTEXT_TYPE),
        stat_int64(job_stat_key(job, "_c"), literal),
        jax_source(job, "external/xla+/xla/pjrt/se/pjrt_stream_executor_client.cc"),
        jax_source(job, "external/xla+/xla/pjrt/common_pjrt_client.cc"),
    };
    job_close(job, dispatch, dispatch_stats, 4);
    job_close(job, zero_copy, NULL, 0);
    struct block pinned = allocator_allocate(&jax->host, 4);
    jax_memory(jax, runner, &jax->host, &pinned, true);
    struct stat_item literal_stats[2] = {stat_int64(job_stat_key(job, "_pt"), JAX_CONTEXT_TYPE),
                                         stat_int64(job_stat_key(job, "_p"), literal)};
    job_close(job, to_literal, literal_stats, 2);
    uint32_t copy = job_open(job, jax->helper_line,
                             job_event_key(job, "D2H Copy From Staging Buffer"));
    job_close(job, copy, NULL, 0);
    job_advance_ns(job, 40);
    jax_memory(jax, jax->callback_line, &jax->host, &pinned, false);
}

static void jax_step(struct jax_job *jax, int64_t step)
{
    struct job *job = jax->job;
    job_advance_ns(job, 300);
    uint32_t marker = 0;
    if (job->options.markers)
        marker = job_open(job, jax->main_line, job_event_key(job, "train"));
    if (job->options.odd)
        odd_step_extras(job, jax->main_line, &jax->gpu);
    /* make_batch: x [256,512] and y [256,10] as float32. */
    struct block batch[3] = {{0}};
    int64_t batch_bytes[3] = {256 * 512 * 4, 256 * 10 * 4, 1 << 20};
    int64_t batch_count = step == jax->unique_peak_step ? 3 : 2;
    jax_execute(jax, "make_batch", step, batch, batch_bytes, batch_count, NULL, 0);
    /* train_step: new parameters and optimizer state, donating the old. */
    static struct block outputs[JAX_MAX_PARAMS];
    jax_execute(jax, "_step", step, outputs, jax->param_bytes, jax->params, jax->param_blocks,
                jax->params);
    for (int64_t i = 0; i < jax->params; i++)
        jax->param_blocks[i] = outputs[i];
    jax_fetch_loss(jax, step);
    /* Python drops the batch: freed under `train`, outside any execution. */
    for (int64_t i = 0; i < batch_count; i++)
        jax_memory(jax, jax->main_line, &jax->gpu, &batch[i], false);
    if (job->options.while_loop) {
        uint32_t loop = job_open(job, jax->main_line, job_event_key(job, "WhileOp-EvalCond"));
        job_close(job, loop, NULL, 0);
    }
    if (job->options.markers) {
        struct stat_item stats[2] = {stat_int64(job_stat_key(job, "_r"), 1),
                                     stat_int64(job_stat_key(job, "step_num"), step)};
        job_close(job, marker, stats, 2);
    }
    job_flush(job);
}

void style_jax_gpu_run(struct job *job)
{
    static struct jax_job jax;
    jax = (struct jax_job){.job = job, .random = mix_seed(job->options.seed, 12)};
    const struct options *options = &job->options;
    jax.runner_count = options->threads;
    int64_t per_step = (options->memory_events > 0 ? options->memory_events : 108) /
                       options->steps;
    /* Per step: 2 batch allocations and frees, 2 per parameter, 2 pinned. */
    jax.params = (per_step - 6) / 2;
    if (jax.params < 1)
        jax.params = 1;
    if (jax.params > JAX_MAX_PARAMS)
        jax.params = JAX_MAX_PARAMS;
    static const int64_t shapes[][2] = {{512, 1024}, {1, 1024}, {1024, 1024},
                                        {1, 1024},   {1024, 10}, {1, 10}};
    for (int64_t i = 0; i < jax.params; i++)
        jax.param_bytes[i] = shapes[i % 6][0] * shapes[i % 6][1] * 4;
    jax.unique_peak_step =
        options->ties ? -1 : (int64_t)random_below(&jax.random, (uint64_t)options->steps);

    int64_t device_timestamp = 19199693, main_timestamp = 42561, worker_timestamp = 49883;
    if (options->odd)
        odd_add_lines(job, worker_timestamp);
    static const int64_t cupti_threads[3] = {549, 631, 888};
    uint32_t cupti[3];
    for (int i = 0; i < 3; i++)
        cupti[i] = job_add_host_line(job, cupti_threads[i],
                                     string_printf("Host Threads/%lld",
                                                   (long long)cupti_threads[i]),
                                     device_timestamp, true);
    for (int64_t k = 0; k < jax.runner_count; k++)
        jax.runners[k] = jax_line(&jax, "pjrt_async_work_runner", jax_thread_id(&jax),
                                  worker_timestamp);
    /* --odd: the callback line's timestamp is far after its events:
     * negative offsets, so XProf sorts these frees before the
     * allocations they free. */
    int64_t callback_id = (int64_t)((uint64_t)jax_thread_id(&jax) | UINT64_C(1) << 63);
    jax.callback_line = jax_line(&jax, "py_xla_callback", callback_id,
                                 options->odd ? worker_timestamp + INT64_C(1000000000000)
                                              : worker_timestamp);
    jax.main_line = job_add_host_line(job, jax_thread_id(&jax), string_c("python3"),
                                      main_timestamp, true);
    jax.helper_line = job_add_host_line(job, jax_thread_id(&jax), string_c("python3"),
                                        worker_timestamp, true);

    uint32_t gpu_name = string_c("GPU_0_bfc"), host_name = string_c("xla_gpu_host_bfc");
    if (options->hostile)
        host_name = hostile_string(host_name, 3);
    allocator_init(&jax.gpu, ALLOCATOR_BFC, gpu_name, INT64_C(63763906560),
                   UINT64_C(12918456320), 256);
    allocator_init(&jax.host, ALLOCATOR_HOST_BFC, host_name, INT64_C(68719476736),
                   options->odd ? UINT64_C(0x8000001200000000) : UINT64_C(76682362880), 256);
    int64_t parameters = 0;
    for (int64_t i = 0; i < jax.params; i++)
        parameters += (jax.param_bytes[i] + 255) / 256 * 256;
    /* About 6.87 MB in use between steps, as in data/real. */
    if (parameters < INT64_C(6871296))
        allocator_preallocate(&jax.gpu, INT64_C(6871296) - parameters);
    jax.gpu.peak = INT64_C(156817152); /* the lifetime peak, from before the capture */
    for (int64_t i = 0; i < jax.params; i++)
        jax.param_blocks[i] = allocator_allocate(&jax.gpu, jax.param_bytes[i]);

    job->now_ps = INT64_C(19470000000);
    job->capture_start_ps = 0;
    job->capture_end_ps = INT64_MAX;
    struct stat_item none[1];
    for (int i = 0; i < 3; i++) {
        job_instant(job, cupti[i], job_event_key(job, "<UNKNOWN>"), none, 0);
        if (i == 2)
            job_instant(job, cupti[i], job_event_key(job, "BUFFER_FLUSH"), none, 0);
    }
    for (int64_t step = 0; step < options->steps; step++)
        jax_step(&jax, step);
    job_flush(job);
    allocator_free(&jax.gpu);
    allocator_free(&jax.host);
}
