/* Log directories: finding runs below a log directory as XProf does,
 * their names and order, each run's hosts and their files, and the host
 * lists memtop opens from them (model/logdir.h, model/host_list.h). */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model/host_list.h"
#include "model/input_format.h"
#include "model/logdir.h"
#include "tests/test_support.h"

/* ---- building trees ---- */

static char *tree_path(const char *relative)
{
    size_t size = strlen(test_directory()) + strlen(relative) + 2;
    char *path = malloc(size);
    assert_non_null(path);
    snprintf(path, size, "%s/%s", test_directory(), relative);
    return path;
}

/* mkdir -p of every directory in `path` (up to its last slash, or all
 * of it with `whole`). */
static void make_directories(const char *path, bool whole)
{
    char *copy = strdup(path);
    assert_non_null(copy);
    for (char *slash = strchr(copy + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        assert_true(mkdir(copy, 0755) == 0 || errno == EEXIST);
        *slash = '/';
    }
    if (whole)
        assert_true(mkdir(copy, 0755) == 0 || errno == EEXIST);
    free(copy);
}

static void make_file_with(const char *relative, const void *bytes, size_t size)
{
    char *path = tree_path(relative);
    make_directories(path, false);
    FILE *file = fopen(path, "wb");
    assert_non_null(file);
    assert_int_equal(fwrite(bytes, 1, size, file), size);
    assert_int_equal(fclose(file), 0);
    free(path);
}

static void make_file(const char *relative)
{
    make_file_with(relative, "x", 1);
}

static void make_directory(const char *relative)
{
    char *path = tree_path(relative);
    make_directories(path, true);
    free(path);
}

/* A tiny MemoryProfile, gzipped, as TF 2.2-2.5 wrote them. */
static void make_profile(const char *relative, const char *allocator, long peak)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"memoryProfilePerAllocator\":{\"%s\":{\"memoryProfileSnapshots\":["
             "{\"timeOffsetPs\":\"1000\",\"aggregationStats\":{\"heapAllocatedBytes\":\"%ld\","
             "\"peakBytesInUse\":\"%ld\"},\"activityMetadata\":{\"memoryActivity\":"
             "\"ALLOCATION\",\"allocationBytes\":\"%ld\",\"tfOpName\":\"op\"}}]}},"
             "\"numHosts\":1,\"memoryIds\":[\"%s\"],\"version\":1}",
             allocator, peak, peak, peak, allocator);
    size_t size;
    uint8_t *gzipped = test_gzip_bytes(json, strlen(json), &size);
    make_file_with(relative, gzipped, size);
    free(gzipped);
}

static void set_modified(const char *relative, time_t seconds)
{
    char *path = tree_path(relative);
    struct timeval times[2] = {{seconds, 0}, {seconds, 0}};
    assert_int_equal(utimes(path, times), 0);
    free(path);
}

static struct logdir open_logdir(const char *relative)
{
    char *path = tree_path(relative);
    struct logdir logdir;
    struct load_error error;
    enum load_status status = logdir_open(path, &logdir, &error);
    if (status != LOAD_OK)
        fail_msg("%s: %s", path, error.message);
    free(path);
    return logdir;
}

static const struct run_host *find_host(const struct logdir_run *run, const char *name)
{
    for (size_t i = 0; i < run->host_count; i++)
        if (strcmp(run->hosts[i].name, name) == 0)
            return &run->hosts[i];
    fail_msg("run %s has no host %s", run->name, name);
    return NULL;
}

/* Whether this memtop's format table reads XSpace files. */
static bool reads_xspace(void)
{
    size_t length;
    return input_format_for_name("h.xplane.pb", &length) && length == strlen(".xplane.pb");
}

/* ---- the tests ---- */

/* Keras puts the profile plugin below <log_dir>/train; runs are named by
 * the directories above plugins and the run folder, newest first. */
