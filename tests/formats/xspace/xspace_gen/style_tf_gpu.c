/* style_tf_gpu: a TF2 Keras training job on one GPU, as the host plane
 * of its XSpace shows it (tests/generate_xspace --style tf-gpu).
 *
 * Lines (sorted by name, one timestamp_ns for all): "python3" (the main
 * thread: per step `train` with _r=1 and step_num, around
 * `__inference_train_function_1834` around `FunctionRun`, the producer
 * _pt=2/_p=ctx of the step), K lines "tf_Compute" (inter-op threads: per op
 * an `ExecutorState::Process` consumer _ct=2/_c=ctx with id and iter_num=0,
 * around the op `node:Type`, around kernel launches with correlation_id
 * and the op's memory events) and "tf_data_private_threadpool" (the input
 * pipeline: cpu allocations nested in nothing, so in no step).
 *
 * Allocators: GPU_0_bfc (weights and optimizer slots in use before the
 * capture; per step the input, forward activations, backward gradients and
 * Adam temporaries, the same sizes every step so the peaks tie) and cpu.
 * The capture starts in the backward pass of the step before the first
 * marker and ends in the forward pass of the step after the last one:
 * their events are in the file, their markers are not. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "tests/formats/xspace/xspace_gen/styles.h"

#define TF_MAX_LAYERS 4096
#define TF_CONTEXT_TYPE 2 /* ContextType::kTfExecutor */

struct tf_job {
    struct job *job;
    uint32_t main_line, input_line;
    uint32_t workers[MAX_THREADS];
    int64_t worker_count;
    struct allocator gpu, cpu;
    int layers;
    int64_t batch;
    int64_t widths[TF_MAX_LAYERS + 1];
    int64_t step_num_base;
    int64_t steps;
    int64_t unique_peak_step; /* --ties no: the step with the one highest peak */
    int64_t op_index;         /* ops of the current step so far */
    int64_t capture_start_op; /* in step -1 */
    int64_t capture_end_op;   /* in step `steps` */
    int64_t step;
    uint64_t random;
    uint64_t odd_relu; /* --odd: Relu allocations so far */
};

struct tf_op {
    uint32_t line;
    uint32_t process;
    uint32_t event;
    uint32_t node;
};

static uint32_t tf_shape(int64_t rows, int64_t columns)
{
    return string_printf("[%lld,%lld]", (long long)rows, (long long)columns);
}

static uint32_t tf_maybe_hostile(struct tf_job *tf, uint32_t name)
{
    if (!tf->job->options.hostile || random_below(&tf->random, 4) != 0)
        return name;
    return hostile_string(name, random_next(&tf->random));
}

static int64_t tf_context_id(const struct tf_job *tf, int64_t step)
{
    /* --odd: the producer writes it as uint64 from 2^63, the consumer as
     * int64: XProf compares the 64-bit patterns. */
    if (tf->job->options.odd)
        return (int64_t)(UINT64_C(0x8100000000000000) + (uint64_t)(step + 10) * 7919);
    return INT64_C(0x0100000000000000) + (step + 10) * 7919;
}

static void tf_capture_triggers(struct tf_job *tf)
{
    struct job *job = tf->job;
    if (tf->step == -1 && tf->op_index == tf->capture_start_op)
        job->capture_start_ps = job->now_ps;
    if (tf->step == tf->steps && tf->op_index == tf->capture_end_op)
        job->capture_end_ps = job->now_ps;
}

static struct tf_op tf_op_begin(struct tf_job *tf, uint32_t node, const char *type)
{
    struct job *job = tf->job;
    tf_capture_triggers(tf);
    tf->op_index++;
    job_advance_ns(job, 2 + (int64_t)random_below(&tf->random, 6));
    struct tf_op op = {.line = tf->workers[random_below(&tf->random, (uint64_t)tf->worker_count)],
                       .node = node};
    struct text text = string_text(node);
    char name[256];
    int size = snprintf(name, sizeof name, "%.*s:%s", (int)(text.size < 200 ? text.size : 200),
                        (const char *)text.data, type);
    op.process = job_open(job, op.line, job_event_key(job, "ExecutorState::Process"));
    op.event = job_open(job, op.line,
                        plane_event_key(job->host, string_intern(name, (size_t)size)));
    return op;
}

