/* planes: see planes.h. */
#include "config.h"

#include "tests/formats/xspace/xspace_gen/planes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a device line generator needs: which launches, how many extra
 * events each gets, which part of them goes on this line. */
struct device_lines {
    struct job *job;
    struct xspace_writer *writer;
    int64_t noise;
    int32_t device;       /* TPU: the plane's device */
    int64_t timestamp_ns; /* of every line of the plane */
    uint32_t compute_lines;
    uint32_t line_count; /* stream lines: compute lines, then copy lines */
};

static int64_t extra_events(const struct device_lines *lines, uint64_t launch, uint64_t count)
{
    if (count == 0)
        return 0;
    int64_t base = lines->noise / (int64_t)count;
    return base + ((int64_t)launch < lines->noise % (int64_t)count ? 1 : 0);
}

static const char *const kernel_details[] = {
    "regs:128 static_shared:0 dynamic_shared:16384 grid:256,1,1 block:128,1,1 occ_pct:25",
    "regs:16 static_shared:0 dynamic_shared:0 grid:1024,1,1 block:128,1,1 occ_pct:100",
    "regs:175 static_shared:0 dynamic_shared:131104 grid:128,1,1 block:128,1,1 occ_pct:6.25",
    "regs:34 static_shared:0 dynamic_shared:0 grid:128,1,1 block:256,1,1 occ_pct:75",
};

static const char *const fusion_names[] = {
    "loop_reduce_fusion", "input_reduce_fusion_2", "loop_subtract_fusion", "loop_add_fusion",
    "loop_multiply_fusion", "cutlass_gemm_128x64", "loop_convert_fusion", "memcpy32_post",
};

/* A GPU kernel: correlation_id ties it to its launch on the host. */
static void gpu_kernel(struct device_lines *lines, struct plane *plane, uint32_t index,
                       struct sink *sink, int64_t start_ps, int64_t duration_ps,
                       uint32_t name, uint64_t correlation_id, uint64_t which)
{
    struct stat_item stats[3] = {
        stat_uint64(plane_stat_key(plane, string_c("correlation_id")), correlation_id),
        stat_ref(plane_stat_key(plane, string_c("kernel_details")),
                 plane_stat_key(plane, string_c(kernel_details[which % 4]))),
        stat_double(plane_stat_key(plane, string_c("theoretical_occupancy_pct")),
                    (double)(25 << (which % 3))),
    };
    struct xevent event = {
        .metadata_key = plane_event_key(plane, name),
        .offset_ps = start_ps - lines->timestamp_ns * 1000,
        .duration_ps = duration_ps,
    };
    sink_event(lines->writer, sink, plane, index, &event, stats, 3);
}

/* Compute lines: each launch's kernels (TF: the launched kernel, then the
 * extra ones; JAX: a CUDA graph's fusions), spread over the compute
 * streams. Copy lines: TF's host-to-device copies; JAX's loss coming back
 * after each train step, on its four D2H streams in turn. Each line keeps
 * its own clock so its events never overlap. */
static void gpu_line(void *context, struct plane *plane, uint32_t index, struct sink *sink)
{
    struct device_lines *lines = context;
    const struct job *job = lines->job;
    bool jax = job->options.style == STYLE_JAX_GPU;
    uint32_t copy_lines = lines->line_count - lines->compute_lines;
    int64_t clock = 0;
    for (uint64_t i = 0; i < job->launch_count; i++) {
        const struct launch *launch = &job->launches[i];
        struct text name = string_text(launch->name);
        bool copy = name.size >= 6 && memcmp(name.data, "memcpy", 6) == 0;
        if (index >= lines->compute_lines) {
            bool fetch = jax && i % 2 == 1;
            if (!(copy || fetch) || (fetch && (i / 2) % copy_lines != index - lines->compute_lines))
                continue;
            int64_t start = launch->end_ps + 3000000 > clock ? launch->end_ps + 3000000 : clock;
            gpu_kernel(lines, plane, index, sink, start, 1500000,
                       string_c(jax ? "MemcpyD2H" : "MemcpyH2D"), launch->correlation_id, i);
            clock = start + 1500000 + 1000;
            continue;
        }
        int64_t kernels = (copy ? 0 : 1) + extra_events(lines, i, job->launch_count);
        for (int64_t k = 0; k < kernels; k++) {
            if ((uint64_t)(k + (int64_t)i) % lines->compute_lines != index)
                continue;
            bool launched = k == 0 && !copy && !jax;
            int64_t duration = launched ? 20000000 : 800000;
            int64_t start = launch->end_ps + 5000000 > clock ? launch->end_ps + 5000000 : clock;
            uint32_t kernel = launched ? launch->name : string_c(fusion_names[k % 8]);
            gpu_kernel(lines, plane, index, sink, start, duration, kernel,
                       launch->correlation_id, (uint64_t)k);
            clock = start + duration + 1000;
        }
    }
}