static void test_nested_runs_named_and_ordered(void **state)
{
    (void)state;
    make_file("keras/train/plugins/profile/2026_11_23_06_39_19/BlueDiamond.local.memory_profile.json.gz");
    make_file("keras/train/plugins/profile/2026_11_23_06_39_19/10.0.0.2_8466.memory_profile.json.gz");
    make_file("keras/validation/plugins/profile/2026_11_23_06_40_00/worker.memory_profile.json.gz");
    make_file("keras/plugins/profile/2025_01_01_00_00_00/old.memory_profile.json.gz");
    make_file("keras/notes/readme.txt");
    struct logdir logdir = open_logdir("keras");
    assert_int_equal(logdir.kind, LOGDIR_LOG_DIRECTORY);
    assert_int_equal(logdir.run_count, 3);
    assert_string_equal(logdir.runs[0].name, "validation/2026_11_23_06_40_00");
    assert_string_equal(logdir.runs[1].name, "train/2026_11_23_06_39_19");
    assert_string_equal(logdir.runs[2].name, "2025_01_01_00_00_00");
    const struct logdir_run *train = &logdir.runs[1];
    assert_int_equal(train->host_count, 2);
    /* Sorted by name; dots and the remote port kept in the host. */
    assert_string_equal(train->hosts[0].name, "10.0.0.2_8466");
    assert_string_equal(train->hosts[1].name, "BlueDiamond.local");
    assert_int_equal(logdir_newest_run(&logdir), 0);
    char date[32];
    assert_true(logdir_run_date(train, date, sizeof date));
    assert_string_equal(date, "2026-11-23 06:39:19");
    logdir_free(&logdir);
}

/* The same folder name below two directories: the newer directory first,
 * and a folder that is not a timestamp is still a run. */
static void test_ties_by_modification_time(void **state)
{
    (void)state;
    make_file("ties/a/plugins/profile/2026_01_01_00_00_00/h.memory_profile.json.gz");
    make_file("ties/b/plugins/profile/2026_01_01_00_00_00/h.memory_profile.json.gz");
    make_file("ties/c/plugins/profile/my run/h.memory_profile.json.gz");
    set_modified("ties/a/plugins/profile/2026_01_01_00_00_00", 2000000000);
    set_modified("ties/b/plugins/profile/2026_01_01_00_00_00", 1000000000);
    struct logdir logdir = open_logdir("ties");
    assert_int_equal(logdir.run_count, 3);
    /* "my run" sorts after the digits, as a name, descending. */
    assert_string_equal(logdir.runs[0].name, "c/my run");
    assert_string_equal(logdir.runs[1].name, "a/2026_01_01_00_00_00");
    assert_string_equal(logdir.runs[2].name, "b/2026_01_01_00_00_00");
    char date[32];
    assert_false(logdir_run_date(&logdir.runs[0], date, sizeof date));
    size_t index = 99;
    assert_int_equal(logdir_find_run(&logdir, "b/2026_01_01_00_00_00", &index),
                     LOGDIR_MATCH_ONE);
    assert_int_equal(index, 2);
    assert_int_equal(logdir_find_run(&logdir, "my run", &index), LOGDIR_MATCH_ONE);
    assert_int_equal(index, 0);
    assert_int_equal(logdir_find_run(&logdir, "2026_01_01_00_00_00", &index),
                     LOGDIR_MATCH_SEVERAL);
    assert_int_equal(logdir_find_run(&logdir, "nope", &index), LOGDIR_MATCH_NONE);
    logdir_free(&logdir);
}

/* One host with both memory sources: one host, the XSpace preferred
 * when memtop reads it; other XProf files listed with their tools, HLO
 * protos not hosts. */
