/* planes: every plane of a generated XSpace other than the simulated host
 * plane, and the order of all of them (tests/generate_xspace).
 *
 * Device planes (/device:GPU:0 with CUDA stream lines, /device:TPU:N with
 * Steps, XLA Modules and XLA Ops lines) are drawn from the job's recorded
 * launches, plus `noise` extra kernels or ops spread over them: the bytes
 * that make memory events a minority of a big file. Their lines are made
 * by generators that run twice (count, then write), so no device plane is
 * held in memory. Also /host:metadata (HLO protos as big bytes stats),
 * /host:__ScopeRangeCallStack__, Task Environment and, with --odd, a
 * second /host:CPU plane (XProf reads the first) and an XLA Modules line
 * on the GPU plane (XProf ignores it). Plane order follows each style's
 * real files (xspace.md section 3; FINDINGS-real-captures.md 1.1). */
#ifndef XSPACE_GEN_PLANES_H
#define XSPACE_GEN_PLANES_H

#include <stdint.h>

#include "tests/formats/xspace/xspace_gen/job.h"

/* Writes every plane, the host plane among them, and the hostnames. */
void planes_write(struct job *job, struct xspace_writer *writer, int64_t noise);
/* The file's size with `noise` extra device events, measured by writing
 * it to a counting sink. */
uint64_t planes_measure(struct job *job, int64_t noise);
/* The number of extra device events that brings the file near
 * `target_bytes` (or adds about `noise_bytes` when target is 0). */
int64_t planes_noise_for(struct job *job, int64_t target_bytes, int64_t noise_bytes);

#endif
