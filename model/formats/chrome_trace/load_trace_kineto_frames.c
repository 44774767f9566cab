/* load_trace_kineto_frames: where in the user's code a PyTorch memory
 * event was made (issue 22), from the python_function slices a trace
 * recorded with_stack=True holds.
 *
 * Per thread the slices nest as the cpu_ops do (start, end descending,
 * file order); a memory event's frames are the slices open at its time
 * on its thread (half-open, integer ns), innermost first. Of them:
 *   - the module is the innermost `nn.Module: NAME` (NAME: `Linear_1`);
 *   - the stack is every `file(line): function` frame, innermost first,
 *     one `file:line function` per line (built-ins and modules left out);
 *   - the location is the innermost frame of the user's own code by
 *     model/user_frame.h's rule (Kineto writes library files relative to
 *     site-packages: `torch/nn/modules/linear.py(130): forward` is
 *     library, `torch_trace.py(15): step` the user's), else the innermost.
 * One site (struct frame_site) per innermost slice, made the first time
 * an event asks, so the cost is per distinct stack, not per event; the
 * reader keeps only the slices around a memory event it has seen (an
 * event read after the first slice gets no site rather than a wrong one)
 * and interns a slice's name only when a site needs it.
 * Autograd threads run no Python: an event under a backward op that a
 * fwdbwd flow links to its forward op takes the site of the frames open
 * at the forward op's start on its thread instead (its module and the
 * user's line that ran it: Linear_1's backward is told from Linear_0's),
 * where the file has them; else its own, if any. The reader keeps the
 * frames around each forward op's start for this ("s" flows, read
 * before the frames), and a forward op whose flow came after the frames
 * began lends no site.
 *
 * Called by load_trace_kineto_finish.c's attribution after the ops', on
 * the memory events in (thread, time) order and the linked forward op of
 * each. Must not: change the events' op or context. */
#include "config.h"

#include "model/formats/chrome_trace/load_trace_kineto.h"

#include <stdlib.h>
#include <string.h>

#include "model/profile_builder.h"
#include "model/user_frame.h"

#define FRAME_NONE UINT32_MAX
#define FRAMES_MAX 256 /* deeper stacks keep their innermost frames */

struct frame_work {
    struct trace_load *load;
    struct trace_kineto *kineto;
    uint32_t *parent; /* per frame, once pushed */
    uint32_t *site;   /* per frame: its site + 1; 0 until asked */
    uint32_t *name;   /* per frame: its name's string id + 1; 0 until asked */
    uint32_t *stack;
    size_t depth;
    size_t next;     /* the first frame not pushed yet */
    uint32_t thread; /* the thread of the stack */
    char *text; /* building a stack's text */
    size_t text_capacity;
};

static int frame_compare(const void *a, const void *b)
{
    const struct kineto_frame *x = a, *y = b;
    return kineto_nesting_order(x->thread, x->start_ns, x->end_ns, x->sequence, y->thread,
                                y->start_ns, y->end_ns, y->sequence);
}

static bool text_append(struct frame_work *work, size_t *length, const char *bytes, size_t count)
{
    if (*length + count + 1 > work->text_capacity) {
        size_t capacity = (*length + count + 1) * 2;
        char *grown = realloc(work->text, capacity);
        if (!grown)
            return false;
        work->text = grown;
        work->text_capacity = capacity;
    }
    memcpy(work->text + *length, bytes, count);
    *length += count;
    return true;
}

static uint32_t intern(struct frame_work *work, const char *bytes, size_t length)
{
    return string_table_intern(work->load->strings, bytes, length);
}