/* --odd: an XLA Modules line on a GPU plane, which XProf's memory profile
 * ignores (it takes HLO modules from TPU planes only). */
static void gpu_module_line(void *context, struct plane *plane, uint32_t index,
                            struct sink *sink)
{
    struct device_lines *lines = context;
    const struct job *job = lines->job;
    for (uint64_t i = 0; i < job->launch_count && i < 8; i++) {
        struct xevent event = {
            .metadata_key = plane_event_key(plane, string_c("jit_gpu_module(42)")),
            .offset_ps = job->launches[i].start_ps - lines->timestamp_ns * 1000,
            .duration_ps = 1000000,
        };
        sink_event(lines->writer, sink, plane, index, &event, NULL, 0);
    }
}

static struct plane *gpu_plane(struct job *job, struct device_lines *lines)
{
    struct plane *plane = plane_new("/device:GPU:0", job->first_key, mix_seed(job->options.seed, 21));
    static const char *const jax_streams[] = {"Stream #14(Compute)", "Stream #16(MemcpyD2H)",
                                              "Stream #19(MemcpyD2H)", "Stream #18(MemcpyD2H)",
                                              "Stream #17(MemcpyD2H)"};
    static const char *const tf_streams[] = {"Stream #14(Compute)", "Stream #15(Compute)",
                                             "Stream #16(MemcpyH2D)"};
    bool jax = job->options.style == STYLE_JAX_GPU;
    lines->compute_lines = jax ? 1 : 2;
    uint32_t count = jax ? 5 : 3;
    lines->line_count = count;
    for (uint32_t i = 0; i < count; i++) {
        const char *name = jax ? jax_streams[i] : tf_streams[i];
        int64_t id = 0;
        sscanf(name, "Stream #%lld", (long long *)&id);
        plane_add_line(plane, id, string_c(name), lines->timestamp_ns, false, gpu_line, lines);
    }
    if (job->options.odd)
        plane_add_line(plane, 1000, string_c("XLA Modules"), lines->timestamp_ns, false,
                       gpu_module_line, lines);
    plane_add_stat(plane, stat_str(plane_stat_key(plane, string_c("device_vendor")),
                                   string_c("Nvidia")));
    plane_add_stat(plane, stat_str(plane_stat_key(plane, string_c("gpu_device_name")),
                                   string_c("NVIDIA H100 80GB HBM3")));
    plane_add_stat(plane, stat_int64(plane_stat_key(plane, string_c("core_count")), 132));
    plane_add_stat(plane, stat_uint64(plane_stat_key(plane, string_c("memory_size")),
                                      UINT64_C(85017493504)));
    return plane;
}

/* ---- TPU planes: Steps, XLA Modules, XLA Ops ---- */

static const char *const tpu_op_names[] = {"fusion.1", "convolution.7", "all-reduce.3",
                                           "fusion.22", "copy.4", "reduce.9"};

static void tpu_line(void *context, struct plane *plane, uint32_t index, struct sink *sink)
{
    struct device_lines *lines = context;
    const struct job *job = lines->job;
    uint64_t executions = 0;
    for (uint64_t i = 0; i < job->launch_count; i++)
        executions += job->launches[i].device == lines->device;
    uint64_t execution = 0;
    for (uint64_t i = 0; i < job->launch_count; i++) {
        const struct launch *launch = &job->launches[i];
        if (launch->device != lines->device)
            continue;
        /* The device runs the program while the host's event lasts. */
        int64_t start = launch->start_ps, end = launch->end_ps;
        int64_t margin = (end - start) / 8;
        struct xevent event = {.offset_ps = start - lines->timestamp_ns * 1000,
                               .duration_ps = end - start};
        if (index == 0) { /* Steps */
            event.metadata_key = plane_event_key(
                plane, string_printf("%lld", (long long)launch->step_num));
            sink_event(lines->writer, sink, plane, index, &event, NULL, 0);
        } else if (index == 1) { /* XLA Modules: inside the step */
            event.metadata_key = plane_event_key(plane, launch->name);
            event.offset_ps += margin;
            event.duration_ps -= 2 * margin;
            struct stat_item stat = stat_uint64(plane_stat_key(plane, string_c("program_id")),
                                                1234567);
            sink_event(lines->writer, sink, plane, index, &event, &stat, 1);
        } else { /* XLA Ops: one, plus the extra ones, inside the module */
            int64_t ops = 1 + extra_events(lines, execution, executions);
            int64_t slot = (event.duration_ps - 2 * margin) / ops;
            for (int64_t k = 0; k < ops; k++) {
                struct xevent op = {
                    .metadata_key = plane_event_key(plane, string_c(tpu_op_names[k % 6])),
                    .offset_ps = event.offset_ps + margin + k * slot,
                    .duration_ps = slot > 1 ? slot - 1 : 1,
                };
                sink_event(lines->writer, sink, plane, index, &op, NULL, 0);
            }
        }
        execution++;
    }
}

