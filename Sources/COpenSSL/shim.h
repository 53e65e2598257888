// The machine's own OpenSSL 3 (Debian's libssl-dev): a C library of the operating system, not a package.
// Swift cannot import OpenSSL's function-like macros; the few we need are wrapped below as static inline
// functions (see docs/modules.md, "COpenSSL").
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>

static inline long copenssl_ctx_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }
static inline int copenssl_ctx_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}
static inline int copenssl_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}
static inline int copenssl_ctx_set1_groups_list(SSL_CTX *ctx, const char *list) {
    return (int)SSL_CTX_set1_groups_list(ctx, list);
}
static inline unsigned long long copenssl_op_ignore_unexpected_eof(void) { return SSL_OP_IGNORE_UNEXPECTED_EOF; }
static inline unsigned long long copenssl_op_no_renegotiation(void) { return SSL_OP_NO_RENEGOTIATION; }
static inline long copenssl_mode_partial_write_moving_buffer(void) {
    return SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER;
}
// Memory BIOs: how many bytes wait in one (BIO_ctrl_pending is a function, but the mem BIO's EOF switch is a macro).
static inline long copenssl_bio_set_mem_eof_return(BIO *bio, int value) { return BIO_set_mem_eof_return(bio, value); }
static inline long copenssl_ctx_set_session_cache_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_session_cache_mode(ctx, mode);
}
static inline unsigned long long copenssl_op_no_tickets(void) { return SSL_OP_NO_TICKET; }
static inline int copenssl_ssl_error_code(unsigned long error) { return ERR_GET_REASON(error); }
// The bytes a memory BIO has allocated (its BUF_MEM's `max`; BIO_get_mem_ptr is a macro): tests check that a quiet
// session holds none.
static inline size_t copenssl_bio_mem_capacity(BIO *bio) {
    BUF_MEM *memory = NULL;
    BIO_get_mem_ptr(bio, &memory);
    return memory != NULL ? memory->max : 0;
}
