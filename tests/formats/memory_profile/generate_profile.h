/* generate_profile.h: what the modules of tests/generate_profile share.
 *
 * Owns the generator's types (options, tensors and events, the BFC-like
 * heap, the allocators' programs, the simulator, the output buffer, the
 * protobuf and JSON encoders' state, XProf's analysis and the writer) and
 * the prototypes of the functions one module calls in another. Only the
 * generator includes it: generate_profile.c (options, main),
 * generate_profile_model.c (random numbers, names, heap, programs),
 * generate_profile_simulate.c (the simulation), generate_profile_encode.c
 * (output buffer, protobuf wire, JSON), generate_profile_analysis.c (what
 * XProf computes) and generate_profile_write.c (writing allocators and the
 * profile-level fields). Nothing here may change the bytes written. */
#ifndef TESTS_GENERATE_PROFILE_H
#define TESTS_GENERATE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PROGRAM_NAME "generate_profile"
#define SAMPLE_LIMIT 1000 /* XProf's max_num_snapshots for the timeline */
#define MAX_ALLOCATORS 64
#define MAX_SNAPSHOTS (INT64_C(1) << 40)
#define INPUT_COMPONENTS 4 /* IteratorGetNext outputs per step: same metadata */
#define MIB (INT64_C(1) << 20)

enum output_format { FORMAT_PB, FORMAT_JSON };

enum json_style { JSON_XPROF, JSON_SNAKE, JSON_NUMBERS };

struct options {
    enum output_format format;
    int version;
    int64_t snapshots;
    int allocators;
    int64_t steps;
    uint64_t seed;
    int64_t hlo_modules;
    bool unsorted;
    enum json_style json_style;
    const char *output_path;
    bool stats;
};

enum option_id {
    OPTION_FORMAT = 256,
    OPTION_VERSION,
    OPTION_SNAPSHOTS,
    OPTION_ALLOCATORS,
    OPTION_STEPS,
    OPTION_SEED,
    OPTION_HLO,
    OPTION_UNSORTED,
    OPTION_JSON_STYLE,
    OPTION_STATS,
    OPTION_HELP,
};

enum tensor_kind {
    KIND_GLOBAL_STEP,
    KIND_EMBEDDING,
    KIND_KERNEL,
    KIND_BIAS,
    KIND_KERNEL_M,
    KIND_KERNEL_V,
    KIND_BIAS_M,
    KIND_BIAS_V,
    KIND_INIT_TEMP,
    KIND_INPUT,
    KIND_MATMUL,
    KIND_BIAS_ADD,
    KIND_ACTIVATION,
    KIND_FORWARD_TEMP,
    KIND_INPUT_GRAD,
    KIND_KERNEL_GRAD,
    KIND_BIAS_GRAD,
    KIND_BACKWARD_TEMP,
    KIND_OPTIMIZER_TEMP,
    KIND_UNMAPPED, /* XProf's special rows */
    KIND_STACK,
    KIND_COUNT
};

enum dtype_id { DTYPE_FLOAT, DTYPE_BFLOAT16, DTYPE_HALF, DTYPE_INT32, DTYPE_INVALID, DTYPE_ACT };

/* An op name is prefix + layer number + suffix (layered) or prefix alone;
 * temporaries pick one of up to three suffixes. */
struct kind_name {
    const char *prefix;
    const char *suffixes[3];
    const char *region;
    enum dtype_id dtype;
};

struct tensor_info {
    uint8_t kind;    /* enum tensor_kind */
    uint8_t dtype;   /* enum dtype_id, never DTYPE_ACT */
    uint8_t rank;    /* 0..3 */
    uint8_t variant; /* which suffix */
    uint8_t host;    /* host_names instead of device_names */
    int32_t layer;
    int64_t dims[3];
};

/* One snapshot as the simulation produces it; its strings are made from
 * `tensor` only when they are written. */
