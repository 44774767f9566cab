/* The background loader (model/host_loader.h): every host of a list gets
 * loaded, a wanted host too, a new list takes over, unloaded hosts load
 * again, and the wake pipe says when something changed. Waits poll the
 * pipe with a generous limit that only a hang reaches: nothing here
 * depends on how fast the machine is. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/host_list.h"
#include "model/host_loader.h"
#include "tests/test_support.h"

/* A run directory of `count` small MemoryProfile hosts, host i peaking
 * at (i + 1) KiB; its path, malloc'd. */
static char *make_run(const char *name, size_t count)
{
    size_t size = strlen(test_directory()) + strlen(name) + 2;
    char *directory = malloc(size);
    assert_non_null(directory);
    snprintf(directory, size, "%s/%s", test_directory(), name);
    char command[1024];
    snprintf(command, sizeof command, "mkdir -p '%s'", directory);
    assert_int_equal(system(command), 0);
    for (size_t i = 0; i < count; i++) {
        long peak = (long)(i + 1) * 1024;
        char json[512], path[1024];
        snprintf(json, sizeof json,
                 "{\"memoryProfilePerAllocator\":{\"GPU_0_bfc\":{\"memoryProfileSnapshots\":["
                 "{\"timeOffsetPs\":\"5\",\"aggregationStats\":{\"heapAllocatedBytes\":\"%ld\"},"
                 "\"activityMetadata\":{\"memoryActivity\":\"ALLOCATION\","
                 "\"allocationBytes\":\"%ld\"}}]}},\"version\":1}",
                 peak, peak);
        snprintf(path, sizeof path, "%s/host-%02zu.memory_profile.json.gz", directory, i);
        size_t gzipped_size;
        uint8_t *gzipped = test_gzip_bytes(json, strlen(json), &gzipped_size);
        FILE *file = fopen(path, "wb");
        assert_non_null(file);
        assert_int_equal(fwrite(gzipped, 1, gzipped_size, file), gzipped_size);
        assert_int_equal(fclose(file), 0);
        free(gzipped);
    }
    return directory;
}

static void open_run(struct host_list *list, const char *directory)
{
    char *paths[] = {(char *)directory};
    const char *bad;
    struct load_error error;
    assert_int_equal(host_list_open(list, paths, 1, &bad, &error), LOAD_OK);
}

static bool all_loaded(const struct host_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        if (host_state(&list->hosts[i]) != HOST_LOADED)
            return false;
    return true;
}

/* Waits on the wake pipe until the host (or, with index SIZE_MAX, every
 * host) is loaded; fails only if nothing happens for a minute. */
static void wait_loaded(struct host_loader *loader, const struct host_list *list, size_t index)
{
    for (;;) {
        if (index == SIZE_MAX ? all_loaded(list)
                              : host_state(&list->hosts[index]) == HOST_LOADED)
            return;
        struct pollfd wake = {.fd = host_loader_wake_fd(loader), .events = POLLIN};
        if (poll(&wake, 1, 60000) <= 0)
            fail_msg("no news from the loader for a minute");
        host_loader_drain(loader);
    }
}

static void assert_host_peak(const struct host_list *list, size_t index)
{
    const struct host *host = &list->hosts[index];
    assert_int_equal(host_state(host), HOST_LOADED);
    assert_int_equal(host->status, LOAD_OK);
    assert_non_null(host->profile);
    assert_int_equal(host->profile->allocators[0].summary.peak_bytes, (int64_t)(index + 1) * 1024);
    assert_int_equal(host_load_percent(host), 100);
}

/* Waits for every host of the list, checks each, stops the loader and
 * frees the list and its directory's name. */
static void finish_all_loaded(struct host_loader *loader, struct host_list *list,
                              char *directory)
{
    wait_loaded(loader, list, SIZE_MAX);
    for (size_t i = 0; i < list->count; i++)
        assert_host_peak(list, i);
    host_loader_stop(loader);
    host_list_free(list);
    free(directory);
}

static void test_every_host_loads(void **state)
{
    (void)state;
    char *directory = make_run("all", 12);
    struct host_list list;
    open_run(&list, directory);
    struct host_loader *loader = host_loader_start();
    assert_non_null(loader);
    host_loader_set_list(loader, &list);
    finish_all_loaded(loader, &list, directory);
}