static void test_both_suffixes_one_host(void **state)
{
    (void)state;
    make_file("both/plugins/profile/run/h.xplane.pb");
    make_file("both/plugins/profile/run/h.memory_profile.json.gz");
    make_file("both/plugins/profile/run/h.trace.json.gz");
    make_file("both/plugins/profile/run/tracer.trace.json.gz");
    make_file("both/plugins/profile/run/jit_step.hlo_proto.pb");
    struct logdir logdir = open_logdir("both");
    const struct logdir_run *run = &logdir.runs[0];
    assert_string_equal(run->name, "run");
    assert_int_equal(run->host_count, 2);
    const struct run_host *host = find_host(run, "h");
    assert_int_equal(host->file_count, 3);
    assert_int_equal(host->source_count, 2);
    assert_string_equal(host->files[0].kind->suffix, ".xplane.pb");
    assert_string_equal(host->files[1].kind->suffix, ".memory_profile.json.gz");
    assert_string_equal(host->files[2].kind->suffix, ".trace.json.gz");
    const struct run_file *source = run_host_source(host);
    assert_ptr_equal(source, reads_xspace() ? &host->files[0] : &host->files[1]);
    assert_non_null(source->format);
    const struct run_host *tracer = find_host(run, "tracer");
    assert_int_equal(tracer->source_count, 0);
    assert_null(run_host_source(tracer));
    assert_int_equal(logdir_run_memory_hosts(run), 1);
    /* XSpace files give XProf's whole list, and only it. */
    const char *tools[32];
    size_t count = logdir_tools(run, NULL, tools, 32);
    assert_int_equal(count, 8);
    assert_string_equal(tools[0], "trace_viewer");
    assert_string_equal(tools[4], "memory_profile");
    count = logdir_tools(run, tracer, tools, 32);
    assert_int_equal(count, 1);
    assert_string_equal(tools[0], "trace_viewer");
    logdir_free(&logdir);
}

/* An older TF capture: per-tool files, no XSpace. */
static void test_tools_without_xspace(void **state)
{
    (void)state;
    make_file("tf25/plugins/profile/2021_05_01_10_00_00/host.memory_profile.json.gz");
    make_file("tf25/plugins/profile/2021_05_01_10_00_00/host.trace.json.gz");
    make_file("tf25/plugins/profile/2021_05_01_10_00_00/host.overview_page.pb");
    make_file("tf25/plugins/profile/2021_05_01_10_00_00/host.kernel_stats.pb");
    struct logdir logdir = open_logdir("tf25");
    const char *tools[32];
    size_t count = logdir_tools(&logdir.runs[0], NULL, tools, 32);
    assert_int_equal(count, 4);
    assert_string_equal(tools[0], "memory_profile");
    assert_string_equal(tools[1], "trace_viewer");
    assert_string_equal(tools[2], "overview_page");
    assert_string_equal(tools[3], "kernel_stats");
    assert_int_equal(logdir.runs[0].host_count, 1);
    logdir_free(&logdir);
}

/* A run directory given itself is one run; a directory holding neither
 * profiles nor runs is refused; an empty plugins/profile has no run. */
static void test_run_directory_and_refusals(void **state)
{
    (void)state;
    make_file("single/plugins/profile/2026_02_02_02_02_02/w1.memory_profile.json.gz");
    struct logdir logdir = open_logdir("single/plugins/profile/2026_02_02_02_02_02/");
    assert_int_equal(logdir.kind, LOGDIR_RUN);
    assert_int_equal(logdir.run_count, 1);
    assert_string_equal(logdir.runs[0].name, "2026_02_02_02_02_02");
    logdir_free(&logdir);
    /* plugins/profile given directly: its runs. */
    logdir = open_logdir("single/plugins/profile");
    assert_int_equal(logdir.kind, LOGDIR_LOG_DIRECTORY);
    assert_string_equal(logdir.runs[0].name, "2026_02_02_02_02_02");
    logdir_free(&logdir);

    make_file("plain/notes.txt");
    make_directory("plain/empty/plugins/profile");
    char *path = tree_path("plain");
    struct load_error error;
    assert_int_equal(logdir_open(path, &logdir, &error), LOAD_BAD_INPUT);
    assert_non_null(strstr(error.message, "no memory profile files in this directory ("));
    assert_non_null(strstr(error.message, "no plugins/profile directory below it"));
    free(path);
    path = tree_path("missing");
    assert_int_equal(logdir_open(path, &logdir, &error), LOAD_BAD_INPUT);
    assert_string_equal(error.message, strerror(ENOENT));
    free(path);

    /* An empty run folder is a run without hosts: listed, never newest. */
    make_directory("emptyrun/plugins/profile/2030_01_01_00_00_00");
    make_file("emptyrun/plugins/profile/2020_01_01_00_00_00/h.memory_profile.json.gz");
    logdir = open_logdir("emptyrun");
    assert_int_equal(logdir.run_count, 2);
    assert_int_equal(logdir.runs[0].host_count, 0);
    assert_int_equal(logdir_newest_run(&logdir), 1);
    logdir_free(&logdir);
}