/* The frames from `frame` outwards, the module, and the site they make. */
static bool site_make(struct frame_work *work, uint32_t frame, uint32_t *out)
{
    struct user_frame frames[FRAMES_MAX];
    size_t count = 0;
    struct text module = {"", 0};
    static const char module_prefix[] = "nn.Module: ";
    for (uint32_t at = frame; at != FRAME_NONE && count < FRAMES_MAX; at = work->parent[at]) {
        if (work->name[at] == 0) {
            uint32_t id = trace_load_intern(work->load, work->kineto->frames[at].name);
            if (id == STRING_ID_NONE)
                return false;
            work->name[at] = id + 1;
        }
        struct text name = string_table_get(work->load->strings, work->name[at] - 1);
        if (name.length > sizeof module_prefix - 1 &&
            memcmp(name.bytes, module_prefix, sizeof module_prefix - 1) == 0) {
            if (module.length == 0)
                module = text_make(name.bytes + sizeof module_prefix - 1,
                                   name.length - (sizeof module_prefix - 1));
            continue;
        }
        if (user_frame_parse_kineto(name, &frames[count]))
            count++;
    }
    struct frame_site site = {0};
    size_t length = 0;
    bool ok = true;
    for (size_t i = 0; ok && i < count; i++) {
        size_t needed = user_frame_format(&frames[i], NULL, 0);
        char *formatted = malloc(needed + 1);
        ok = formatted && (i == 0 || text_append(work, &length, "\n", 1));
        if (ok) {
            user_frame_format(&frames[i], formatted, needed + 1);
            ok = text_append(work, &length, formatted, needed);
        }
        free(formatted);
    }
    if (ok && count > 0) {
        long user = user_frame_pick(frames, count);
        site.stack = intern(work, work->text, length);
        size_t needed = user_frame_format(&frames[user], NULL, 0);
        char *location = malloc(needed + 1);
        ok = site.stack != STRING_ID_NONE && location;
        if (ok) {
            user_frame_format(&frames[user], location, needed + 1);
            site.location = intern(work, location, needed);
            site.location_file = intern(work, frames[user].file.bytes, frames[user].file.length);
            site.location_line = frames[user].line;
            ok = site.location != STRING_ID_NONE && site.location_file != STRING_ID_NONE;
        }
        free(location);
    }
    if (ok && module.length > 0) {
        site.module = intern(work, module.bytes, module.length);
        ok = site.module != STRING_ID_NONE;
    }
    if (ok && (count > 0 || module.length > 0))
        ok = profile_builder_add_site(work->load->builder, &site, out);
    else
        *out = 0;
    return ok;
}

static bool site_of(struct frame_work *work, uint32_t frame, uint32_t *out)
{
    if (work->site[frame] == 0) {
        uint32_t made;
        if (!site_make(work, frame, &made))
            return false;
        work->site[frame] = made + 1;
    }
    *out = work->site[frame] - 1;
    return true;
}

static void frame_push(struct frame_work *work, uint32_t frame)
{
    const struct kineto_frame *frames = work->kineto->frames;
    while (work->depth && frames[work->stack[work->depth - 1]].end_ns <= frames[frame].start_ns)
        work->depth--;
    work->parent[frame] = work->depth ? work->stack[work->depth - 1] : FRAME_NONE;
    work->stack[work->depth++] = frame;
}

/* The innermost frame open at (thread, time), FRAME_NONE for none;
 * asked in (thread, time) order. */
static uint32_t frame_at(struct frame_work *work, uint32_t thread, int64_t time)
{
    const struct kineto_frame *frames = work->kineto->frames;
    size_t count = work->kineto->frames_count;
    if (thread != work->thread) {
        work->thread = thread;
        work->depth = 0;
        while (work->next < count && frames[work->next].thread < thread)
            work->next++;
    }
    for (; work->next < count && frames[work->next].thread == thread &&
           frames[work->next].start_ns <= time;
         work->next++)
        frame_push(work, (uint32_t)work->next);
    while (work->depth && frames[work->stack[work->depth - 1]].end_ns <= time)
        work->depth--;
    return work->depth ? work->stack[work->depth - 1] : FRAME_NONE;
}

/* A forward op's start, where a backward event takes its site. */
struct forward_point {
    uint32_t thread;
    int64_t time_ns;
    uint32_t site;
};

/* The starts of the forward ops a memory event links (forward_of), in
 * the ops' order, so by (thread, time); point_of[op]: its point + 1, 0
 * for none. False when memory runs out. */
