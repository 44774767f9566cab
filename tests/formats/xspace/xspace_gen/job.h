/* job: the simulated training job behind a generated XSpace
 * (tests/generate_xspace).
 *
 * Owns the options, the clock and the capture window, the host plane's
 * events as the simulation produces them (opened, closed, instants; sorted
 * per line by start, longer first, and encoded step by step), the
 * allocators (a BFC-like heap each) and the stats of a memory event in the
 * layout each writer uses (xspace.md section 4). The styles (tf-gpu,
 * jax-gpu, tpu) drive it; the device planes read what it records about
 * kernel launches and TPU executions. It knows nothing of what XProf
 * computes: that is the oracle's. */
#ifndef XSPACE_GEN_JOB_H
#define XSPACE_GEN_JOB_H

#include <stdbool.h>
#include <stdint.h>

#include "tests/formats/xspace/xspace_gen/strings.h"
#include "tests/formats/xspace/xspace_gen/xspace_writer.h"

enum style { STYLE_TF_GPU, STYLE_JAX_GPU, STYLE_TPU };
enum string_mode { STRINGS_REF, STRINGS_STR };

struct options {
    enum style style;
    int64_t steps;
    int64_t memory_events; /* 0: the style's default */
    bool markers;
    int64_t threads;
    int64_t devices;
    int64_t noise_bytes; /* -1: none asked for */
    int64_t size_target; /* 0: none */
    bool hostile;
    bool odd;
    bool while_loop;
    bool big_ids;
    bool ties;
    enum string_mode strings;
    uint64_t seed;
    const char *output_path;
    const char *expect_path;
    const char *run_layout;
    const char *host;
    const char *run;
};

enum allocator_kind {
    ALLOCATOR_BFC,      /* GPU_N_bfc: every key */
    ALLOCATOR_CPU,      /* TF's cpu: no bytes_available, no fragmentation */
    ALLOCATOR_HOST_BFC, /* xla_gpu_host_bfc: fragmentation written as int64 0 */
    ALLOCATOR_TPU,      /* memory id from index_on_host, tiny fragmentation */
};

struct free_block {
    uint64_t address;
    int64_t size;
};

struct allocator {
    enum allocator_kind kind;
    uint32_t name;        /* allocator_name (string id); TPU: unused */
    int64_t device_index; /* TPU: index_on_host */
    int64_t limit;        /* capacity: stack + heap + free */
    int64_t reserved;     /* bytes_reserved: XProf's stack */
    int64_t in_use;       /* bytes_allocated: XProf's heap */
    int64_t peak;         /* peak_bytes_in_use: the running max of in_use */
    int64_t rounding;
    uint64_t next_address;
    struct free_block *free_blocks;
    uint32_t free_count, free_capacity;
    int64_t free_list_bytes;
};

struct block {
    uint64_t address;
    int64_t requested;
    int64_t size;
};

/* What one memory event says besides the allocator's state. Strings are
 * string ids, 0 = absent (the writer drops empty values). */
struct memory_annotation {
    uint32_t op;
    uint32_t region;
    uint32_t shape;
    int64_t data_type;
    bool has_data_type;
    int64_t tf_step_id; /* the `id` stat; written when has_tf_step_id */
    bool has_tf_step_id;
    bool requested_as_uint64; /* --odd: XProf reads the field as 0 */
};

/* A kernel launch on the host (GPU styles) or a program execution (TPU):
 * what the device planes draw, recorded only when the host event was
 * captured. */
struct launch {
    int64_t start_ps;
    int64_t end_ps;
    uint64_t correlation_id;
    uint32_t name;    /* kernel or module name */
    int32_t device;   /* TPU device index; 0 for GPU */
    int64_t step_num; /* TPU: the Steps line's label */
};

struct pending_event {
    int64_t start_ps;
    int64_t end_ps;
    uint64_t sequence;
    uint64_t metadata_key;
    int64_t num_occurrences; /* > 0: written as num_occurrences */
    uint32_t line;
    uint32_t first_stat;
    uint32_t stat_count;
    bool memory; /* a memory event, for the byte count */
};

struct open_event {
    int64_t start_ps;
    uint32_t line;
    uint64_t metadata_key;
    bool in_use;
};

#define MAX_EVENT_STATS 24