/* A symlink back up the tree is followed once; two links to one place
 * give its runs once. The walk stops LOGDIR_MAX_DEPTH levels down. */
static void test_symlink_loop_and_depth(void **state)
{
    (void)state;
    make_file("loop/x/plugins/profile/r1/h.memory_profile.json.gz");
    char *target = tree_path("loop");
    char *link = tree_path("loop/x/up");
    assert_int_equal(symlink(target, link), 0);
    free(link);
    link = tree_path("loop/again");
    assert_int_equal(symlink(target, link), 0);
    free(link);
    free(target);
    struct logdir logdir = open_logdir("loop");
    assert_int_equal(logdir.run_count, 1);
    assert_string_equal(logdir.runs[0].name, "x/r1");
    logdir_free(&logdir);

    char deep[512] = "deep";
    for (int level = 0; level <= LOGDIR_MAX_DEPTH; level++)
        strcat(deep, "/d");
    char file[600];
    snprintf(file, sizeof file, "%s/plugins/profile/r/h.memory_profile.json.gz", deep);
    make_file(file);
    make_file("deep/d/plugins/profile/shallow/h.memory_profile.json.gz");
    logdir = open_logdir("deep");
    assert_int_equal(logdir.run_count, 1);
    assert_string_equal(logdir.runs[0].name, "d/shallow");
    logdir_free(&logdir);
}

/* Runs as another user sees them: an unreadable directory on the way is
 * passed over, an unreadable run stays listed with its error. As root,
 * the check runs in a child that gives up root. */
static int unreadable_check(void)
{
    char *path = tree_path("locked");
    struct logdir logdir;
    struct load_error error;
    if (logdir_open(path, &logdir, &error) != LOAD_OK)
        return 10;
    free(path);
    int result = 0;
    if (logdir.run_count != 2)
        result = 11;
    else if (strcmp(logdir.runs[0].name, "open/r2") != 0 || logdir.runs[0].host_count != 1)
        result = 12;
    else if (strcmp(logdir.runs[1].name, "open/r1") != 0 ||
             logdir.runs[1].read_error != EACCES)
        result = 13;
    logdir_free(&logdir);
    return result;
}

static void test_unreadable_directories(void **state)
{
    (void)state;
    make_file("locked/open/plugins/profile/r2/h.memory_profile.json.gz");
    make_file("locked/open/plugins/profile/r1/h.memory_profile.json.gz");
    make_file("locked/secret/plugins/profile/r3/h.memory_profile.json.gz");
    char *secret = tree_path("locked/secret");
    char *run = tree_path("locked/open/plugins/profile/r1");
    assert_int_equal(chmod(secret, 0), 0);
    assert_int_equal(chmod(run, 0), 0);
    int result;
    if (geteuid() != 0) {
        result = unreadable_check();
    } else {
        assert_int_equal(chmod(test_directory(), 0755), 0);
        pid_t child = fork();
        assert_true(child >= 0);
        if (child == 0)
            _exit(setgid(65534) == 0 && setuid(65534) == 0 ? unreadable_check() : 20);
        int status;
        assert_int_equal(waitpid(child, &status, 0), child);
        result = WIFEXITED(status) ? WEXITSTATUS(status) : 30;
    }
    chmod(secret, 0755);
    chmod(run, 0755);
    free(secret);
    free(run);
    assert_int_equal(result, 0);
}

/* Host names: XProf's suffixes come off whole (dots stay in the host),
 * other profile files keep the name before the first dot. */
static void test_host_names(void **state)
{
    (void)state;
    static const char *const names[][2] = {
        {"r/BlueDiamond.local.memory_profile.json.gz", "BlueDiamond.local"},
        {"r/10.0.0.2_8466.xplane.pb", "10.0.0.2_8466"},
        {"r/t1v-n-0.us-central2-b.c.proj.internal.xplane.pb", "t1v-n-0.us-central2-b.c.proj.internal"},
        {"r/w.trace.json.gz", "w"},
        {"r/worker-1.memory_profile.json.gz", "worker-1"},
        {"data/demo.v0.pb.gz", "demo"},
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char *host = host_name_from_path(names[i][0]);
        assert_string_equal(host, names[i][1]);
        free(host);
    }
}