/* The host asked for is loaded; another list then takes over, the hosts
 * of the first are either loaded or still idle, never half done. */
static void test_wanted_host_and_a_new_list(void **state)
{
    (void)state;
    char *first_directory = make_run("first", 16), *second_directory = make_run("second", 5);
    struct host_list first, second;
    open_run(&first, first_directory);
    open_run(&second, second_directory);
    struct host_loader *loader = host_loader_start();
    assert_non_null(loader);
    host_loader_set_list(loader, &first);
    host_loader_want(loader, 13);
    wait_loaded(loader, &first, 13);
    assert_host_peak(&first, 13);
    host_loader_set_list(loader, &second);
    wait_loaded(loader, &second, SIZE_MAX);
    for (size_t i = 0; i < second.count; i++)
        assert_host_peak(&second, i);
    host_loader_stop(loader);
    for (size_t i = 0; i < first.count; i++)
        assert_int_not_equal(host_state(&first.hosts[i]), HOST_LOADING);
    host_list_free(&first);
    host_list_free(&second);
    free(first_directory);
    free(second_directory);
}

/* An unloaded host loads again when wanted; a host that fails keeps its
 * error and does not stop the others. */
static void test_unload_and_failures(void **state)
{
    (void)state;
    char *directory = make_run("again", 3);
    char broken[1024];
    snprintf(broken, sizeof broken, "%s/host-zz.memory_profile.json.gz", directory);
    FILE *file = fopen(broken, "wb");
    assert_non_null(file);
    fputs("not gzip", file);
    fclose(file);
    struct host_list list;
    open_run(&list, directory);
    assert_int_equal(list.count, 4);
    struct host_loader *loader = host_loader_start();
    assert_non_null(loader);
    host_loader_set_list(loader, &list);
    wait_loaded(loader, &list, SIZE_MAX);
    assert_int_equal(list.hosts[3].status, LOAD_BAD_INPUT);
    assert_null(list.hosts[3].profile);
    host_unload(&list.hosts[1]);
    assert_int_equal(host_state(&list.hosts[1]), HOST_IDLE);
    host_loader_want(loader, 1);
    wait_loaded(loader, &list, 1);
    assert_host_peak(&list, 1);
    host_loader_stop(loader);
    host_list_free(&list);
    free(directory);
}

/* The tests' gate: hosts are taken (loading) but not loaded until the
 * gate file exists; then every one loads. */
static void test_gate_holds_loads(void **state)
{
    (void)state;
    char *directory = make_run("gated", 3);
    char gate[1024];
    snprintf(gate, sizeof gate, "%s/gate", test_directory());
    setenv("MEMTOP_TEST_LOAD_GATE", gate, 1);
    struct host_list list;
    open_run(&list, directory);
    struct host_loader *loader = host_loader_start();
    unsetenv("MEMTOP_TEST_LOAD_GATE");
    assert_non_null(loader);
    host_loader_set_list(loader, &list);
    host_loader_want(loader, 2);
    /* Taken (a generous wait), and still not loaded a while later. */
    const struct timespec pause = {0, 10 * 1000 * 1000};
    for (int i = 0; i < 6000 && host_state(&list.hosts[2]) != HOST_LOADING; i++)
        nanosleep(&pause, NULL);
    assert_int_equal(host_state(&list.hosts[2]), HOST_LOADING);
    for (int i = 0; i < 10; i++)
        nanosleep(&pause, NULL);
    for (size_t i = 0; i < list.count; i++)
        assert_int_not_equal(host_state(&list.hosts[i]), HOST_LOADED);
    FILE *file = fopen(gate, "w");
    assert_non_null(file);
    fclose(file);
    finish_all_loaded(loader, &list, directory);
}

static void test_stop_without_a_list(void **state)
{
    (void)state;
    struct host_loader *loader = host_loader_start();
    assert_non_null(loader);
    host_loader_want(loader, 3);
    host_loader_set_list(loader, NULL);
    host_loader_stop(loader);
    host_loader_stop(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_host_loads),
        cmocka_unit_test(test_wanted_host_and_a_new_list),
        cmocka_unit_test(test_unload_and_failures),
        cmocka_unit_test(test_gate_holds_loads),
        cmocka_unit_test(test_stop_without_a_list),
    };
    return cmocka_run_group_tests(tests, test_directory_create, test_directory_remove);
}
