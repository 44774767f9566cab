/* generate_profile_simulate: the simulation (tests/generate_profile).
 *
 * One event per call, in time order: initialisation per layer, then per
 * step the inputs, forward activations, temporaries, backward gradients
 * and the optimizer update, each placed on the allocator's heap. */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/formats/memory_profile/generate_profile.h"

/* ---- the simulation: one event per call, in time order ---- */

/* A few pairs (i, i+1), i even, get strictly increasing times whether or
 * not --unsorted is given, so the profile is the same either way; with
 * --unsorted they are written swapped and a stable sort restores them. */
bool pair_candidate(const struct allocator_config *config, int64_t first)
{
    return first % 2 == 0 && first + 1 < config->snapshots &&
           hash_mix(config->seed ^ UINT64_C(0x5eed), (uint64_t)first) % 97 == 0;
}

bool swapped_pair(const struct allocator_config *config, bool unsorted, int64_t first)
{
    return unsorted && pair_candidate(config, first);
}

/* Where snapshot `index` of the time-sorted timeline is in the file. */
int64_t written_position(const struct allocator_config *config, bool unsorted, int64_t index)
{
    return swapped_pair(config, unsorted, index & ~INT64_C(1)) ? (index ^ 1) : index;
}

void live_array_reset(struct live_tensor *slots, size_t count)
{
    for (size_t i = 0; i < count; i++)
        slots[i].chunk = -1;
}

void simulator_start(struct simulator *sim, const struct allocator_config *config,
                            const struct program *program)
{
    size_t layers = (size_t)program->layers;
    if (sim->activations == NULL) {
        sim->activations = checked_calloc(3 * layers, sizeof *sim->activations);
        sim->gradients = checked_calloc(2 * layers, sizeof *sim->gradients);
        sim->input_grads = checked_calloc(layers, sizeof *sim->input_grads);
    }
    live_array_reset(sim->activations, 3 * layers);
    live_array_reset(sim->gradients, 2 * layers);
    live_array_reset(sim->input_grads, layers);
    live_array_reset(sim->inputs, INPUT_COMPONENTS);
    sim->config = config;
    sim->program = program;
    sim->random = config->seed;
    heap_init(&sim->heap, config->address_base, config->capacity - config->stack, config->host);
    sim->emitted = 0;
    sim->time_ps = INT64_C(1500000000) + (int64_t)random_below(&sim->random, 400000) * 1000;
    sim->peak_heap = 0;
    sim->step = 0;
    sim->unit = UNIT_INIT;
    sim->layer = -1;
    sim->fixed_count = sim->fixed_done = 0;
    sim->unit_temps = sim->unit_total = sim->unit_cursor = sim->temp_cursor = 0;
    sim->temp_first = sim->temp_live = 0;
}

void simulator_free(struct simulator *sim)
{
    free(sim->heap.chunks);
    free(sim->activations);
    free(sim->gradients);
    free(sim->input_grads);
    *sim = (struct simulator){0};
}

struct tensor_info tensor_make(const struct simulator *sim, enum tensor_kind kind, int layer,
                                      int rank, int64_t d0, int64_t d1, int64_t d2)
{
    const struct kind_name *name = &(sim->config->host ? host_names : device_names)[kind];
    enum dtype_id dtype = name->dtype == DTYPE_ACT ? sim->config->act_dtype : name->dtype;
    return (struct tensor_info){
        .kind = (uint8_t)kind,
        .dtype = (uint8_t)dtype,
        .rank = (uint8_t)rank,
        .host = sim->config->host,
        .layer = layer,
        .dims = {d0, d1, d2},
    };
}

void unit_add(struct simulator *sim, struct live_tensor *slot, bool release, struct tensor_info tensor)
{
    sim->fixed[sim->fixed_count++] = (struct fixed_event){slot, release, tensor};
}

void unit_add_release(struct simulator *sim, struct live_tensor *slot)
{
    unit_add(sim, slot, true, slot->tensor);
}

void unit_init(struct simulator *sim, int layer)
{
    const struct program *program = sim->program;
    int64_t in = layer_in(program, layer), out = layer_out(program, layer);
    if (layer == 0) {
        unit_add(sim, &sim->discard, false, tensor_make(sim, KIND_GLOBAL_STEP, 0, 0, 0, 0, 0));
        unit_add(sim, &sim->discard, false,
                 tensor_make(sim, KIND_EMBEDDING, 0, 2, program->vocabulary, program->hidden, 0));
    }
    static const enum tensor_kind kinds[] = {KIND_KERNEL, KIND_BIAS, KIND_KERNEL_M,
                                             KIND_KERNEL_V, KIND_BIAS_M, KIND_BIAS_V};
    for (int i = 0; i < 6; i++) {
        bool kernel = kinds[i] == KIND_KERNEL || kinds[i] == KIND_KERNEL_M || kinds[i] == KIND_KERNEL_V;
        unit_add(sim, &sim->discard, false,
                 kernel ? tensor_make(sim, kinds[i], layer, 2, in, out, 0)
                        : tensor_make(sim, kinds[i], layer, 1, out, 0, 0));
    }
    sim->unit_temps = program->init_temps;
}

