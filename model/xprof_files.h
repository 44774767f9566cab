/* xprof_files: the names files have in an XProf run directory
 * (LOGDIR/plugins/profile/<run>/<host>.<suffix>), one row per suffix, and
 * the tools XProf's profile plugin offers for each (its TOOLS table and
 * xspace_to_tool_names; docs/formats/xspace.md).
 *
 * Owns: which suffixes name a host (".xplane.pb" does, ".hlo_proto.pb"
 * names an HLO module), which of them hold memory events and in what
 * order a host's memory sources are preferred (XSpace first), the tools
 * of each suffix and of a run as XProf lists them (EnumSessions).
 * Called by: host_list.c (host names, which file of a host to open) and
 * logdir.c (the files of a run); the --list report through logdir.h.
 * Must not: say whether memtop can read a file: that is the format table's
 * (model/input_format.h); a row only names the suffix a format row must
 * list to read it (format_suffix). */
#ifndef MEMTOP_XPROF_FILES_H
#define MEMTOP_XPROF_FILES_H

#include <stdbool.h>
#include <stddef.h>

struct xprof_file_kind {
    const char *suffix;      /* ".xplane.pb", with its leading dot */
    const char *short_name;  /* "xplane": how a runs list names the source */
    const char *const *tools; /* XProf's tools for such a file, NULL-terminated */
    /* 0: no memory events; else the rank among a host's memory sources
     * (1 is opened first when memtop reads it). */
    unsigned memory_rank;
    /* The suffix a row of the format table must list for memtop to open
     * this file (".json.gz" for ".memory_profile.json.gz"); NULL: the
     * row's own suffix. */
    const char *format_suffix;
    /* The part before the suffix is a host (false: an HLO module's name). */
    bool names_host;
};

/* The row with the longest suffix that ends `name` (a file name, no
 * directory) and leaves a non-empty host before it; NULL when none. */
const struct xprof_file_kind *xprof_file_kind_for_name(const char *name, size_t *suffix_length);

size_t xprof_file_kind_count(void);
const struct xprof_file_kind *xprof_file_kind_at(size_t index);

/* Whether the kind is the raw XSpace, whose tools replace every other
 * file's in a run's list (XProf converts them all from it). */
bool xprof_file_kind_is_xspace(const struct xprof_file_kind *kind);

#endif
