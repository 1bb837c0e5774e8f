#ifndef BOOKRULE_CCRYPTO_SHIM_H
#define BOOKRULE_CCRYPTO_SHIM_H

// libcrypto (OpenSSL 3) EVP digests and ciphers, for SHA-256 checks of downloads, Legado's md5Encode and
// java.createSymmetricCrypto. Only the EVP layer is used: the low-level SHA256_* / AES_* / DES_* calls are
// deprecated in OpenSSL 3 and warn.

#include <openssl/evp.h>
#include <openssl/err.h>
#include <openssl/provider.h>

/// Loads the "default" and "legacy" providers into the default library context, once per process.
/// Single DES (DES-ECB, DES-CBC) lives only in the legacy provider in OpenSSL 3; loading any provider
/// explicitly switches off the automatic fallback to "default", so both are loaded. The providers are
/// never unloaded (process lifetime). Returns 1 when the legacy provider is available, 0 otherwise.
static inline int bookrule_crypto_load_providers(void) {
    OSSL_PROVIDER *standard = OSSL_PROVIDER_load(NULL, "default");
    OSSL_PROVIDER *legacy = OSSL_PROVIDER_load(NULL, "legacy");
    (void)standard;
    return legacy != NULL ? 1 : 0;
}

/// The digest length in bytes (EVP_MD_size is a macro over EVP_MD_get_size).
static inline int bookrule_evp_md_size(const EVP_MD *md) {
    return EVP_MD_get_size(md);
}

/// The cipher block size in bytes (EVP_CIPHER_block_size is a macro).
static inline int bookrule_evp_cipher_block_size(const EVP_CIPHER *cipher) {
    return EVP_CIPHER_get_block_size(cipher);
}

/// The cipher key length in bytes.
static inline int bookrule_evp_cipher_key_length(const EVP_CIPHER *cipher) {
    return EVP_CIPHER_get_key_length(cipher);
}

/// The cipher IV length in bytes (0 for ECB).
static inline int bookrule_evp_cipher_iv_length(const EVP_CIPHER *cipher) {
    return EVP_CIPHER_get_iv_length(cipher);
}

#endif
