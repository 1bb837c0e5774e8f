import CCrypto

/// Loads OpenSSL 3's "default" and "legacy" providers once per process.
///
/// Single DES exists only in the legacy provider (without it `EVP_CipherInit_ex` fails with "unsupported"),
/// and loading one provider by hand switches off the implicit default, so both are loaded together. A
/// `static let` is initialised exactly once, thread-safely, on first use; the providers stay loaded for the
/// life of the process, so nothing is freed.
package enum CryptoProviders {
    /// True when the legacy provider (single DES) loaded; on Debian it is in libssl3's `ossl-modules/`.
    package static let legacyAvailable: Bool = bookrule_crypto_load_providers() == 1
}