struct job {
    struct options options;
    uint64_t random;
    struct xspace_writer *writer;
    struct plane *host;
    uint64_t first_key;
    int64_t now_ps;
    int64_t capture_start_ps;
    int64_t capture_end_ps;
    /* host events waiting for the next flush */
    struct pending_event *pending;
    uint64_t pending_count, pending_capacity, sequence;
    struct stat_item *pending_stats;
    uint64_t pending_stat_count, pending_stat_capacity;
    int64_t *line_last_start; /* per host line: the last encoded start */
    uint32_t line_last_capacity;
    struct open_event *open;
    uint32_t open_count, open_capacity;
    /* what the device planes need */
    struct launch *launches;
    uint64_t launch_count, launch_capacity;
    uint64_t next_correlation_id;
    /* counts, for the summary on standard error */
    uint64_t memory_events;
    uint64_t memory_event_bytes; /* their bytes in the file */
    bool next_is_memory;         /* the next event pushed is a memory event */
    uint64_t odd_counter; /* memory events seen by odd_memory_event */
    bool same_time_next;  /* the next two instants share one time (--odd) */
    uint32_t aggregate_line; /* --odd: the "(aggregated)" line */
    bool aggregated_done;
};

uint64_t random_next(uint64_t *state);
uint64_t random_below(uint64_t *state, uint64_t bound);
uint64_t mix_seed(uint64_t seed, uint64_t salt);

void job_init(struct job *job, const struct options *options, struct xspace_writer *writer);
void job_free(struct job *job);

/* Host lines: their timestamp_ns; events' offsets are relative to it. */
uint32_t job_add_host_line(struct job *job, int64_t id, uint32_t name, int64_t timestamp_ns,
                           bool display_name);

void job_advance_ns(struct job *job, int64_t ns);
/* Starts an event with a duration at the current time (and moves on). */
uint32_t job_open(struct job *job, uint32_t line, uint64_t metadata_key);
/* Ends it now; kept (true) when it lies inside the capture window. */
bool job_close(struct job *job, uint32_t handle, const struct stat_item *stats,
               uint32_t stat_count);
/* An instant event now; the clock moves on (tens of ns) so that no two
 * events of the simulation share a start. Returns whether it was
 * captured. */
bool job_instant(struct job *job, uint32_t line, uint64_t metadata_key,
                 const struct stat_item *stats, uint32_t stat_count);
/* An event written with num_occurrences instead of offset_ps (--odd). */
void job_aggregate(struct job *job, uint32_t line, uint64_t metadata_key, int64_t duration_ns,
                   int64_t occurrences, const struct stat_item *stats, uint32_t stat_count);
bool job_capturing(const struct job *job);
/* Sorts the waiting events of each line and encodes them. */
void job_flush(struct job *job);
void job_record_launch(struct job *job, struct launch launch);

/* Event and stat keys of the host plane. */
uint64_t job_event_key(struct job *job, const char *name);
uint64_t job_stat_key(struct job *job, const char *name);
/* A string stat as the options want it: ref (TSL) or str (older TF); in
 * --odd mode either, at random. */
struct stat_item job_string_stat(struct job *job, uint64_t key, uint32_t string);

/* Allocators. */
void allocator_init(struct allocator *allocator, enum allocator_kind kind, uint32_t name,
                    int64_t limit, uint64_t base_address, int64_t rounding);
void allocator_free(struct allocator *allocator);
struct block allocator_allocate(struct allocator *allocator, int64_t requested);
void allocator_release(struct allocator *allocator, const struct block *block);
/* Allocates without an event: memory in use before the capture. */
void allocator_preallocate(struct allocator *allocator, int64_t bytes);

/* The stats of a memory event, in the order its writer uses, values typed
 * as the host tracer types them; returns the count. */
uint32_t memory_event_stats(struct job *job, const struct allocator *allocator,
                            const struct block *block, bool allocation,
                            const struct memory_annotation *annotation, struct stat_item *stats);
/* Emits a memory event now on `line` (plus --odd mutations); returns
 * whether it was captured. */
bool job_memory_event(struct job *job, uint32_t line, const struct allocator *allocator,
                      const struct block *block, bool allocation,
                      const struct memory_annotation *annotation);

/* --odd: odd but valid variants of a memory event's stats and metadata
 * (xspace.md section 8), decided by the event's position (odd.c). */
void odd_memory_event(struct job *job, bool allocation, uint64_t *metadata_key,
                      struct stat_item *stats, uint32_t *count);

/* --hostile: a hostile variant of `name` (escapes, bidi controls, invalid
 * UTF-8, NUL, very long), picked by `which`. */
uint32_t hostile_string(uint32_t name, uint64_t which);

#endif