/* Hosts that share a name are named apart: by file name in one
 * directory, by directory across directories. */
static void test_hosts_named_apart(void **state)
{
    (void)state;
    make_profile("apart/one/w.memory_profile.json.gz", "GPU_0_bfc", 100);
    make_profile("apart/two/w.memory_profile.json.gz", "GPU_0_bfc", 200);
    make_profile("apart/flat/w.pb", "GPU_0_bfc", 300);
    make_profile("apart/flat/w.json", "GPU_0_bfc", 400);
    make_profile("apart/flat/v.json", "GPU_0_bfc", 500);
    char *paths[] = {tree_path("apart/one/w.memory_profile.json.gz"),
                     tree_path("apart/two/w.memory_profile.json.gz"), tree_path("apart/flat")};
    struct host_list list;
    const char *bad = NULL;
    struct load_error error;
    assert_int_equal(host_list_open(&list, paths, 3, &bad, &error), LOAD_OK);
    assert_int_equal(list.count, 5);
    assert_string_equal(list.hosts[0].name, "one/w");
    assert_string_equal(list.hosts[1].name, "two/w");
    assert_string_equal(list.hosts[2].name, "v");
    assert_string_equal(list.hosts[3].name, "w.json");
    assert_string_equal(list.hosts[4].name, "w.pb");
    assert_null(list.run);
    host_list_free(&list);
    for (size_t i = 0; i < 3; i++)
        free(paths[i]);
}

/* The hosts memtop opens from a run: memory sources only, loaded on
 * first use, an unread XSpace saying so. */
static void test_host_list_of_a_run(void **state)
{
    (void)state;
    make_profile("hl/plugins/profile/r/a.memory_profile.json.gz", "GPU_0_bfc", 1000);
    make_profile("hl/plugins/profile/r/b.memory_profile.json.gz", "GPU_0_bfc", 2000);
    make_file("hl/plugins/profile/r/x.xplane.pb");
    make_file("hl/plugins/profile/r/t.trace.json.gz");
    struct logdir logdir = open_logdir("hl");
    struct host_list list;
    struct load_error error;
    assert_int_equal(host_list_open_run(&list, &logdir.runs[0], logdir.runs[0].name, &error),
                     LOAD_OK);
    assert_string_equal(list.run, "r");
    assert_int_equal(list.count, 3);
    assert_string_equal(list.hosts[1].name, "b");
    assert_int_equal(host_state(&list.hosts[1]), HOST_IDLE);
    const struct profile *profile = host_list_load(&list, 1, NULL);
    assert_non_null(profile);
    assert_int_equal(host_state(&list.hosts[1]), HOST_LOADED);
    assert_int_equal(profile->allocators[0].summary.peak_bytes, 2000);
    assert_string_equal(list.hosts[2].name, "x");
    assert_null(host_list_load(&list, 2, NULL));
    assert_int_equal(list.hosts[2].status, LOAD_BAD_INPUT);
    if (!reads_xspace())
        assert_string_equal(list.hosts[2].error.message,
                            "memtop does not read *.xplane.pb files yet");
    else
        assert_null(list.hosts[2].unread_kind);
    host_unload(&list.hosts[1]);
    assert_int_equal(host_state(&list.hosts[1]), HOST_IDLE);
    assert_null(list.hosts[1].profile);
    host_list_free(&list);
    logdir_free(&logdir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nested_runs_named_and_ordered),
        cmocka_unit_test(test_ties_by_modification_time),
        cmocka_unit_test(test_both_suffixes_one_host),
        cmocka_unit_test(test_tools_without_xspace),
        cmocka_unit_test(test_run_directory_and_refusals),
        cmocka_unit_test(test_symlink_loop_and_depth),
        cmocka_unit_test(test_unreadable_directories),
        cmocka_unit_test(test_host_names),
        cmocka_unit_test(test_hosts_named_apart),
        cmocka_unit_test(test_host_list_of_a_run),
    };
    return cmocka_run_group_tests(tests, test_directory_create, test_directory_remove);
}