void unit_begin_step(struct simulator *sim)
{
    const struct program *program = sim->program;
    sim->step++;
    sim->seq_len = program->seq_choices[random_below(&sim->random, 4)];
    /* host overhead between steps, the same for every allocator */
    sim->time_ps += INT64_C(2000000000) +
                    (int64_t)(hash_mix(sim->config->step_seed, (uint64_t)sim->step) % 1000000) * 1000;
    for (int i = 0; i < INPUT_COMPONENTS; i++)
        unit_add(sim, &sim->inputs[i], false,
                 tensor_make(sim, KIND_INPUT, 0, 2, program->batch, sim->seq_len, 0));
    sim->unit_temps = 0;
}

void unit_forward(struct simulator *sim, int layer)
{
    const struct program *program = sim->program;
    int64_t out = layer_out(program, layer);
    static const enum tensor_kind kinds[] = {KIND_MATMUL, KIND_BIAS_ADD, KIND_ACTIVATION};
    for (int i = 0; i < 3; i++)
        unit_add(sim, &sim->activations[3 * layer + i], false,
                 tensor_make(sim, kinds[i], layer, 3, program->batch, sim->seq_len, out));
    sim->unit_temps = program->forward_temps;
}

void unit_backward(struct simulator *sim, int layer)
{
    const struct program *program = sim->program;
    int64_t in = layer_in(program, layer), out = layer_out(program, layer);
    unit_add(sim, &sim->input_grads[layer], false,
             tensor_make(sim, KIND_INPUT_GRAD, layer, 3, program->batch, sim->seq_len, in));
    unit_add(sim, &sim->gradients[2 * layer], false, tensor_make(sim, KIND_KERNEL_GRAD, layer, 2, in, out, 0));
    unit_add(sim, &sim->gradients[2 * layer + 1], false, tensor_make(sim, KIND_BIAS_GRAD, layer, 1, out, 0, 0));
    for (int i = 2; i >= 0; i--)
        unit_add_release(sim, &sim->activations[3 * layer + i]);
    if (layer + 1 < program->layers)
        unit_add_release(sim, &sim->input_grads[layer + 1]);
    sim->unit_temps = program->backward_temps;
}

void unit_optimizer(struct simulator *sim, int layer)
{
    unit_add_release(sim, &sim->gradients[2 * layer]);
    unit_add_release(sim, &sim->gradients[2 * layer + 1]);
    sim->unit_temps = sim->program->optimizer_temps;
}

void unit_end_step(struct simulator *sim)
{
    unit_add_release(sim, &sim->input_grads[0]);
    for (int i = 0; i < INPUT_COMPONENTS; i++)
        unit_add_release(sim, &sim->inputs[i]);
    sim->unit_temps = 0;
}

/* Moves to the next unit of work: init per layer, then per step: inputs,
 * forward per layer, backward in reverse, optimizer per layer, the end. */
void simulator_next_unit(struct simulator *sim)
{
    int layers = sim->program->layers;
    sim->fixed_count = sim->fixed_done = 0;
    switch (sim->unit) {
    case UNIT_INIT:
        if (sim->layer + 1 < layers) {
            unit_init(sim, ++sim->layer);
            break;
        }
        sim->unit = UNIT_BEGIN;
        unit_begin_step(sim);
        break;
    case UNIT_BEGIN:
        sim->unit = UNIT_FORWARD;
        unit_forward(sim, sim->layer = 0);
        break;
    case UNIT_FORWARD:
        if (sim->layer + 1 < layers) {
            unit_forward(sim, ++sim->layer);
            break;
        }
        sim->unit = UNIT_BACKWARD;
        unit_backward(sim, sim->layer = layers - 1);
        break;
    case UNIT_BACKWARD:
        if (sim->layer > 0) {
            unit_backward(sim, --sim->layer);
            break;
        }
        sim->unit = UNIT_OPTIMIZER;
        unit_optimizer(sim, sim->layer = 0);
        break;
    case UNIT_OPTIMIZER:
        if (sim->layer + 1 < layers) {
            unit_optimizer(sim, ++sim->layer);
            break;
        }
        sim->unit = UNIT_END;
        unit_end_step(sim);
        break;
    case UNIT_END:
        sim->unit = UNIT_BEGIN;
        unit_begin_step(sim);
        break;
    }
    sim->unit_total = sim->fixed_count + 2 * sim->unit_temps;
    sim->unit_cursor = sim->temp_cursor = 0;
}