static struct plane *tpu_plane(struct job *job, struct device_lines *lines, int32_t device)
{
    struct plane *plane = plane_new_named(string_printf("/device:TPU:%d", device), job->first_key,
                                          mix_seed(job->options.seed, 40 + (uint64_t)device));
    plane->id = device;
    static const char *const names[] = {"Steps", "XLA Modules", "XLA Ops"};
    for (uint32_t i = 0; i < 3; i++)
        plane_add_line(plane, (int64_t)i + 1, string_c(names[i]), lines->timestamp_ns, false,
                       tpu_line, lines);
    plane_add_stat(plane, stat_str(plane_stat_key(plane, string_c("device_type_string")),
                                   string_c("TPU v4")));
    return plane;
}

/* ---- host-side planes ---- */

/* HLO protos: opaque bytes here, big like the real ones. */
static struct plane *metadata_plane(struct job *job)
{
    struct plane *plane = plane_new("/host:metadata", job->first_key, mix_seed(job->options.seed, 22));
    uint64_t random = mix_seed(job->options.seed, 23);
    static const char *const modules[] = {"jit__step", "jit_make_batch", "jit_true_divide",
                                          "jit__threefry_split", "jit_broadcast_in_dim"};
    /* On a TPU host, the first module is the one the TPU planes run. */
    bool tpu = job->options.style == STYLE_TPU && job->launch_count > 0;
    uint64_t hlo = plane_stat_key(plane, string_c("Hlo Proto"));
    uint64_t program = plane_stat_key(plane, string_c("program_id"));
    struct bytes proto = {0};
    for (int i = 0; i < 5; i++) {
        uint64_t program_id = 100 + random_below(&random, 9900);
        uint32_t name = tpu && i == 0 ? job->launches[0].name
                                      : string_printf("%s(%llu)", modules[i],
                                                      (unsigned long long)program_id);
        uint64_t key = plane_event_key(plane, name);
        plane_event_entry(plane, key)->has_display_name = true;
        proto.size = 0;
        size_t size = i == 0 ? 42599 : 400 + random_below(&random, 20000);
        for (size_t b = 0; b < size; b++) {
            uint8_t byte = (uint8_t)random_next(&random);
            bytes_put(&proto, &byte, 1);
        }
        plane_add_metadata_stat(plane, key, stat_bytes(hlo, string_intern(proto.data, proto.size)));
        plane_add_metadata_stat(plane, key, stat_uint64(program, program_id));
    }
    bytes_free(&proto);
    plane_add_stat(plane, stat_str(plane_stat_key(plane, string_c("jax_version")),
                                   string_c("0.11.2")));
    plane_add_stat(plane, stat_int64(plane_stat_key(plane, string_c("process_id")), 549));
    return plane;
}

/* Stats whose metadata ids (about 2^48) are not in the map, a map entry
 * without a name: the real file's scope-range plane. */
static struct plane *scope_range_plane(struct job *job)
{
    struct plane *plane = plane_new("/host:__ScopeRangeCallStack__", job->first_key,
                                    mix_seed(job->options.seed, 24));
    uint64_t base = UINT64_C(281474976710657);
    plane_stat_key_nameless(plane, base + 33);
    for (uint64_t i = 1; i <= 16; i++)
        plane_add_stat(plane, stat_int64(base + i, (int64_t)(base + (i - 1) / 4 * 4)));
    plane_add_stat(plane, stat_int64(plane_stat_key(plane, string_c("process_id")), 549));
    return plane;
}