static bool forward_points(const struct trace_kineto *kineto, const uint32_t *forward_of,
                           uint32_t **point_of, struct forward_point **points, size_t *count)
{
    *count = 0;
    *points = NULL;
    *point_of = calloc(kineto->ops_count ? kineto->ops_count : 1, sizeof **point_of);
    if (!*point_of)
        return false;
    for (size_t i = 0; i < kineto->memory_count; i++)
        if (forward_of[i] != KINETO_OP_NONE && !kineto->ops[forward_of[i]].frames_unknown &&
            !(*point_of)[forward_of[i]]) {
            (*point_of)[forward_of[i]] = 1;
            (*count)++;
        }
    *points = malloc((*count ? *count : 1) * sizeof **points);
    if (!*points)
        return false;
    for (size_t op = 0, at = 0; op < kineto->ops_count; op++)
        if ((*point_of)[op]) {
            (*points)[at] = (struct forward_point){kineto->ops[op].thread,
                                                   kineto->ops[op].start_ns, 0};
            (*point_of)[op] = (uint32_t)++at;
        }
    return true;
}

static bool point_before(const struct forward_point *point, const struct kineto_memory *memory)
{
    return point->thread != memory->thread ? point->thread < memory->thread
                                           : point->time_ns < memory->time_ns;
}

/* The sites: the memory events' and the forward points' in one sweep. */
static bool sites_sweep(struct frame_work *work, const size_t *by_thread,
                        struct forward_point *points, size_t point_count)
{
    struct trace_kineto *kineto = work->kineto;
    bool ok = true;
    for (size_t m = 0, p = 0; ok && (m < kineto->memory_count || p < point_count);) {
        if (p < point_count &&
            (m == kineto->memory_count || point_before(&points[p], &kineto->memory[by_thread[m]]))) {
            uint32_t frame = frame_at(work, points[p].thread, points[p].time_ns);
            if (frame != FRAME_NONE)
                ok = site_of(work, frame, &points[p].site);
            p++;
            continue;
        }
        struct kineto_memory *memory = &kineto->memory[by_thread[m++]];
        uint32_t frame = frame_at(work, memory->thread, memory->time_ns);
        if (frame != FRAME_NONE && !memory->after_frames)
            ok = site_of(work, frame, &memory->site);
    }
    return ok;
}

bool trace_kineto_attribute_frames(struct trace_load *load, struct trace_kineto *kineto,
                                   const size_t *by_thread, const uint32_t *forward_of)
{
    for (size_t i = 0; i < kineto->memory_count; i++)
        kineto->memory[i].site = 0;
    if (kineto->frames_count == 0)
        return true;
    size_t count = kineto->frames_count;
    bool sorted = true; /* writers often give them in order already */
    for (size_t i = 1; sorted && i < count; i++)
        sorted = frame_compare(&kineto->frames[i - 1], &kineto->frames[i]) <= 0;
    if (!sorted)
        qsort(kineto->frames, count, sizeof *kineto->frames, frame_compare);
    struct frame_work work = {
        .load = load,
        .kineto = kineto,
        .parent = malloc(count * sizeof(uint32_t)),
        .site = calloc(count, sizeof(uint32_t)),
        .name = calloc(count, sizeof(uint32_t)),
        .stack = malloc(count * sizeof(uint32_t)),
        .thread = UINT32_MAX,
    };
    uint32_t *point_of = NULL;
    struct forward_point *points = NULL;
    size_t point_count = 0;
    bool ok = work.parent && work.site && work.name && work.stack &&
              forward_points(kineto, forward_of, &point_of, &points, &point_count) &&
              sites_sweep(&work, by_thread, points, point_count);
    /* A backward event: its forward op's site where there is one. */
    for (size_t i = 0; ok && i < kineto->memory_count; i++) {
        uint32_t point = forward_of[i] != KINETO_OP_NONE ? point_of[forward_of[i]] : 0;
        if (point && points[point - 1].site)
            kineto->memory[i].site = points[point - 1].site;
    }
    free(point_of);
    free(points);
    free(work.parent);
    free(work.site);
    free(work.name);
    free(work.stack);
    free(work.text);
    return ok;
}
