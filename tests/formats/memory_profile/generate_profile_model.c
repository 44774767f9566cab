/* generate_profile_model: what the simulated training program is made of
 * (tests/generate_profile).
 *
 * Random numbers (splitmix64, so the output never depends on libc), the
 * names, dtypes and shapes of tensors, the text of an event's metadata, a
 * BFC-like heap (best fit from size bins, split, coalesce, grow) and the
 * allocators with the program each one runs. */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/formats/memory_profile/generate_profile.h"
#include "tests/splitmix64.h"

/* ---- random numbers: splitmix64, so the output never depends on libc ---- */

uint64_t random_next(uint64_t *state)
{
    return splitmix64_next(state);
}

uint64_t random_below(uint64_t *state, uint64_t bound)
{
    return bound == 0 ? 0 : random_next(state) % bound;
}

uint64_t hash_mix(uint64_t a, uint64_t b)
{
    uint64_t state = a ^ (b * UINT64_C(0xd6e8feb86659fd93));
    return random_next(&state);
}
/* ---- what an allocation is: names, dtypes and shapes come from this ---- */

const char *const dtype_names[] = {"float", "bfloat16", "half", "int32", "INVALID"};
const int64_t dtype_sizes[] = {4, 2, 2, 4, 0};

const struct kind_name device_names[KIND_COUNT] = {
    [KIND_GLOBAL_STEP] = {"global_step/Initializer/zeros", {NULL}, "persist", DTYPE_INT32},
    [KIND_EMBEDDING] = {"model/embedding/embeddings/Initializer/random_uniform", {NULL}, "persist", DTYPE_FLOAT},
    [KIND_KERNEL] = {"model/dense_", {"/kernel/Initializer/random_uniform"}, "persist", DTYPE_FLOAT},
    [KIND_BIAS] = {"model/dense_", {"/bias/Initializer/zeros"}, "persist", DTYPE_FLOAT},
    [KIND_KERNEL_M] = {"training/Adam/dense_", {"/kernel/m/Initializer/zeros"}, "persist", DTYPE_FLOAT},
    [KIND_KERNEL_V] = {"training/Adam/dense_", {"/kernel/v/Initializer/zeros"}, "persist", DTYPE_FLOAT},
    [KIND_BIAS_M] = {"training/Adam/dense_", {"/bias/m/Initializer/zeros"}, "persist", DTYPE_FLOAT},
    [KIND_BIAS_V] = {"training/Adam/dense_", {"/bias/v/Initializer/zeros"}, "persist", DTYPE_FLOAT},
    [KIND_INIT_TEMP] = {"model/dense_", {"/kernel/Initializer/random_uniform/RandomUniform"}, "temp", DTYPE_FLOAT},
    [KIND_INPUT] = {"IteratorGetNext", {NULL}, "output", DTYPE_INT32},
    [KIND_MATMUL] = {"model/dense_", {"/MatMul"}, "output", DTYPE_ACT},
    [KIND_BIAS_ADD] = {"model/dense_", {"/BiasAdd"}, "output", DTYPE_ACT},
    [KIND_ACTIVATION] = {"model/dense_", {"/Relu"}, "output", DTYPE_ACT},
    [KIND_FORWARD_TEMP] = {"model/dense_", {"/MatMul", "/Relu", "/dropout/random_uniform/RandomUniform"}, "temp", DTYPE_FLOAT},
    [KIND_INPUT_GRAD] = {"gradients/model/dense_", {"/MatMul_grad/MatMul"}, "output", DTYPE_ACT},
    [KIND_KERNEL_GRAD] = {"gradients/model/dense_", {"/MatMul_grad/MatMul_1"}, "output", DTYPE_FLOAT},
    [KIND_BIAS_GRAD] = {"gradients/model/dense_", {"/BiasAdd_grad/BiasAddGrad"}, "output", DTYPE_FLOAT},
    [KIND_BACKWARD_TEMP] = {"gradients/model/dense_", {"/Relu_grad/ReluGrad", "/MatMul_grad/MatMul", "/dropout/mul_grad/Mul"}, "temp", DTYPE_FLOAT},
    [KIND_OPTIMIZER_TEMP] = {"training/Adam/update_dense_", {"/kernel/ResourceApplyAdam", "/bias/ResourceApplyAdam", "/kernel/ResourceApplyAdam/sub"}, "temp", DTYPE_FLOAT},
    [KIND_UNMAPPED] = {"unused preallocated device memory", {NULL}, "persist/dynamic", DTYPE_INVALID},
    [KIND_STACK] = {"stack", {NULL}, "stack", DTYPE_INVALID},
};