struct event {
    int64_t time_ps;
    int64_t stack_bytes;
    int64_t heap_bytes;
    int64_t free_bytes;
    double fragmentation;
    int64_t peak_bytes_in_use;
    int activity;
    int64_t requested_bytes;
    int64_t allocation_bytes;
    uint64_t address;
    int64_t step_id;
    struct tensor_info tensor;
};

enum { ACTIVITY_ALLOCATION = 1, ACTIVITY_DEALLOCATION = 2 };

#define OP_NAME_SIZE 160
#define SHAPE_SIZE 80

struct event_text {
    char op[OP_NAME_SIZE];
    size_t op_length;
    char shape[SHAPE_SIZE];
    size_t shape_length;
    const char *region;
    const char *dtype;
};

#define BIN_COUNT 21
#define MAX_INTERNAL_FRAGMENTATION (128 * MIB)

struct chunk {
    uint64_t address;
    int64_t size;
    int32_t prev, next;         /* neighbours in address order, -1 at the ends */
    int32_t bin_prev, bin_next; /* free chunks: links within their bin */
    int8_t bin;                 /* -1 while in use */
};

struct heap {
    struct chunk *chunks;
    int32_t chunk_count, chunk_capacity;
    int32_t spare; /* unused chunk slots, linked through `next` */
    int32_t bins[BIN_COUNT];
    uint32_t nonempty_bins;
    int32_t last; /* highest chunk in address order */
    uint64_t base;
    int granule_shift;
    bool always_split; /* a host allocator hands out exact sizes */
    int64_t region_bytes, region_limit, next_region_bytes;
    int64_t in_use_bytes;
};

struct allocator_config {
    char name[32];
    int index;
    bool host;
    int64_t snapshots;
    int64_t capacity;
    int64_t stack;
    uint64_t address_base;
    uint64_t seed;
    uint64_t step_seed; /* shared by all allocators: steps start together */
    enum dtype_id act_dtype;
};

struct program {
    int layers;
    int64_t hidden;
    int64_t vocabulary;
    int64_t batch;
    int64_t seq_choices[4];
    int64_t init_temps, forward_temps, backward_temps, optimizer_temps;
    int64_t init_mean_dt_ns, step_mean_dt_ns;
};

#define STEP_ACTIVE_NS INT64_C(100000000) /* 100 ms of allocations per step */
#define INIT_ACTIVE_NS INT64_C(30000000)

enum unit_kind { UNIT_INIT, UNIT_BEGIN, UNIT_FORWARD, UNIT_BACKWARD, UNIT_OPTIMIZER, UNIT_END };

struct live_tensor {
    int32_t chunk; /* -1 when not allocated */
    int64_t requested;
    struct tensor_info tensor;
};

struct fixed_event {
    struct live_tensor *slot;
    bool release;
    struct tensor_info tensor;
};

#define MAX_FIXED 8

struct simulator {
    const struct allocator_config *config;
    const struct program *program;
    uint64_t random;
    struct heap heap;
    int64_t emitted;
    int64_t time_ps;
    int64_t peak_heap;
    int64_t step;
    int64_t seq_len;
    enum unit_kind unit;
    int layer;
    struct fixed_event fixed[MAX_FIXED];
    int fixed_count, fixed_done;
    int64_t unit_temps, unit_total, unit_cursor, temp_cursor;
    struct live_tensor temps[2];
    int temp_first, temp_live;
    struct live_tensor *activations; /* 3 per layer */
    struct live_tensor *gradients;   /* 2 per layer */
    struct live_tensor *input_grads; /* 1 per layer */
    struct live_tensor inputs[INPUT_COMPONENTS];
    struct live_tensor discard; /* persistent tensors are never freed */
};

#define OUTPUT_BUFFER_SIZE (1 << 20)
#define OUTPUT_RESERVE_MAX 4096

struct output {
    FILE *file;
    char *buffer;
    size_t used;
};

/* A growable byte buffer for the bounded parts of a message. */
struct bytes {
    uint8_t *data;
    size_t size, capacity;
};