static void tf_launch(struct tf_job *tf, const struct tf_op *op, const char *kernel)
{
    struct job *job = tf->job;
    uint64_t correlation_id = job->next_correlation_id++;
    int64_t start = job->now_ps;
    uint32_t handle = job_open(job, op->line, job_event_key(job, "cudaLaunchKernel"));
    struct stat_item stat = stat_uint64(job_stat_key(job, "correlation_id"), correlation_id);
    if (job_close(job, handle, &stat, 1))
        job_record_launch(job, (struct launch){.start_ps = start,
                                               .end_ps = job->now_ps,
                                               .correlation_id = correlation_id,
                                               .name = string_c(kernel)});
}

static void tf_op_end(struct tf_job *tf, struct tf_op *op, const char *kernel)
{
    struct job *job = tf->job;
    if (kernel != NULL)
        tf_launch(tf, op, kernel);
    job_close(job, op->event, NULL, 0);
    int64_t context = tf_context_id(tf, tf->step);
    struct stat_item stats[4] = {
        stat_int64(job_stat_key(job, "_ct"), TF_CONTEXT_TYPE),
        stat_int64(job_stat_key(job, "_c"), context),
        stat_int64(job_stat_key(job, "id"), INT64_C(0x0200000000000000) + tf->step + 10),
        stat_int64(job_stat_key(job, "iter_num"), 0),
    };
    job_close(job, op->process, stats, 4);
}

/* --odd values on allocations live at the peak (the input and the
 * forward activations), so that XProf's readings show in its table: an op
 * and a shape that land as numbers (read as empty strings), odd data type
 * numbers, a requested size as uint64 (read as 0). */
static const int64_t tf_odd_data_types[] = {131, 100, INT64_C(4294967297), 105, -3, 31};

static struct block tf_gpu_allocate(struct tf_job *tf, const struct tf_op *op, int64_t bytes,
                                    const char *region, int64_t data_type, uint32_t shape)
{
    struct block block = allocator_allocate(&tf->gpu, bytes);
    struct memory_annotation annotation = {
        .op = tf_maybe_hostile(tf, op->node),
        .region = string_c(region),
        .shape = tf_maybe_hostile(tf, shape),
        .data_type = data_type,
        .has_data_type = true,
        .tf_step_id = INT64_C(0x0200000000000000) + tf->step + 10,
        .has_tf_step_id = true,
    };
    if (tf->job->options.odd) {
        struct text node = string_text(op->node);
        if (node.size == 3 && memcmp(node.data, "123", 3) == 0)
            annotation.shape = string_c("nan");
        if (node.size > 5 && memcmp(node.data + node.size - 5, "/Relu", 5) == 0) {
            uint64_t which = tf->odd_relu++;
            annotation.data_type = tf_odd_data_types[which % 6];
            annotation.requested_as_uint64 = which % 6 == 1;
        }
    }
    job_memory_event(tf->job, op->line, &tf->gpu, &block, true, &annotation);
    return block;
}

/* A deallocation carries the annotation of the op that frees: its name,
 * no region and no shape, data type 0. */
static void tf_gpu_release(struct tf_job *tf, const struct tf_op *op, struct block *block)
{
    allocator_release(&tf->gpu, block);
    struct memory_annotation annotation = {
        .op = op->node,
        .has_data_type = true,
        .tf_step_id = INT64_C(0x0200000000000000) + tf->step + 10,
        .has_tf_step_id = true,
    };
    job_memory_event(tf->job, op->line, &tf->gpu, block, false, &annotation);
    *block = (struct block){0};
}

static void tf_cpu_event(struct tf_job *tf, uint32_t line, uint32_t op, struct block *block,
                         bool allocation, int64_t bytes)
{
    if (allocation)
        *block = allocator_allocate(&tf->cpu, bytes);
    else
        allocator_release(&tf->cpu, block);
    struct memory_annotation annotation = {
        .op = op,
        .region = allocation && op != 0 ? string_c("output") : 0,
        .shape = allocation ? tf_shape(tf->batch, tf->widths[0] / 4) : 0,
        .data_type = allocation ? 3 : 0,
        .has_data_type = true,
        .tf_step_id = 0,
        .has_tf_step_id = true,
    };
    job_memory_event(tf->job, line, &tf->cpu, block, allocation, &annotation);
}

static uint32_t tf_node(int layer, const char *suffix)
{
    return string_printf("model/dense_%d/%s", layer, suffix);
}

/* One step of the training function: the input, the forward and backward
 * passes and the Adam update, every op on some inter-op thread. */