/* The host allocator runs the input pipeline, checkpoint restore and
 * summaries: the same event structure under host names. */
const struct kind_name host_names[KIND_COUNT] = {
    [KIND_GLOBAL_STEP] = {"global_step/Initializer/zeros", {NULL}, "persist", DTYPE_INT32},
    [KIND_EMBEDDING] = {"input_pipeline/vocab_lookup/hash_table/table_init", {NULL}, "persist", DTYPE_INT32},
    [KIND_KERNEL] = {"input_pipeline/shard_", {"/shuffle_buffer"}, "persist", DTYPE_INT32},
    [KIND_BIAS] = {"input_pipeline/shard_", {"/prefetch_buffer"}, "persist", DTYPE_INT32},
    [KIND_KERNEL_M] = {"checkpoint/shard_", {"/restore/RestoreV2"}, "persist", DTYPE_FLOAT},
    [KIND_KERNEL_V] = {"checkpoint/shard_", {"/restore/RestoreV2_1"}, "persist", DTYPE_FLOAT},
    [KIND_BIAS_M] = {"checkpoint/shard_", {"/restore/RestoreV2_2"}, "persist", DTYPE_FLOAT},
    [KIND_BIAS_V] = {"checkpoint/shard_", {"/restore/RestoreV2_3"}, "persist", DTYPE_FLOAT},
    [KIND_INIT_TEMP] = {"checkpoint/shard_", {"/restore/Identity"}, "temp", DTYPE_FLOAT},
    [KIND_INPUT] = {"IteratorGetNext", {NULL}, "output", DTYPE_INT32},
    [KIND_MATMUL] = {"input_pipeline/shard_", {"/ParseExample/ParseExampleV2"}, "output", DTYPE_ACT},
    [KIND_BIAS_ADD] = {"input_pipeline/shard_", {"/Cast"}, "output", DTYPE_ACT},
    [KIND_ACTIVATION] = {"input_pipeline/shard_", {"/padded_batch"}, "output", DTYPE_ACT},
    [KIND_FORWARD_TEMP] = {"input_pipeline/shard_", {"/DecodeRaw", "/StringToNumber", "/Reshape"}, "temp", DTYPE_FLOAT},
    [KIND_INPUT_GRAD] = {"metrics/shard_", {"/Mean"}, "output", DTYPE_FLOAT},
    [KIND_KERNEL_GRAD] = {"summaries/shard_", {"/histogram/HistogramSummary"}, "output", DTYPE_FLOAT},
    [KIND_BIAS_GRAD] = {"summaries/shard_", {"/scalar/ScalarSummary"}, "output", DTYPE_FLOAT},
    [KIND_BACKWARD_TEMP] = {"metrics/shard_", {"/Sum", "/Cast", "/ArgMax"}, "temp", DTYPE_FLOAT},
    [KIND_OPTIMIZER_TEMP] = {"summaries/shard_", {"/write_summary/WriteSummary", "/Const", "/flush"}, "temp", DTYPE_FLOAT},
    [KIND_UNMAPPED] = {"unused preallocated device memory", {NULL}, "persist/dynamic", DTYPE_INVALID},
    [KIND_STACK] = {"stack", {NULL}, "stack", DTYPE_INVALID},
};

