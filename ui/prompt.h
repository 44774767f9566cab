/* prompt: a line typed on the status line (the filter, an export's file
 * name, a yes/no): its text, edited key by key as UTF-8, and the
 * callbacks that get it. Owned by the viewer (one prompt at a time);
 * drawn by the status line. Knows no pane: keys that move (arrows,
 * pages) are handed back to the viewer, which gives them to the focused
 * pane, so that one can move through the rows a filter leaves while
 * typing it. */
#ifndef MEMTOP_PROMPT_H
#define MEMTOP_PROMPT_H

#include <stdbool.h>
#include <stddef.h>

struct viewer;
typedef void (*prompt_callback)(struct viewer *viewer, const char *text);

struct prompt {
    bool active;
    /* A question one key answers ("replace? [y/N]"): the key itself is
     * the text on_accept gets ("" for Enter and Esc), no Enter needed. */
    bool one_key;
    char label[64];
    char text[256];
    size_t length;
    prompt_callback on_change; /* after every edit (live filters) */
    prompt_callback on_accept; /* Enter */
    prompt_callback on_cancel; /* Esc */
};

/* What a key did to the prompt. */
enum prompt_outcome {
    PROMPT_KEPT,    /* nothing (a key that is not text) */
    PROMPT_EDITED,  /* the text changed: on_change is due */
    PROMPT_ACCEPTED,
    PROMPT_CANCELLED,
    PROMPT_MOVE,    /* a movement key: for the focused pane */
    PROMPT_REDRAW,  /* Ctrl-L */
};

void prompt_start(struct prompt *prompt, const char *label, const char *initial,
                  prompt_callback on_change, prompt_callback on_accept,
                  prompt_callback on_cancel);
/* A one-key question: the next key answers it (prompt->one_key). */
void prompt_start_one_key(struct prompt *prompt, const char *label, prompt_callback on_answer);
/* The answer a key gives a one-key question, as text: "y" for y, ""
 * for Enter, Esc and keys that are no character. */
void prompt_one_key_answer(int key, char *text, size_t size);

/* Edits the text with one key from terminal_read_key(). */
enum prompt_outcome prompt_edit(struct prompt *prompt, int key);

#endif
