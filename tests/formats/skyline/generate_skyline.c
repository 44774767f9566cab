/* generate_skyline: writes a Skyline memory report as Skyline's
 * report.py does (through tests/skyline_report_maker: the spec's DDL),
 * for the command-line and UI tests and for trying memtop by hand.
 *
 *     generate_skyline -o FILE [--case NAME] [--expect]
 *
 * --expect prints what memtop must find in the report, worked out here
 * from the case's numbers (not by memtop's code): one `key=value` a line. */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/formats/skyline/skyline_report_maker.h"

#define COUNT(array) (sizeof(array) / sizeof *(array))

/* ---- demo: a small convolutional network's report ---- */

static const struct skyline_frame conv1_frames[] = {{"model/net.py", 0, 14},
                                                    {"model/net.py", 0, 9}};
static const struct skyline_frame conv2_frames[] = {{"model/net.py", 0, 15},
                                                    {"model/net.py", 0, 9}};
static const struct skyline_frame fc_frames[] = {{"model/head.py", 0, 22}};
static const struct skyline_frame forward_conv1[] = {{"model/net.py", 0, 31},
                                                     {"entry.py", 0, 18}};
static const struct skyline_frame forward_relu[] = {{"model/net.py", 0, 32},
                                                    {"entry.py", 0, 18}};
static const struct skyline_frame forward_conv2[] = {{"model/net.py", 0, 33},
                                                     {"entry.py", 0, 18}};
static const struct skyline_frame forward_view[] = {{"model/net.py", 0, 34}};
static const struct skyline_frame forward_fc[] = {{"model/head.py", 0, 40},
                                                  {"model/net.py", 0, 35}};
static const struct skyline_frame forward_add[] = {{"model/head.py", 0, 41}};

static const struct skyline_entry demo_weights[] = {
    {"weight", 0, 3456, 3456, conv1_frames, 2},     {"bias", 0, 128, 128, conv1_frames, 2},
    {"weight", 0, 73728, 73728, conv2_frames, 2},   {"bias", 0, 256, 256, conv2_frames, 2},
    {"weight", 0, 4194304, 4194304, fc_frames, 1},  {"bias", 0, 40, 40, fc_frames, 1},
    {"running_mean", 0, 256, 0, NULL, 0},
};
static const struct skyline_entry demo_activations[] = {
    {"conv2d", 0, 8388608, 0, forward_conv1, 2}, {"relu_", 0, 0, 0, forward_relu, 2},
    {"conv2d", 0, 16777216, 0, forward_conv2, 2}, {"view", 0, 0, 0, forward_view, 1},
    {"linear", 0, 5120, 0, forward_fc, 2},       {"add_", 0, -2048, 0, forward_add, 1},
};

/* ---- no gradients: the same weights, inference only ---- */

static const struct skyline_entry frozen_weights[] = {
    {"weight", 0, 3456, 0, conv1_frames, 2},
    {"bias", 0, 128, 0, conv1_frames, 2},
};

/* ---- hostile: names and paths with escapes, bidi, bad UTF-8, NUL ---- */

static const struct skyline_frame hostile_frames[] = {
    {"evil\x1b[2J\x1b]0;pwned\x07/m\xe2\x80\xaeodel.py", 0, 7},
    {"bad\xff\xfeutf8.py", 0, 8},
};
static const struct skyline_entry hostile_weights[] = {
    {"w\x1b[31mred\x1b[0m", 0, 1000, 1000, hostile_frames, 2},
};
static const struct skyline_entry hostile_activations[] = {
    {"nul\0after", 9, 2000, 0, hostile_frames + 1, 1},
    {"\xe2\x80\xae" "desrever", 0, 3000, 0, hostile_frames, 1},
};

struct generator_case {
    const char *name;
    const char *description;
    struct skyline_report report;
    bool other_program; /* an SQLite file that is not a report */
};

static const struct generator_case cases[] = {
    {"demo", "a small network: every kind, a frameless buffer, a view, an in-place op",
     {demo_weights, COUNT(demo_weights), demo_activations, COUNT(demo_activations), true,
      40000000, 1},
     false},
    {"no-gradients", "weights without gradients (inference)",
     {frozen_weights, COUNT(frozen_weights), demo_activations, 2, true, 9000000, 1}, false},
    {"hostile", "escapes, bidi controls, invalid UTF-8 and NUL in names and paths",
     {hostile_weights, 1, hostile_activations, 2, true, 10000, 1}, false},
    {"no-peak", "no peak_usage_bytes row in misc_sizes",
     {demo_weights, 2, NULL, 0, false, 0, 1}, false},
    {"other", "an SQLite database of another program (no Skyline tables)", {0}, true},
};

/* The totals as Skyline's queries sum them: sizes > 0 only. */
static void print_expected(const struct skyline_report *report)
{
    int64_t weights = 0, gradients = 0, activations = 0;
    size_t rows = 0;
    for (size_t i = 0; i < report->weight_count; i++) {
        const struct skyline_entry *entry = &report->weights[i];
        weights += entry->size_bytes > 0 ? entry->size_bytes : 0;
        gradients += entry->grad_size_bytes > 0 ? entry->grad_size_bytes : 0;
        rows += entry->grad_size_bytes != 0 ? 2 : 1;
    }
    for (size_t i = 0; i < report->activation_count; i++) {
        int64_t size = report->activations[i].size_bytes;
        activations += size > 0 ? size : 0;
        rows++;
    }
    int64_t peak = report->has_peak ? report->peak_usage_bytes : 0;
    int64_t untracked = peak - weights - gradients - activations;
    printf("peak_bytes=%" PRId64 "\nentries=%zu\nrows=%zu\nweights_bytes=%" PRId64
           "\ngradients_bytes=%" PRId64 "\nactivations_bytes=%" PRId64
           "\nuntracked_bytes=%" PRId64 "\n",
           peak, report->weight_count + report->activation_count, rows, weights, gradients,
           activations, untracked > 0 ? untracked : 0);
}

static void usage(FILE *out)
{
    fprintf(out, "usage: generate_skyline -o FILE [--case NAME] [--expect]\n"
                 "Writes a Skyline memory report (SQLite) as Skyline does. Cases:\n");
    for (size_t i = 0; i < COUNT(cases); i++)
        fprintf(out, "  %-13s %s%s\n", cases[i].name, cases[i].description,
                i == 0 ? " (default)" : "");
    fprintf(out, "--expect prints the totals memtop must report, one key=value a line.\n");
}

int main(int argc, char **argv)
{
    static const struct option options[] = {
        {"output", required_argument, NULL, 'o'}, {"case", required_argument, NULL, 'c'},
        {"expect", no_argument, NULL, 'e'},       {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *output = NULL, *name = "demo";
    bool expect = false;
    for (int option; (option = getopt_long(argc, argv, "o:c:eh", options, NULL)) != -1;) {
        switch (option) {
        case 'o': output = optarg; break;
        case 'c': name = optarg; break;
        case 'e': expect = true; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    const struct generator_case *chosen = NULL;
    for (size_t i = 0; i < COUNT(cases); i++)
        if (strcmp(cases[i].name, name) == 0)
            chosen = &cases[i];
    if (!chosen || (!output && !expect) || optind != argc) {
        usage(stderr);
        return 2;
    }
    if (expect)
        print_expected(&chosen->report);
    char message[512];
    if (output && !(chosen->other_program
                        ? skyline_report_write_other(output, message, sizeof message)
                        : skyline_report_write(output, &chosen->report, message,
                                               sizeof message))) {
        fprintf(stderr, "generate_skyline: %s\n", message);
        return 1;
    }
    return 0;
}
