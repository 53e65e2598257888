#include "CRecordBIO.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct record_bio_state {
    // Lent by the owner for one call: read first after `kept`.
    const unsigned char *lent;
    size_t lent_length;
    // Bytes of an earlier loan OpenSSL had not read: read before `lent`.
    unsigned char *kept;
    size_t kept_offset, kept_length, kept_capacity;
    // Records written by OpenSSL, sent from `output_offset`.
    unsigned char *output;
    size_t output_offset, output_length, output_capacity;
};

static struct record_bio_state *state_of(BIO *bio) { return (struct record_bio_state *)BIO_get_data(bio); }

static int record_bio_create(BIO *bio) {
    struct record_bio_state *state = calloc(1, sizeof(struct record_bio_state));
    if (state == NULL) return 0;
    BIO_set_data(bio, state);
    BIO_set_init(bio, 1);
    return 1;
}

static int record_bio_destroy(BIO *bio) {
    struct record_bio_state *state = state_of(bio);
    if (state != NULL) {
        free(state->kept);
        free(state->output);
        free(state);
    }
    BIO_set_data(bio, NULL);
    BIO_set_init(bio, 0);
    return 1;
}

static int record_bio_read(BIO *bio, char *buffer, int size) {
    struct record_bio_state *state = state_of(bio);
    BIO_clear_retry_flags(bio);
    if (size <= 0) return 0;
    size_t wanted = (size_t)size;
    if (state->kept_offset < state->kept_length) {
        size_t count = state->kept_length - state->kept_offset;
        if (count > wanted) count = wanted;
        memcpy(buffer, state->kept + state->kept_offset, count);
        state->kept_offset += count;
        if (state->kept_offset == state->kept_length) state->kept_offset = state->kept_length = 0;
        return (int)count;
    }
    if (state->lent_length > 0) {
        size_t count = state->lent_length < wanted ? state->lent_length : wanted;
        memcpy(buffer, state->lent, count);
        state->lent += count;
        state->lent_length -= count;
        return (int)count;
    }
    // Nothing more now: OpenSSL answers WANT_READ, not end of file.
    BIO_set_retry_read(bio);
    return -1;
}

/// Makes room for `more` bytes after `length` in `*buffer` of `*capacity` (doubling, 4 KiB at least).
static int reserve(unsigned char **buffer, size_t *capacity, size_t length, size_t more) {
    if (length + more <= *capacity) return 1;
    size_t grown = *capacity < 4096 ? 4096 : *capacity;
    while (grown < length + more) grown *= 2;
    unsigned char *moved = realloc(*buffer, grown);
    if (moved == NULL) return 0;
    *buffer = moved;
    *capacity = grown;
    return 1;
}

static int record_bio_write(BIO *bio, const char *bytes, int size) {
    struct record_bio_state *state = state_of(bio);
    BIO_clear_retry_flags(bio);
    if (size <= 0) return 0;
    if (state->output_offset == state->output_length) state->output_offset = state->output_length = 0;
    if (!reserve(&state->output, &state->output_capacity, state->output_length, (size_t)size)) return -1;
    memcpy(state->output + state->output_length, bytes, (size_t)size);
    state->output_length += (size_t)size;
    return size;
}

static long record_bio_ctrl(BIO *bio, int command, long number, void *pointer) {
    (void)number;
    (void)pointer;
    switch (command) {
    case BIO_CTRL_PENDING: return (long)record_bio_input_pending(bio);
    case BIO_CTRL_WPENDING: {
        struct record_bio_state *state = state_of(bio);
        return (long)(state->output_length - state->output_offset);
    }
    case BIO_CTRL_FLUSH: return 1;  // the owner sends the output
    default: return 0;
    }
}

static BIO_METHOD *method;
static pthread_once_t method_once = PTHREAD_ONCE_INIT;

static void make_method(void) {
    BIO_METHOD *made = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "expense records");
    if (made == NULL) return;
    if (BIO_meth_set_create(made, record_bio_create) != 1 || BIO_meth_set_destroy(made, record_bio_destroy) != 1
        || BIO_meth_set_read(made, record_bio_read) != 1 || BIO_meth_set_write(made, record_bio_write) != 1
        || BIO_meth_set_ctrl(made, record_bio_ctrl) != 1) {
        BIO_meth_free(made);
        return;
    }
    method = made;
}

BIO *record_bio_new(void) {
    pthread_once(&method_once, make_method);
    return method != NULL ? BIO_new(method) : NULL;
}

void record_bio_lend_input(BIO *bio, const void *bytes, size_t count) {
    struct record_bio_state *state = state_of(bio);
    state->lent = bytes;
    state->lent_length = count;
}

int record_bio_keep_input(BIO *bio) {
    struct record_bio_state *state = state_of(bio);
    size_t left = state->lent_length;
    const unsigned char *rest = state->lent;
    state->lent = NULL;
    state->lent_length = 0;
    if (left == 0) return 0;
    if (state->kept_offset > 0) {
        memmove(state->kept, state->kept + state->kept_offset, state->kept_length - state->kept_offset);
        state->kept_length -= state->kept_offset;
        state->kept_offset = 0;
    }
    if (!reserve(&state->kept, &state->kept_capacity, state->kept_length, left)) return -1;
    memcpy(state->kept + state->kept_length, rest, left);
    state->kept_length += left;
    return 0;
}

size_t record_bio_input_pending(BIO *bio) {
    struct record_bio_state *state = state_of(bio);
    return state->kept_length - state->kept_offset + state->lent_length;
}

const unsigned char *record_bio_output(BIO *bio, size_t *count) {
    struct record_bio_state *state = state_of(bio);
    *count = state->output_length - state->output_offset;
    return state->output != NULL ? state->output + state->output_offset : NULL;
}

void record_bio_consume_output(BIO *bio, size_t count) {
    struct record_bio_state *state = state_of(bio);
    size_t pending = state->output_length - state->output_offset;
    state->output_offset += count < pending ? count : pending;
    if (state->output_offset == state->output_length) state->output_offset = state->output_length = 0;
}

size_t record_bio_capacity(BIO *bio) {
    struct record_bio_state *state = state_of(bio);
    return state->kept_capacity + state->output_capacity;
}

void record_bio_release_buffers(BIO *bio) {
    struct record_bio_state *state = state_of(bio);
    if (state->kept_offset == state->kept_length) {
        free(state->kept);
        state->kept = NULL;
        state->kept_offset = state->kept_length = state->kept_capacity = 0;
    }
    if (state->output_offset == state->output_length) {
        free(state->output);
        state->output = NULL;
        state->output_offset = state->output_length = state->output_capacity = 0;
    }
}