static void tf_train_function(struct tf_job *tf)
{
    struct job *job = tf->job;
    int layers = tf->layers;
    int64_t batch = tf->batch;
    struct block host_batch = {0}, input = {0}, loss_grad = {0};
    static struct block activations[TF_MAX_LAYERS];

    /* The input pipeline fills a host batch, on its own thread. --odd: in
     * an event with _a=1 that consumes the step's context: it gets the
     * step's group, but async events are nobody's parent, so the
     * allocation stays in no step. */
    uint32_t async = 0;
    if (job->options.odd)
        async = job_open(job, tf->input_line, job_event_key(job, "InputPipelineAsync"));
    tf_cpu_event(tf, tf->input_line, 0, &host_batch, true, batch * tf->widths[0]);
    if (job->options.odd) {
        struct stat_item stats[3] = {
            stat_int64(job_stat_key(job, "_a"), 1),
            stat_int64(job_stat_key(job, "_ct"), TF_CONTEXT_TYPE),
            stat_int64(job_stat_key(job, "_c"), tf_context_id(tf, tf->step)),
        };
        job_close(job, async, stats, 3);
    }
    struct tf_op op = tf_op_begin(tf, string_c(job->options.odd ? "123" : "IteratorGetNext"),
                                  "IteratorGetNext");
    input = tf_gpu_allocate(tf, &op, batch * tf->widths[0] * 4, "output", 1,
                            tf_shape(batch, tf->widths[0]));
    tf_cpu_event(tf, op.line, op.node, &host_batch, false, 0);
    tf_op_end(tf, &op, "memcpy_htod");

    /* --ties no: one step keeps a dropout mask from its first layer to its
     * end, so its peak is higher than every other step's. */
    struct block dropout = {0};
    if (tf->step == tf->unique_peak_step) {
        op = tf_op_begin(tf, tf_node(0, "dropout/random_uniform"), "RandomUniform");
        dropout = tf_gpu_allocate(tf, &op, batch * tf->widths[1] * 4, "temp", 1,
                                  tf_shape(batch, tf->widths[1]));
        tf_op_end(tf, &op, "PhiloxRandom");
    }
    for (int l = 0; l < layers; l++) {
        int64_t width = tf->widths[l + 1];
        uint32_t shape = tf_shape(batch, width);
        op = tf_op_begin(tf, tf_node(l, "MatMul"), "MatMul");
        struct block matmul = tf_gpu_allocate(tf, &op, batch * width * 4, "output", 1, shape);
        tf_op_end(tf, &op, "volta_sgemm_128x64_nn");
        op = tf_op_begin(tf, tf_node(l, "BiasAdd"), "BiasAdd");
        struct block bias = tf_gpu_allocate(tf, &op, batch * width * 4, "output", 1, shape);
        tf_gpu_release(tf, &op, &matmul);
        tf_op_end(tf, &op, "BiasAddNCHWKernel");
        op = tf_op_begin(tf, tf_node(l, "Relu"), "Relu");
        activations[l] = tf_gpu_allocate(tf, &op, batch * width * 4, "output", 1, shape);
        tf_gpu_release(tf, &op, &bias);
        tf_op_end(tf, &op, "Relu_GPU_DT_FLOAT");
    }
    op = tf_op_begin(tf, string_c("gradient_tape/loss/Mean_grad"), "BroadcastTo");
    loss_grad = tf_gpu_allocate(tf, &op, batch * tf->widths[layers] * 4, "output", 1,
                                tf_shape(batch, tf->widths[layers]));
    tf_op_end(tf, &op, "BroadcastKernel");

    struct block upstream = loss_grad;
    for (int l = layers - 1; l >= 0; l--) {
        int64_t in_width = tf->widths[l], width = tf->widths[l + 1];
        op = tf_op_begin(tf, string_printf("gradient_tape/model/dense_%d/ReluGrad", l),
                         "ReluGrad");
        struct block relu_grad = tf_gpu_allocate(tf, &op, batch * width * 4, "output", 1,
                                                 tf_shape(batch, width));
        tf_gpu_release(tf, &op, &upstream);
        tf_op_end(tf, &op, "ReluGrad_GPU_DT_FLOAT");
        op = tf_op_begin(tf, string_printf("gradient_tape/model/dense_%d/MatMul_1", l),
                         "MatMul");
        struct block kernel_grad = tf_gpu_allocate(tf, &op, in_width * width * 4, "output", 1,
                                                   tf_shape(in_width, width));
        tf_op_end(tf, &op, "volta_sgemm_128x64_tn");
        op = tf_op_begin(tf, string_printf("gradient_tape/model/dense_%d/MatMul", l), "MatMul");
        if (l > 0)
            upstream = tf_gpu_allocate(tf, &op, batch * in_width * 4, "output", 1,
                                       tf_shape(batch, in_width));
        tf_gpu_release(tf, &op, &relu_grad);
        tf_gpu_release(tf, &op, &activations[l]);
        if (l == 0)
            tf_gpu_release(tf, &op, &input);
        tf_op_end(tf, &op, "volta_sgemm_128x64_nt");
        op = tf_op_begin(tf, string_printf("Adam/Adam/update_%d/ResourceApplyAdam", l),
                         "ResourceApplyAdam");
        struct block temp = tf_gpu_allocate(tf, &op, in_width * width * 4, "temp", 1,
                                            tf_shape(in_width, width));
        /* --odd: the temporary's free and the gradient's free at one time
         * (distinct addresses, one step): an order XProf's unstable sort
         * may pick either way without changing its output. */
        if (job->options.odd && l == layers - 1)
            job->same_time_next = true;
        tf_gpu_release(tf, &op, &temp);
        tf_gpu_release(tf, &op, &kernel_grad);
        tf_op_end(tf, &op, "ApplyAdamKernel");
    }
    if (dropout.size != 0) {
        op = tf_op_begin(tf, tf_node(0, "dropout/Mul_grad"), "Mul");
        tf_gpu_release(tf, &op, &dropout);
        tf_op_end(tf, &op, NULL);
    }
    if (job->options.while_loop) {
        op = tf_op_begin(tf, string_c("while"), "While");
        uint32_t condition = job_open(job, op.line, job_event_key(job, "WhileOp-EvalCond"));
        job_close(job, condition, NULL, 0);
        uint32_t body = job_open(job, op.line, job_event_key(job, "WhileOp-StartBody"));
        job_close(job, body, NULL, 0);
        tf_op_end(tf, &op, NULL);
    }
}