/* Writes `value` in decimal at `out`; returns the length (no NUL). */
size_t format_uint64(char *out, uint64_t value)
{
    char digits[24];
    size_t count = 0;
    do {
        digits[count++] = (char)('0' + value % 10);
        value /= 10;
    } while (value != 0);
    for (size_t i = 0; i < count; i++)
        out[i] = digits[count - 1 - i];
    return count;
}

size_t format_int64(char *out, int64_t value)
{
    if (value >= 0)
        return format_uint64(out, (uint64_t)value);
    out[0] = '-';
    return 1 + format_uint64(out + 1, (uint64_t)0 - (uint64_t)value);
}

size_t text_append(char *buffer, size_t length, size_t size, const char *text)
{
    size_t add = strlen(text);
    if (length + add >= size)
        add = size - 1 - length;
    memcpy(buffer + length, text, add);
    return length + add;
}

void tensor_text(const struct tensor_info *tensor, struct event_text *text)
{
    const struct kind_name *name = &(tensor->host ? host_names : device_names)[tensor->kind];
    size_t length = text_append(text->op, 0, OP_NAME_SIZE, name->prefix);
    if (name->suffixes[0] != NULL) {
        length += format_int64(text->op + length, tensor->layer);
        const char *suffix = name->suffixes[tensor->variant];
        length = text_append(text->op, length, OP_NAME_SIZE, suffix ? suffix : name->suffixes[0]);
    }
    text->op[length] = '\0';
    text->op_length = length;
    text->region = name->region;
    text->dtype = dtype_names[tensor->dtype];
    if (tensor->kind == KIND_UNMAPPED || tensor->kind == KIND_STACK) {
        text->shape_length = text_append(text->shape, 0, SHAPE_SIZE, "unknown");
        text->shape[text->shape_length] = '\0';
        return;
    }
    length = 0;
    text->shape[length++] = '[';
    for (int i = 0; i < tensor->rank; i++) {
        if (i > 0)
            text->shape[length++] = ',';
        length += format_int64(text->shape + length, tensor->dims[i]);
    }
    text->shape[length++] = ']';
    text->shape[length] = '\0';
    text->shape_length = length;
}

int64_t tensor_bytes(const struct tensor_info *tensor)
{
    int64_t bytes = dtype_sizes[tensor->dtype];
    for (int i = 0; i < tensor->rank; i++)
        bytes *= tensor->dims[i];
    return bytes;
}

/* ---- a BFC-like heap: best fit from size bins, split, coalesce, grow ---- */

void heap_init(struct heap *heap, uint64_t base, int64_t limit, bool host)
{
    free(heap->chunks);
    *heap = (struct heap){
        .spare = -1,
        .last = -1,
        .base = base,
        .granule_shift = host ? 6 : 8,
        .always_split = host,
        .region_limit = limit,
        .next_region_bytes = 2 * MIB,
    };
    for (int bin = 0; bin < BIN_COUNT; bin++)
        heap->bins[bin] = -1;
}

int heap_bin_for(const struct heap *heap, int64_t size)
{
    uint64_t units = (uint64_t)size >> heap->granule_shift;
    int bin = 0;
    while (units > 1 && bin < BIN_COUNT - 1) {
        units >>= 1;
        bin++;
    }
    return bin;
}

int32_t heap_new_chunk(struct heap *heap)
{
    if (heap->spare >= 0) {
        int32_t chunk = heap->spare;
        heap->spare = heap->chunks[chunk].next;
        return chunk;
    }
    if (heap->chunk_count == heap->chunk_capacity) {
        heap->chunk_capacity = heap->chunk_capacity ? 2 * heap->chunk_capacity : 256;
        heap->chunks = checked_realloc(heap->chunks, (size_t)heap->chunk_capacity, sizeof *heap->chunks);
    }
    return heap->chunk_count++;
}