enum { WIRE_VARINT = 0, WIRE_FIXED64 = 1, WIRE_LENGTH = 2 };

struct memory_stats {
    int64_t stack_bytes, heap_bytes, free_bytes;
    double fragmentation;
    int64_t peak_bytes_in_use;
};

#define SNAPSHOT_BYTES_MAX 1024 /* an encoded snapshot always fits */

enum json_key {
    KEY_PER_ALLOCATOR, KEY_NUM_HOSTS, KEY_MEMORY_IDS, KEY_VERSION, KEY_HLO_MODULES,
    KEY_SNAPSHOTS, KEY_SUMMARY, KEY_ACTIVE, KEY_SPECIAL, KEY_SAMPLED,
    KEY_TIME, KEY_STATS, KEY_METADATA,
    KEY_STACK, KEY_HEAP, KEY_FREE, KEY_FRAGMENTATION, KEY_PEAK,
    KEY_ACTIVITY, KEY_REQUESTED, KEY_ALLOCATION, KEY_ADDRESS, KEY_OP, KEY_STEP, KEY_REGION, KEY_DTYPE, KEY_SHAPE,
    KEY_LIFETIME, KEY_PEAK_STATS, KEY_PEAK_TIME, KEY_CAPACITY,
    KEY_SNAPSHOT_INDEX, KEY_SPECIAL_INDEX, KEY_OCCURRENCES,
    KEY_NAME, KEY_START, KEY_END, KEY_ID, KEY_PLANE,
    KEY_COUNT
};

/* Where JSON goes and how it spells keys, int64 and enums. */
struct json {
    struct output *out;
    enum json_style style;
};

struct row {
    struct event event;
    int64_t index;   /* time-sorted snapshot index; for special rows unused */
    int special;     /* index into specials, or -1 */
    int64_t occurrences;
    struct event_text text;
};

struct sample {
    struct event event;
};

struct step_times {
    int64_t *first_ps, *last_ps; /* per step id 0..steps; -1 when unseen */
    int64_t steps;
    int64_t begin_ps, end_ps;    /* first and last snapshot */
};

struct analysis {
    int64_t count;
    struct event peak;
    int64_t peak_index;
    int64_t lifetime_peak;
    uint64_t snapshot_field_bytes; /* protobuf version 0: all field-1 entries */
    struct sample *sampled;
    size_t sampled_count;
    struct row *rows;
    size_t row_count;
    struct event specials[2];
    int special_count;
};

/* XProf's box filter: N/k windows of width w, then of width w+1; each keeps
 * its snapshot with the largest stack+heap (the first on ties). */
struct sampler {
    int64_t width, first_count, window, window_end;
    bool have_best;
    int64_t best_bytes;
};

/* Live allocations of the peak step, keyed by address (open addressing,
 * backward-shift deletion). */
struct live_entry {
    bool used;
    uint64_t address;
    int64_t index;
    struct event event;
};

struct live_map {
    struct live_entry *entries;
    size_t capacity, count;
};

struct writer {
    const struct options *options;
    struct output *out;
    struct json json;
};

struct hlo_module {
    char name[64];
    int64_t start_ps, end_ps, id;
};

extern const char *const dtype_names[];
extern const int64_t dtype_sizes[];
extern const struct kind_name device_names[KIND_COUNT];
extern const struct kind_name host_names[KIND_COUNT];
extern const char *const json_keys[KEY_COUNT][2];
extern const char *const activity_names[];

