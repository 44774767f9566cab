/* go_to: see go_to.h. Numbers are read with strtod in the "C" locale's
 * form (main keeps LC_NUMERIC at "C"); the result is rounded to whole
 * picoseconds and must fit an int64. */
#include "config.h"

#include "model/query/go_to.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *skip_spaces(const char *text)
{
    while (*text == ' ' || *text == '\t')
        text++;
    return text;
}

/* `word` and nothing after it but spaces (letters in any case). */
static bool is_word(const char *text, const char *word)
{
    size_t length = strlen(word);
    return strncasecmp(text, word, length) == 0 && *skip_spaces(text + length) == '\0';
}

struct time_unit {
    const char *name;
    double picoseconds;
};

static const struct time_unit time_units[] = {
    {"ms", 1e9}, {"s", 1e12}, {"us", 1e6}, {"\xc2\xb5s", 1e6}, {"ns", 1e3}, {"ps", 1},
    {"", 1e9}, /* a bare number: milliseconds */
};

static bool parse_time(const char *text, struct go_to *place, char *error, size_t size)
{
    char *end;
    double value = strtod(text, &end);
    if (end == text || !(value >= 0 && value < 1e300)) {
        snprintf(error, size, "not a place: %s (try 412.3 ms, step 5, peak or oom)", text);
        return false;
    }
    const char *unit = skip_spaces(end);
    for (size_t i = 0; i < sizeof time_units / sizeof *time_units; i++) {
        if (!is_word(unit, time_units[i].name) &&
            !(time_units[i].name[0] == '\0' && *unit == '\0'))
            continue;
        double picoseconds = value * time_units[i].picoseconds;
        if (picoseconds >= 9.2e18) {
            snprintf(error, size, "%s is past any timeline", text);
            return false;
        }
        place->kind = GO_TO_TIME;
        place->time_ps = (int64_t)(picoseconds + 0.5);
        return true;
    }
    snprintf(error, size, "unknown unit '%s' (s, ms, us, ns or ps)", unit);
    return false;
}

bool go_to_parse(const char *text, struct go_to *place, char *error, size_t size)
{
    memset(place, 0, sizeof *place);
    text = skip_spaces(text);
    if (is_word(text, "peak")) {
        place->kind = GO_TO_PEAK;
        return true;
    }
    if (is_word(text, "oom")) {
        place->kind = GO_TO_OOM;
        return true;
    }
    if (strncasecmp(text, "step", 4) == 0) {
        const char *number = skip_spaces(text + 4);
        char *end;
        long long step = strtoll(number, &end, 10);
        if (end == number || *skip_spaces(end) != '\0' || step < 0) {
            snprintf(error, size, "which step? (step 5)");
            return false;
        }
        place->kind = GO_TO_STEP;
        place->step = step;
        return true;
    }
    if (*text == '\0') {
        snprintf(error, size, "go to where? (412.3 ms, step 5, peak or oom)");
        return false;
    }
    return parse_time(text, place, error, size);
}