void heap_bin_insert(struct heap *heap, int32_t index)
{
    struct chunk *chunk = &heap->chunks[index];
    int bin = heap_bin_for(heap, chunk->size);
    chunk->bin = (int8_t)bin;
    chunk->bin_prev = -1;
    chunk->bin_next = heap->bins[bin];
    if (heap->bins[bin] >= 0)
        heap->chunks[heap->bins[bin]].bin_prev = index;
    heap->bins[bin] = index;
    heap->nonempty_bins |= UINT32_C(1) << bin;
}

void heap_bin_remove(struct heap *heap, int32_t index)
{
    struct chunk *chunk = &heap->chunks[index];
    int bin = chunk->bin;
    if (chunk->bin_prev >= 0)
        heap->chunks[chunk->bin_prev].bin_next = chunk->bin_next;
    else
        heap->bins[bin] = chunk->bin_next;
    if (chunk->bin_next >= 0)
        heap->chunks[chunk->bin_next].bin_prev = chunk->bin_prev;
    if (heap->bins[bin] < 0)
        heap->nonempty_bins &= ~(UINT32_C(1) << bin);
    chunk->bin = -1;
}

/* Best fit: the smallest free chunk that fits, the lowest address on ties.
 * Bins hold increasing sizes, so the first bin with a fit has the best. */
int32_t heap_find(const struct heap *heap, int64_t size)
{
    for (int bin = heap_bin_for(heap, size); bin < BIN_COUNT; bin++) {
        if (!(heap->nonempty_bins & (UINT32_C(1) << bin)))
            continue;
        int32_t best = -1;
        for (int32_t index = heap->bins[bin]; index >= 0; index = heap->chunks[index].bin_next) {
            const struct chunk *chunk = &heap->chunks[index];
            if (chunk->size < size)
                continue;
            if (best < 0 || chunk->size < heap->chunks[best].size ||
                (chunk->size == heap->chunks[best].size && chunk->address < heap->chunks[best].address))
                best = index;
        }
        if (best >= 0)
            return best;
    }
    return -1;
}

/* Extends the heap at its top by a region, doubling region sizes like a
 * BFC allocator with growth enabled. */
void heap_grow(struct heap *heap, int64_t size)
{
    int32_t last = heap->last;
    int64_t tail = (last >= 0 && heap->chunks[last].bin >= 0) ? heap->chunks[last].size : 0;
    int64_t needed = size - tail;
    int64_t add = needed > heap->next_region_bytes ? needed : heap->next_region_bytes;
    if (heap->region_bytes + add > heap->region_limit) {
        add = heap->region_limit - heap->region_bytes;
        if (add < needed) /* over the limit: the programs are sized to avoid it */
            add = needed;
    }
    if (heap->next_region_bytes < heap->region_limit / 2)
        heap->next_region_bytes *= 2;
    if (tail > 0) {
        heap_bin_remove(heap, last);
        heap->chunks[last].size += add;
        heap_bin_insert(heap, last);
    } else {
        int32_t index = heap_new_chunk(heap);
        heap->chunks[index] = (struct chunk){
            .address = heap->base + (uint64_t)heap->region_bytes,
            .size = add,
            .prev = last,
            .next = -1,
        };
        if (last >= 0)
            heap->chunks[last].next = index;
        heap->last = index;
        heap_bin_insert(heap, index);
    }
    heap->region_bytes += add;
}

