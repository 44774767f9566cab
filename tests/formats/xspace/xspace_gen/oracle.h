/* oracle: what XProf's memory_profile tool would report for the file
 * being written, computed independently of memtop (tests/generate_xspace
 * --expect).
 *
 * It watches the writer (struct xspace_observer) and keeps what XProf
 * looks at: the first /host:CPU plane's events and stats exactly as
 * written (map keys, value kinds), the XLA Modules lines' events, and
 * every plane's event-metadata names (for the while-loop check). At the
 * end it reads them by XProf's rules (docs/formats/xspace.md): step
 * grouping (oracle_groups.c), then the memory profile: summary in walk
 * order, time sort, step fix-up, peak step, the table at the peak with
 * its special rows, sorted and merged, and the HLO modules of TPU planes;
 * and writes them in the format `generate_xspace --help` describes.
 *
 * Clarity over speed: plain arrays, straightforward loops, memory
 * proportional to the host plane's events. Device planes' kernels are
 * left out of the grouping: the generator puts no step markers or context
 * stats on them, and edges only lead from host launches to them, never
 * back, so they cannot change a host event's group. */
#ifndef XSPACE_GEN_ORACLE_H
#define XSPACE_GEN_ORACLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tests/formats/xspace/xspace_gen/xspace_writer.h"

struct recorded_event {
    uint32_t line;
    bool use_num_occurrences;
    uint64_t metadata_key;
    int64_t offset_ps;
    int64_t duration_ps;
    uint64_t first_stat;
    uint32_t stat_count;
};

struct recorded_events {
    struct recorded_event *events;
    uint64_t count, capacity;
    struct stat_item *stats;
    uint64_t stat_count, stat_capacity;
};

struct hlo_module {
    uint32_t name;
    uint32_t plane_name;
    int64_t start_ps;
    int64_t end_ps;
};

struct oracle {
    struct xspace_observer observer;
    /* host planes seen so far (the real one, and --odd's second) */
    const struct plane *host_candidates[4];
    struct recorded_events host_events[4];
    uint32_t host_candidate_count;
    const struct plane *host; /* the first /host:CPU plane written */
    struct recorded_events host_chosen;
    /* XLA Modules events of the plane being written */
    struct recorded_events modules;
    const struct plane *modules_plane;
    struct hlo_module *hlo;
    uint64_t hlo_count, hlo_capacity;
    bool loop_ops; /* a plane has WhileOp-EvalCond & co.: no grouping */
};

void oracle_init(struct oracle *oracle);
void oracle_free(struct oracle *oracle);
/* Computes and writes the expectations; returns false (and says why on
 * standard error) when XProf's answer is not defined for this file. */
bool oracle_write(struct oracle *oracle, FILE *out, const char *file_name);

/* ---- shared by the oracle's parts ---- */

/* XProf's view of one host event. */
struct host_event {
    uint32_t line;
    uint32_t name;      /* event metadata name; 0 (empty) when missing */
    int64_t begin_ps;   /* timestamp_ns * 1000 + offset (0 with num_occurrences) */
    int64_t end_ps;
    int64_t offset_ps;  /* what the memory profile calls time */
    const struct stat_item *stats;
    uint32_t stat_count;
};

/* The first /host:CPU plane's events in file order; free() the result. */
struct host_event *oracle_host_events(const struct oracle *oracle, uint64_t *count);
/* The stat-metadata name of a stat, as XProf finds it by map key. */
uint32_t oracle_stat_name(const struct plane *plane, const struct stat_item *stat, bool *found);
/* XStatVisitor's readings. */
int64_t read_int(const struct stat_item *stat);
uint64_t read_int_or_uint(const struct stat_item *stat);
double read_double(const struct stat_item *stat);
uint32_t read_string(const struct plane *plane, const struct stat_item *stat);

/* Section 5: group ids per event (-1: none); returns the number of groups
 * made, or -1 when the file holds something the oracle does not simulate
 * (said on standard error). */
int64_t oracle_group(const struct plane *plane, const struct host_event *events, uint64_t count,
                     bool loop_ops, int64_t *groups);

/* ---- oracle_attribution.c: memory events without a tf_op, named ---- */

struct oracle_name {
    bool attributed;   /* the event had no tf_op: op and region below */
    bool in_execution; /* an execution encloses it (a free: "temp") */
    uint32_t op, region;
};

/* names[i] for every event (unnamed[i]: a memory event without tf_op). */
void oracle_attribute(const struct plane *plane, const struct host_event *events, uint64_t count,
                      const bool *unnamed, struct oracle_name *names);

#endif
