/* logdir: what a directory given to memtop holds: a TensorBoard log
 * directory (runs in every plugins/profile directory below it), one run
 * (files named <host>.<suffix>), or a plain directory of profile files
 * (which reads as one run).
 *
 * Owns: finding the runs (bounded depth, hidden directories skipped,
 * each directory visited once however symlinks loop), naming them as
 * XProf does ("<directories above plugins>/<run folder>"), their order
 * (newest first: the run folder's name, a capture's timestamp,
 * descending; then the modification time), the date a run's name holds,
 * and each run's hosts: files grouped by host, a host's memory sources
 * best first (model/xprof_files.h), which of them a format of the table
 * reads (model/input_format.h), and the tools XProf lists for them.
 * Called by: host_list.c (the hosts to open), main (--run, --list) and
 * the viewer's runs list, through the structs below, which stay
 * unchanged once made.
 * Must not: open a profile (host_list and load.c do), print, or keep a
 * suffix list of its own: suffixes come from the two tables. */
#ifndef MEMTOP_LOGDIR_H
#define MEMTOP_LOGDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/load.h"
#include "model/xprof_files.h"

/* The format rows are the loaders' (model/input_format.h, private to
 * model/): readers above model/ only compare or name them. */
struct input_format;

/* How deep below the given directory a plugins directory is looked for
 * (Keras puts it at <log_dir>/train/plugins; a tree of experiments adds
 * a few levels). */
#define LOGDIR_MAX_DEPTH 8

struct run_file {
    char *path;
    const char *name;                   /* its base name, inside path */
    const struct input_format *format;  /* the row that reads it; NULL: none */
    const struct xprof_file_kind *kind; /* its XProf name; NULL: a plain profile file */
};

struct run_host {
    char *name;              /* the file name minus its suffix */
    struct run_file *files;  /* memory sources first, the preferred one first */
    size_t file_count;
    size_t source_count;     /* files holding memory events (the first ones) */
};

struct logdir_run {
    char *name;       /* "train/2026_11_23_06_39_19"; a run directory's own name */
    char *path;       /* the run directory */
    int64_t modified; /* its modification time, seconds since the epoch */
    int read_error;   /* errno when the directory could not be read, else 0 */
    struct run_host *hosts; /* by name; hosts without a memory source too */
    size_t host_count;
};

enum logdir_kind {
    LOGDIR_LOG_DIRECTORY, /* runs found below it */
    LOGDIR_RUN,           /* it is a run (or a directory of profile files) */
};

struct logdir {
    char *path;
    enum logdir_kind kind;
    struct logdir_run *runs; /* newest first */
    size_t run_count;
};

/* Reads directory `path` as a run when it holds profile or XProf files,
 * else as a log directory. LOAD_BAD_INPUT with a message when it cannot
 * be read or holds neither. */
enum load_status logdir_open(const char *path, struct logdir *logdir, struct load_error *error);
void logdir_free(struct logdir *logdir);

/* One directory's files as a run named `name`; LOAD_BAD_INPUT when it
 * cannot be read. */
enum load_status logdir_read_run(const char *path, const char *name, struct logdir_run *run,
                                 struct load_error *error);
void logdir_run_free(struct logdir_run *run);

/* Hosts with a memory source (those memtop opens). */
size_t logdir_run_memory_hosts(const struct logdir_run *run);
/* The newest run with a memory source; run_count when there is none. */
size_t logdir_newest_run(const struct logdir *logdir);

enum logdir_match { LOGDIR_MATCH_ONE, LOGDIR_MATCH_NONE, LOGDIR_MATCH_SEVERAL };
/* The run named `name` (as XProf names it), else the only run whose
 * folder is `name`: *index; LOGDIR_MATCH_SEVERAL when several folders are. */
enum logdir_match logdir_find_run(const struct logdir *logdir, const char *name, size_t *index);

/* "2026-11-23 06:39:19" when the run folder is a capture's timestamp
 * (YYYY_MM_DD_HH_MM_SS); false otherwise. */
bool logdir_run_date(const struct logdir_run *run, char *text, size_t size);

/* The file of a host memtop opens: its first memory source that a
 * format reads, else its first memory source; NULL when it has none. */
const struct run_file *run_host_source(const struct run_host *host);

/* The tools XProf lists for a host (NULL: the whole run): XSpace files
 * give theirs alone, else each file's; into tools[], at most `size`,
 * without repeats; returns the count. */
size_t logdir_tools(const struct logdir_run *run, const struct run_host *host, const char **tools,
                    size_t size);

/* "no memory profile files in this directory (*.pb, ...)", and with
 * log_directory that no plugins/profile directory is below it either. */
void logdir_error_no_profiles(struct load_error *error, bool log_directory);

/* How a file name reads in a run: the format that reads it, its XProf
 * kind and the length of its host name. false when it is neither a
 * profile file nor a file XProf names (nor a hidden file). */
bool run_file_classify(const char *name, const struct input_format **format,
                       const struct xprof_file_kind **kind, size_t *host_length);

#endif
