/* list_peaks: `--list --peaks`: every run's hosts loaded, several at a
 * time, for each host's peak and its share of the capacity (the allocator
 * with the largest peak); the profiles are freed as soon as read. Called
 * by main; report/logdir_report.h prints what it found. Must not print. */
#ifndef MEMTOP_LIST_PEAKS_H
#define MEMTOP_LIST_PEAKS_H

#include "model/logdir.h"
#include "report/logdir_report.h"

/* One logdir_host_peak per host of every run, run by run (hosts in the
 * run's order), into *peaks (malloc'd, freed by list_peaks_free); false
 * when memory runs out. */
bool list_peaks_read(const struct logdir *logdir, struct logdir_peaks *peaks);
void list_peaks_free(struct logdir_peaks *peaks);

#endif
