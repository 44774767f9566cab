/* styles: the three kinds of training job the generator simulates
 * (tests/generate_xspace). Each fills job->host with its host plane's
 * lines and events and records its kernel launches (GPU) or program
 * executions (TPU) in job->launches for the device planes. */
#ifndef XSPACE_GEN_STYLES_H
#define XSPACE_GEN_STYLES_H

#include "tests/formats/xspace/xspace_gen/job.h"

#define MAX_THREADS 64

void style_tf_gpu_run(struct job *job);
void style_jax_gpu_run(struct job *job);
void style_tpu_run(struct job *job);

/* --odd additions shared by the styles (odd.c). odd_add_lines adds the
 * "(aggregated)" line, which sorts before every other host line: call it
 * before adding the others. odd_step_extras runs once per step on the
 * main line: an event whose metadata the file lacks (with memory stats),
 * and the first time, events written with num_occurrences, one of them a
 * MemoryAllocation of `allocator` (time 0 for XProf). */
void odd_add_lines(struct job *job, int64_t timestamp_ns);
void odd_step_extras(struct job *job, uint32_t main_line, struct allocator *allocator);

#endif