void usage_error(const char *what, const char *argument);
void fatal(const char *message);
void *checked_calloc(size_t count, size_t size);
void *checked_realloc(void *memory, size_t count, size_t size);
void print_help(void);
int64_t parse_integer(const char *text, const char *option, int64_t low, int64_t high);
uint64_t parse_seed(const char *text);
void apply_option(int option, char **argv, struct options *options);
void parse_options(int argc, char **argv, struct options *options);
uint64_t random_next(uint64_t *state);
uint64_t random_below(uint64_t *state, uint64_t bound);
uint64_t hash_mix(uint64_t a, uint64_t b);
size_t format_uint64(char *out, uint64_t value);
size_t format_int64(char *out, int64_t value);
size_t text_append(char *buffer, size_t length, size_t size, const char *text);
void tensor_text(const struct tensor_info *tensor, struct event_text *text);
int64_t tensor_bytes(const struct tensor_info *tensor);
void heap_init(struct heap *heap, uint64_t base, int64_t limit, bool host);
int heap_bin_for(const struct heap *heap, int64_t size);
int32_t heap_new_chunk(struct heap *heap);
void heap_bin_insert(struct heap *heap, int32_t index);
void heap_bin_remove(struct heap *heap, int32_t index);
int32_t heap_find(const struct heap *heap, int64_t size);
void heap_grow(struct heap *heap, int64_t size);
int32_t heap_allocate(struct heap *heap, int64_t requested);
void heap_merge_next(struct heap *heap, int32_t index);
void heap_release(struct heap *heap, int32_t index);
int64_t heap_largest_free(const struct heap *heap);
double heap_fragmentation(const struct heap *heap);
int64_t ceil_div(int64_t a, int64_t b);
int64_t layer_in(const struct program *program, int layer);
int64_t layer_out(const struct program *program, int layer);
int64_t program_weight_bytes(int layers, int64_t hidden, int64_t vocabulary);
void program_setup(struct program *program, const struct allocator_config *config, int64_t steps);
void allocators_setup(const struct options *options, struct allocator_config *configs);
bool pair_candidate(const struct allocator_config *config, int64_t first);
bool swapped_pair(const struct allocator_config *config, bool unsorted, int64_t first);
int64_t written_position(const struct allocator_config *config, bool unsorted, int64_t index);
void live_array_reset(struct live_tensor *slots, size_t count);
void simulator_start(struct simulator *sim, const struct allocator_config *config,
                            const struct program *program);
void simulator_free(struct simulator *sim);
struct tensor_info tensor_make(const struct simulator *sim, enum tensor_kind kind, int layer,
                                      int rank, int64_t d0, int64_t d1, int64_t d2);
void unit_add(struct simulator *sim, struct live_tensor *slot, bool release, struct tensor_info tensor);
void unit_add_release(struct simulator *sim, struct live_tensor *slot);
void unit_init(struct simulator *sim, int layer);
void unit_begin_step(struct simulator *sim);
void unit_forward(struct simulator *sim, int layer);
void unit_backward(struct simulator *sim, int layer);
void unit_optimizer(struct simulator *sim, int layer);
void unit_end_step(struct simulator *sim);
void simulator_next_unit(struct simulator *sim);
struct tensor_info temp_tensor(struct simulator *sim);
void event_allocate(struct simulator *sim, struct live_tensor *slot, const struct tensor_info *tensor,
                           struct event *event);