int32_t heap_allocate(struct heap *heap, int64_t requested)
{
    int64_t granule = INT64_C(1) << heap->granule_shift;
    int64_t size = ((requested > 0 ? requested : 1) + granule - 1) / granule * granule;
    int32_t index = heap_find(heap, size);
    if (index < 0) {
        heap_grow(heap, size);
        index = heap_find(heap, size);
    }
    heap_bin_remove(heap, index);
    int64_t rest = heap->chunks[index].size - size;
    if (rest > 0 && (heap->always_split || heap->chunks[index].size >= 2 * size ||
                     rest >= MAX_INTERNAL_FRAGMENTATION)) {
        int32_t remainder = heap_new_chunk(heap);
        struct chunk *chunk = &heap->chunks[index];
        heap->chunks[remainder] = (struct chunk){
            .address = chunk->address + (uint64_t)size,
            .size = rest,
            .prev = index,
            .next = chunk->next,
        };
        if (chunk->next >= 0)
            heap->chunks[chunk->next].prev = remainder;
        else
            heap->last = remainder;
        chunk->next = remainder;
        chunk->size = size;
        heap_bin_insert(heap, remainder);
    }
    heap->in_use_bytes += heap->chunks[index].size;
    return index;
}

/* Absorbs the chunk after `index` into it. */
void heap_merge_next(struct heap *heap, int32_t index)
{
    int32_t next = heap->chunks[index].next;
    heap->chunks[index].size += heap->chunks[next].size;
    heap->chunks[index].next = heap->chunks[next].next;
    if (heap->chunks[next].next >= 0)
        heap->chunks[heap->chunks[next].next].prev = index;
    else
        heap->last = index;
    heap->chunks[next].next = heap->spare;
    heap->spare = next;
}

void heap_release(struct heap *heap, int32_t index)
{
    heap->in_use_bytes -= heap->chunks[index].size;
    int32_t next = heap->chunks[index].next;
    if (next >= 0 && heap->chunks[next].bin >= 0) {
        heap_bin_remove(heap, next);
        heap_merge_next(heap, index);
    }
    int32_t prev = heap->chunks[index].prev;
    if (prev >= 0 && heap->chunks[prev].bin >= 0) {
        heap_bin_remove(heap, prev);
        heap_merge_next(heap, prev);
        index = prev;
    }
    heap_bin_insert(heap, index);
}

int64_t heap_largest_free(const struct heap *heap)
{
    if (heap->nonempty_bins == 0)
        return 0;
    int bin = BIN_COUNT - 1;
    while (!(heap->nonempty_bins & (UINT32_C(1) << bin)))
        bin--;
    int64_t largest = 0;
    for (int32_t index = heap->bins[bin]; index >= 0; index = heap->chunks[index].bin_next)
        if (heap->chunks[index].size > largest)
            largest = heap->chunks[index].size;
    return largest;
}

/* BFC's metric: the share of free region bytes outside the largest free
 * chunk, kept to six decimals as profiles show it. */
double heap_fragmentation(const struct heap *heap)
{
    int64_t available = heap->region_bytes - heap->in_use_bytes;
    if (available <= 0)
        return 0.0;
    double share = (double)(available - heap_largest_free(heap)) / (double)available;
    int64_t millionths = (int64_t)(share * 1e6 + 0.5);
    return (double)millionths / 1e6;
}
/* ---- allocators and the training program each one runs ---- */

int64_t ceil_div(int64_t a, int64_t b)
{
    return a <= 0 ? 0 : (a + b - 1) / b;
}

int64_t layer_in(const struct program *program, int layer)
{
    return layer % 2 == 0 ? program->hidden : 4 * program->hidden;
}

int64_t layer_out(const struct program *program, int layer)
{
    return layer % 2 == 0 ? 4 * program->hidden : program->hidden;
}

/* Weights and Adam slots of one model size, as allocated at start. */
int64_t program_weight_bytes(int layers, int64_t hidden, int64_t vocabulary)
{
    int64_t bytes = vocabulary * hidden * 4;
    for (int layer = 0; layer < layers; layer++) {
        int64_t in = layer % 2 == 0 ? hidden : 4 * hidden;
        int64_t out = layer % 2 == 0 ? 4 * hidden : hidden;
        bytes += 3 * (in * out * 4 + out * 4);
    }
    return bytes;
}