static void tf_step(struct tf_job *tf, int64_t step)
{
    struct job *job = tf->job;
    tf->step = step;
    tf->op_index = 0;
    job_advance_ns(job, 20);
    uint32_t marker = 0;
    if (job->options.markers)
        marker = job_open(job, tf->main_line, job_event_key(job, "train"));
    uint32_t function =
        job_open(job, tf->main_line, job_event_key(job, "__inference_train_function_1834"));
    uint32_t run = job_open(job, tf->main_line, job_event_key(job, "FunctionRun"));
    if (job->options.odd)
        odd_step_extras(job, tf->main_line, &tf->gpu);
    tf_train_function(tf);
    struct stat_item producer[2] = {
        stat_int64(job_stat_key(job, "_pt"), TF_CONTEXT_TYPE),
        job->options.odd ? stat_uint64(job_stat_key(job, "_p"), (uint64_t)tf_context_id(tf, step))
                         : stat_int64(job_stat_key(job, "_p"), tf_context_id(tf, step)),
    };
    job_close(job, run, producer, 2);
    job_close(job, function, NULL, 0);
    if (job->options.markers) {
        struct stat_item marker_stats[2] = {
            stat_int64(job_stat_key(job, "_r"), 1),
            stat_int64(job_stat_key(job, "step_num"), tf->step_num_base + step),
        };
        job_close(job, marker, marker_stats, 2);
    }
    job_flush(job);
}

/* The most GPU memory a step can hold: the weights and Adam's two slots,
 * every forward activation and the input, plus the transients of one op
 * at a time (two activations, a kernel gradient and Adam's temporary, at
 * the widest width), each rounded up to the allocator's 256 bytes. */
static int64_t tf_gpu_bound(const struct tf_job *tf)
{
    int64_t widest = 2048, bytes = 0;
    for (int l = 0; l < tf->layers; l++)
        bytes += 3 * (tf->widths[l] * tf->widths[l + 1] * 4 + tf->widths[l + 1] * 4);
    for (int l = 0; l <= tf->layers; l++)
        bytes += tf->batch * tf->widths[l] * 4 + 256;
    bytes += 4 * tf->batch * widest * 4 + 2 * widest * widest * 4 + 8 * 256;
    return bytes;
}

/* GPU_0_bfc's bytes_limit: a 16 GB V100's, as TensorFlow reports it
 * (what the demo data and the tests use), unless the model would not fit
 * (big --size or --memory-events: over a thousand layers). Then the
 * smallest common larger card, with the same 4% kept back, so that the
 * capture never holds more than its GPU, as a real one cannot. */