void event_release(struct simulator *sim, struct live_tensor *slot, struct event *event);
void event_temp(struct simulator *sim, struct event *event);
void simulator_advance_time(struct simulator *sim);
void simulator_next(struct simulator *sim, struct event *event);
void output_flush(struct output *out);
char *output_reserve(struct output *out, size_t bytes);
void output_bytes(struct output *out, const void *bytes, size_t size);
uint8_t *bytes_reserve(struct bytes *bytes, size_t more);
uint8_t *put_varint(uint8_t *p, uint64_t value);
size_t varint_size(uint64_t value);
uint8_t *put_tag(uint8_t *p, unsigned field, unsigned wire);
uint8_t *put_int64(uint8_t *p, unsigned field, int64_t value);
uint8_t *put_uint64(uint8_t *p, unsigned field, uint64_t value);
uint8_t *put_double(uint8_t *p, unsigned field, double value);
uint8_t *put_string(uint8_t *p, unsigned field, const char *text, size_t length);
uint8_t *put_message(uint8_t *p, unsigned field, const uint8_t *body, size_t length);
struct memory_stats event_stats(const struct event *event);
size_t encode_stats(uint8_t *out, const struct memory_stats *stats);
size_t encode_metadata(uint8_t *out, const struct event *event, const struct event_text *text);
size_t encode_snapshot(uint8_t *out, const struct event *event);
void bytes_put_snapshot(struct bytes *bytes, unsigned field, const struct event *event);
size_t snapshot_field_size(const struct event *event);
void json_raw(struct json *json, const char *text, size_t length);
void json_char(struct json *json, char c);
void json_key(struct json *json, enum json_key key, bool first);
void json_int64(struct json *json, int64_t value);
void json_uint64(struct json *json, uint64_t value);
void json_int32(struct json *json, int32_t value);
void json_double(struct json *json, double value);
void json_string(struct json *json, const char *text, size_t length);
void json_enum(struct json *json, int activity);
void json_stats(struct json *json, const struct memory_stats *stats);
void json_metadata(struct json *json, const struct event *event);
void json_snapshot(struct json *json, const struct event *event);
void sampler_start(struct sampler *sampler, int64_t count);
void sampler_add(struct sampler *sampler, struct analysis *analysis, const struct event *event,
                        int64_t index);
void step_times_note(struct step_times *times, const struct event *event, int64_t index);
void analysis_scan(struct analysis *analysis, struct simulator *sim, const struct options *options,
                          struct step_times *times);
size_t live_map_slot(const struct live_map *map, uint64_t address);
void live_map_grow(struct live_map *map);
void live_map_put(struct live_map *map, uint64_t address, int64_t index, const struct event *event);
bool live_map_remove(struct live_map *map, uint64_t address);
int row_compare(const void *a, const void *b);
bool row_same(const struct row *a, const struct row *b);
struct event special_event(enum tensor_kind kind, int64_t bytes, int64_t step, bool host);
void rows_sort_and_merge(struct analysis *analysis);
void analysis_walk(struct analysis *analysis, struct simulator *sim);
void analysis_free(struct analysis *analysis);
int64_t row_snapshot_index(const struct writer *writer, const struct allocator_config *config,
                                  const struct analysis *analysis, size_t row_number);
size_t sample_written(const struct writer *writer, const struct allocator_config *config,
                             const struct analysis *analysis, size_t position);
struct memory_stats summary_peak_stats(const struct analysis *analysis);
void encode_tail(const struct writer *writer, const struct allocator_config *config,
                        const struct analysis *analysis, struct bytes *tail);
uint64_t write_timeline_snapshot(struct writer *writer, const struct event *event, bool first);
uint64_t stream_timeline(struct writer *writer, struct simulator *sim, const struct analysis *analysis);
void write_allocator_pb(struct writer *writer, struct simulator *sim, const struct program *program,
                               const struct analysis *analysis);
void json_summary(struct json *json, const struct analysis *analysis);
void json_active_and_special(struct writer *writer, const struct allocator_config *config,
                                    const struct analysis *analysis);
void write_allocator_json(struct writer *writer, struct simulator *sim, const struct program *program,
                                 const struct analysis *analysis, bool first);
void hlo_module_make(const struct options *options, const struct step_times *times, int64_t index,
                            struct hlo_module *module);
int string_compare(const void *a, const void *b);
void write_hlo_module_pb(struct writer *writer, const struct hlo_module *module);
void write_hlo_module_json(struct writer *writer, const struct hlo_module *module, bool first);
void write_profile_header_fields(struct writer *writer, const char *const *ids, int count);
void write_profile_fields(struct writer *writer, const struct allocator_config *configs,
                                 const struct step_times *times);
void print_stats(const struct allocator_config *config, const struct program *program,
                        const struct analysis *analysis);
void write_allocator(struct writer *writer, const struct allocator_config *config,
                            struct step_times *times);

#endif
