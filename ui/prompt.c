#include "config.h"

#include "ui/prompt.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <curses.h>

#include "model/format.h"
#include "ui/keys.h"

void prompt_start(struct prompt *prompt, const char *label, const char *initial,
                  prompt_callback on_change, prompt_callback on_accept,
                  prompt_callback on_cancel)
{
    memset(prompt, 0, sizeof *prompt);
    prompt->active = true;
    snprintf(prompt->label, sizeof prompt->label, "%s", label ? label : "");
    snprintf(prompt->text, sizeof prompt->text, "%s", initial ? initial : "");
    prompt->length = strlen(prompt->text);
    prompt->on_change = on_change;
    prompt->on_accept = on_accept;
    prompt->on_cancel = on_cancel;
}

void prompt_start_one_key(struct prompt *prompt, const char *label, prompt_callback on_answer)
{
    prompt_start(prompt, label, "", NULL, on_answer, NULL);
    prompt->one_key = true;
}

void prompt_one_key_answer(int key, char *text, size_t size)
{
    if (size == 0)
        return;
    text[0] = '\0';
    if (key > 0x20 && key < 0x7f && size > 1) {
        text[0] = (char)key;
        text[1] = '\0';
    }
}

static void prompt_delete_character(struct prompt *prompt)
{
    /* Back over UTF-8 continuation bytes to the start of the character. */
    while (prompt->length > 0) {
        unsigned char byte = (unsigned char)prompt->text[--prompt->length];
        if ((byte & 0xc0) != 0x80)
            break;
    }
    prompt->text[prompt->length] = '\0';
}

/* Bytes of a UTF-8 character arrive one key at a time: the filter waits
 * for the whole character, and a byte that cannot be UTF-8 is dropped. */
static bool prompt_last_character_complete(struct prompt *prompt)
{
    size_t start = prompt->length - 1;
    while (start > 0 && prompt->length - start < 4 &&
           ((unsigned char)prompt->text[start] & 0xc0) == 0x80)
        start--;
    unsigned char lead = (unsigned char)prompt->text[start];
    size_t expected = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    size_t have = prompt->length - start;
    if (lead >= 0xc0 && lead < 0xf8 && have < expected)
        return false; /* more to come */
    uint32_t code_point;
    if (have == expected && format_utf8_decode(prompt->text + start, &code_point) == have)
        return true;
    prompt->length = start; /* not UTF-8: drop it */
    prompt->text[start] = '\0';
    return false;
}

enum prompt_outcome prompt_edit(struct prompt *prompt, int key)
{
    switch (key) {
    case KEY_CODE_ESCAPE: return PROMPT_CANCELLED;
    case '\n':
    case '\r':
    case KEY_ENTER: return PROMPT_ACCEPTED;
    case KEY_BACKSPACE:
    case 127:
    case KEY_CODE_CONTROL('h'):
        if (prompt->length == 0)
            return PROMPT_KEPT;
        prompt_delete_character(prompt);
        return PROMPT_EDITED;
    case KEY_CODE_CONTROL('u'):
        prompt->length = 0;
        prompt->text[0] = '\0';
        return PROMPT_EDITED;
    case KEY_CODE_CONTROL('l'): return PROMPT_REDRAW;
    case KEY_UP:
    case KEY_DOWN:
    case KEY_PPAGE:
    case KEY_NPAGE: return PROMPT_MOVE;
    default: break;
    }
    /* Bytes of UTF-8 characters arrive one by one and are kept as bytes;
     * other curses keys (arrows, F-keys) are not text. */
    if (key < 0x20 || key > 0xff || key == 0x7f)
        return PROMPT_KEPT;
    if (prompt->length + 1 >= sizeof prompt->text)
        return PROMPT_KEPT;
    prompt->text[prompt->length++] = (char)key;
    prompt->text[prompt->length] = '\0';
    if (key >= 0x80 && !prompt_last_character_complete(prompt))
        return PROMPT_KEPT;
    return PROMPT_EDITED;
}