/* Sizes the model so weights take about 30% of the device and the
 * activations at the end of the forward pass another 30%, and spreads
 * temporaries so a step has its share of the snapshot count. */
void program_setup(struct program *program, const struct allocator_config *config, int64_t steps)
{
    static const int64_t hidden_sizes[] = {256, 512, 768, 1024, 1536, 2048, 3072, 4096};
    int max_layers = config->host ? 16 : 96;
    int64_t layers = config->snapshots / steps / 40;
    program->layers = (int)(layers < 1 ? 1 : layers > max_layers ? max_layers : layers);
    program->vocabulary = 32000;
    int64_t budget = (config->capacity - config->stack) / 10 * 3;
    program->hidden = config->host ? 64 : hidden_sizes[0];
    for (size_t i = 0; !config->host && i < sizeof hidden_sizes / sizeof hidden_sizes[0]; i++)
        if (program_weight_bytes(program->layers, hidden_sizes[i], program->vocabulary) <= budget)
            program->hidden = hidden_sizes[i];
    int64_t tokens = budget / (15 * program->hidden * program->layers + 16);
    program->batch = 64;
    while (program->batch > 1 && program->batch * 512 > tokens)
        program->batch /= 2;
    int64_t longest = tokens / program->batch;
    longest = longest > 512 ? 512 : longest / 64 * 64;
    if (longest < 64)
        longest = 64;
    for (int i = 0; i < 4; i++)
        program->seq_choices[i] = longest * (5 + i) / 8 / 8 * 8;

    int64_t init_events = 2 + (int64_t)program->layers * (6 + 2);
    program->init_temps = 1;
    int64_t per_step = ceil_div(config->snapshots - init_events, steps);
    int64_t skeleton = 12 * (int64_t)program->layers + 8;
    int64_t temps = ceil_div(per_step - skeleton, 2);
    program->forward_temps = ceil_div(temps * 2, 5 * (int64_t)program->layers);
    program->backward_temps = program->forward_temps;
    program->optimizer_temps = ceil_div(temps, 5 * (int64_t)program->layers);
    int64_t step_events = skeleton + 2 * (int64_t)program->layers *
        (program->forward_temps + program->backward_temps + program->optimizer_temps);
    program->step_mean_dt_ns = STEP_ACTIVE_NS / step_events;
    if (program->step_mean_dt_ns < 1)
        program->step_mean_dt_ns = 1;
    program->init_mean_dt_ns = INIT_ACTIVE_NS / init_events;
}

void allocators_setup(const struct options *options, struct allocator_config *configs)
{
    for (int index = 0; index < options->allocators; index++) {
        struct allocator_config *config = &configs[index];
        bool host = options->allocators > 1 && index == options->allocators - 1;
        *config = (struct allocator_config){
            .index = index,
            .host = host,
            .seed = hash_mix(options->seed, (uint64_t)index + 1),
            .step_seed = hash_mix(options->seed, UINT64_C(0x9a9)),
        };
        if (host) {
            snprintf(config->name, sizeof config->name, "cpu");
            config->snapshots = options->snapshots / 8;
            config->capacity = INT64_C(68719476736);
            config->stack = 0;
            config->address_base = UINT64_C(0x55d4c8000000) + (config->seed % 4096) * 0x100000;
            config->act_dtype = DTYPE_INT32;
        } else {
            snprintf(config->name, sizeof config->name, "GPU_%d_bfc", index);
            config->snapshots = index == 0 ? options->snapshots : options->snapshots / 2;
            config->capacity = INT64_C(15843721216);
            config->stack = 65536;
            config->address_base = UINT64_C(0x7f2a00000000) + (uint64_t)index * UINT64_C(0x400000000);
            config->act_dtype = index % 2 == 0 ? DTYPE_BFLOAT16 : DTYPE_HALF;
        }
        if (config->snapshots < 1)
            config->snapshots = 1;
    }
}