static int64_t tf_gpu_limit(const struct tf_job *tf)
{
    static const int64_t gigabytes[] = {24, 32, 40, 48, 80, 141};
    int64_t bound = tf_gpu_bound(tf);
    if (bound < INT64_C(16493512704))
        return INT64_C(16493512704);
    int64_t limit = 0;
    for (size_t i = 0; i < sizeof gigabytes / sizeof *gigabytes && limit <= bound; i++)
        limit = (gigabytes[i] << 30) / 100 * 96 / (1 << 20) * (1 << 20);
    while (limit <= bound)
        limit += INT64_C(8) << 30;
    return limit;
}

void style_tf_gpu_run(struct job *job)
{
    static struct tf_job tf;
    tf = (struct tf_job){.job = job, .random = mix_seed(job->options.seed, 11)};
    const struct options *options = &job->options;
    tf.steps = options->steps;
    tf.worker_count = options->threads;
    int64_t per_step = (options->memory_events > 0 ? options->memory_events : 1200) /
                       (options->steps + 1);
    tf.layers = (int)((per_step - 6) / 14);
    if (tf.layers < 1)
        tf.layers = 1;
    if (tf.layers > TF_MAX_LAYERS)
        tf.layers = TF_MAX_LAYERS;
    tf.batch = 64 << random_below(&tf.random, 3);
    static const int64_t widths[] = {256, 512, 1024, 2048};
    for (int l = 0; l <= tf.layers; l++)
        tf.widths[l] = widths[random_below(&tf.random, 4)];
    tf.step_num_base = 3 + (int64_t)random_below(&tf.random, 40);
    tf.unique_peak_step = options->ties ? -2 : (int64_t)random_below(&tf.random, (uint64_t)tf.steps);
    /* Ops per step: 2 + 3 per layer forward + 1 loss + 4 per layer backward. */
    tf.capture_start_op = 2 + 3 * tf.layers + 1 + 4 * (tf.layers / 2) + 2;
    tf.capture_end_op = 1 + (3 * tf.layers) / 2;

    int64_t timestamp_ns = 30000 + (int64_t)random_below(&tf.random, 20000);
    int64_t thread_id = 4000 + (int64_t)random_below(&tf.random, 4000);
    if (options->odd)
        odd_add_lines(job, timestamp_ns);
    tf.main_line = job_add_host_line(job, thread_id, string_c("python3"), timestamp_ns, false);
    for (int64_t k = 0; k < tf.worker_count; k++)
        tf.workers[k] = job_add_host_line(job, thread_id + 11 + k, string_c("tf_Compute"),
                                          timestamp_ns, false);
    /* --odd: the input thread's line starts a second later than its
     * events, which get negative offsets (and sort first by offset). */
    tf.input_line = job_add_host_line(job, thread_id + 7, string_c("tf_data_private_threadpool"),
                                      options->odd ? timestamp_ns + 1000000000 : timestamp_ns,
                                      false);

    uint32_t cpu_name = string_c("cpu");
    if (options->hostile)
        cpu_name = hostile_string(hostile_string(cpu_name, 0), 11);
    allocator_init(&tf.gpu, ALLOCATOR_BFC, string_c("GPU_0_bfc"), tf_gpu_limit(&tf),
                   UINT64_C(0x7f2a00000000), 256);
    /* --odd: host addresses from 2^63 land as uint64, which XProf reads
     * as address 0. */
    allocator_init(&tf.cpu, ALLOCATOR_CPU, cpu_name, INT64_C(1) << 40,
                   options->odd ? UINT64_C(0xffff800000000000) : UINT64_C(0x55d0c0000000), 64);
    int64_t weights = 0;
    for (int l = 0; l < tf.layers; l++)
        weights += tf.widths[l] * tf.widths[l + 1] * 4 + tf.widths[l + 1] * 4;
    allocator_preallocate(&tf.gpu, 3 * weights);  /* weights, Adam's m and v */
    allocator_preallocate(&tf.cpu, 4 << 20);

    job->now_ps = INT64_C(20000000000);
    job->capture_start_ps = INT64_MAX;
    job->capture_end_ps = INT64_MAX;
    for (int64_t step = -1; step <= tf.steps; step++)
        tf_step(&tf, step);
    job_flush(job);
    allocator_free(&tf.gpu);
    allocator_free(&tf.cpu);
}
