// A BIO that carries one TLS session's records between OpenSSL and the event loop's own buffers: OpenSSL reads
// ciphertext straight from the bytes the loop just received (a window, no copy into a memory BIO), and writes
// the records it makes into one buffer the loop sends from (one copy, not two). Bytes of a window OpenSSL has
// not read when the session stops are kept in a buffer of the BIO's own. Not thread-safe: one session's owner
// uses it at a time, as it uses the session.
#ifndef CRECORDBIO_H
#define CRECORDBIO_H

#include <stddef.h>
#include <openssl/bio.h>

/// A new BIO (for `SSL_set_bio(ssl, bio, bio)`, which takes it over), or NULL when memory is short.
BIO *record_bio_new(void);

/// Lends OpenSSL `count` bytes at `bytes` to read until `record_bio_keep_input`: they must stay valid until then.
void record_bio_lend_input(BIO *bio, const void *bytes, size_t count);

/// Copies what OpenSSL has not read of the lent bytes into the BIO's own buffer and ends the loan.
/// Returns 0, or -1 when memory is short (the bytes are then lost and the session must fail).
int record_bio_keep_input(BIO *bio);

/// Ciphertext bytes OpenSSL has not read yet (lent and kept).
size_t record_bio_input_pending(BIO *bio);

/// The records OpenSSL wrote and the owner has not sent yet: `*count` bytes at the returned address.
const unsigned char *record_bio_output(BIO *bio, size_t *count);

/// Marks `count` bytes of the output sent.
void record_bio_consume_output(BIO *bio, size_t count);

/// Bytes the BIO has allocated for its two buffers.
size_t record_bio_capacity(BIO *bio);

/// Frees the BIO's buffers that hold nothing (a quiet session's); the next bytes allocate again.
void record_bio_release_buffers(BIO *bio);

#endif