static struct plane *task_environment_plane(struct job *job)
{
    struct plane *plane = plane_new("Task Environment", job->first_key,
                                    mix_seed(job->options.seed, 25));
    uint64_t start = UINT64_C(1795415959486811909) + mix_seed(job->options.seed, 26) % 1000000000;
    plane_add_stat(plane, stat_uint64(plane_stat_key(plane, string_c("profile_start_time")), start));
    plane_add_stat(plane, stat_uint64(plane_stat_key(plane, string_c("profile_stop_time")),
                                      start + (uint64_t)(job->now_ps / 1000)));
    static const uint8_t options[10] = {0x08, 0x01, 0x10, 0x02, 0x18, 0x01, 0x20, 0x01, 0x28, 0x01};
    plane_add_stat(plane, stat_bytes(plane_stat_key(plane, string_c("profile_options")),
                                     string_intern(options, sizeof options)));
    return plane;
}

/* --odd: a second /host:CPU plane. XProf reads only the first; these
 * events would change the counts of GPU_0_bfc (or add an allocator) if a
 * reader took them. */
static struct plane *second_host_plane(struct job *job, struct xspace_writer *writer)
{
    struct plane *plane = plane_new("/host:CPU", job->first_key, mix_seed(job->options.seed, 27));
    uint32_t line = plane_add_line(plane, 1, string_c("python3"), 1000, false, NULL, NULL);
    uint64_t name = plane_stat_key(plane, string_c("allocator_name"));
    uint64_t heap = plane_stat_key(plane, string_c("bytes_allocated"));
    uint64_t size = plane_stat_key(plane, string_c("allocation_bytes"));
    static const char *const allocators[] = {"GPU_0_bfc", "only_in_the_second_host_plane"};
    for (int i = 0; i < 4; i++) {
        struct stat_item stats[3] = {
            stat_ref(name, plane_stat_key(plane, string_c(allocators[i % 2]))),
            stat_int64(heap, INT64_C(1) << 40),
            stat_int64(size, INT64_C(1) << 40),
        };
        struct xevent event = {.metadata_key = plane_event_key(plane, string_c("MemoryAllocation")),
                               .offset_ps = 5000000 * (i + 1)};
        line_add_event(writer, plane, line, &event, stats, 3);
    }
    return plane;
}

/* ---- order ---- */

static void write_one(struct xspace_writer *writer, struct plane *plane)
{
    xspace_write_plane(writer, plane);
    plane_free(plane);
}

void planes_write(struct job *job, struct xspace_writer *writer, int64_t noise)
{
    enum style style = job->options.style;
    struct device_lines gpu_lines = {
        .job = job, .writer = writer, .noise = noise, .timestamp_ns = 19199693};
    if (style == STYLE_JAX_GPU) {
        write_one(writer, metadata_plane(job));
        write_one(writer, scope_range_plane(job));
    }
    if (style == STYLE_TF_GPU || style == STYLE_JAX_GPU)
        write_one(writer, gpu_plane(job, &gpu_lines));
    if (style == STYLE_TPU) {
        struct device_lines *lines = xcalloc((size_t)job->options.devices, sizeof *lines);
        for (int32_t d = 0; d < job->options.devices; d++) {
            lines[d] = (struct device_lines){
                .job = job, .writer = writer, .noise = noise, .device = d, .timestamp_ns = 1000};
            write_one(writer, tpu_plane(job, &lines[d], d));
        }
        free(lines);
        write_one(writer, metadata_plane(job));
    }
    xspace_write_plane(writer, job->host);
    if (job->options.odd)
        write_one(writer, second_host_plane(job, writer));
    write_one(writer, task_environment_plane(job));
    xspace_write_hostname(writer, string_c(job->options.host));
}

uint64_t planes_measure(struct job *job, int64_t noise)
{
    struct xspace_writer counter;
    xspace_writer_open(&counter, NULL, NULL);
    planes_write(job, &counter, noise);
    xspace_writer_close(&counter);
    return counter.sink.count;
}

int64_t planes_noise_for(struct job *job, int64_t target_bytes, int64_t noise_bytes)
{
    /* Extra events grow the file about linearly; a second measurement
     * near the answer corrects for the slope changing with the count
     * (shorter durations, longer varints). */
    const int64_t probe = 10000;
    int64_t without = (int64_t)planes_measure(job, 0);
    int64_t wanted = target_bytes > 0 ? target_bytes - without : noise_bytes;
    if (wanted <= 0)
        return 0;
    double per_event = (double)((int64_t)planes_measure(job, probe) - without) / (double)probe;
    if (per_event <= 0)
        return 0;
    int64_t guess = (int64_t)((double)wanted / per_event);
    if (guess <= probe)
        return guess;
    per_event = (double)((int64_t)planes_measure(job, guess) - without) / (double)guess;
    return per_event > 0 ? (int64_t)((double)wanted / per_event) : 0;
}