struct tensor_info temp_tensor(struct simulator *sim)
{
    const struct program *program = sim->program;
    int layer = sim->layer;
    enum tensor_kind kind = sim->unit == UNIT_INIT       ? KIND_INIT_TEMP
                            : sim->unit == UNIT_FORWARD  ? KIND_FORWARD_TEMP
                            : sim->unit == UNIT_BACKWARD ? KIND_BACKWARD_TEMP
                                                         : KIND_OPTIMIZER_TEMP;
    uint64_t choice = random_next(&sim->random);
    int variant = kind == KIND_INIT_TEMP ? 0 : (int)(choice % 3);
    int64_t in = layer_in(program, layer), out = layer_out(program, layer);
    struct tensor_info tensor;
    if (kind == KIND_INIT_TEMP || (kind == KIND_OPTIMIZER_TEMP && variant == 0))
        tensor = tensor_make(sim, kind, layer, 2, in, out, 0);
    else if (variant == 1) /* scratch of an odd size, so requested != allocated */
        tensor = tensor_make(sim, kind, layer, 1, 1000 + (int64_t)((choice >> 8) % 250000), 0, 0);
    else if (kind == KIND_OPTIMIZER_TEMP)
        tensor = tensor_make(sim, kind, layer, 1, out, 0, 0);
    else
        tensor = tensor_make(sim, kind, layer, 3, program->batch, sim->seq_len,
                             variant == 0 ? out : 1 + (int64_t)((choice >> 40) % 64));
    tensor.variant = (uint8_t)variant;
    return tensor;
}

void event_allocate(struct simulator *sim, struct live_tensor *slot, const struct tensor_info *tensor,
                           struct event *event)
{
    int64_t requested = tensor_bytes(tensor);
    int32_t chunk = heap_allocate(&sim->heap, requested);
    slot->chunk = chunk;
    slot->requested = requested;
    slot->tensor = *tensor;
    event->activity = ACTIVITY_ALLOCATION;
    event->requested_bytes = requested;
    event->allocation_bytes = sim->heap.chunks[chunk].size;
    event->address = sim->heap.chunks[chunk].address;
    event->tensor = *tensor;
}

void event_release(struct simulator *sim, struct live_tensor *slot, struct event *event)
{
    event->activity = ACTIVITY_DEALLOCATION;
    event->requested_bytes = slot->requested;
    event->allocation_bytes = sim->heap.chunks[slot->chunk].size;
    event->address = sim->heap.chunks[slot->chunk].address;
    event->tensor = slot->tensor;
    heap_release(&sim->heap, slot->chunk);
    slot->chunk = -1;
}

/* Temporaries overlap by at most two: alloc, alloc, free, alloc, free, ... */
void event_temp(struct simulator *sim, struct event *event)
{
    int64_t k = sim->temp_cursor++;
    int64_t last = 2 * sim->unit_temps - 1;
    if (k == 0 || (k % 2 == 1 && k != last)) {
        struct tensor_info tensor = temp_tensor(sim);
        struct live_tensor *slot = &sim->temps[(sim->temp_first + sim->temp_live) % 2];
        sim->temp_live++;
        event_allocate(sim, slot, &tensor, event);
    } else {
        struct live_tensor *slot = &sim->temps[sim->temp_first];
        sim->temp_first ^= 1;
        sim->temp_live--;
        event_release(sim, slot, event);
    }
}

void simulator_advance_time(struct simulator *sim)
{
    const struct program *program = sim->program;
    int64_t mean = sim->step == 0 ? program->init_mean_dt_ns : program->step_mean_dt_ns;
    uint64_t draw = random_next(&sim->random);
    int64_t dt_ns = draw % 20 == 0 ? 0 : (int64_t)((draw >> 8) % (uint64_t)(2 * mean + 1));
    if (dt_ns == 0 && sim->emitted % 2 == 1 && pair_candidate(sim->config, sim->emitted - 1))
        dt_ns = 1;
    sim->time_ps += dt_ns * 1000;
}

void simulator_next(struct simulator *sim, struct event *event)
{
    while (sim->unit_cursor == sim->unit_total)
        simulator_next_unit(sim);
    int64_t position = (int64_t)(sim->fixed_done + 1) * sim->unit_total / (sim->fixed_count + 1);
    bool temps_left = sim->temp_cursor < 2 * sim->unit_temps;
    if (sim->fixed_done < sim->fixed_count && (!temps_left || sim->unit_cursor >= position)) {
        struct fixed_event *fixed = &sim->fixed[sim->fixed_done++];
        if (fixed->release)
            event_release(sim, fixed->slot, event);
        else
            event_allocate(sim, fixed->slot, &fixed->tensor, event);
    } else {
        event_temp(sim, event);
    }
    sim->unit_cursor++;
    simulator_advance_time(sim);
    const struct allocator_config *config = sim->config;
    int64_t heap = sim->heap.in_use_bytes;
    if (heap > sim->peak_heap)
        sim->peak_heap = heap;
    event->time_ps = sim->time_ps;
    event->stack_bytes = config->stack;
    event->heap_bytes = heap;
    event->free_bytes = config->capacity - config->stack - heap;
    event->fragmentation = config->host ? 0.0 : heap_fragmentation(&sim->heap);
    /* the allocator's own peak counts bytes in use, not the stack */
    event->peak_bytes_in_use = sim->peak_heap;
    event->step_id = sim->step;
    sim->emitted++;
}
