import CCardFlowLibCrypto

/// An OpenSSL 3 `EVP_CIPHER` fetched once from the default provider and shared for the life of the process.
///
/// Each operation creates its own `EVP_CIPHER_CTX`, so no mutable OpenSSL state is ever shared.
final class OpenSSLCipherAlgorithm: Sendable {
    /// Three-key triple DES (EDE) in ECB mode, 24-byte key.
    static let desEDE3ECB = OpenSSLCipherAlgorithm(name: "DES-EDE3-ECB")
    /// Three-key triple DES (EDE) in CBC mode, 24-byte key, 8-byte IV.
    static let desEDE3CBC = OpenSSLCipherAlgorithm(name: "DES-EDE3-CBC")

    /// OpenSSL's algorithm name.
    let name: String
    // An immutable EVP_CIPHER, which OpenSSL 3 documents as safe to share between threads.
    nonisolated(unsafe) private let cipher: OpaquePointer?
    private let fetchFailure: String?

    private init(name: String) {
        self.name = name
        let fetched = EVP_CIPHER_fetch(nil, name, nil)
        self.cipher = fetched
        self.fetchFailure = fetched == nil ? OpenSSLCipherAlgorithm.drainErrors() : nil
    }

    deinit {
        if let cipher { EVP_CIPHER_free(cipher) }
    }

    /// Runs one complete encryption or decryption with padding disabled.
    ///
    /// - Parameters:
    ///   - key: exactly the key length the algorithm expects (validated by the caller).
    ///   - iv: the IV for chaining modes, `nil` for ECB.
    ///   - encrypt: `true` to encrypt, `false` to decrypt.
    ///   - input: a whole number of blocks (validated by the caller).
    func run(key: [UInt8], iv: [UInt8]?, encrypt: Bool, input: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        let operation = "\(name) \(encrypt ? "encrypt" : "decrypt")"
        guard let cipher else {
            throw .openSSLFailure(operation: operation, message: fetchFailure ?? "EVP_CIPHER_fetch failed")
        }
        if input.isEmpty { return [] }
        guard let context = EVP_CIPHER_CTX_new() else {
            throw .openSSLFailure(operation: operation, message: Self.drainErrors())
        }
        defer { EVP_CIPHER_CTX_free(context) }

        var output = [UInt8](repeating: 0, count: input.count + 32)
        var failedStep: String?
        var updateLength: Int32 = 0
        var finalLength: Int32 = 0
        key.withUnsafeBufferPointer { keyBytes in
            let initialized: Int32
            if let iv {
                initialized = iv.withUnsafeBufferPointer { ivBytes in
                    EVP_CipherInit_ex2(context, cipher, keyBytes.baseAddress, ivBytes.baseAddress, encrypt ? 1 : 0, nil)
                }
            } else {
                initialized = EVP_CipherInit_ex2(context, cipher, keyBytes.baseAddress, nil, encrypt ? 1 : 0, nil)
            }
            guard initialized == 1 else { failedStep = "EVP_CipherInit_ex2"; return }
            guard EVP_CIPHER_CTX_set_padding(context, 0) == 1 else { failedStep = "EVP_CIPHER_CTX_set_padding"; return }
            output.withUnsafeMutableBufferPointer { outputBytes in
                input.withUnsafeBufferPointer { inputBytes in
                    guard
                        EVP_CipherUpdate(
                            context, outputBytes.baseAddress, &updateLength,
                            inputBytes.baseAddress, Int32(inputBytes.count)) == 1
                    else {
                        failedStep = "EVP_CipherUpdate"; return
                    }
                    guard EVP_CipherFinal_ex(context, outputBytes.baseAddress! + Int(updateLength), &finalLength) == 1
                    else {
                        failedStep = "EVP_CipherFinal_ex"; return
                    }
                }
            }
        }
        if let failedStep {
            throw .openSSLFailure(operation: "\(operation) (\(failedStep))", message: Self.drainErrors())
        }
        return Array(output[0..<Int(updateLength + finalLength)])
    }

    /// Pops every queued OpenSSL error of this thread and joins their error strings.
    static func drainErrors() -> String {
        var messages: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages.isEmpty ? "unknown OpenSSL error" : messages.joined(separator: "; ")
    }
}
